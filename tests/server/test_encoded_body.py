"""A handler answering with a body it encoded itself (``EncodedBody``): the frame on the wire is
the one the response message would make, flexible version or not, and a body encoded at another
version than the request's closes the connection instead of sending a frame the peer misreads."""

from __future__ import annotations

import logging

import pytest

from kafka_meta_proto import protocol
from kafka_meta_proto.client import connect
from kafka_meta_proto.server import EncodedBody, RequestContext, Server
from server.peer import MetadataRequest, MetadataResponse, RawPeer, metadata_for, run, serving

FLEXIBLE, RIGID = 12, 8  # Metadata is flexible from v9


def answer_for(names: list[str]):
    topics = [MetadataResponse.MetadataResponseTopic(name=name, error_code=3) for name in names]
    return MetadataResponse(cluster_id="c", controller_id=7, topics=topics)


async def encoded_answer(request: RequestContext) -> EncodedBody:
    version = request.api_version
    body = answer_for([t.name for t in request.body.topics])
    return EncodedBody(body.API_KEY, version, body.is_flexible(version), body.encode(version))


@pytest.mark.parametrize("version", [RIGID, FLEXIBLE])
def test_an_encoded_body_goes_out_as_the_message_would(version):
    async def scenario():
        server = Server()
        server.handle(MetadataRequest, encoded_answer)
        frames = []
        async with serving(server):
            peer = await RawPeer.open(server)
            for correlation_id, name in enumerate(["a", "b"], start=1):
                await peer.request(metadata_for(name), version, correlation_id)
                frames.append(await peer.frame())
            peer.close()
        return frames

    frames = run(scenario())
    for correlation_id, (name, frame) in enumerate(zip(["a", "b"], frames), start=1):
        assert frame == protocol.encode_response(answer_for([name]), version, correlation_id)
        decoded = protocol.decode_response(frame, MetadataResponse, version)
        assert decoded.correlation_id == correlation_id
        assert [t.name for t in decoded.body.topics] == [name] and decoded.body.controller_id == 7


def test_encode_response_takes_an_encoded_body_at_its_version_only():
    body = answer_for(["t"])
    for version in (RIGID, FLEXIBLE):
        encoded = EncodedBody(3, version, body.is_flexible(version), body.encode(version))
        assert protocol.encode_response(encoded, version, 9) == protocol.encode_response(body, version, 9)
        other = FLEXIBLE if version == RIGID else RIGID
        with pytest.raises(ValueError, match=f"encoded at version {version} of api key 3"):
            protocol.encode_response(encoded, other, 9)


def test_a_body_encoded_at_another_version_closes_the_connection(caplog):
    async def wrong_version(request: RequestContext) -> EncodedBody:
        return EncodedBody(3, RIGID, False, answer_for(["x"]).encode(RIGID))

    async def scenario():
        server = Server()
        server.handle(MetadataRequest, wrong_version)
        async with serving(server):
            peer = await RawPeer.open(server)
            await peer.request(metadata_for("x"), FLEXIBLE, 4)
            assert await peer.closed_by_server()
            server.handlers.add(MetadataRequest, encoded_answer)
            async with await connect(*server.addresses[0]) as conn:  # the server serves on
                assert [t.name for t in (await conn.send(metadata_for("y"))).topics] == ["y"]

    with caplog.at_level(logging.WARNING, logger="kafka_meta_proto.server"):
        run(scenario())
    assert "the answer to correlation id 4 does not encode" in caplog.text
    assert f"encoded at version {RIGID} of api key 3 cannot answer at version {FLEXIBLE}" in caplog.text
