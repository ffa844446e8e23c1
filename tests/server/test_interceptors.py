"""Interceptors run around every served request (in the order added, the first outermost): they
see the request, may answer it themselves or change the handler's answer, and a
``CloseConnection`` raised by one (or by a handler) closes that connection without an answer
while the server goes on serving others."""

from __future__ import annotations

import pytest

from kafka_meta_proto.client import ConnectionClosed, connect
from kafka_meta_proto.server import CloseConnection, Server
from server.peer import MetadataResponse, echo_topic, metadata_for, run, serving


def test_interceptors_wrap_the_handler_in_the_order_added():
    async def scenario():
        server = Server()
        server.handle(3, echo_topic)
        order = []

        @server.intercept
        async def outer(context, handler):
            order.append(("outer", context.api_key))
            answer = await handler(context)
            answer.cluster_id += " (outer)"
            return answer

        @server.intercept
        async def inner(context, handler):
            order.append(("inner", context.correlation_id))
            if context.body.topics[0].name == "answered-here":
                return MetadataResponse(cluster_id="inner")
            return await handler(context)

        async with serving(server):
            async with await connect(*server.addresses[0]) as conn:
                first = await conn.send(metadata_for("t"))
                second = await conn.send(metadata_for("answered-here"))
        assert (first.cluster_id, second.cluster_id) == ("t (outer)", "inner (outer)")
        assert [who for who, _ in order] == ["outer", "inner", "outer", "inner"]

    run(scenario())


def test_close_connection_drops_one_connection_and_the_server_serves_the_next():
    async def scenario():
        server = Server()
        server.handle(3, echo_topic)

        @server.intercept
        async def drop(context, handler):
            if context.body.topics[0].name == "drop":
                raise CloseConnection("asked to")
            return await handler(context)

        async with serving(server):
            async with await connect(*server.addresses[0]) as conn:
                with pytest.raises(ConnectionClosed):
                    await conn.send(metadata_for("drop"))
            async with await connect(*server.addresses[0]) as conn:
                assert (await conn.send(metadata_for("kept"))).cluster_id == "kept"

    run(scenario())
