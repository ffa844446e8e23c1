"""Wire primitives, Uuid, DecodeError, and Kafka's encoding rules as the generated classes apply them.

The expected bytes below are worked out by hand from Kafka's protocol rules (compact lengths are
uvarint(n + 1), legacy nulls are -1, tagged fields are sorted by tag...), not copied from our encoder.
"""

from __future__ import annotations

import importlib
import pickle
import sys
import tracemalloc

import pytest
from work_count import raised_after

from kafka_meta_proto import message_class, wire
from kafka_meta_proto.errors import (
    DecodeError,
    EncodeError,
    KafkaProtocolError,
    UnsupportedVersionError,
)
from kafka_meta_proto.uuid import Uuid

H = bytes.fromhex

# -- uvarint -------------------------------------------------------------------------------------

UVARINTS = [
    (0, "00"),
    (1, "01"),
    (127, "7f"),
    (128, "8001"),
    (300, "ac02"),
    (16383, "ff7f"),
    (16384, "808001"),
    (2**21 - 1, "ffff7f"),
    (2**21, "80808001"),
    (2**28 - 1, "ffffff7f"),
    (2**28, "8080808001"),
    (2**31 - 1, "ffffffff07"),
    (2**32 - 1, "ffffffff0f"),
]


@pytest.mark.parametrize("value,hexed", UVARINTS, ids=[str(v) for v, _ in UVARINTS])
def test_uvarint_encodes_and_decodes(value, hexed):
    raw = H(hexed)
    assert wire.uvarint(value) == raw
    assert wire.uvarint_size(value) == len(raw)
    assert wire.read_uvarint(raw, 0) == (value, len(raw))
    # At an offset, with bytes after it.
    assert wire.read_uvarint(b"\xaa\xbb" + raw + b"\xcc", 2) == (value, 2 + len(raw))


def test_uvarint_size_agrees_with_uvarint_everywhere_near_the_boundaries():
    for shift in range(0, 33):
        for value in (2**shift - 1, 2**shift, 2**shift + 1):
            if 0 <= value <= 0xFFFFFFFF:
                assert wire.uvarint_size(value) == len(wire.uvarint(value)), value


@pytest.mark.parametrize("value", [-1, 2**32, 2**64])
def test_uvarint_refuses_values_outside_uint32(value):
    with pytest.raises(ValueError):
        wire.uvarint(value)


def test_six_byte_uvarint_is_a_decode_error():
    with pytest.raises(DecodeError) as info:
        wire.read_uvarint(H("808080808000"), 0)
    assert info.value.offset == 0
    # Five continuation bytes are already too long, whatever follows.
    with pytest.raises(DecodeError):
        wire.read_uvarint(H("8080808080"), 0)


@pytest.mark.parametrize(
    "data,start", [(b"", 0), (H("80"), 0), (H("ffff"), 0), (H("00ff"), 1), (H("01"), 1)]
)
def test_truncated_uvarint_is_a_decode_error_at_its_start(data, start):
    with pytest.raises(DecodeError) as info:
        wire.read_uvarint(data, start)
    assert info.value.offset == start


@pytest.mark.parametrize("hexed", ["ffffffff1f", "ffffffff7f", "8080808010"])
def test_five_byte_uvarint_never_exceeds_32_bits(hexed):
    try:
        value, _ = wire.read_uvarint(H(hexed), 0)
    except DecodeError:
        return
    assert value <= 0xFFFFFFFF


def test_decoded_tag_beyond_32_bits_is_rejected_or_reencodable():
    BrokerHeartbeatRequest = message_class("BrokerHeartbeatRequest")
    data = bytes(22) + H("01" "ffffffff7f" "00")  # one tagged field: tag ffffffff7f, size 0
    try:
        msg = BrokerHeartbeatRequest.decode(data, 1)
    except DecodeError:
        return
    msg.encode(1)


# -- Uuid ----------------------------------------------------------------------------------------


def test_reserved_uuids():
    assert str(Uuid.ZERO_UUID) == "AAAAAAAAAAAAAAAAAAAAAA"
    assert str(Uuid.ONE_UUID) == "AAAAAAAAAAAAAAAAAAAAAQ"
    assert Uuid.ZERO_UUID.bytes == bytes(16)
    assert Uuid.ONE_UUID.bytes == bytes(15) + b"\x01"
    assert Uuid.METADATA_TOPIC_ID == Uuid.ONE_UUID
    assert Uuid.RESERVED == {Uuid.ZERO_UUID, Uuid.ONE_UUID}
    assert Uuid.from_string("AAAAAAAAAAAAAAAAAAAAAA") == Uuid.ZERO_UUID
    assert Uuid.from_string("AAAAAAAAAAAAAAAAAAAAAQ") == Uuid.ONE_UUID


@pytest.mark.parametrize(
    "raw,text",
    [
        (bytes(range(16)), "AAECAwQFBgcICQoLDA0ODw"),  # standard base64 "AAECAwQFBgcICQoLDA0ODw=="
        # fb ff fb -> 62 63 63 59 -> '-' '_' '_' '7' in the URL-safe alphabet (std: '+' '/' '/' '7').
        (bytes([0xFB, 0xFF] * 8), "-__7__v_-__7__v_-__7_w"),
        (b"\xff" * 16, "_____________________w"),
    ],
)
def test_uuid_text_form_is_url_safe_base64_without_padding(raw, text):
    u = Uuid(raw)
    assert str(u) == text
    assert len(str(u)) == 22
    assert Uuid.from_string(text) == u
    assert repr(u) == f"Uuid({text!r})"


def test_uuid_text_round_trip_of_random_values():
    for _ in range(500):
        u = Uuid.random()
        assert Uuid.from_string(str(u)) == u


def test_random_uuids_are_never_reserved_nor_start_with_dash():
    # '-' is one of 64 first characters, so 20000 draws hit it ~300 times if random() let them through.
    seen = set()
    for _ in range(20000):
        u = Uuid.random()
        text = str(u)
        assert u not in Uuid.RESERVED
        assert not text.startswith("-")
        assert u.bytes[6] >> 4 == 4  # version 4
        assert u.bytes[8] >> 6 == 0b10  # IETF variant
        seen.add(u)
    assert len(seen) == 20000


@pytest.mark.parametrize(
    "text",
    [
        "",
        "AAAA",
        "AAAAAAAAAAAAAAAAAAAAA",  # 21 characters
        "AAAAAAAAAAAAAAAAAAAAAAA",  # 23 characters: 17 bytes
        "AAAAAAAAAAAAAAAAAAAAAAAA",  # 24 characters: 18 bytes
        "AAAAAAAAAAAAAAAAAAAAA!",
        "AAAAAAAAAAAAAAAAAAAAA\u00e9",
        " AAAAAAAAAAAAAAAAAAAAAA",
        "AAAAAAAAAAAAAAAAAAAAAA\n",
        "00000000-0000-0000-0000-000000000000",
    ],
)
def test_uuid_from_string_rejects_bad_text(text):
    with pytest.raises(ValueError):
        Uuid.from_string(text)


@pytest.mark.parametrize("value", [None, 0, b"AAAAAAAAAAAAAAAAAAAAAA"])
def test_uuid_from_string_rejects_non_strings(value):
    with pytest.raises(ValueError):
        Uuid.from_string(value)


@pytest.mark.parametrize("text", ["AAAAAAAAAAAAAAAAAAAAA+", "AAAAAAAAAAAAAAAAAAAAA/"])
def test_uuid_from_string_rejects_the_standard_base64_alphabet(text):
    with pytest.raises(ValueError):
        Uuid.from_string(text)


@pytest.mark.parametrize("raw", [b"", bytes(15), bytes(17)])
def test_uuid_needs_16_bytes(raw):
    with pytest.raises(ValueError):
        Uuid(raw)


def test_uuid_from_bits_and_signed_halves():
    assert Uuid.from_bits(0, 0) == Uuid.ZERO_UUID
    assert Uuid.from_bits(0, 1) == Uuid.ONE_UUID
    u = Uuid.from_bits(0x0123456789ABCDEF, -0x0123456789ABCDF0)
    assert u.bytes == H("0123456789abcdeffedcba9876543210")
    assert u.most_significant_bits == 0x0123456789ABCDEF
    assert u.least_significant_bits == -0x0123456789ABCDF0
    # Signed and unsigned halves name the same value; the properties give Kafka's signed longs.
    all_ones = Uuid.from_bits(-1, -1)
    assert all_ones == Uuid.from_bits(2**64 - 1, 2**64 - 1)
    assert all_ones.bytes == b"\xff" * 16
    assert (all_ones.most_significant_bits, all_ones.least_significant_bits) == (-1, -1)
    assert Uuid.from_bits(-(2**63), 2**63 - 1).bytes == H("8000000000000000" "7fffffffffffffff")
    for _ in range(200):
        r = Uuid.random()
        assert -(2**63) <= r.most_significant_bits < 2**63
        assert Uuid.from_bits(r.most_significant_bits, r.least_significant_bits) == r


def test_uuid_value_semantics():
    a = Uuid.from_bits(1, 2)
    b = Uuid(a.bytes)
    assert a == b and hash(a) == hash(b) and a != Uuid.ZERO_UUID
    assert a != a.bytes  # not equal to its bytes
    assert pickle.loads(pickle.dumps(a)) == a
    # Kafka orders Uuids by their signed halves: a negative most-significant half sorts first.
    assert Uuid.from_bits(-1, 0) < Uuid.ZERO_UUID < Uuid.ONE_UUID
    assert sorted([Uuid.ONE_UUID, Uuid.from_bits(-5, 0), Uuid.ZERO_UUID]) == [
        Uuid.from_bits(-5, 0),
        Uuid.ZERO_UUID,
        Uuid.ONE_UUID,
    ]


# -- DecodeError ---------------------------------------------------------------------------------


def test_decode_error_formatting():
    e = DecodeError("bad length", 17, "topics[2].name", "MetadataRequest v1")
    assert (e.reason, e.offset, e.path, e.context) == (
        "bad length",
        17,
        "topics[2].name",
        "MetadataRequest v1",
    )
    assert str(e) == "MetadataRequest v1: bad length (field topics[2].name, byte offset 17)"
    assert str(DecodeError("bad")) == "bad"
    assert str(DecodeError("bad", 0)) == "bad (byte offset 0)"  # offset 0 is still shown
    assert str(DecodeError("bad", path="x")) == "bad (field x)"
    assert isinstance(e, ValueError) and isinstance(e, KafkaProtocolError)
    assert issubclass(EncodeError, KafkaProtocolError) and issubclass(
        UnsupportedVersionError, KafkaProtocolError
    )


def test_decode_error_within_builds_the_path_outwards():
    e = DecodeError("r", 3).within("name").within("topics[]", 2)
    assert e.path == "topics[2].name"
    # An error about the array itself (empty path) names the array without an index.
    assert DecodeError("r", 3).within("topics[]", 5).path == "topics"
    assert DecodeError("r", 3).within("leader").path == "leader"


def test_decode_error_from_a_nested_field_names_path_offset_and_message():
    MetadataResponse = message_class("MetadataResponse")
    mod = sys.modules[MetadataResponse.__module__]
    msg = MetadataResponse(
        topics=[
            mod.MetadataResponseTopic(name="a"),
            mod.MetadataResponseTopic(
                name="b", partitions=[mod.MetadataResponsePartition(replica_nodes=[1, 2])]
            ),
        ]
    )
    data = msg.encode(5)
    with pytest.raises(DecodeError) as info:
        MetadataResponse.decode(data[:-3], 5)
    e = info.value
    assert e.path == "topics[1].partitions[0].offline_replicas"
    assert e.context == "MetadataResponse v5"
    assert e.offset == len(data) - 4  # where the offline_replicas count starts
    assert str(e).startswith("MetadataResponse v5: ")
    assert "field topics[1].partitions[0].offline_replicas" in str(e)


# -- Kafka's encoding rules on generated classes ---------------------------------------------------


def test_compact_string_is_uvarint_length_plus_one_then_utf8():
    ApiVersionsRequest = message_class("ApiVersionsRequest")
    assert ApiVersionsRequest(client_software_name="abc", client_software_version="1").encode(
        3
    ) == H("04 616263" "02 31" "00")
    # Length counts UTF-8 bytes: 'é' is c3 a9.
    assert ApiVersionsRequest(client_software_name="\u00e9", client_software_version="").encode(
        3
    ) == H("03 c3a9" "01" "00")
    # 127 bytes: uvarint(128) takes two bytes.
    long = ApiVersionsRequest(client_software_name="x" * 127, client_software_version="")
    assert long.encode(3) == H("8001") + b"x" * 127 + H("01 00")
    assert long.size(3) == 2 + 127 + 2


def test_nullable_strings_null_forms():
    FindCoordinatorResponse = message_class("FindCoordinatorResponse")
    msg = FindCoordinatorResponse(error_message=None, host="h")
    # v3 (flexible): throttle, error code, compact nullable string null = 00, node id, host, port, tags.
    assert msg.encode(3) == H("00000000" "0000" "00" "00000000" "0268" "00000000" "00")
    # v1: legacy nullable string null = int16 -1 = ff ff; host is a legacy string.
    assert msg.encode(1) == H("00000000" "0000" "ffff" "00000000" "000168" "00000000")
    for v in (1, 3):
        assert FindCoordinatorResponse.decode(msg.encode(v), v).error_message is None
    # An empty string is not null.
    assert FindCoordinatorResponse(error_message="", host="h").encode(3)[6] == 0x01
    RequestHeader = message_class("RequestHeader")
    assert RequestHeader(
        request_api_key=3, request_api_version=1, correlation_id=9, client_id=None
    ).encode(1) == H("0003 0001 00000009 ffff")


def test_nullable_arrays_null_forms():
    MetadataRequest = message_class("MetadataRequest")
    assert MetadataRequest(topics=None).encode(1) == H("ffffffff")  # legacy: int32 -1
    assert MetadataRequest(topics=[]).encode(1) == H("00000000")
    # v9 (flexible): compact null = 00, empty = 01; then three booleans and the tag section.
    assert MetadataRequest(topics=None).encode(9) == H("00" "01" "00" "00" "00")
    assert MetadataRequest(topics=[]).encode(9) == H("01" "01" "00" "00" "00")
    assert MetadataRequest.decode(H("ffffffff"), 1).topics is None
    assert MetadataRequest.decode(H("0001000000"), 9).topics is None
    # v0 has no null form.
    with pytest.raises(EncodeError):
        MetadataRequest(topics=None).encode(0)
    with pytest.raises(DecodeError):
        MetadataRequest.decode(H("ffffffff"), 0)


def test_booleans_decode_any_nonzero_byte_as_true():
    # Kafka reads a bool as readByte() != 0; the writer always writes 01.
    BrokerHeartbeatRequest = message_class("BrokerHeartbeatRequest")
    body = H("00000001" "0000000000000002" "0000000000000003" "02" "00" "00")
    msg = BrokerHeartbeatRequest.decode(body, 0)
    assert msg.want_fence is True and msg.want_shut_down is False
    assert msg.encode(0) == body[:20] + H("01 00 00")


# Nullable structs: no shipped schema has one (Kafka's appear in APIs we do not ship, such as
# ConsumerGroupHeartbeatResponse.Assignment), so the generator is run on a small schema here.
NULLABLE_STRUCT_SCHEMA = """{
  "type": "data",
  "name": "NullableStructProbe",
  "validVersions": "0-1",
  "flexibleVersions": "1+",
  "fields": [
    { "name": "Id", "type": "int32", "versions": "0+", "about": "An id." },
    { "name": "Inner", "type": "InnerStruct", "versions": "0+", "nullableVersions": "0+",
      "default": "null", "about": "A struct that may be null.", "fields": [
      { "name": "Value", "type": "int16", "versions": "0+", "about": "A value." }
    ]}
  ]
}
"""


@pytest.fixture(scope="module")
def nullable_struct_class(tmp_path_factory):
    pytest.importorskip("jinja2")
    pytest.importorskip("black")
    from codegen.generate import generate, write_package

    root = tmp_path_factory.mktemp("nullable_struct")
    schemas = root / "schemas"
    schemas.mkdir()
    (schemas / "NullableStructProbe.json").write_text(NULLABLE_STRUCT_SCHEMA, encoding="utf-8")
    package = "kmp_nullable_struct_probe"
    write_package(generate([schemas], package, jobs=1), root / package)
    sys.path.insert(0, str(root))
    try:
        yield importlib.import_module(package).message_class("NullableStructProbe")
    finally:
        sys.path.remove(str(root))
        for name in [m for m in sys.modules if m == package or m.startswith(package + ".")]:
            del sys.modules[name]


def test_nullable_struct_marker(nullable_struct_class):
    C = nullable_struct_class
    inner_cls = sys.modules[C.__module__].InnerStruct
    # int8 marker: -1 for null, 1 then the struct when present; the same in flexible versions.
    assert C(id=1, inner=None).encode(0) == H("00000001 ff")
    assert C(id=1, inner=inner_cls(value=7)).encode(0) == H("00000001 01 0007")
    assert C(id=1, inner=None).encode(1) == H("00000001 ff 00")
    assert C(id=1, inner=inner_cls(value=7)).encode(1) == H("00000001 01 0007 00 00")
    for v in (0, 1):
        for msg in (C(id=1, inner=None), C(id=1, inner=inner_cls(value=7))):
            assert C.decode(msg.encode(v), v) == msg
            assert msg.size(v) == len(msg.encode(v))
    # Kafka reads any negative marker as null and any other as present.
    assert C.decode(H("00000001 80"), 0).inner is None
    assert C.decode(H("00000001 00 0007"), 0).inner == inner_cls(value=7)
    assert C.decode(H("00000001 7f 0007"), 0).inner == inner_cls(value=7)
    with pytest.raises(DecodeError):
        C.decode(H("00000001"), 0)  # marker missing


def test_tagged_field_written_only_when_not_default():
    BrokerHeartbeatRequest = message_class("BrokerHeartbeatRequest")
    fixed = H("00000001" "0000000000000002" "0000000000000003" "00" "00")
    assert BrokerHeartbeatRequest(broker_id=1, broker_epoch=2, current_metadata_offset=3).encode(1) == fixed + H("00")
    with_dirs = BrokerHeartbeatRequest(broker_id=1, broker_epoch=2, current_metadata_offset=3, offline_log_dirs=[Uuid.ONE_UUID])
    # One tagged field: tag 0, size 17 (compact array count 02 + 16 bytes).
    assert with_dirs.encode(1) == fixed + H("01" "00" "11" "02") + Uuid.ONE_UUID.bytes
    assert BrokerHeartbeatRequest.decode(with_dirs.encode(1), 1) == with_dirs


def test_known_and_unknown_tagged_fields_are_merged_in_tag_order():
    PartitionChangeRecord = message_class("PartitionChangeRecord")
    # At v1 tags 0-5 and 8 are known; 6 and 7 (ELR fields, v2+) are unknown to that version.
    rec = PartitionChangeRecord(
        partition_id=1,
        topic_id=Uuid.ONE_UUID,
        leader=5,
        directories=[Uuid.ONE_UUID],
        unknown_tagged_fields=((9, b"z"), (7, b"\x01"), (6, b"\x02\x03")),  # given out of order
    )
    want = (
        H("00000001")
        + Uuid.ONE_UUID.bytes
        + H("05")  # five tagged fields
        + H("01 04 00000005")  # tag 1 leader
        + H("06 02 0203")  # unknown tag 6
        + H("07 01 01")  # unknown tag 7
        + H("08 11 02")
        + Uuid.ONE_UUID.bytes  # tag 8 directories
        + H("09 01 7a")  # unknown tag 9
    )
    assert rec.encode(1) == want
    assert rec.size(1) == len(want)
    back = PartitionChangeRecord.decode(want, 1)
    assert back.leader == 5 and back.directories == [Uuid.ONE_UUID]
    assert sorted(back.unknown_tagged_fields) == [(6, b"\x02\x03"), (7, b"\x01"), (9, b"z")]
    assert back.encode(1) == want


def test_tagged_field_order_on_a_message_with_only_known_tags():
    ApiVersionsResponse = message_class("ApiVersionsResponse")
    msg = ApiVersionsResponse(finalized_features_epoch=5, zk_migration_ready=True)
    assert msg.encode(3) == H("0000" "01" "00000000" "02" "01 08 0000000000000005" "03 01 01")
    # Kafka does not require tags in order on input; the writer puts them back in order.
    swapped = H("0000" "01" "00000000" "02" "03 01 01" "01 08 0000000000000005")
    assert ApiVersionsResponse.decode(swapped, 3) == msg
    assert ApiVersionsResponse.decode(swapped, 3).encode(3) == msg.encode(3)
    # A tagged field sent with its default value decodes, and is left out when written again.
    explicit_default = H("0000" "01" "00000000" "01" "03 01 00")
    assert ApiVersionsResponse.decode(explicit_default, 3) == ApiVersionsResponse()
    assert ApiVersionsResponse().encode(3) == H("0000" "01" "00000000" "00")


def test_unknown_tagged_fields_with_multibyte_tag_and_size():
    BrokerHeartbeatRequest = message_class("BrokerHeartbeatRequest")
    data = bytes(range(200))
    msg = BrokerHeartbeatRequest(broker_id=1, broker_epoch=2, current_metadata_offset=3, unknown_tagged_fields=((300, data), (1, b"")))
    body = msg.encode(1)
    fixed = H("00000001" "0000000000000002" "0000000000000003" "00" "00")
    assert body == fixed + H("02" "01 00" "ac02 c801") + data
    assert msg.size(1) == len(body)
    assert BrokerHeartbeatRequest.decode(body, 1) == BrokerHeartbeatRequest(
        broker_id=1, broker_epoch=2, current_metadata_offset=3, unknown_tagged_fields=((1, b""), (300, data))
    )


def test_unknown_tagged_fields_in_a_version_without_tags_are_refused():
    MetadataRequest = message_class("MetadataRequest")
    with pytest.raises(UnsupportedVersionError):
        MetadataRequest(unknown_tagged_fields=((5, b"x"),)).encode(8)
    assert MetadataRequest(unknown_tagged_fields=((5, b"x"),)).encode(9).endswith(H("01 05 01 78"))


def test_non_default_field_missing_from_the_version_is_refused_naming_it():
    BrokerHeartbeatRequest = message_class("BrokerHeartbeatRequest")
    with pytest.raises(UnsupportedVersionError, match="offline_log_dirs"):
        BrokerHeartbeatRequest(offline_log_dirs=[Uuid.ONE_UUID]).encode(0)
    MetadataRequest = message_class("MetadataRequest")
    with pytest.raises(UnsupportedVersionError, match="allow_auto_topic_creation"):
        MetadataRequest(topics=[], allow_auto_topic_creation=False).encode(3)
    # The default value is fine.
    assert MetadataRequest(topics=[], allow_auto_topic_creation=True).encode(3) == H("00000000")


def test_ignorable_field_missing_from_the_version_is_dropped():
    MetadataResponse = message_class("MetadataResponse")
    assert MetadataResponse(throttle_time_ms=5).encode(0) == MetadataResponse().encode(0)
    assert (
        MetadataResponse.decode(MetadataResponse(throttle_time_ms=5).encode(0), 0).throttle_time_ms
        == 0
    )
    assert MetadataResponse(throttle_time_ms=5).encode(3)[:4] == H("00000005")
    FetchRequest = message_class("FetchRequest")
    # ClusterId is an ignorable tagged field of v12+.
    assert FetchRequest(cluster_id="c").encode(11) == FetchRequest().encode(11)


def _samples():
    MetadataRequest = message_class("MetadataRequest")
    MetadataResponse = message_class("MetadataResponse")
    mr = sys.modules[MetadataResponse.__module__]
    mq = sys.modules[MetadataRequest.__module__]
    yield MetadataRequest(
        topics=[mq.MetadataRequestTopic(name="t\u00e9\u4e16", topic_id=Uuid.ONE_UUID)]
    ), range(10, 13)
    yield MetadataRequest(topics=[mq.MetadataRequestTopic(name="x" * 200)]), range(0, 10)
    yield MetadataResponse(
        brokers=[mr.MetadataResponseBroker(node_id=1, host="h" * 130, port=9092, rack=None)],
        cluster_id="\u00e9" * 70,
        topics=[
            mr.MetadataResponseTopic(
                name="a", partitions=[mr.MetadataResponsePartition(replica_nodes=[1] * 40)]
            )
        ],
    ), range(2, 13)
    yield message_class("BrokerHeartbeatRequest")(
        broker_id=1,
        broker_epoch=2,
        current_metadata_offset=3,
        offline_log_dirs=[Uuid.random() for _ in range(10)],
        unknown_tagged_fields=((7, b"q" * 300),),
    ), range(1, 2)


def test_size_is_the_length_of_the_encoding():
    count = 0
    for msg, versions in _samples():
        for v in versions:
            data = msg.encode(v)
            assert msg.size(v) == len(data), (msg.NAME, v)
            assert type(msg).decode(data, v).encode(v) == data
            count += 1
    assert count > 20


def test_trailing_bytes_are_a_decode_error_naming_the_offset():
    MetadataRequest = message_class("MetadataRequest")
    body = MetadataRequest(topics=[]).encode(4)
    assert body == H("00000000 01")
    with pytest.raises(DecodeError) as info:
        MetadataRequest.decode(body + b"\x00\x00", 4)
    assert info.value.offset == 5
    assert "2 trailing bytes" in info.value.reason
    assert "byte offset 5" in str(info.value)
    # decode_from leaves the rest to the caller.
    msg, end = MetadataRequest.decode_from(b"\xee" + body + b"\x00\x00", 4, 1)
    assert (msg, end) == (MetadataRequest(topics=[]), 6)


def _prompt_decode_error(cls, data, version):
    """Decode must fail fast and without allocating for the announced count."""
    refused, calls = raised_after(cls.decode, data, version)
    assert calls < 5_000, f"rejecting made {calls} calls"
    tracemalloc.start()
    try:
        with pytest.raises(DecodeError) as info:
            cls.decode(data, version)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1 << 20
    return info.value


@pytest.mark.parametrize(
    "name,version,data",
    [
        ("MetadataRequest", 1, H("7fffffff") + bytes(10)),  # legacy int32 count
        (
            "MetadataRequest",
            9,
            H("8080808008") + bytes(10),
        ),  # compact: uvarint(2**31) = count 2**31-1
        ("MetadataRequest", 9, H("ffffffff0f") + bytes(10)),  # compact: count 2**32-2
        ("MetadataResponse", 1, H("7fffffff") + bytes(10)),  # brokers
        ("ApiVersionsResponse", 0, H("0000 7fffffff") + bytes(10)),
        # A tagged field of 5 bytes whose uuid array claims 2**31-1 elements.
        ("BrokerHeartbeatRequest", 1, bytes(22) + H("01 00 05 8080808008") + bytes(10)),
    ],
)
def test_huge_array_count_fails_promptly(name, version, data):
    e = _prompt_decode_error(message_class(name), data, version)
    assert e.offset is not None and e.offset <= len(data)


def test_string_longer_than_the_bytes_left_is_a_decode_error():
    RequestHeader = message_class("RequestHeader")
    header = H("0003 0001 00000009")
    e = _prompt_decode_error(RequestHeader, header + H("7fff") + b"abc", 1)
    assert e.path == "client_id"
    assert 8 <= e.offset <= 10  # at the length field or just after it
    # Compact strings: uvarint(2**32 - 1) announces 2**32 - 2 bytes.
    ApiVersionsRequest = message_class("ApiVersionsRequest")
    e = _prompt_decode_error(ApiVersionsRequest, H("ffffffff0f") + b"abc", 3)
    assert e.path == "client_software_name"


def test_negative_legacy_length_other_than_minus_one_is_a_decode_error():
    RequestHeader = message_class("RequestHeader")
    header = H("0003 0001 00000009")
    with pytest.raises(DecodeError) as info:
        RequestHeader.decode(header + H("fffe"), 1)  # nullable string, length -2
    assert info.value.path == "client_id"
    assert 8 <= info.value.offset <= 10
    assert RequestHeader.decode(header + H("ffff"), 1).client_id is None
    MetadataRequest = message_class("MetadataRequest")
    with pytest.raises(DecodeError) as info:
        MetadataRequest.decode(H("fffffffe"), 1)  # nullable array, length -2
    assert info.value.path == "topics"
    with pytest.raises(DecodeError) as info:
        MetadataRequest.decode(H("80000000"), 1)
    # A non-nullable string cannot be null at all.
    with pytest.raises(DecodeError) as info:
        MetadataRequest.decode(H("00000001 ffff"), 1)
    assert info.value.path == "topics[0].name"
    with pytest.raises(DecodeError) as info:
        MetadataRequest.decode(H("00000001 fffe"), 1)
    assert info.value.path == "topics[0].name"
    # Nor can a non-nullable compact string (length byte 00).
    with pytest.raises(DecodeError):
        message_class("ApiVersionsRequest").decode(H("00 01 00"), 3)


def test_invalid_utf8_is_a_decode_error():
    with pytest.raises(DecodeError) as info:
        message_class("RequestHeader").decode(H("0003 0001 00000009 0002 c328"), 1)
    assert info.value.path == "client_id"


def test_decode_rejects_text_and_accepts_bytes_like():
    MetadataRequest = message_class("MetadataRequest")
    with pytest.raises(TypeError):
        MetadataRequest.decode("00000000", 1)
    for data in (bytearray(H("00000000")), memoryview(H("00000000"))):
        assert MetadataRequest.decode(data, 1) == MetadataRequest(topics=[])
