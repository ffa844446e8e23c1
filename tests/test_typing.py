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
# The public API (what the package's __init__ exports and the modules the generated code imports,
# framing, metadata record values, the log reader and writer) and the command line's entry and
# command modules, and the tools' modules and packages behind the commands (TOOL_MODULES,
# TOOL_PACKAGES). The Spark pipeline (audit) is not held to --strict yet: it is followed silently.
API_MODULES = [
    "kafka_meta_proto",
    "kafka_meta_proto.errors",
    "kafka_meta_proto.message",
    "kafka_meta_proto.registry",
    "kafka_meta_proto.registries",
    "kafka_meta_proto.uuid",
    "kafka_meta_proto.schema_info",
    "kafka_meta_proto.wire",
    "kafka_meta_proto._json",
    "kafka_meta_proto.protocol",
    "kafka_meta_proto.cli",
]
# The command-line tools' modules and packages held to --strict (issue 27, item 4).
TOOL_MODULES = [
    "kafka_meta_proto.strategies",
    "kafka_meta_proto.extras",
    "kafka_meta_proto.json_plan",
    "kafka_meta_proto.codec",
]
TOOL_PACKAGES = ["kafka_meta_proto.simulator", "kafka_meta_proto.tools"]
API_PACKAGES = [
    "kafka_meta_proto.kraft",
    "kafka_meta_proto.log",
    "kafka_meta_proto.commands",
    "kafka_meta_proto.messages",
    "kafka_meta_proto.net",
    "kafka_meta_proto.client",
    "kafka_meta_proto.server",
    "kafka_meta_proto.proxy",
    "kafka_meta_proto.testing",
    "kafka_meta_proto.diskless",
]

USER_SCRIPT = """
import uuid
from typing import Any

from kafka_meta_proto import Message, Uuid, message_class, protocol
from kafka_meta_proto.messages.broker_heartbeat_request import BrokerHeartbeatRequest
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
# uuid fields take what the constructor turns into a Uuid; the attribute is a Uuid
by_text: Uuid = FetchTopic(topic_id="MvDxzVmcRsaTz33bUuRU6A").topic_id
by_uuid = FetchTopic(topic_id=uuid.uuid4(), partitions=[])
dirs = BrokerHeartbeatRequest(offline_log_dirs=["MvDxzVmcRsaTz33bUuRU6A"], cordoned_log_dirs=None)
ids: list[Uuid] = dirs.offline_log_dirs
# decode_response with the response class gives its body that class
frame = protocol.encode_response(MetadataResponse(), 12, 7)
typed_body: MetadataResponse = protocol.decode_response(frame, MetadataResponse, 12).body
brokers: list[MetadataResponse.MetadataResponseBroker] = typed_body.brokers
any_body: Message = protocol.decode_response(frame, 3, 12).body

wrong_int = FetchRequest(max_wait_ms="500")  # a str where an int belongs
wrong_struct = FetchRequest(topics=[FetchRequest.ForgottenTopic()])  # a struct of another kind
wrong_positional = FetchRequest(-1, 500)  # constructors take keywords only
wrong_uuid = FetchTopic(topic_id=12)  # a uuid is a Uuid, its text form or a uuid.UUID
wrong_body = protocol.decode_response(frame, 3, 12).body.brokers  # a Message, unless the class is given
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


@pytest.mark.slow  # over ten seconds: the slow tier (.ci/run)
@needs_mypy
def test_mypy_strict_on_the_api_the_generated_classes_and_a_user_script(tmp_path):
    script = tmp_path / "user_script.py"
    text = textwrap.dedent(USER_SCRIPT).lstrip("\n")
    script.write_text(text, encoding="utf-8")
    lines = text.splitlines()

    def line_of(name: str) -> int:
        return 1 + next(i for i, line in enumerate(lines) if line.startswith(name + " ="))

    wrong_int, wrong_struct = line_of("wrong_int"), line_of("wrong_struct")
    wrong_positional, wrong_uuid, wrong_body = line_of("wrong_positional"), line_of("wrong_uuid"), line_of("wrong_body")
    cmd = [
        sys.executable,
        "-m",
        "mypy",
        "--strict",
        "--no-error-summary",
        # what the listed modules import is read for its types, not held to --strict
        "--follow-imports=silent",
        "--cache-dir",
        str(tmp_path / "cache"),
    ]
    for module in API_MODULES + TOOL_MODULES:
        cmd += ["-m", module]
    for package in API_PACKAGES + TOOL_PACKAGES:
        cmd += ["-p", package]
    cmd += ["-m", "user_script"]  # mypy takes modules or files, not both
    # Run from the top of the checkout with only the user script's folder on MYPYPATH: the
    # package is found through pyproject.toml's [tool.mypy] mypy_path, as in the dev install
    # (whose editable import hook mypy cannot follow), so that setting is tested too.
    env = {**os.environ, "MYPYPATH": str(tmp_path)}
    env.pop("PYTHONPATH", None)
    run = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    errors = [line for line in run.stdout.splitlines() if ": error:" in line]
    script_name = str(script)
    inside = [line for line in errors if not line.startswith(script_name)]
    assert not inside, "mypy --strict finds errors in the package:\n" + "\n".join(inside[:50])
    user: dict[int, str] = {}  # line -> its errors (a line may have several)
    for line in errors:
        if line.startswith(script_name):
            number = int(line[len(script_name) :].split(":")[1])
            user[number] = user.get(number, "") + line.split(": error: ")[1] + "\n"
    assert set(user) == {wrong_int, wrong_struct, wrong_positional, wrong_uuid, wrong_body}, run.stdout + run.stderr
    assert (
        'Argument "max_wait_ms" to "FetchRequest" has incompatible type "str"; expected "int"'
        in user[wrong_int]
    )
    assert '"ForgottenTopic"' in user[wrong_struct] and '"FetchTopic"' in user[wrong_struct]
    assert "Too many positional arguments" in user[wrong_positional]
    assert '"topic_id"' in user[wrong_uuid]
    assert '"Message" has no attribute "brokers"' in user[wrong_body]
