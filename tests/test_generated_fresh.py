"""The generated package in the repo is what the generator makes from schemas/ today."""

from __future__ import annotations

import subprocess
import sys

import pytest

from conftest import ROOT


def test_generated_code_is_up_to_date():
    run = subprocess.run(
        [sys.executable, "-m", "codegen", "--check"], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert run.returncode == 0, run.stderr


@pytest.mark.slow  # over ten seconds: the slow tier (.ci/run)
def test_generation_is_deterministic(tmp_path):
    """Two runs (different worker counts) write byte-identical packages."""
    from codegen.generate import generate

    small = [ROOT / "schemas" / "kafka" / n for n in ("BrokerHeartbeatRequest.json", "LeaderAndIsrRequest.json")]
    one = generate(small, "pkg", relative_to=ROOT, jobs=1)
    two = generate(list(reversed(small)), "pkg", relative_to=ROOT, jobs=2)
    assert one == two
