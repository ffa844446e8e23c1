"""Request and response headers and frames (kafka_meta_proto.protocol)."""

from __future__ import annotations

import struct
import sys

import pytest

from kafka_meta_proto import REGISTRY, message_class, protocol
from kafka_meta_proto.errors import DecodeError, UnsupportedVersionError
from kafka_meta_proto.uuid import Uuid

H = bytes.fromhex

RequestHeader = message_class("RequestHeader")
ResponseHeader = message_class("ResponseHeader")

# The RPCs this package ships (api key: name); the registry may hold more (diskless RPCs).
SHIPPED = {
    0: "Produce",
    1: "Fetch",
    2: "ListOffsets",
    3: "Metadata",
    4: "LeaderAndIsr",
    5: "StopReplica",
    6: "UpdateMetadata",
    10: "FindCoordinator",
    18: "ApiVersions",
    19: "CreateTopics",
    20: "DeleteTopics",
    22: "InitProducerId",
    23: "OffsetForLeaderEpoch",
    62: "BrokerRegistration",
    63: "BrokerHeartbeat",
    64: "UnregisterBroker",
    67: "AllocateProducerIds",
}


def test_registry_ships_the_expected_rpcs():
    for key, name in SHIPPED.items():
        assert REGISTRY.request_class(key).NAME == f"{name}Request"
        assert REGISTRY.response_class(key).NAME == f"{name}Response"


# -- Header versions ------------------------------------------------------------------------------

# (api key, last non-flexible version, first flexible version), from Kafka's schemas.
FLEXIBLE_FROM = [
    (0, 8, 9),  # Produce
    (1, 11, 12),  # Fetch
    (2, 5, 6),  # ListOffsets
    (3, 8, 9),  # Metadata
    (4, 3, 4),  # LeaderAndIsr
    (5, 1, 2),  # StopReplica
    (6, 5, 6),  # UpdateMetadata
    (10, 2, 3),  # FindCoordinator
    (18, 2, 3),  # ApiVersions
    (19, 4, 5),  # CreateTopics
    (20, 3, 4),  # DeleteTopics
    (22, 1, 2),  # InitProducerId
    (23, 3, 4),  # OffsetForLeaderEpoch
]


@pytest.mark.parametrize(
    "key,last_rigid,first_flexible", FLEXIBLE_FROM, ids=[SHIPPED[k] for k, _, _ in FLEXIBLE_FROM]
)
def test_header_versions_switch_at_the_first_flexible_version(key, last_rigid, first_flexible):
    assert protocol.request_header_version(key, last_rigid) == 1
    assert protocol.request_header_version(key, first_flexible) == 2
    if key == protocol.API_VERSIONS_KEY:
        assert protocol.response_header_version(key, last_rigid) == 0
        assert protocol.response_header_version(key, first_flexible) == 0
    else:
        assert protocol.response_header_version(key, last_rigid) == 0
        assert protocol.response_header_version(key, first_flexible) == 1


@pytest.mark.parametrize("key", sorted(SHIPPED), ids=[SHIPPED[k] for k in sorted(SHIPPED)])
def test_header_versions_follow_flexibility_for_every_version(key):
    cls = REGISTRY.request_class(key)
    for v in cls.versions():
        flexible = cls.is_flexible(v)
        assert protocol.request_header_version(key, v) == (2 if flexible else 1)
        want_response = 0 if key == 18 else (1 if flexible else 0)
        assert protocol.response_header_version(key, v) == want_response


def test_kraft_only_rpcs_are_flexible_from_v0():
    for key in (62, 63, 64, 67):
        assert protocol.request_header_version(key, 0) == 2
        assert protocol.response_header_version(key, 0) == 1


def test_api_versions_response_header_is_always_v0():
    for v in range(0, 5):
        assert protocol.response_header_version(18, v) == 0
    body = message_class("ApiVersionsResponse")()
    frame = protocol.encode_response(body, 4, correlation_id=5)
    # size, correlation id, then straight into the body: no header tag byte although v4 is flexible.
    assert frame == H("0000000c" "00000005" "0000" "01" "00000000" "00")


def test_controlled_shutdown_v0_uses_request_header_v0():
    # ControlledShutdown (api key 7, from Kafka 3.9): v0 alone uses request header v0.
    assert REGISTRY.request_class(7).NAME == "ControlledShutdownRequest"
    assert protocol.request_header_version(7, 0) == 0
    assert protocol.request_header_version(7, 1) == 1
    assert protocol.request_header_version(7, 3) == 2  # flexible from v3
    assert protocol.response_header_version(7, 0) == 0
    assert protocol.response_header_version(7, 3) == 1


@pytest.mark.parametrize("key", [-1, 100, 1000, 32767])
def test_unknown_api_key_in_header_version_rules(key):
    with pytest.raises(UnsupportedVersionError):
        protocol.request_header_version(key, 0)
    with pytest.raises(UnsupportedVersionError):
        protocol.response_header_version(key, 0)


# -- Header bytes ---------------------------------------------------------------------------------


def test_request_header_layouts():
    h = RequestHeader(
        request_api_key=3, request_api_version=9, correlation_id=0x01020304, client_id="ab"
    )
    assert h.encode(0) == H("0003 0009 01020304")
    assert h.encode(1) == H("0003 0009 01020304 0002 6162")
    # v2 is flexible, but ClientId keeps its int16 length (never compact); only the tag byte is added.
    assert h.encode(2) == H("0003 0009 01020304 0002 6162 00")
    assert RequestHeader(client_id=None).encode(2) == H("0000 0000 00000000 ffff 00")
    assert RequestHeader.decode(H("0003 0009 01020304 0002 6162 00"), 2) == h
    # A compact-style length (03 = 2 chars + 1) is not accepted as the ClientId of v2.
    with pytest.raises(DecodeError):
        RequestHeader.decode(H("0003 0009 01020304 03 6162 00"), 2)


def test_request_header_v2_keeps_unknown_tagged_fields():
    raw = H("0012 0003 00000001 0001 63" "01 05 02 abcd")
    h = RequestHeader.decode(raw, 2)
    assert h.unknown_tagged_fields == ((5, b"\xab\xcd"),)
    assert h.encode(2) == raw


def test_response_header_layouts():
    assert ResponseHeader(correlation_id=7).encode(0) == H("00000007")
    assert ResponseHeader(correlation_id=7).encode(1) == H("00000007 00")
    assert ResponseHeader.decode(H("00000007 00"), 1) == ResponseHeader(correlation_id=7)


def test_client_id_is_never_compact_in_a_framed_request():
    body = message_class("ApiVersionsRequest")(
        client_software_name="k", client_software_version="1"
    )
    frame = protocol.encode_request(body, 3, correlation_id=7, client_id="abc")
    header = H("0012 0003 00000007" "0003 616263" "00")  # int16 length 3, not uvarint 04
    want_body = H("02 6b" "02 31" "00")  # the body's strings are compact
    assert frame == H("00000013") + header + want_body
    assert protocol.encode_request(body, 3, correlation_id=7)[4:][8:10] == H(
        "ffff"
    )  # null client id


def test_small_frame_by_hand():
    body = message_class("ApiVersionsRequest")()
    # size 11 = api key 2 + version 2 + correlation 4 + client id (2 + 1); the v0 body is empty.
    assert protocol.encode_request(body, 0, correlation_id=1, client_id="c") == H(
        "0000000b 0012 0000 00000001 0001 63"
    )
    assert protocol.encode_request(body, 0, 1, "c", size_prefix=False) == H(
        "0012 0000 00000001 0001 63"
    )


# -- Round trips ----------------------------------------------------------------------------------


def _metadata_request(v):
    cls = message_class("MetadataRequest")
    topic = sys.modules[cls.__module__].MetadataRequestTopic(
        name="orders", topic_id=Uuid.ONE_UUID if v >= 10 else Uuid.ZERO_UUID
    )
    return cls(topics=[topic])


REQUESTS = [
    ("ApiVersionsRequest", 0, lambda v: message_class("ApiVersionsRequest")()),
    (
        "ApiVersionsRequest",
        3,
        lambda v: message_class("ApiVersionsRequest")(
            client_software_name="py", client_software_version="0.1"
        ),
    ),
    (
        "ApiVersionsRequest",
        4,
        lambda v: message_class("ApiVersionsRequest")(
            client_software_name="py", client_software_version="0.1"
        ),
    ),
    ("MetadataRequest", 0, _metadata_request),
    ("MetadataRequest", 8, _metadata_request),
    ("MetadataRequest", 9, _metadata_request),
    ("MetadataRequest", 12, _metadata_request),
    ("FetchRequest", 4, lambda v: message_class("FetchRequest")(max_wait_ms=500, min_bytes=1)),
    (
        "FetchRequest",
        13,
        lambda v: message_class("FetchRequest")(max_wait_ms=500, min_bytes=1, session_epoch=-1),
    ),
    (
        "BrokerHeartbeatRequest",
        1,
        lambda v: message_class("BrokerHeartbeatRequest")(
            broker_id=7, broker_epoch=3, current_metadata_offset=100, offline_log_dirs=[Uuid.ONE_UUID]
        ),
    ),
    ("FindCoordinatorRequest", 2, lambda v: message_class("FindCoordinatorRequest")(key="group-1")),
    (
        "FindCoordinatorRequest",
        4,
        lambda v: message_class("FindCoordinatorRequest")(coordinator_keys=["g1", "g2"]),
    ),
    (
        "InitProducerIdRequest",
        1,
        lambda v: message_class("InitProducerIdRequest")(
            transactional_id=None, transaction_timeout_ms=60000
        ),
    ),
    ("CreateTopicsRequest", 5, lambda v: message_class("CreateTopicsRequest")(timeout_ms=30000)),
]


@pytest.mark.parametrize("name,version,make", REQUESTS, ids=[f"{n} v{v}" for n, v, _ in REQUESTS])
def test_request_round_trip(name, version, make):
    body = make(version)
    frame = protocol.encode_request(body, version, correlation_id=4242, client_id="client-1")
    (size,) = struct.unpack_from(">i", frame, 0)
    assert size == len(frame) - 4
    hv = protocol.request_header_version(body.API_KEY, version)
    header_size = RequestHeader(client_id="client-1").size(hv)
    assert size == header_size + body.size(version)
    assert frame[4 + header_size :] == body.encode(version)

    req = protocol.decode_request(frame)
    assert type(req.body) is type(body)  # dispatched on the api key in the header
    assert req.body == body
    assert (req.api_key, req.api_version, req.correlation_id) == (body.API_KEY, version, 4242)
    assert req.header.client_id == "client-1"
    assert protocol.decode_request(frame[4:], size_prefix=False) == req
    assert (
        protocol.encode_request(req.body, req.api_version, req.correlation_id, req.header.client_id)
        == frame
    )


RESPONSES = [
    ("ApiVersionsResponse", 0),
    ("ApiVersionsResponse", 3),
    ("MetadataResponse", 8),
    ("MetadataResponse", 9),
    ("FetchResponse", 11),
    ("FetchResponse", 16),
    ("FindCoordinatorResponse", 3),
    ("BrokerHeartbeatResponse", 0),
    ("ProduceResponse", 9),
]


@pytest.mark.parametrize("name,version", RESPONSES, ids=[f"{n} v{v}" for n, v in RESPONSES])
def test_response_round_trip(name, version):
    cls = message_class(name)
    body = cls.decode(cls(throttle_time_ms=12).encode(version), version)  # v0 drops the throttle
    frame = protocol.encode_response(body, version, correlation_id=99)
    (size,) = struct.unpack_from(">i", frame, 0)
    assert size == len(frame) - 4
    hv = protocol.response_header_version(cls.API_KEY, version)
    assert frame[4:8] == H("00000063")
    assert frame[8 : 8 + hv] == b"\x00" * hv  # v1 adds one empty tag section
    assert frame[8 + hv :] == body.encode(version)

    resp = protocol.decode_response(frame, cls.API_KEY, version)
    assert type(resp.body) is cls
    assert resp.body == body and resp.correlation_id == 99
    assert protocol.decode_response(frame[4:], cls.API_KEY, version, size_prefix=False) == resp


def test_response_bytes_by_hand():
    body = message_class("MetadataResponse")()
    # v9: header v1 (correlation + tag byte); throttle, brokers [], cluster id null, controller -1,
    # topics [], cluster authorized operations INT32_MIN, tags.
    assert protocol.encode_response(body, 9, correlation_id=5) == H(
        "00000015" "00000005 00" "00000000 01 00 ffffffff 01 80000000 00"
    )
    assert protocol.encode_response(body, 8, correlation_id=5) == H(
        "0000001a" "00000005" "00000000 00000000 ffff ffffffff 00000000 80000000"
    )


# -- Frames ---------------------------------------------------------------------------------------


def test_frame_and_unframe():
    assert protocol.frame(b"abc") == H("00000003 616263")
    assert protocol.unframe(H("00000003 616263")) == (b"abc", 7)
    assert protocol.unframe(H("00000000")) == (b"", 4)
    two = protocol.frame(b"x") + protocol.frame(b"yz")
    payload, end = protocol.unframe(two)
    assert (payload, end) == (b"x", 5)
    assert protocol.unframe(two, end) == (b"yz", len(two))
    assert protocol.unframe(memoryview(two), 5) == (b"yz", len(two))


@pytest.mark.parametrize(
    "data,offset",
    [
        (b"", 0),
        (H("000000"), 0),  # shorter than the size field
        (H("00000001 00"), 5),  # nothing left at the offset
        (H("ffffffff"), 0),  # size -1
        (H("80000000") + bytes(16), 0),  # size INT32_MIN
        (H("00000008 00000007"), 0),  # 8 announced, 4 follow
        (H("00000017") + bytes(19), 0),  # 23 announced, 19 follow
    ],
    ids=[
        "empty",
        "short",
        "short-at-offset",
        "size-minus-one",
        "size-min-int",
        "truncated",
        "truncated-23",
    ],
)
def test_unframe_errors(data, offset):
    with pytest.raises(DecodeError) as info:
        protocol.unframe(data, offset)
    assert info.value.path == "size"
    assert info.value.offset == offset


def test_unframe_refuses_oversize_frames_before_reading_them():
    with pytest.raises(DecodeError) as info:
        protocol.unframe(H("00000011") + bytes(17), max_size=16)
    assert "invalid frame size 17" in info.value.reason
    assert protocol.unframe(H("00000010") + bytes(16), max_size=16) == (bytes(16), 20)
    huge = struct.pack(">i", protocol.MAX_FRAME_SIZE + 1) + bytes(8)
    with pytest.raises(DecodeError, match="invalid frame size"):
        protocol.unframe(huge)
    # At the limit the size is acceptable and the frame is merely incomplete.
    with pytest.raises(DecodeError, match="only 8 follow"):
        protocol.unframe(struct.pack(">i", protocol.MAX_FRAME_SIZE) + bytes(8))


@pytest.mark.parametrize(
    "data",
    [
        b"",
        H("000000"),
        H("ffffffff"),
        H("00000010 0012"),
        H("00000002 0012"),
        H("00000006 0012 0000 0000"),
    ],
    ids=["empty", "short", "negative", "truncated", "payload-too-short", "header-truncated"],
)
def test_decode_request_bad_frames(data):
    with pytest.raises(DecodeError):
        protocol.decode_request(data)


@pytest.mark.parametrize(
    "data", [b"", H("000000"), H("ffffffff"), H("00000010 0000"), H("00000002 0000")]
)
def test_decode_response_bad_frames(data):
    with pytest.raises(DecodeError):
        protocol.decode_response(data, 3, 9)


def test_trailing_bytes_in_the_body_are_a_decode_error():
    frame = protocol.encode_request(message_class("ApiVersionsRequest")(), 0, 1, "c")
    padded = protocol.frame(frame[4:] + b"\x00")
    with pytest.raises(DecodeError, match="trailing"):
        protocol.decode_request(padded)
    # ...unless asked to ignore them, as a broker does
    assert protocol.decode_request(padded, trailing=True) == protocol.decode_request(frame)
    resp = protocol.encode_response(message_class("MetadataResponse")(), 9, 5)
    with pytest.raises(DecodeError, match="trailing"):
        protocol.decode_response(protocol.frame(resp[4:] + b"\x00"), 3, 9)


@pytest.mark.parametrize("kind", ["request", "response"])
def test_bytes_after_the_frame_are_not_silently_dropped(kind):
    if kind == "request":
        frame = protocol.encode_request(message_class("ApiVersionsRequest")(), 0, 1, "c")
        with pytest.raises(DecodeError):
            protocol.decode_request(frame + b"junk")
    else:
        frame = protocol.encode_response(message_class("ApiVersionsResponse")(), 0, 1)
        with pytest.raises(DecodeError):
            protocol.decode_response(frame + b"junk", 18, 0)


# -- Dispatch -------------------------------------------------------------------------------------


def test_decode_request_dispatches_on_key_and_version():
    metadata = message_class("MetadataRequest")(topics=None)
    heartbeat = message_class("BrokerHeartbeatRequest")(broker_id=1, broker_epoch=2, current_metadata_offset=3)
    for body, version in ((metadata, 1), (metadata, 9), (heartbeat, 0), (heartbeat, 1)):
        req = protocol.decode_request(protocol.encode_request(body, version, 11, "x"))
        assert type(req.body) is type(body) and req.api_version == version and req.body == body
    # The same body bytes mean different things under two versions: the header's version decides.
    body = H("ffffffff")  # Metadata v1: null topics; v0 has no null form
    assert protocol.decode_request(_raw_request(3, 1, body)).body.topics is None
    with pytest.raises(DecodeError):
        protocol.decode_request(_raw_request(3, 0, body))


def _raw_request(api_key, api_version, body=b""):
    return protocol.frame(struct.pack(">hh", api_key, api_version) + H("00000001 0000") + body)


@pytest.mark.parametrize("api_key", [100, 1000, -1, 32767])
def test_decode_request_unknown_api_key(api_key):
    with pytest.raises(UnsupportedVersionError):
        protocol.decode_request(_raw_request(api_key, 0))


@pytest.mark.parametrize("api_key,api_version", [(18, 6), (18, 1698), (18, -1), (3, 14), (63, 3)])
def test_decode_request_unsupported_version(api_key, api_version):
    with pytest.raises(UnsupportedVersionError):
        protocol.decode_request(_raw_request(api_key, api_version))


@pytest.mark.parametrize("api_key", [100, 1000, 32767])
def test_decode_response_unknown_api_key(api_key):
    with pytest.raises(UnsupportedVersionError):
        protocol.decode_response(H("00000004 00000001"), api_key, 0)


def test_decode_response_unsupported_version():
    with pytest.raises(UnsupportedVersionError):
        protocol.decode_response(H("0000000a 00000001 0000 00000000"), 18, 6)


def test_encode_unsupported_version():
    with pytest.raises(UnsupportedVersionError):
        protocol.encode_request(message_class("ApiVersionsRequest")(), 6, 1)
    with pytest.raises(UnsupportedVersionError):
        protocol.encode_response(message_class("ApiVersionsResponse")(), 6, 1)


def test_request_and_response_accessors():
    req = protocol.decode_request(
        protocol.encode_request(message_class("MetadataRequest")(), 9, 77, "id")
    )
    assert (req.api_key, req.api_version, req.correlation_id) == (3, 9, 77)
    resp = protocol.decode_response(
        protocol.encode_response(message_class("MetadataResponse")(), 9, 78), 3, 9
    )
    assert resp.correlation_id == 78 and resp.header == ResponseHeader(correlation_id=78)


# -- A nullable struct in a tagged field ------------------------------------------------------------


def test_tagged_nullable_struct_marks_null_with_varint_zero():
    # Kafka's generator writes a tagged nullable struct as tag, size, then an unsigned varint:
    # 0 for null, 1 before the struct (an untagged one uses the byte -1 for null). Bytes checked
    # against kafka-group-coordinator 4.3.1's ConsumerGroupMemberMetadataValue.
    cls = message_class("ConsumerGroupMemberMetadataValue")
    head = H("01 01 01 01 01 01 ffffffff 01")  # v0 with every field at its default
    null = cls(classic_member_metadata=None)
    assert null.encode(0) == head + H("01 00 01 00")
    assert cls.decode(head + H("01 00 01 00"), 0) == null
    present = cls(classic_member_metadata=cls.ClassicMemberMetadata(session_timeout_ms=5))
    assert present.encode(0) == head + H("01 00 07 01 00000005 01 00")
    assert cls.decode(present.encode(0), 0) == present
    assert cls().encode(0) == head + H("00")  # the default (an empty struct) is not written


# -- Every api key through the frame codec --------------------------------------------------------


def kafka_request_header_version(api_key: int, version: int) -> int:
    if api_key == 7 and version == 0:
        return 0
    return 2 if REGISTRY.request_class(api_key).is_flexible(version) else 1


def kafka_response_header_version(api_key: int, version: int) -> int:
    if api_key == 18:
        return 0
    return 1 if REGISTRY.request_class(api_key).is_flexible(version) else 0


@pytest.mark.parametrize("api_key", REGISTRY.api_keys())
def test_every_api_key_dispatches_at_every_version(api_key):
    request_cls, response_cls = REGISTRY.request_class(api_key), REGISTRY.response_class(api_key)
    assert list(request_cls.versions()) == list(response_cls.versions())
    for version in request_cls.versions():
        hv = kafka_request_header_version(api_key, version)
        assert protocol.request_header_version(api_key, version) == hv
        frame = protocol.encode_request(request_cls(), version, correlation_id=9, client_id="c")
        request = protocol.decode_request(frame)
        assert (request.api_key, request.api_version, request.correlation_id) == (api_key, version, 9)
        assert request.body == request_cls() and len(request.header.encode(hv)) + 4 + len(
            request_cls().encode(version)
        ) == len(frame)
        rhv = kafka_response_header_version(api_key, version)
        assert protocol.response_header_version(api_key, version) == rhv
        frame = protocol.encode_response(response_cls(), version, correlation_id=9)
        response = protocol.decode_response(frame, api_key, version)
        assert response.correlation_id == 9 and response.body == response_cls()
        assert len(frame) == 4 + (5 if rhv == 1 else 4) + len(response_cls().encode(version))


def test_record_key_spaces():
    # KRaft, remote-log metadata and each coordinator number their records from 0 on their own.
    assert REGISTRY.record_class(0).NAME == "RegisterBrokerRecord"
    assert REGISTRY.record_class(0, "storage").NAME == "RemoteLogSegmentMetadataRecord"
    pairs = {
        ("group-coordinator", 0): ("LegacyOffsetCommitKey", "LegacyOffsetCommitValue"),
        ("group-coordinator", 3): ("ConsumerGroupMetadataKey", "ConsumerGroupMetadataValue"),
        ("group-coordinator", 9): ("ShareGroupPartitionMetadataKey", "ShareGroupPartitionMetadataValue"),
        ("transaction-coordinator", 0): ("TransactionLogKey", "TransactionLogValue"),
        ("share-coordinator", 1): ("ShareUpdateKey", "ShareUpdateValue"),
    }
    for (scope, record_type), names in pairs.items():
        assert tuple(c.NAME for c in REGISTRY.coordinator_classes(scope, record_type)) == names
    assert 28 in REGISTRY.record_types() and REGISTRY.record_class(28).NAME == "ClearElrRecord"
    with pytest.raises(KeyError, match="no share-coordinator coordinator-key record type 7"):
        REGISTRY.coordinator_classes("share-coordinator", 7)
