"""``audit`` under Ctrl-C and while it writes a large sample: it stops at once with exit 130 and one
line, leaves an output that says it is incomplete (the marker, no report), and says how far the
sample has got against its expected size."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from kafka_meta_proto.pipeline import report as report_mod
from kafka_meta_proto.pipeline import sample

INTERRUPTED = "kafka-meta-proto audit: interrupted"


# --- the output's completeness -----------------------------------------------------------------


def test_output_is_marked_incomplete_until_finished(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "report.txt").write_text("an old run's report")
    (out / "report.json").write_text("{}")
    marker = report_mod.begin_output(str(out))
    assert Path(marker) == out / report_mod.INCOMPLETE_MARKER and Path(marker).is_file()
    assert not (out / "report.txt").exists() and not (out / "report.json").exists()
    report_mod.write_atomically(str(out / "report.txt"), "whole")
    assert (out / "report.txt").read_text() == "whole" and not (out / "report.txt.partial").exists()
    report_mod.finish_output(marker)
    assert sorted(p.name for p in out.iterdir()) == ["report.txt"]


def test_an_atomic_write_cut_short_leaves_the_old_file(tmp_path, monkeypatch):
    path = tmp_path / "report.txt"
    path.write_text("before")

    def fail(*args):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", fail)
    with pytest.raises(KeyboardInterrupt):
        report_mod.write_atomically(str(path), "after")
    assert path.read_text() == "before"


# --- the sample's progress and size --------------------------------------------------------------


def test_sample_progress_lines_and_the_size_estimate(tmp_path, monkeypatch):
    monkeypatch.setattr(sample, "PROGRESS_EVERY", 0.05)
    lines = []
    records, clusters = 120_000, 3
    sample.write_sample(
        tmp_path / "s", records=records, clusters=clusters, jobs=1, progress=lines.append
    )
    written = sample.directory_bytes(tmp_path / "s")
    expected = sample.estimated_bytes(records, clusters)
    assert abs(written - expected) / written < 0.1, (written, expected)
    assert lines and all("[audit] writing the sample: " in line and f"of about {expected / 1e6:.1f} MB" in line
                         for line in lines)  # fmt: skip
    shown = [float(line.split("sample: ")[1].split(" MB")[0]) for line in lines]
    assert shown == sorted(shown) and shown[-1] <= written / 1e6


def test_no_progress_means_no_progress_thread(tmp_path):
    before = threading.active_count()
    sample.write_sample(tmp_path / "s", records=600, clusters=2, jobs=1)
    assert threading.active_count() == before


# --- Ctrl-C, in real runs ------------------------------------------------------------------------


def start_audit(out: Path, *args: str) -> tuple[subprocess.Popen, list[str]]:
    """``kafka-meta-proto audit`` in its own session, as a terminal's foreground job; its stderr
    lines gathered as they come."""
    process = subprocess.Popen([sys.executable, "-m", "kafka_meta_proto.cli", "audit", "--out", str(out), *args],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)  # fmt: skip
    lines: list[str] = []
    threading.Thread(target=lambda: lines.extend(process.stderr), daemon=True).start()
    return process, lines


def press_ctrl_c(process: subprocess.Popen) -> None:
    """SIGINT to the whole process group (the JVM and Spark's workers too), as a terminal sends
    it, then wait for the command to exit (the timeout only stops a hang)."""
    os.killpg(process.pid, signal.SIGINT)
    process.wait(timeout=300)


def wait_for_line(
    lines: list[str], text: str, process: subprocess.Popen, timeout: float = 300
) -> int:
    deadline = time.monotonic() + timeout
    while not any(text in line for line in lines):
        assert process.poll() is None, "".join(lines)
        assert time.monotonic() < deadline, "".join(lines)
        time.sleep(0.1)
    return len(lines)


def wait_until_gone(pgid: int, timeout: float = 20) -> None:
    """Until no process of the group is left (the JVM and Spark's workers end with the driver,
    the sample's workers with the pool)."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return
        assert time.monotonic() < deadline, "processes of the interrupted audit are still running"
        time.sleep(0.2)


@pytest.mark.slow
@pytest.mark.parametrize("phase", ["listing input: done", "counting what was written: done"])
def test_ctrl_c_during_spark_stops_at_once_with_one_line(spark, tmp_path, phase):
    out = tmp_path / "out"
    process, lines = start_audit(out, "--sample-records", "60000", "--sample-clusters", "3")
    seen = wait_for_line(lines, phase, process)
    time.sleep(0.5)  # inside the next phase: Spark jobs are running
    press_ctrl_c(process)
    time.sleep(0.5)  # the reader thread catches up
    after = [line.rstrip("\n") for line in lines[seen:]]
    assert process.returncode == 130
    assert after == [INTERRUPTED], after  # no trace, no "done"
    assert process.stdout.read() == ""  # no report printed
    assert (out / report_mod.INCOMPLETE_MARKER).is_file()
    assert not (out / "report.txt").exists() and not (out / "report.json").exists()
    wait_until_gone(process.pid)


@pytest.mark.slow
def test_ctrl_c_while_writing_a_large_sample_stops_its_workers(tmp_path):
    out = tmp_path / "out"
    process, lines = start_audit(out, "--sample-records", "20000000")
    seen = wait_for_line(lines, "writing the built-in sample", process, timeout=60)
    time.sleep(2)
    press_ctrl_c(process)
    time.sleep(0.3)
    assert process.returncode == 130
    assert [line.rstrip("\n") for line in lines[seen:] if "writing the sample:" not in line] == [
        INTERRUPTED
    ]
    assert (out / report_mod.INCOMPLETE_MARKER).is_file()
    wait_until_gone(process.pid)


# --- the printed violations name their file ------------------------------------------------------


def test_printed_violations_have_a_file_column():
    from types import SimpleNamespace

    from kafka_meta_proto.pipeline.report import render

    examples = [
        {"audit": "topic-ids", "check": "reused", "cluster": "c1", "file": "__cluster_metadata-0/00000000000000000000.log",
         "offset": 41, "detail": "topic id reused"},
        {"audit": "log", "check": "gap", "cluster": "c1", "file": None, "offset": 7, "detail": "offsets 5-6 missing"},
    ]  # fmt: skip
    report = SimpleNamespace(clusters=["c1"], files=[], records_read=0, records_written=0, records_reported=0,
                             seconds=1.0, master="local[2]", units=0, partitions=0, out="/o", types={}, audits={},
                             examples=examples, balanced=True, violations=2, phases=[])  # fmt: skip
    lines = render(report).splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("Violations"))
    header, _, first, second = lines[start + 1 : start + 5]
    assert header.split() == ["audit", "check", "cluster", "file", "offset", "detail"]
    assert first.split()[:5] == [
        "topic-ids",
        "reused",
        "c1",
        "__cluster_metadata-0/00000000000000000000.log",
        "41",
    ]
    assert second.split()[:5] == ["log", "gap", "c1", "-", "7"]
