"""Hostile peers: garbage, a 2 GiB size, a truncated frame, a close in the middle of a request,
and the mutated request streams of the net tests sent over sockets. Each ends its own
connection, with the reason logged; the server goes on serving the others."""

from __future__ import annotations

import asyncio
import logging
import random
import socket
import struct

import pytest

from kafka_meta_proto import protocol, response_class
from kafka_meta_proto.client import connect
from kafka_meta_proto.server import Server
from net.test_hostile_streams import mutate, samples
from server.peer import (
    MetadataRequest,
    MetadataResponse,
    RawPeer,
    echo_topic,
    metadata_for,
    run,
    serving,
    still_serving,
)

TWO_GIB = (2**31 - 1).to_bytes(4, "big")


@pytest.mark.parametrize(
    "data, reason",
    [
        (TWO_GIB + b"\0" * 16, "over the limit of 104857600 bytes"),
        (b"\xff\xff\xff\xf0garbage", "negative frame size"),
        (b"\x00\x00\x00\x10" + b"\x00\x03" * 8, "does not decode"),
    ],
    ids=["2 GiB size", "negative size", "garbage frame"],
)
def test_a_bad_frame_closes_that_connection_with_a_logged_reason(data, reason, caplog):
    async def scenario():
        async with serving() as server:
            async with await connect(*server.addresses[0]) as bystander:
                peer = await RawPeer.open(server)
                await peer.send(data)
                assert await peer.closed_by_server()
                assert (await bystander.send(metadata_for("b"))).cluster_id == "b"
            await still_serving(server)

    with caplog.at_level(logging.WARNING, logger="kafka_meta_proto.server"):
        run(scenario())
    assert "closing the connection from ('127.0.0.1'" in caplog.text and reason in caplog.text


def test_a_peer_resetting_its_connection_is_no_warning(caplog):
    """A reset (a client closing with data unread, or killed) is how connections end every day:
    logged at INFO, not as a fault of the peer (it was a WARNING on standard error)."""

    async def scenario():
        async with serving() as server:
            peer = await RawPeer.open(server)
            await peer.request(metadata_for("r"), 12, 1)
            await peer.frame()
            sock = peer.writer.get_extra_info("socket")
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            peer.close()  # linger 0: the kernel sends RST
            while server.connections:
                await asyncio.sleep(0.01)
            await still_serving(server)

    with caplog.at_level(logging.INFO, logger="kafka_meta_proto.server"):
        run(scenario())
    assert not [r for r in caplog.records if r.levelno >= logging.WARNING], caplog.text


def test_a_truncated_frame_then_a_close_leaves_the_server_serving():
    async def scenario():
        async with serving() as server:
            peer = await RawPeer.open(server)
            frame = protocol.encode_request(metadata_for("cut"), 12, 1, "raw")
            await peer.send(frame[: len(frame) // 2])
            peer.close()
            await still_serving(server)
            while server.connections:  # the cut connection is let go
                await asyncio.sleep(0.01)

    run(scenario())


def test_a_peer_closing_while_its_handler_runs_cancels_it_and_others_go_on():
    async def scenario():
        started, cancelled = asyncio.Event(), asyncio.Event()

        async def stuck(request):
            if request.body.topics[0].name == "alive":
                return MetadataResponse(cluster_id="alive")
            started.set()
            try:
                await asyncio.Event().wait()
            finally:
                cancelled.set()

        server = Server()
        server.handle(MetadataRequest, stuck)
        async with serving(server):
            peer = await RawPeer.open(server)
            await peer.request(metadata_for("stuck"), 12, 1)
            await started.wait()
            peer.close()
            await cancelled.wait()
            await still_serving(server)

    run(scenario())


@pytest.mark.parametrize("seed", range(2))
def test_mutated_request_streams_over_sockets_never_take_the_server_down(seed):
    rng = random.Random(seed)
    streams = []
    for body, version in samples("request"):
        frame = protocol.encode_request(body, version, rng.randrange(2**31), "fuzz")
        streams.append(mutate(rng, frame) + frame)

    async def scenario():
        server = Server()

        async def default_answer(request):  # may not encode at every version: then closed
            return response_class(request.api_key)()

        for api_key in {body.API_KEY for body, _ in samples("request")} - {3, 18}:
            server.handle(api_key, default_answer)
        server.handle(MetadataRequest, echo_topic)
        async with serving(server):
            for chunk in range(0, len(streams), 50):
                peers = [await RawPeer.open(server) for _ in streams[chunk : chunk + 50]]
                for peer, data in zip(peers, streams[chunk : chunk + 50]):
                    await peer.send(data)
                for peer in peers:
                    peer.close()
                await still_serving(server)

    run(scenario())
