"""Generate classes for an RPC of your own (examples/schemas/Echo*.json) next to Kafka's, then frame
a request and its response with kafka_meta_proto.protocol through the new package's registry.

    python examples/custom_rpc.py

The generator needs the codegen extra (jinja2, black): pip install 'kafka-meta-proto[codegen]'.
"""

import importlib
import subprocess
import sys
import tempfile
from pathlib import Path

from kafka_meta_proto import protocol

SCHEMAS = Path(__file__).resolve().parent / "schemas"

with tempfile.TemporaryDirectory() as out:
    # kafka-meta-proto codegen, run as the module the command line runs
    subprocess.run([sys.executable, "-m", "kafka_meta_proto.cli", "codegen", "--schemas", str(SCHEMAS),
                    "--out", out, "--package", "echo_rpc", "--base", "kafka_meta_proto.messages"],
                   check=True, stdout=subprocess.DEVNULL)  # fmt: skip
    sys.path.insert(0, out)
    echo_rpc = importlib.import_module("echo_rpc")

    EchoRequest = echo_rpc.message_class("EchoRequest")
    EchoResponse = echo_rpc.message_class("EchoResponse")
    request = EchoRequest(message="hello", repeat=2, uppercase=True)
    frame = protocol.encode_request(
        request, 1, correlation_id=1, client_id="echo-client", registry=echo_rpc.REGISTRY
    )
    print(f"EchoRequest v1 frame: {len(frame)} bytes")

    # The new registry knows api key 1000 and, through its base, Kafka's headers and messages.
    received = protocol.decode_request(frame, registry=echo_rpc.REGISTRY)
    print(f"decoded: api key {received.header.request_api_key}, {received.body}")
    fetch = echo_rpc.REGISTRY.message_class("FetchRequest")
    print(f"Kafka's messages stay reachable: {fetch.__module__}.{fetch.__name__}")

    body = received.body
    text = body.message.upper() if body.uppercase else body.message
    reply = protocol.encode_response(EchoResponse(echoes=[text] * body.repeat), 1, correlation_id=1,
                                     registry=echo_rpc.REGISTRY)  # fmt: skip
    response = protocol.decode_response(
        reply, api_key=1000, api_version=1, registry=echo_rpc.REGISTRY
    )
    print(f"response: {response.body.echoes}")

    # Version 0 has no Uppercase field: a value other than its default cannot be written there.
    try:
        request.encode(0)
    except Exception as e:  # UnsupportedVersionError
        print(f"v0 refuses it: {type(e).__name__}: {e}")
