"""The server over real sockets, with the package's client as its peer: negotiation, pipelined
requests answered in order, what is not served, a handler that raises, TLS, several listeners."""

from __future__ import annotations

import asyncio
import logging

import pytest

from client.tls import tls_contexts
from kafka_meta_proto import message_class, protocol
from kafka_meta_proto.client import NoCommonVersion, connect
from kafka_meta_proto.server import Server
from server.peer import (
    LOOPBACK,
    MetadataRequest,
    MetadataResponse,
    RawPeer,
    echo_topic,
    metadata_for,
    run,
    serving,
)

ApiVersionsRequest = message_class("ApiVersionsRequest")
ApiVersionsResponse = message_class("ApiVersionsResponse")
ListGroupsRequest = message_class("ListGroupsRequest")
ListGroupsResponse = message_class("ListGroupsResponse")
NEWEST_API_VERSIONS = ApiVersionsRequest.versions()[-1]


def test_the_client_negotiates_the_versions_of_the_handlers_present():
    async def scenario():
        server = Server()
        server.handle(MetadataRequest, echo_topic, versions=(1, 9))
        async with serving(server):
            async with await connect(*server.addresses[0], client_id="me") as conn:
                assert conn.api_versions == {3: (1, 9), 18: (0, NEWEST_API_VERSIONS)}
                answer = await conn.exchange(metadata_for("t"))
                assert (answer.api_version, answer.body.cluster_id) == (9, "t")
                with pytest.raises(NoCommonVersion):
                    await conn.send(ListGroupsRequest())

    run(scenario())


def test_the_decorator_registers_and_the_context_carries_header_peer_and_state():
    async def scenario():
        server = Server()
        seen = []

        @server.handle(3)
        async def metadata(request):
            request.state["count"] = request.state.get("count", 0) + 1
            seen.append((request.api_key, request.api_version, request.correlation_id))
            host, _ = request.peer
            return MetadataResponse(
                cluster_id=f"{request.client_id} {host} {request.state['count']}"
            )

        async with serving(server):
            async with await connect(*server.addresses[0], client_id="me") as conn:
                first = await conn.send(metadata_for("a"), 5)
                second = await conn.send(metadata_for("b"), 5)
        assert (first.cluster_id, second.cluster_id) == ("me 127.0.0.1 1", "me 127.0.0.1 2")
        assert seen == [(3, 5, 1), (3, 5, 2)]  # correlation id 0 was ApiVersions

    run(scenario())


def test_pipelined_requests_are_answered_in_order_when_handlers_finish_out_of_order():
    async def scenario():
        last_started = asyncio.Event()
        finished = []

        async def reverse(request):
            name = request.body.topics[0].name
            if name == "49":
                last_started.set()
            else:  # every earlier handler waits for the last one to start, then finishes later
                await last_started.wait()
                await asyncio.sleep(0.001 * (50 - int(name)))
            finished.append(name)
            return MetadataResponse(cluster_id=name)

        server = Server()
        server.handle(MetadataRequest, reverse)
        async with serving(server):
            async with await connect(*server.addresses[0]) as conn:
                calls = [conn.send(metadata_for(str(i))) for i in range(50)]
                answers = await asyncio.gather(*calls)
        assert [a.cluster_id for a in answers] == [str(i) for i in range(50)]
        assert finished[0] == "49" and finished != sorted(finished, key=int)

    run(scenario())


def test_an_unknown_api_versions_version_gets_v0_with_unsupported_version_and_the_range():
    async def scenario():
        async with serving() as server:
            peer = await RawPeer.open(server)
            frame = protocol.encode_request(ApiVersionsRequest(), 0, 7, "raw")
            future = bytearray(frame)
            future[6:8] = (NEWEST_API_VERSIONS + 50).to_bytes(2, "big")  # a version from the future
            await peer.send(bytes(future))
            answer = protocol.decode_response(await peer.frame(), 18, 0)
            await peer.request(metadata_for("still open"), 4, 8)  # the connection goes on
            after = protocol.decode_response(await peer.frame(), 3, 4)
            peer.close()
        assert answer.correlation_id == 7 and answer.body.error_code == 35
        assert [(k.api_key, k.min_version, k.max_version) for k in answer.body.api_keys] == [
            (18, 0, NEWEST_API_VERSIONS)
        ]
        assert after.body.cluster_id == "still open"

    run(scenario())


@pytest.mark.parametrize(
    "what, frame",
    [
        ("no handler", protocol.encode_request(ListGroupsRequest(), 3, 5, "raw")),
        ("narrowed out", protocol.encode_request(metadata_for("x"), 12, 5, "raw")),
        ("unknown key", b"\x00\x00\x00\x0a\x27\x0f\x00\x00\x00\x00\x00\x05\xff\xff"),
    ],
)
def test_a_request_not_served_closes_the_connection_as_kafka_does(what, frame, caplog):
    async def scenario():
        server = Server()
        server.handle(MetadataRequest, echo_topic, versions=(0, 11))
        async with serving(server):
            peer = await RawPeer.open(server)
            await peer.send(frame)
            assert await peer.closed_by_server()
            async with await connect(*server.addresses[0]) as conn:  # others are served
                assert (await conn.send(metadata_for("next"))).cluster_id == "next"

    with caplog.at_level(logging.WARNING, logger="kafka_meta_proto.server"):
        run(scenario())
    assert "correlation id 5" in caplog.text and "is not served" in caplog.text


def test_a_handler_that_raises_gets_unknown_server_error_where_the_response_has_an_error_code(
    caplog,
):
    async def scenario():
        async def broken(request):
            raise RuntimeError("the handler broke")

        server = Server()
        server.handle(ListGroupsRequest, broken)
        server.handle(MetadataRequest, broken)
        async with serving(server):
            async with await connect(*server.addresses[0]) as conn:
                assert (await conn.send(ListGroupsRequest())).error_code == -1
                assert (await conn.send(MetadataRequest(topics=None), 13)).error_code == -1
            peer = await RawPeer.open(server)  # Metadata v12 has no error code: closed
            await peer.request(MetadataRequest(topics=None), 12, 1)
            assert await peer.closed_by_server()
            async with await connect(*server.addresses[0]) as conn:
                assert (await conn.send(ListGroupsRequest())).error_code == -1

    with caplog.at_level(logging.WARNING, logger="kafka_meta_proto.server"):
        run(scenario())
    failures = [r for r in caplog.records if r.exc_info]
    assert len(failures) == 4 and "the handler broke" in caplog.text
    assert "MetadataRequest failed and its response has no error code" in caplog.text


def test_tls_and_several_listeners_on_free_ports(tmp_path):
    server_tls, client_tls = tls_contexts(tmp_path)

    async def scenario():
        server = Server()
        server.handle(MetadataRequest, echo_topic)
        await server.start(LOOPBACK, LOOPBACK, ssl=server_tls)
        try:
            addresses = server.addresses
            assert len(addresses) == 2 and all(port > 0 for _, port in addresses)
            assert addresses[0][1] != addresses[1][1]
            for host, port in addresses:
                async with await connect(host, port, ssl=client_tls) as conn:
                    assert (await conn.send(metadata_for(str(port)))).cluster_id == str(port)
        finally:
            await server.close()
        assert server.addresses == []

    run(scenario())
