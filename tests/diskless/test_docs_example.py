"""docs/diskless.md's walk from a coordinator to a commit and a find runs as it is and prints what
the page says it prints."""

from __future__ import annotations

from diskless.helpers import printed_in, run_page_example


def test_the_coordinator_example_of_the_diskless_page_runs(tmp_path):
    section, printed = run_page_example("## 8. The batch coordinator", tmp_path)
    assert printed == ["coordinator for writes: node 0", "assigned [0, 10]", "wal/0001 bytes 900+500: offsets 10-14 of 15"]
    assert printed_in(section, r"It prints (.*?)\: the two") == printed
