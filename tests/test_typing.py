"""The package is typed: it ships py.typed, its public API and every generated class pass
``mypy --strict``, and mypy catches a user's mistakes (a str where an int belongs, a struct of the
wrong kind in a list) while the correct uses type-check, with decode and friends returning the
class they are called on."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap

import pytest

from conftest import ROOT

SRC = ROOT / "src"
PACKAGE = SRC / "kafka_meta_proto"
# The public API (what the package's __init__ exports and the modules the generated code imports)
# and the generated classes; the CLI, shell, simulator and pipeline are applications, not API.
API_MODULES = [
    "kafka_meta_proto",
    "kafka_meta_proto.errors",
    "kafka_meta_proto.message",
    "kafka_meta_proto.registry",
    "kafka_meta_proto.uuid",
    "kafka_meta_proto.schema_info",
    "kafka_meta_proto.wire",
    "kafka_meta_proto._json",
]

USER_SCRIPT = """
from typing import Any

from kafka_meta_proto import Message, Uuid, message_class
from kafka_meta_proto.messages.fetch_request import FetchRequest, FetchTopic
from kafka_meta_proto.messages.metadata_response import MetadataResponse

request = FetchRequest(
    max_wait_ms=500,
    topics=[FetchRequest.FetchTopic(topic="t", partitions=[FetchRequest.FetchPartition(partition=0)])],
)
data: bytes = request.encode(12)
back: FetchRequest = FetchRequest.decode(data, 12)
first: FetchRequest.FetchTopic = back.topics[0]
same: FetchTopic = first
pair: tuple[FetchRequest, int] = FetchRequest.decode_from(data, 12)
as_json: dict[str, Any] = back.to_json(12)
again: FetchRequest = FetchRequest.from_json(as_json, 12)
size: int = again.size(12)
broker: MetadataResponse.MetadataResponseBroker = MetadataResponse.MetadataResponseBroker(port=9092)
cls: type[Message] = message_class("MetadataResponse")
decoded: Message = cls.decode(MetadataResponse().encode(12), 12)
topic_id: Uuid = Uuid("MvDxzVmcRsaTz33bUuRU6A")

wrong_int = FetchRequest(max_wait_ms="500")  # a str where an int belongs
wrong_struct = FetchRequest(topics=[FetchRequest.ForgottenTopic()])  # a struct of another kind
"""


def _mypy_available() -> bool:
    try:
        import mypy  # noqa: F401
    except ImportError:
        return False
    return True


needs_mypy = pytest.mark.skipif(
    not _mypy_available(), reason="mypy is not installed (pip install -e '.[dev]')"
)


def test_py_typed_is_shipped():
    assert (PACKAGE / "py.typed").is_file()
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert re.search(
        r'kafka_meta_proto = \[[^\]]*"py.typed"', pyproject
    ), "py.typed is not in package-data"


@needs_mypy
def test_mypy_strict_on_the_api_the_generated_classes_and_a_user_script(tmp_path):
    script = tmp_path / "user_script.py"
    text = textwrap.dedent(USER_SCRIPT).lstrip("\n")
    script.write_text(text, encoding="utf-8")
    lines = text.splitlines()
    wrong_int = 1 + next(i for i, line in enumerate(lines) if line.startswith("wrong_int"))
    wrong_struct = 1 + next(i for i, line in enumerate(lines) if line.startswith("wrong_struct"))
    cmd = [
        sys.executable,
        "-m",
        "mypy",
        "--strict",
        "--no-error-summary",
        "--cache-dir",
        str(tmp_path / "cache"),
    ]
    for module in API_MODULES:
        cmd += ["-m", module]
    cmd += [
        "-p",
        "kafka_meta_proto.messages",
        "-m",
        "user_script",
    ]  # mypy takes modules or files, not both
    env = {**os.environ, "MYPYPATH": os.pathsep.join([str(SRC), str(tmp_path)])}
    run = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    errors = [line for line in run.stdout.splitlines() if ": error:" in line]
    inside = [line for line in errors if not line.startswith("user_script.py")]
    assert not inside, "mypy --strict finds errors in the package:\n" + "\n".join(inside[:50])
    user = {
        int(line.split(":")[1]): line.split(": error: ")[1]
        for line in errors
        if line.startswith("user_script.py")
    }
    assert set(user) == {wrong_int, wrong_struct}, run.stdout + run.stderr
    assert (
        'Argument "max_wait_ms" to "FetchRequest" has incompatible type "str"; expected "int"'
        in user[wrong_int]
    )
    assert '"ForgottenTopic"' in user[wrong_struct] and '"FetchTopic"' in user[wrong_struct]
