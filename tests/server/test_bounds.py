"""Bounded memory per connection (reading pauses at the in-flight limit) and the graceful close
(no new connections, handlers in flight finish within the timeout, then the connections close)."""

from __future__ import annotations

import asyncio

import pytest

from kafka_meta_proto import protocol
from kafka_meta_proto.client import connect
from kafka_meta_proto.server import Server
from server.peer import MetadataRequest, MetadataResponse, RawPeer, metadata_for, run, serving


def gated(started: list[str], gate: asyncio.Event):
    """A Metadata handler that notes its topic and waits for the gate before answering."""

    async def handler(request):
        name = request.body.topics[0].name
        started.append(name)
        await gate.wait()
        return MetadataResponse(cluster_id=name)

    return handler


async def settle(condition) -> None:
    """Let the event loop run until ``condition()`` holds (the test's timeout bounds it)."""
    while not condition():
        await asyncio.sleep(0.005)


def test_reading_pauses_at_the_in_flight_limit_and_resumes_as_answers_leave():
    async def scenario():
        started, gate = [], asyncio.Event()
        server = Server(max_in_flight=3)
        server.handle(MetadataRequest, gated(started, gate))
        async with serving(server):
            peer = await RawPeer.open(server)
            for i in range(10):
                await peer.request(metadata_for(str(i)), 12, i)
            await settle(lambda: len(started) == 3)
            for _ in range(20):  # the other seven stay unread while three are in flight
                await asyncio.sleep(0.005)
                assert len(started) == 3
            (connection,) = server._connections
            assert connection.in_flight == 3
            gate.set()
            answers = [protocol.decode_response(await peer.frame(), 3, 12) for _ in range(10)]
            peer.close()
        assert [a.correlation_id for a in answers] == list(range(10))
        assert started == [str(i) for i in range(10)]

    run(scenario())


def test_answers_held_behind_a_slow_one_count_as_in_flight():
    async def scenario():
        started, first_gate = [], asyncio.Event()

        async def first_is_slow(request):
            name = request.body.topics[0].name
            started.append(name)
            if name == "0":
                await first_gate.wait()
            return MetadataResponse(cluster_id=name)

        server = Server(max_in_flight=4)
        server.handle(MetadataRequest, first_is_slow)
        async with serving(server):
            peer = await RawPeer.open(server)
            for i in range(8):
                await peer.request(metadata_for(str(i)), 12, i)
            await settle(lambda: len(started) == 4)
            for _ in range(20):  # 1-3 answered but held back by 0: no room for a fifth
                await asyncio.sleep(0.005)
                assert len(started) == 4
            first_gate.set()
            answers = [protocol.decode_response(await peer.frame(), 3, 12) for _ in range(8)]
            peer.close()
        assert [a.body.cluster_id for a in answers] == [str(i) for i in range(8)]

    run(scenario())


def test_close_lets_handlers_in_flight_finish_then_closes_and_refuses_new_connections():
    async def scenario():
        started, gate = [], asyncio.Event()
        server = Server()
        server.handle(MetadataRequest, gated(started, gate))
        await server.start(("127.0.0.1", 0))
        host, port = server.addresses[0]
        conn = await connect(host, port)
        call = asyncio.ensure_future(conn.send(metadata_for("in flight")))
        await settle(lambda: started)
        closing = asyncio.ensure_future(server.close())
        await asyncio.sleep(0.05)
        assert not closing.done()  # waiting for the handler
        with pytest.raises(OSError):
            await asyncio.open_connection(host, port)
        gate.set()
        assert (await call).cluster_id == "in flight"
        await closing
        await settle(lambda: conn.closed)
        assert server.connections == 0

    run(scenario())


def test_close_cancels_handlers_that_outlive_the_timeout():
    async def scenario():
        started, cancelled = [], asyncio.Event()

        async def forever(request):
            started.append(request.correlation_id)
            try:
                await asyncio.Event().wait()
            finally:
                cancelled.set()

        async with Server(shutdown_timeout=0.1) as server:
            server.handle(MetadataRequest, forever)
            await server.start(("127.0.0.1", 0))
            peer = await RawPeer.open(server)
            await peer.request(metadata_for("never"), 12, 1)
            await settle(lambda: started)
        assert cancelled.is_set()
        assert await peer.closed_by_server()

    run(scenario())
