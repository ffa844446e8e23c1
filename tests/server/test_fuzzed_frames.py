"""The project's fuzzer (tools/fuzz.py: its seeds and mutations) over sockets: request bodies
mutated as the decoder fuzzing mutates them, each sent with a valid header and followed by a
valid Metadata request on the same connection. Every connection ends with that answer or is
closed by the server, never hangs, and the server serves others throughout."""

from __future__ import annotations

import asyncio
import importlib.util
import random
import sys

import pytest

from conftest import ROOT
from kafka_meta_proto import message_class, protocol, response_class
from kafka_meta_proto.server import Server
from server.peer import (
    MetadataRequest,
    RawPeer,
    echo_topic,
    metadata_for,
    run,
    serving,
    still_serving,
)

pytestmark = pytest.mark.slow  # a few thousand connections: minutes on a shared machine

NAMES = ["ProduceRequest", "FetchRequest", "ListOffsetsRequest", "MetadataRequest"]
NAMES += ["FindCoordinatorRequest", "JoinGroupRequest", "CreateTopicsRequest", "ApiVersionsRequest"]
INPUTS, AT_ONCE, LAST_ID = 1600, 40, 2**31 - 1
RequestHeader = message_class("RequestHeader")


@pytest.fixture(scope="module")
def fuzz():
    spec = importlib.util.spec_from_file_location("kmp_fuzz_tool_net", ROOT / "tools" / "fuzz.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look the module up by name
    spec.loader.exec_module(module)
    yield module
    sys.modules.pop(spec.name, None)


def fuzzed_frames(fuzz, seed: int) -> list[bytes]:
    corpus = fuzz.build_corpus(seed, only=NAMES)
    rng = random.Random(f"server-fuzz/{seed}")
    frames = []
    for i in range(INPUTS):
        name, version = target = rng.choice(corpus.targets)
        body, _ = fuzz.mutate(rng.choice(corpus.seeds[target]), rng, corpus, target)
        cls = message_class(name)
        header = RequestHeader(
            request_api_key=cls.API_KEY, request_api_version=version, correlation_id=i
        )
        header.client_id = "fuzz"
        payload = header.encode(2 if cls.is_flexible(version) else 1) + body
        frames.append(protocol.frame(payload))
    return frames


async def outcome(server: Server, frame: bytes) -> str:
    """ "answered" when the Metadata after the fuzzed frame is answered, "closed" otherwise."""
    peer = await RawPeer.open(server)
    try:
        await peer.send(frame + protocol.encode_request(metadata_for("after"), 12, LAST_ID, "x"))
        while True:
            answer = await asyncio.wait_for(peer.frame(), 30)
            if answer[4:8] == LAST_ID.to_bytes(4, "big"):
                return "answered"
    except (asyncio.IncompleteReadError, ConnectionError):
        return "closed"
    finally:
        peer.close()


def test_fuzzed_request_frames_over_sockets(fuzz):
    frames = fuzzed_frames(fuzz, 11)

    async def scenario():
        server = Server()

        async def default_answer(request):  # may not encode at every version: then closed
            return response_class(request.api_key)()

        for name in NAMES[:-1]:
            server.handle(message_class(name), default_answer)
        server.handle(MetadataRequest, echo_topic)
        outcomes = []
        async with serving(server):
            for start in range(0, len(frames), AT_ONCE):
                batch = frames[start : start + AT_ONCE]
                outcomes += await asyncio.gather(*(outcome(server, f) for f in batch))
                await still_serving(server)
        return outcomes

    outcomes = run(scenario())
    assert len(outcomes) == INPUTS and set(outcomes) == {"answered", "closed"}
