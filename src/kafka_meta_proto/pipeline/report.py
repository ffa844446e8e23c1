"""The printed report: the files with their record accounting, the typed tables, the audits.

Also how a local output directory tells a finished audit from an interrupted one: ``begin_output``
removes the last run's report files and leaves the INCOMPLETE_MARKER file, the report files are
written last, each at once (``write_atomically``), and ``finish_output`` removes the marker. An
output holding the marker, or no report.txt, is the work of a run that did not finish.
"""

from __future__ import annotations

import os

MAX_FILES = 40
EXAMPLES = 20  # as job.EXAMPLES
REPORT_FILES = ("report.txt", "report.json")
INCOMPLETE_MARKER = "_AUDIT_INCOMPLETE"


def begin_output(directory: str) -> str:
    """Mark a local output directory as being written (the marker's path is returned)."""
    os.makedirs(directory, exist_ok=True)
    for name in REPORT_FILES:  # a report left by an earlier run would describe tables being replaced
        try:
            os.remove(os.path.join(directory, name))
        except FileNotFoundError:
            pass
    marker = os.path.join(directory, INCOMPLETE_MARKER)
    write_atomically(marker, "An audit is writing here, or one was interrupted or failed: the tables are not\n"
                             "complete. A finished run removes this file and leaves report.txt.\n")  # fmt: skip
    return marker


def finish_output(marker: str) -> None:
    os.remove(marker)


def write_atomically(path: str, text: str) -> None:
    """Write ``text`` to ``path`` so that the file is either absent, as before, or whole."""
    partial = f"{path}.partial"
    with open(partial, "w", encoding="utf-8") as f:
        f.write(text)
    os.replace(partial, path)


def table(headers: list[str], rows: list[list], align: str | None = None) -> list[str]:
    """A plain text table; ``align`` has one ``l`` or ``r`` per column."""
    cells = [[str(h) for h in headers]] + [["" if c is None else str(c) for c in row] for row in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(headers))]
    align = align or "l" * len(headers)

    def line(row):
        return "  ".join(c.rjust(w) if a == "r" else c.ljust(w) for c, w, a in zip(row, widths, align)).rstrip()

    return [line(cells[0]), "  ".join("-" * w for w in widths)] + [line(r) for r in cells[1:]]


def _n(x: int) -> str:
    return f"{x:,}"


def render(report, all_files: bool = False, max_files: int = MAX_FILES) -> str:
    """The audit's text report: what was read, the files, the record types, the audits and some
    violations, then the verdict."""
    files = report.files
    total_bytes = sum(f.bytes for f in files)
    rate = report.records_read / report.seconds if report.seconds else 0
    out = [
        f"kafka-meta-proto audit: {len(report.clusters)} cluster(s), {len(files)} files ({total_bytes / 1e6:.1f} MB), "
        f"{_n(report.records_read)} records in {report.seconds:.1f} s ({_n(int(rate))} records/s) "
        f"on {report.master}, {report.units} units in {report.partitions} tasks",
        f"output: {report.out}",
        "",
    ]  # fmt: skip
    out += _files_section(report, all_files, max_files)
    out += _types_section(report)
    out += _audits_section(report)
    out += _violations_section(report)
    verdict = "every record accounted for" if report.balanced else "RECORD COUNTS DO NOT BALANCE"
    out.append(f"{verdict}; {_n(report.violations)} violation(s)")
    phases = ", ".join(f"{name.split(' (')[0].split(' in ')[0]} {sec:.1f} s" for name, sec in report.phases)
    out.append(f"phases: {phases}")
    return "\n".join(out) + "\n"


def _files_section(report, all_files: bool, max_files: int) -> list[str]:
    """Each file's counts; past ``max_files``, the files with problems first and the rest summed."""
    files = report.files
    shown = files
    hidden = []
    if not all_files and len(files) > max_files:
        shown = [f for f in files if f.issues or not f.balanced]
        rest = [f for f in files if f not in shown]
        shown += rest[: max(0, max_files - len(shown))]
        hidden = [f for f in files if f not in shown]
        shown.sort(key=lambda f: (f.cluster, f.file))
    rows = [[f.cluster, f.file, f.kind, _n(f.batches), _n(f.records_read), _n(f.records_written),
             _n(f.records_reported), "yes" if f.balanced else "NO", f.status + (f", {f.bytes_unreadable} bytes unreadable" if f.bytes_unreadable else "")]
            for f in shown]  # fmt: skip
    if hidden:
        rows.append([f"... {len(hidden)} more files", "", "", _n(sum(f.batches for f in hidden)),
                     _n(sum(f.records_read for f in hidden)), _n(sum(f.records_written for f in hidden)),
                     _n(sum(f.records_reported for f in hidden)), "yes" if all(f.balanced for f in hidden) else "NO",
                     "ok" if not any(f.issues for f in hidden) else "see files table"])  # fmt: skip
    rows.append(["TOTAL", "", "", _n(sum(f.batches for f in files)), _n(report.records_read), _n(report.records_written),
                 _n(report.records_reported), "yes" if all(f.balanced for f in files) else "NO",
                 f"{sum(1 for f in files if f.issues)} quarantined"])  # fmt: skip
    headers = ["cluster", "file", "kind", "batches", "read", "written", "reported", "balanced", "status"]
    return ["Files (read = written + reported)", *table(headers, rows, "lllrrrrll"), ""]


def _types_section(report) -> list[str]:
    rows = [[t, v["table"], _n(v["records"]), _n(v["typed"]), "yes" if v["records"] == v["typed"] else "NO"]
            for t, v in report.types.items()]  # fmt: skip
    headers = ["type", "typed table", "records", "typed rows", "equal"]
    return ["Record types (records table = typed table)", *table(headers, rows, "llrrl"), ""]


def _audits_section(report) -> list[str]:
    rows = []
    for name, a in report.audits.items():
        rows.append([name, _n(a["violations"]), _n(a["unverifiable"]), ", ".join(a["clusters"]) or "-",
                     "; ".join(f"{c} {v['violation']}" + (f"(+{v['unverifiable']}?)" if v["unverifiable"] else "")
                               for c, v in a["by_check"].items() if v["violation"] or v["unverifiable"]) or "clean"])  # fmt: skip
    headers = ["audit", "violations", "unverifiable", "clusters", "findings"]
    return ["Audits", *table(headers, rows, "lrrll"), ""]


def _violations_section(report) -> list[str]:
    if not report.examples:
        return []
    # file: the segment or snapshot the violating record was read from ("-" when the
    # violation belongs to no one file, e.g. a gap between two files)
    rows = [[e["audit"], e["check"], e["cluster"], e.get("file") or "-", e["offset"], e["detail"]]
            for e in report.examples]  # fmt: skip
    headers = ["audit", "check", "cluster", "file", "offset", "detail"]
    heading = f"Violations (up to {EXAMPLES} per audit; all of them in {report.out}/violations)"
    return [heading, *table(headers, rows, "llllrl"), ""]
