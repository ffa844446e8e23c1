"""The sans-I/O connection without sockets: a client and a server connection wired back to back,
and hostile bytes fed to either; every bad input ends in a clear ProtocolError."""

from __future__ import annotations

import pytest

from kafka_meta_proto import message_class, protocol
from kafka_meta_proto.net import (
    ClientConnection,
    ConnectionClosed,
    FrameReader,
    FrameTooLarge,
    ProtocolError,
    RequestReceived,
    ServerConnection,
    UnsupportedRequest,
)

ApiVersionsRequest = message_class("ApiVersionsRequest")
ApiVersionsResponse = message_class("ApiVersionsResponse")
MetadataRequest = message_class("MetadataRequest")
MetadataResponse = message_class("MetadataResponse")
ProduceRequest = message_class("ProduceRequest")
ProduceResponse = message_class("ProduceResponse")


def exchange(client: ClientConnection, server: ServerConnection) -> list:
    """Carry the client's bytes to the server; return the server's events."""
    return server.receive_data(client.data_to_send())


def test_request_and_response_round_trip_with_header_versions():
    client, server = ClientConnection("tester"), ServerConnection()
    cid = client.send_request(MetadataRequest(topics=None), 12)
    (event,) = exchange(client, server)
    assert isinstance(event, RequestReceived)
    assert (event.api_key, event.api_version, event.correlation_id, event.client_id) == (
        3,
        12,
        cid,
        "tester",
    )
    assert event.frame == protocol.encode_request(MetadataRequest(topics=None), 12, cid, "tester")
    body = MetadataResponse(cluster_id="c", controller_id=1)
    server.send_response(cid, body)
    sent = server.data_to_send()
    assert sent == protocol.encode_response(body, 12, cid)  # header v1: flexible version
    (response,) = client.receive_data(sent)
    assert (response.correlation_id, response.api_version, response.body, response.frame) == (
        cid,
        12,
        body,
        sent,
    )
    assert client.in_flight == [] and server.awaiting == 0


def test_frames_split_anywhere_and_many_in_one_call():
    client, server = ClientConnection(), ServerConnection()
    ids = [client.send_request(MetadataRequest(topics=[]), v) for v in (1, 9, 12)]
    data = client.data_to_send()
    events = [
        e for i in range(len(data)) for e in server.receive_data(data[i : i + 1])
    ]  # byte by byte
    assert [e.correlation_id for e in events] == ids
    for e in events:
        server.send_response(e.correlation_id, MetadataResponse())
    answers = server.data_to_send()
    got = client.receive_data(answers[:7]) + client.receive_data(answers[7:])
    assert [(r.correlation_id, r.api_version) for r in got] == list(zip(ids, (1, 9, 12)))


def test_server_releases_answers_in_request_order():
    client, server = ClientConnection(), ServerConnection()
    first, second = (client.send_request(MetadataRequest(topics=[]), 12) for _ in range(2))
    exchange(client, server)
    server.send_response(second, MetadataResponse(cluster_id="second"))
    assert server.data_to_send() == b"" and server.awaiting == 2  # held back by the first
    server.send_response(first, MetadataResponse(cluster_id="first"))
    got = client.receive_data(server.data_to_send())
    assert [r.body.cluster_id for r in got] == ["first", "second"]


def test_acks_zero_produce_expects_no_response():
    client, server = ClientConnection(), ServerConnection()
    client.send_request(ProduceRequest(acks=0, timeout_ms=10, topic_data=[]), 9)
    assert client.in_flight == []
    (event,) = exchange(client, server)
    assert event.expects_response is False and server.awaiting == 0
    client.send_request(ProduceRequest(acks=1, timeout_ms=10, topic_data=[]), 9)
    assert len(client.in_flight) == 1


def test_api_versions_refusal_decodes_at_version_zero():
    """A broker refusing our ApiVersions version writes its answer in version 0."""
    client = ClientConnection()
    cid = client.send_request(ApiVersionsRequest(), 5)
    refusal = ApiVersionsResponse(
        error_code=35,
        api_keys=[ApiVersionsResponse.ApiVersion(api_key=18, min_version=0, max_version=3)],
    )
    (response,) = client.receive_data(protocol.encode_response(refusal, 0, cid))
    assert response.api_version == 0 and response.body.error_code == 35


def test_server_reports_an_unsupported_version_with_its_header():
    server = ServerConnection()
    frame = bytearray(protocol.encode_request(ApiVersionsRequest(), 3, 7, "x"))
    frame[6:8] = (99).to_bytes(2, "big")  # ApiVersions v99
    (event,) = server.receive_data(bytes(frame))
    assert isinstance(event, UnsupportedRequest)
    assert (event.api_key, event.api_version, event.correlation_id) == (18, 99, 7)
    server.send_response(7, ApiVersionsResponse(error_code=35))
    assert ApiVersionsResponse.decode(server.data_to_send()[8:], 0).error_code == 35


def test_correlation_ids_wrap_and_skip_ids_in_flight():
    client = ClientConnection()
    client._next_id = 2**31 - 1
    assert client.send_request(MetadataRequest(topics=[]), 12) == 2**31 - 1
    first = client.send_request(MetadataRequest(topics=[]), 12)
    assert first == 0
    client._next_id = 0
    assert client.send_request(MetadataRequest(topics=[]), 12) == 1  # 0 is still in flight


# Hostile input: each case is a ProtocolError naming the problem, and the connection stays failed.


@pytest.mark.parametrize("size", [2**31 - 1, 2 * 1024**3 - 4, 100 * 1024 * 1024 + 1])
def test_an_oversized_frame_is_refused_from_its_size_alone(size):
    client = ClientConnection()
    client.send_request(MetadataRequest(topics=[]), 12)
    with pytest.raises(FrameTooLarge, match=f"frame of {size} bytes, over the limit") as info:
        client.receive_data(size.to_bytes(4, "big"))  # nothing after the size: refused at once
    assert info.value.size == size
    assert client._reader.buffered == 0  # nothing kept, nothing allocated for it
    with pytest.raises(FrameTooLarge):
        client.receive_data(b"\0" * 10)


def test_negative_frame_size_is_refused():
    with pytest.raises(ProtocolError, match="negative frame size -1"):
        FrameReader().feed(b"\xff\xff\xff\xff")


def test_the_limit_is_the_connection_s_own():
    server = ServerConnection(max_frame_size=16)
    with pytest.raises(FrameTooLarge, match="over the limit of 16 bytes"):
        server.receive_data(
            protocol.encode_request(MetadataRequest(topics=[]), 12, 1, "a client id")
        )


def test_a_truncated_frame_waits_and_a_close_ends_it():
    client = ClientConnection()
    cid = client.send_request(MetadataRequest(topics=[]), 12)
    whole = protocol.encode_response(MetadataResponse(), 12, cid)
    assert client.receive_data(whole[:-1]) == []
    assert len(client.in_flight) == 1
    client.close("the broker went away")
    with pytest.raises(ConnectionClosed, match="the broker went away"):
        client.receive_data(whole[-1:])
    with pytest.raises(ConnectionClosed):
        client.send_request(MetadataRequest(topics=[]), 12)


def test_unknown_correlation_id_is_a_protocol_error():
    client = ClientConnection()
    client.send_request(MetadataRequest(topics=[]), 12)
    with pytest.raises(ProtocolError, match="correlation id 42, which no request in flight has"):
        client.receive_data(protocol.encode_response(MetadataResponse(), 12, 42))
    with pytest.raises(ProtocolError, match="correlation id 42"):
        client.receive_data(b"")  # failed for good


def test_a_response_out_of_order_is_a_protocol_error():
    client = ClientConnection()
    first, second = (client.send_request(MetadataRequest(topics=[]), 12) for _ in range(2))
    with pytest.raises(
        ProtocolError, match=f"correlation id {second} came before the one to {first}"
    ):
        client.receive_data(protocol.encode_response(MetadataResponse(), 12, second))


def test_garbage_after_a_frame_ends_in_a_protocol_error():
    """A response body followed by bytes it does not account for, and a frame of pure garbage."""
    client = ClientConnection()
    cid = client.send_request(MetadataRequest(topics=[]), 12)
    payload = protocol.encode_response(MetadataResponse(), 12, cid, size_prefix=False) + b"junk"
    with pytest.raises(
        ProtocolError, match=r"MetadataRequest v12 \(correlation id 0\) does not decode: .*trailing"
    ) as info:
        client.receive_data(protocol.frame(payload))
    assert info.value.__cause__ is not None  # the DecodeError with its offset


def test_the_server_ignores_bytes_after_a_request_body_as_kafka_does():
    """librdkafka 2.16 asks a broker for every topic with a Metadata v13 request whose body is
    followed by three bytes; Kafka's brokers read the body and answer."""
    frame = bytes.fromhex("000000190003000d00000003000772646b61666b610000000000010000")
    [event] = ServerConnection().receive_data(frame)
    assert isinstance(event, RequestReceived) and event.expects_response
    assert event.request.correlation_id == 3 and event.request.header.client_id == "rdkafka"
    assert event.request.body == MetadataRequest(topics=None, allow_auto_topic_creation=False)


@pytest.mark.parametrize("payload", [b"", b"\0\0", b"\0\0\0\0\xff\xff\xff", bytes(range(256))])
def test_short_or_garbage_response_frames(payload):
    client = ClientConnection()
    client.send_request(MetadataRequest(topics=[]), 12)
    with pytest.raises(ProtocolError):
        client.receive_data(protocol.frame(payload))


@pytest.mark.parametrize(
    "payload", [b"", b"\0\3", b"\0\3\0\x0c\0\0\0\1\xff", b"\0\3\0\x0c" + b"\xff" * 60]
)
def test_short_or_garbage_request_frames(payload):
    with pytest.raises(ProtocolError):
        ServerConnection().receive_data(protocol.frame(payload))


def test_an_unknown_api_key_is_reported_not_raised():
    (event,) = ServerConnection().receive_data(protocol.frame(b"\xff" * 64))
    assert (
        isinstance(event, UnsupportedRequest)
        and event.api_key == -1
        and "no request schema" in event.reason
    )


def test_a_response_to_no_request_awaiting_is_refused_by_the_server():
    server = ServerConnection()
    with pytest.raises(ValueError, match="no request with correlation id 5"):
        server.send_response(5, MetadataResponse())
