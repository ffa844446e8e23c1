"""docs/diskless.md's walk from a coordinator to a commit and a find runs as it is and prints what
the page says it prints."""

from __future__ import annotations

import re
import subprocess
import sys

from conftest import ROOT


def test_the_coordinator_example_of_the_diskless_page_runs(tmp_path):
    page = (ROOT / "docs" / "diskless.md").read_text(encoding="utf-8")
    section = page[page.index("## 8. The batch coordinator"):]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    script = tmp_path / "example.py"
    script.write_text(code, encoding="utf-8")
    run = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0 and run.stderr == "", run.stderr
    assert run.stdout.splitlines() == [
        "coordinator for writes: node 0", "assigned [0, 10]", "wal/0001 bytes 900+500: offsets 10-14 of 15"]
    printed = re.search(r"It prints (.*?)\: the two", section, re.S).group(1)
    assert re.findall(r"`([^`]*)`", printed) == run.stdout.splitlines()
