"""docs/diskless.md's example of several coordinators on the fake cluster runs as it is and prints
what the page says it prints."""

from __future__ import annotations

import re
import subprocess
import sys

from conftest import ROOT


def test_the_scaling_example_of_the_diskless_page_runs(tmp_path):
    page = (ROOT / "docs" / "diskless.md").read_text(encoding="utf-8")
    section = page[page.index("## 9. Assigning"):]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    script = tmp_path / "example.py"
    script.write_text(code, encoding="utf-8")
    run = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0 and run.stderr == "", run.stderr
    assert run.stdout.splitlines() == ["mapped {0: 0, 1: 1, 2: 2, 3: 0}", "coordinators [0, 1, 2, 0]", "errors [0, 16]"]
    printed = re.search(r"It prints (.*?):\s+coordinator 0 serves", section, re.S).group(1)
    assert re.findall(r"`([^`]*)`", printed) == run.stdout.splitlines()
