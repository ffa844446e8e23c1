#!/usr/bin/env python
"""Run tests/test_real_fixtures.py and print how many real-world entries pass, per file.

    .venv/bin/python tools/fixture_report.py

"passed" counts entries whose test passed: byte-exact round trips, and documented-broken entries
rejected (or, for the two well-formed negative scenarios, caught by their own check). Entries of
APIs we do not ship are skipped. Exit status: 0 when nothing failed, 1 otherwise, 2 without data.
"""

from __future__ import annotations

import re
import sys
from collections import Counter, defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TEST = ROOT / "tests" / "test_real_fixtures.py"
ENTRY_ID = re.compile(r"::test_real_entry\[([^:\]]+):(\d+):")


class Collector:
    """Final outcome and check kind of every test_real_entry case."""

    def __init__(self) -> None:
        self.outcome: dict[tuple[str, int], str] = {}
        self.check: dict[tuple[str, int], str] = {}
        self.other_failures: list[str] = []

    def pytest_runtest_logreport(self, report) -> None:
        match = ENTRY_ID.search(report.nodeid)
        if match is None:
            if report.failed:
                self.other_failures.append(report.nodeid)
            return
        key = (match.group(1), int(match.group(2)))
        previous = self.outcome.get(key, "passed")
        if report.failed or previous == "failed":
            self.outcome[key] = "failed"
        elif report.skipped or previous == "skipped":
            self.outcome[key] = "skipped"
        else:
            self.outcome[key] = "passed"
        check = dict(report.user_properties).get("check")
        if check:
            self.check[key] = check


def main() -> int:
    collector = Collector()
    code = pytest.main(
        ["-p", "no:terminal", "-p", "no:cacheprovider", "-o", "addopts=", str(TEST)],
        plugins=[collector],
    )
    if not collector.outcome:
        print(
            f"real fixtures: no entries ran (pytest exit {int(code)}; is ../shared/kafka-reference present?)"
        )
        return 2

    by_file: dict[str, Counter] = defaultdict(Counter)
    for key, outcome in collector.outcome.items():
        by_file[key[0]][outcome] += 1
        if outcome == "passed":
            by_file[key[0]]["passed: " + collector.check.get(key, "?")] += 1
    passed = sum(c["passed"] for c in by_file.values())
    total = len(collector.outcome)
    print(f"real fixtures: {passed} passed / {total} total (by file)")
    for name in sorted(by_file):
        c = by_file[name]
        n = c["passed"] + c["skipped"] + c["failed"]
        kinds = ", ".join(
            f"{c[k]} {k[len('passed: '):]}" for k in sorted(c) if k.startswith("passed: ")
        )
        line = f"  {name}: {c['passed']} passed / {n}"
        if kinds:
            line += f" ({kinds})"
        if c["skipped"]:
            line += f"; {c['skipped']} skipped (API not shipped)"
        if c["failed"]:
            line += f"; {c['failed']} FAILED"
        print(line)
    failed = sum(c["failed"] for c in by_file.values())
    if collector.other_failures:
        print(f"  other tests in the module failed: {', '.join(collector.other_failures)}")
    return 1 if failed or collector.other_failures else 0


if __name__ == "__main__":
    sys.exit(main())
