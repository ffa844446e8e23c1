"""What the proxy reads by hand: a request header without its body, and a Produce's acks in
place (the path with no log and no hooks), at every version, held to the decoded request."""

from __future__ import annotations

import pytest

from kafka_meta_proto import message_class, protocol
from kafka_meta_proto.proxy.frames import decode_request, produce_acks, read_request_head
from kafka_meta_proto.messages import REGISTRY
from kafka_meta_proto.errors import DecodeError

MetadataRequest = message_class("MetadataRequest")
ProduceRequest = message_class("ProduceRequest")


@pytest.mark.parametrize("version", ProduceRequest.versions())
def test_acks_read_in_place_equal_the_decoded_ones(version):
    for acks in (0, 1, -1):
        for transactional_id in (None, "tx") if version >= 3 else (None,):
            body = ProduceRequest(acks=acks, timeout_ms=5, transactional_id=transactional_id)
            frame = protocol.encode_request(body, version, 7, "client")
            assert produce_acks(frame[4:], version) == protocol.decode_request(frame).body.acks


def test_a_produce_cut_short_has_no_acks():
    frame = protocol.encode_request(ProduceRequest(acks=0, transactional_id="tx"), 11, 1, "c")
    payload = frame[4:]
    assert produce_acks(payload, 11) == 0
    for end in range(len(payload) - 8):  # acks are the two bytes after the transactional id
        assert produce_acks(payload[:end], 11) is None


def test_the_header_is_read_whatever_the_body():
    frame = protocol.encode_request(ProduceRequest(acks=1), 11, 42, "who")
    head = read_request_head(frame[4:20])  # the body cut off: the header still reads
    assert (head.api_key, head.api_version, head.correlation_id, head.client_id) == (0, 11, 42, "who")
    null_id = protocol.encode_request(ProduceRequest(acks=1), 11, 3, None)
    assert read_request_head(null_id[4:]).client_id is None
    with pytest.raises(DecodeError, match="shorter than its header"):
        read_request_head(b"\x00\x00\x00")


def test_bytes_after_a_request_body_are_ignored_as_the_broker_ignores_them():
    """librdkafka 2.16's Metadata v13 request for every topic ends in three bytes no field
    accounts for; Kafka answers it, and the proxy logs its body decoded."""
    frame = bytes.fromhex("000000190003000d00000003000772646b61666b610000000000010000")
    decoded = decode_request(frame, read_request_head(frame[4:]), REGISTRY)
    assert decoded.error is None and decoded.version == 13
    assert decoded.body == MetadataRequest(topics=None, allow_auto_topic_creation=False)
