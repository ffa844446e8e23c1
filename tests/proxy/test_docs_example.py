"""docs/proxy.md's example runs as it is and prints what the page says it prints."""

from __future__ import annotations

import re
import subprocess
import sys

from conftest import ROOT


def test_the_example_of_the_proxy_page_runs(tmp_path):
    page = (ROOT / "docs" / "proxy.md").read_text(encoding="utf-8")
    code = re.search(r"```python\n(.*?)```", page, re.S).group(1)
    script = tmp_path / "example.py"
    script.write_text(code, encoding="utf-8")
    run = subprocess.run(
        [sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0 and run.stderr == "", run.stderr
    assert run.stdout.splitlines() == ["seen by the proxy", "broker told as the proxy: True"]
    printed = re.search(r"It prints (.*)\.", page).group(1)
    assert re.findall(r"`([^`]*)`", printed) == run.stdout.splitlines()
