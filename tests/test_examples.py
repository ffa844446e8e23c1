"""The scripts in examples/ run as a user runs them (``python examples/x.py``) and print what
they say they do."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"


def run_example(name: str) -> str:
    # From another folder: an example must not depend on the checkout's top folder being importable.
    run = subprocess.run([sys.executable, str(EXAMPLES / name)], cwd=EXAMPLES, capture_output=True,
                         text=True, timeout=300)  # fmt: skip
    assert run.returncode == 0, run.stderr
    assert run.stderr == "", run.stderr
    return run.stdout


def test_every_example_is_tested():
    tested = {"request_frames.py", "read_metadata_log.py", "custom_rpc.py", "dump_log.py"}
    assert {p.name for p in EXAMPLES.glob("*.py")} == tested


def test_request_frames():
    out = run_example("request_frames.py").splitlines()
    assert re.fullmatch(r"request frame: \d+ bytes, [0-9a-f]{32}\.\.\.", out[0])
    assert out[1:] == [
        "api key 3 v12, correlation id 7, client 'example-client'",
        "topics asked for: ['orders', 'payments']",
        "response: correlation id 7, brokers [(1, 'broker-1', 9092)]",
    ]


def test_read_metadata_log():
    out = run_example("read_metadata_log.py").splitlines()
    assert (
        out[0]
        == "offset 1: BEGIN_TRANSACTION_RECORD v0 BeginTransactionRecord(name='Bootstrap records', unknown_tagged_fields=())"
    )
    assert out[1].startswith(
        "offset 2: FEATURE_LEVEL_RECORD v0 FeatureLevelRecord(name='metadata.version'"
    )
    count, common = re.fullmatch(r"(\d+) records; most common: (.*)", out[-1]).groups()
    assert int(count) > 200  # of the 300 asked for, less the control records
    assert "PARTITION_RECORD" in common


def test_custom_rpc():
    out = run_example("custom_rpc.py").splitlines()
    assert re.fullmatch(r"EchoRequest v1 frame: \d+ bytes", out[0])
    assert out[1] == ("decoded: api key 1000, EchoRequest(message='hello', repeat=2, uppercase=True, "
                      "unknown_tagged_fields=())")  # fmt: skip
    assert (
        out[2]
        == "Kafka's messages stay reachable: kafka_meta_proto.messages.fetch_request.FetchRequest"
    )
    assert out[3] == "response: ['HELLO', 'HELLO']"
    assert out[4].startswith("v0 refuses it: UnsupportedVersionError: ") and "uppercase" in out[4]


def test_dump_log():
    out = run_example("dump_log.py").splitlines()
    lines, payloads, status = map(
        int,
        re.fullmatch(r"(\d+) lines, (\d+) records with a payload, status (\d+)", out[0]).groups(),
    )
    assert status == 0 and payloads > 100 and lines > payloads
    assert out[1].startswith("Dumping ") and out[1].endswith("00000000000000000000.log")
    assert out[2] == "Log starting offset: 0"
    assert (
        out[3].startswith("| offset: 1 CreateTime: ")
        and '"type":"BEGIN_TRANSACTION_RECORD"' in out[3]
    )


def test_the_readme_opens_with_a_description_and_an_example_that_runs():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    lines = readme.splitlines()
    # The first paragraph is the long description's opening on a package index: what the library is.
    assert lines[2].startswith("Kafka's protocol messages and KRaft metadata records")
    assert "Set up a fresh machine and run the main job: `bash run.sh`" in lines[:10]
    assert "Run the tests: `bash test.sh`" in lines[:10]
    example = readme.split("```python\n", 1)[1].split("```", 1)[0]
    assert len(example.strip().splitlines()) == 5
    run = subprocess.run(
        [sys.executable, "-c", example], cwd=EXAMPLES, capture_output=True, text=True, timeout=120
    )
    assert run.returncode == 0, run.stderr
