"""What clients and brokers may do wrong: a body our classes cannot decode is still forwarded
and logged with the error; a frame over the limit closes that client's connection, with the
reason logged, and the proxy serves the next client; a broker closing its connection closes the
client's, the requests left unanswered logged."""

from __future__ import annotations

import asyncio
import struct

from kafka_meta_proto import message_class, protocol
from kafka_meta_proto.client import connect
from kafka_meta_proto.client import NetworkError
from proxy.helpers import lines, proxied_cluster, raw_exchange, run

MetadataRequest = message_class("MetadataRequest")


def test_an_undecodable_body_is_forwarded_and_logged_with_its_error():
    garbage = struct.pack(">hhi", 3, 12, 99) + b"\x00\x02me" + b"\x00" + b"\xff" * 7
    frame = protocol.frame(garbage)

    async def scenario():
        async with proxied_cluster() as (picture, brokers, proxy, log):
            _, closed = await raw_exchange(proxy.address, frame)
            seen_upstream = list(brokers[1].seen)
            return closed, lines(log), lines(log, "connection"), seen_upstream

    closed, exchanges, connections, seen = run(scenario())
    assert closed  # the broker refused the bytes and closed; the proxy closed the client
    [line] = exchanges
    assert (line["api_key"], line["api_version"], line["correlation_id"], line["client_id"]) == (3, 12, 99, "me")
    assert line["request"] is None and "MetadataRequest v12" in line["request_error"]
    assert "byte offset" in line["request_error"]
    assert line["request_size"] == len(frame)
    assert line["response"] is None and line["response_error"].startswith("no response: the upstream")
    assert "upstream broker closed" in connections[0]["reason"]


def test_a_frame_too_short_for_a_header_is_forwarded_and_logged():
    async def scenario():
        async with proxied_cluster() as (picture, brokers, proxy, log):
            _, closed = await raw_exchange(proxy.address, protocol.frame(b"\x00\x03"))
            return closed, lines(log, "unreadable")

    closed, unreadable = run(scenario())
    assert closed and len(unreadable) == 1 and "shorter than its header" in unreadable[0]["request_error"]


def test_an_oversized_frame_closes_that_client_only():
    async def scenario():
        options = dict(max_frame_size=1 << 20)
        async with proxied_cluster(**options) as (picture, brokers, proxy, log):
            _, closed = await raw_exchange(proxy.address, struct.pack(">i", 2**31 - 1) + b"x" * 10)
            async with await connect(*proxy.address) as conn:  # the proxy still serves
                metadata = await conn.send(MetadataRequest(topics=[]))
            return closed, metadata, lines(log, "connection")

    closed, metadata, connections = run(scenario())
    assert closed and len(metadata.brokers) == 2
    assert "over the limit of 1048576 bytes" in connections[0]["reason"]
    assert connections[0]["reason"].startswith("the client broke the protocol")


def test_the_upstream_closing_closes_the_client_and_logs_what_was_waiting():
    async def scenario():
        async with proxied_cluster() as (picture, brokers, proxy, log):
            never = asyncio.Event()

            async def silent(event):
                await never.wait()

            brokers[1].handlers[12] = silent
            async with await connect(*proxy.address, timeout=30) as conn:
                HeartbeatRequest = message_class("HeartbeatRequest")
                waiting = asyncio.create_task(conn.send(HeartbeatRequest(group_id="g")))
                while not any(key == 12 for key, _ in brokers[1].seen):
                    await asyncio.sleep(0.01)
                brokers[1].drop_connections()
                try:
                    await waiting
                    raise AssertionError("the heartbeat got an answer")
                except NetworkError as e:
                    error = e
            return error, lines(log), lines(log, "connection")

    error, exchanges, connections = run(scenario())
    assert "closed" in str(error)
    heartbeat = next(line for line in exchanges if line["api_key"] == 12)
    assert heartbeat["response"] is None
    assert heartbeat["response_error"] == "no response: the upstream broker closed the connection"
    assert any(c["reason"] == "the upstream broker closed the connection" for c in connections)
