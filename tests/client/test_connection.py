"""The asyncio client over real sockets, against a small broker on the loopback interface built
on the sans-I/O server connection: negotiation, pipelining, timeouts, cancellation, a peer that
closes or breaks the protocol, TLS and SASL."""

from __future__ import annotations

import asyncio
import ssl

import pytest

from client.loopback import LoopbackBroker, Raw, answer_with
from client.sasl_server import SaslBroker
from client.tls import tls_contexts
from kafka_meta_proto import message_class, protocol
from kafka_meta_proto.client import (
    AuthenticationFailed,
    ConnectionClosed,
    FrameTooLarge,
    NoCommonVersion,
    Plain,
    ProtocolError,
    RequestTimedOut,
    Scram,
    connect,
)

MetadataRequest = message_class("MetadataRequest")
MetadataResponse = message_class("MetadataResponse")
ProduceRequest = message_class("ProduceRequest")
ApiVersionsRequest = message_class("ApiVersionsRequest")

NEWEST_METADATA = MetadataRequest.versions()[-1]


def run(coroutine):
    return asyncio.run(asyncio.wait_for(coroutine, 60))  # a hang fails the test, never blocks it


def named(event):
    """A Metadata answer carrying the request's first topic name as the cluster id."""
    topics = event.body.topics or []
    return MetadataResponse(cluster_id=topics[0].name if topics else "none")


def metadata_for(name: str):
    return MetadataRequest(topics=[MetadataRequest.MetadataRequestTopic(name=name)])


def test_connect_negotiates_and_sends_at_the_newest_common_version():
    async def scenario():
        async with LoopbackBroker({3: answer_with(named)}) as broker:
            broker.ranges[3] = (0, 9)
            async with await connect("127.0.0.1", broker.port, client_id="loop") as conn:
                body = await conn.send(metadata_for("t"), expect=MetadataResponse)
                assert body.cluster_id == "t"
                older = await conn.exchange(metadata_for("u"), 4)
                assert (older.api_version, older.body.cluster_id) == (4, "u")
                assert older.frame == protocol.encode_response(older.body, 4, older.correlation_id)
            return broker.seen

    seen = run(scenario())
    assert seen == [(18, ApiVersionsRequest.versions()[-1]), (3, 9), (3, 4)]


def test_api_versions_falls_back_to_the_version_the_broker_names():
    async def scenario():
        async with LoopbackBroker() as broker:
            broker.ranges[18] = (0, 3)
            async with await connect("127.0.0.1", broker.port) as conn:
                assert conn.api_versions[18] == (0, 3)
            return broker.seen

    assert run(scenario()) == [(18, ApiVersionsRequest.versions()[-1]), (18, 3)]


def test_many_requests_in_flight_answered_in_any_order_of_completion():
    async def scenario():
        async def slow_first(event):
            name = event.body.topics[0].name
            await asyncio.sleep(0.2 if name == "0" else 0)  # the first finishes last
            return named(event)

        async with LoopbackBroker({3: slow_first}) as broker:
            async with await connect("127.0.0.1", broker.port) as conn:
                bodies = await asyncio.gather(*(conn.send(metadata_for(str(i))) for i in range(50)))
        return [b.cluster_id for b in bodies]

    assert run(scenario()) == [str(i) for i in range(50)]


def held_until(release: asyncio.Event, arrived: list) -> object:
    """A Metadata handler that notes each request and answers once ``release`` is set."""

    async def handler(event):
        arrived.append(event.body.topics[0].name)
        await release.wait()
        return named(event)

    return handler


def test_a_timed_out_call_leaves_the_connection_usable():
    async def scenario():
        release, arrived = asyncio.Event(), []
        async with LoopbackBroker({3: held_until(release, arrived)}) as broker:
            async with await connect("127.0.0.1", broker.port) as conn:
                with pytest.raises(
                    RequestTimedOut,
                    match=r"no response to MetadataRequest v\d+ \(correlation id 1\) .* within 0.1 s",
                ):
                    await conn.send(metadata_for("late"), timeout=0.1)
                release.set()  # the late answer comes first and is dropped; this call gets its own
                assert (await conn.send(metadata_for("next"))).cluster_id == "next"
        assert arrived == ["late", "next"]

    run(scenario())


def test_cancelling_one_call_does_not_break_the_others():
    async def scenario():
        release, arrived = asyncio.Event(), []
        async with LoopbackBroker({3: held_until(release, arrived)}) as broker:
            async with await connect("127.0.0.1", broker.port) as conn:
                doomed = asyncio.ensure_future(conn.send(metadata_for("doomed")))
                kept = asyncio.ensure_future(conn.send(metadata_for("kept")))
                while len(arrived) < 2:  # both in flight at the broker
                    await asyncio.sleep(0.01)
                doomed.cancel()
                release.set()
                assert (await kept).cluster_id == "kept"
                assert doomed.cancelled()
                assert (await conn.send(metadata_for("after"))).cluster_id == "after"

    run(scenario())


def test_a_peer_closing_ends_every_waiting_call():
    async def scenario():
        async with LoopbackBroker({3: answer_with(lambda e: None, delay=10)}) as broker:
            conn = await connect("127.0.0.1", broker.port)
            calls = [asyncio.ensure_future(conn.send(metadata_for(str(i)))) for i in range(5)]
            await asyncio.sleep(0.05)
            broker.drop_connections()
            results = await asyncio.gather(*calls, return_exceptions=True)
            assert all(isinstance(r, ConnectionClosed) for r in results), results
            assert "closed the connection" in str(results[0])
            with pytest.raises(ConnectionClosed):
                await conn.send(metadata_for("after"))
            await conn.close()

    run(scenario())


@pytest.mark.parametrize(
    "raw, error, message",
    [
        (
            protocol.encode_response(MetadataResponse(), NEWEST_METADATA, 999),
            ProtocolError,
            "correlation id 999, which no request",
        ),
        ((2**31 - 1).to_bytes(4, "big"), FrameTooLarge, "frame of 2147483647 bytes"),
        (protocol.frame(b"\0\0\0\1garbage"), ProtocolError, "does not decode"),
    ],
)
def test_a_protocol_error_ends_every_waiting_call(raw, error, message):
    async def scenario():
        sent = []

        async def misbehave(event):
            sent.append(event.correlation_id)
            if len(sent) == 2:  # after two requests are in flight
                return Raw(raw)
            return None

        async with LoopbackBroker({3: misbehave}) as broker:
            async with await connect("127.0.0.1", broker.port) as conn:
                results = await asyncio.gather(
                    conn.send(metadata_for("a")),
                    conn.send(metadata_for("b")),
                    return_exceptions=True,
                )
                assert all(isinstance(r, error) for r in results), results
                assert message in str(results[0])
                with pytest.raises(error):
                    await conn.send(metadata_for("after"))

    run(scenario())


def test_a_version_the_broker_does_not_speak_is_refused_before_sending():
    async def scenario():
        async with LoopbackBroker({3: answer_with(named)}) as broker:
            broker.ranges[3] = (0, 9)
            async with await connect("127.0.0.1", broker.port) as conn:
                with pytest.raises(
                    NoCommonVersion, match="speaks MetadataRequest versions 0-9, not 12"
                ):
                    await conn.send(metadata_for("x"), 12)
            return broker.seen

    assert run(scenario()) == [(18, ApiVersionsRequest.versions()[-1])]


def test_acks_zero_produce_goes_one_way():
    async def scenario():
        async with LoopbackBroker({3: answer_with(named)}) as broker:
            async with await connect("127.0.0.1", broker.port) as conn:
                produce = ProduceRequest(acks=0, timeout_ms=100, topic_data=[])
                with pytest.raises(ValueError, match="acks 0 gets no response: use send_oneway"):
                    await conn.send(produce)
                await conn.send_oneway(produce, 9)
                assert (await conn.send(metadata_for("after"))).cluster_id == "after"
            return broker.seen

    assert (0, 9) in run(scenario())


def test_connect_times_out_on_a_silent_peer():
    async def scenario():
        async with LoopbackBroker({18: answer_with(lambda e: None)}) as broker:
            with pytest.raises(
                RequestTimedOut, match=r"no response to ApiVersionsRequest v\d+ .* within 0.2 s"
            ):
                await connect("127.0.0.1", broker.port, timeout=0.2)

    run(scenario())


def test_connect_refused_is_an_os_error():
    async def scenario():
        async with LoopbackBroker() as broker:
            port = broker.port
        with pytest.raises(OSError):
            await connect("127.0.0.1", port, timeout=5)

    run(scenario())


def test_tls_with_a_self_signed_certificate(tmp_path):
    server_context, client_context = tls_contexts(tmp_path)

    async def scenario():
        async with LoopbackBroker({3: answer_with(named)}, ssl=server_context) as broker:
            async with await connect("127.0.0.1", broker.port, ssl=client_context) as conn:
                assert (await conn.send(metadata_for("secure"))).cluster_id == "secure"
            with pytest.raises(ssl.SSLCertVerificationError):  # a client that does not trust it
                await connect("127.0.0.1", broker.port, ssl=ssl.create_default_context())

    run(scenario())


def sasl_broker(credentials: SaslBroker) -> LoopbackBroker:
    return LoopbackBroker(
        {3: answer_with(named), 17: credentials.handshake, 36: credentials.authenticate}
    )


@pytest.mark.parametrize("mechanism", [Plain("alice", "wonder"), Scram("alice", "wonder")])
def test_sasl_authenticates(mechanism):
    async def scenario():
        credentials = SaslBroker("alice", "wonder")
        async with sasl_broker(credentials) as broker:
            async with await connect("127.0.0.1", broker.port, sasl=mechanism) as conn:
                assert credentials.authenticated and credentials.mechanism == mechanism.mechanism
                assert (await conn.send(metadata_for("in"))).cluster_id == "in"

    run(scenario())


@pytest.mark.parametrize(
    "mechanism, message",
    [
        (
            Plain("alice", "wrong"),
            "PLAIN authentication refused: Authentication failed: Invalid credentials",
        ),
        (Scram("alice", "wrong"), "SCRAM-SHA-256 authentication refused"),
        (
            Scram("alice", "wonder", "SCRAM-SHA-512"),
            r"refuses SASL mechanism SCRAM-SHA-512 \(enabled: PLAIN, SCRAM-SHA-256\)",
        ),
    ],
)
def test_sasl_refusals_are_clear(mechanism, message):
    async def scenario():
        async with sasl_broker(SaslBroker("alice", "wonder")) as broker:
            with pytest.raises(AuthenticationFailed, match=message):
                await connect("127.0.0.1", broker.port, sasl=mechanism)

    run(scenario())
