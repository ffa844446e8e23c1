"""docs/testing.md's examples are a user's test file: written out as they stand and run by pytest
in a directory of their own, with the fixtures the installed package gives every session."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from conftest import ROOT


@pytest.mark.slow  # a pytest session of its own and librdkafka: over ten seconds
def test_the_examples_of_the_testing_page_pass_as_a_users_tests(tmp_path):
    pytest.importorskip("confluent_kafka", reason="the page's example uses confluent-kafka")
    page = (ROOT / "docs" / "testing.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", page, re.S)
    assert len(blocks) == 2
    (tmp_path / "test_users_code.py").write_text("\n\n".join(blocks), encoding="utf-8")
    run = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                          "-p", "no:randomly", "test_users_code.py"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=240)  # fmt: skip
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    assert "2 passed" in run.stdout
