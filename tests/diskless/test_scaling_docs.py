"""docs/diskless.md's example of several coordinators on the fake cluster runs as it is and prints
what the page says it prints."""

from __future__ import annotations

from diskless.helpers import printed_in, run_page_example


def test_the_scaling_example_of_the_diskless_page_runs(tmp_path):
    section, printed = run_page_example("## 9. Assigning", tmp_path)
    assert printed == ["mapped {0: 0, 1: 1, 2: 2, 3: 0}", "coordinators [0, 1, 2, 0]", "errors [0, 16]"]
    assert printed_in(section, r"It prints (.*?):\s+coordinator 0 serves") == printed
