"""Hostile input: a decoder given bad bytes raises DecodeError naming the field path and the byte
offset, never another exception, never hangs, and never allocates memory sized by a length it has
not checked against the bytes that are actually there.

- every truncation of every golden vector (ours, tests/data/golden: every message and version of
  each release line) is a DecodeError; one trailing byte is a DecodeError at the original length,
  while ``decode_from`` stops at the original end;
- hostile length prefixes built from real messages (huge counts, huge string lengths, over-long
  varints, negative lengths other than -1) fail at once, in flat memory, at the right field;
- random bytes decoded as every message at every version raise only DecodeError, and whatever
  does decode re-encodes to a canonical form that decodes to the same message.

``tools/fuzz.py`` goes further with mutated encodings; ``tests/test_fuzz_short.py`` runs it briefly.
"""

from __future__ import annotations

import tracemalloc

import pytest
from work_count import raised_after
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from conftest import canonical_unknown_tags, golden_vectors, same_json, shipped_class, shipped_names
from tiers import hypothesis_twins
from kafka_meta_proto import DISKLESS_REGISTRY, REGISTRY, DecodeError, UnsupportedVersionError, kraft, message_class, protocol
from kafka_meta_proto.wire import uvarint

TRAILING = "trailing bytes after the message"

# Truncation sampling: every prefix of short vectors; for long ones the first 64 prefix lengths,
# the last 16 and at most about 100 more spread between them (every 7th byte, or sparser), so
# the whole sweep stays within seconds. The exhaustive sweep is marked slow.
HEAD, TAIL, MIDDLE = 64, 16, 100

# The messages with golden vectors (all but design-only versions: test_golden_vectors says so);
# each vector once, though several releases may hold it.
VECTOR_NAMES = sorted({v["name"] for v in golden_vectors()})


def prefix_lengths(n: int) -> list[int]:
    """The prefix lengths of an n-byte encoding to try (all of them when n is small)."""
    if n <= HEAD + TAIL:
        return list(range(n))
    stride = max(7, -(-(n - HEAD - TAIL) // MIDDLE))
    middle = range(HEAD + n % stride, n - TAIL, stride)  # the phase varies with the length
    return sorted({*range(HEAD), *middle, *range(n - TAIL, n)})


def located_problem(e: DecodeError, data_len: int, field_level: bool = True) -> str | None:
    """What is wrong with where a DecodeError says the problem is, or None."""
    if e.offset is None or not 0 <= e.offset <= data_len:
        return f"offset {e.offset!r} outside the {data_len}-byte input"
    if field_level and not e.path:
        return f"no field path for a field-level error ({e.reason})"
    text = str(e)
    if e.path and e.path not in text:
        return f"message {text!r} does not name the path {e.path!r}"
    if f"byte offset {e.offset}" not in text:
        return f"message {text!r} does not give the offset {e.offset}"
    return None


def _truncation_failures(cls, vec: dict, lengths) -> list[str]:
    data, version = bytes.fromhex(vec["hex"]), vec["version"]
    failures = []
    for i in lengths:
        prefix = data[:i]
        try:
            cls.decode(prefix, version)
        except DecodeError as e:
            problem = located_problem(e, i)
            if problem:
                failures.append(f"v{version} {vec['kind']} prefix {i}/{len(data)}: {problem}")
        except Exception as e:  # noqa: BLE001 - any other exception is the failure
            failures.append(f"v{version} {vec['kind']} prefix {i}/{len(data)}: {type(e).__name__}: {e}")
        else:
            # Kafka encodings are self-delimiting: a strict decode that stops inside a valid
            # encoding would have stopped there on the whole encoding too. So this cannot happen
            # unless the decoder reads the prefix differently from the whole.
            failures.append(f"v{version} {vec['kind']} prefix {i}/{len(data)} decoded cleanly: {prefix.hex()}")
    return failures


@pytest.mark.parametrize("name", VECTOR_NAMES)
def test_truncated_vectors(name: str):
    """Cut short anywhere (sampled for long vectors), every golden vector is a located DecodeError."""
    cls = message_class(name)
    failures = []
    for vec in golden_vectors(name):
        failures += _truncation_failures(cls, vec, prefix_lengths(len(vec["hex"]) // 2))
    assert not failures, f"{len(failures)} bad truncations:\n" + "\n".join(failures[:10])


@pytest.mark.slow
def test_truncated_vectors_exhaustive():
    """Every prefix length of every vector: about 400 thousand decodes (the slow tier)."""
    failures = []
    for vec in golden_vectors():
        found = _truncation_failures(message_class(vec["name"]), vec, range(len(vec["hex"]) // 2))
        failures += [f"{vec['name']} {f}" for f in found]
    assert not failures, f"{len(failures)} bad truncations:\n" + "\n".join(failures[:10])


@pytest.mark.parametrize("name", VECTOR_NAMES)
def test_trailing_byte(name: str):
    """One extra byte: decode rejects it at the original length, decode_from stops before it."""
    cls = message_class(name)
    failures = []
    for vec in golden_vectors(name):
        data, version = bytes.fromhex(vec["hex"]), vec["version"]
        where = f"v{version} {vec['kind']}"
        for extra in (b"\x00", b"\xff"):
            try:
                cls.decode(data + extra, version)
                failures.append(f"{where}: trailing {extra.hex()} accepted")
            except DecodeError as e:
                if e.offset != len(data):
                    failures.append(f"{where}: trailing byte reported at {e.offset}, not {len(data)}")
                problem = located_problem(e, len(data) + 1, field_level=False)
                if problem:
                    failures.append(f"{where}: {problem}")
            msg, end = cls.decode_from(data + extra, version)
            if end != len(data):
                failures.append(f"{where}: decode_from ended at {end}, not {len(data)}")
            # and from an offset inside a larger buffer
            msg2, end2 = cls.decode_from(b"\xa5\xa5\xa5" + data + extra, version, 3)
            if end2 != 3 + len(data):
                failures.append(f"{where}: decode_from at offset 3 ended at {end2}, not {3 + len(data)}")
            if msg.encode(version) != data or msg2.encode(version) != data:
                failures.append(f"{where}: decode_from read another message")
    assert not failures, f"{len(failures)} problems:\n" + "\n".join(failures[:10])


# -- Hostile length prefixes ---------------------------------------------------------------------
#
# Each case starts from a real message encoding, replaces one length or count at a known offset
# (checked against the bytes that were there) and names the field path and the offset the error
# must give: for a bad length, just after the length prefix (where the value it announces would
# start); for a malformed varint, where the varint starts.

INT32_MAX = (2**31 - 1).to_bytes(4, "big")
SIX_BYTE_VARINT = b"\x80\x80\x80\x80\x80\x01"


def _metadata_request(version: int):
    cls = message_class("MetadataRequest")
    return cls(topics=[cls.MetadataRequestTopic(name="abc"), cls.MetadataRequestTopic(name="def")])


def _fetch_request(version: int):
    cls = message_class("FetchRequest")
    topic = cls.FetchTopic(topic="t", partitions=[cls.FetchPartition(partition=1, fetch_offset=5)])
    return cls(replica_id=-1, max_wait_ms=500, min_bytes=1, topics=[topic])


def _find_coordinator(version: int):
    return message_class("FindCoordinatorRequest")(key="abc")


def _request_header(version: int):
    return message_class("RequestHeader")(request_api_key=3, request_api_version=0, correlation_id=10, client_id="abc")


def _produce_request(version: int):
    cls = message_class("ProduceRequest")
    part = cls.PartitionProduceData(index=0, records=b"0123456789")
    return cls(transactional_id=None, acks=-1, timeout_ms=1000, topic_data=[cls.TopicProduceData(name="t", partition_data=[part])])


def _no_op_record(version: int):
    return message_class("NoOpRecord")(unknown_tagged_fields=((5, b"xy"),))


# id, message, version, build, field offset, bytes there now, replacement, path, error offset,
# and how many bytes follow the replaced prefix (as a check on the case itself).
HOSTILE = [
    # legacy int32 array count 2**31-1 with 10 bytes left
    ("int32-count", "MetadataRequest", 0, _metadata_request, 0, b"\0\0\0\2", INT32_MAX, "topics", 4, 10),
    ("int32-count-nested", "FetchRequest", 4, _fetch_request, 24, b"\0\0\0\1", INT32_MAX, "topics[0].partitions", 28, 16),
    # compact array count uvarint(2**31) in a flexible version
    ("compact-count", "MetadataRequest", 12, _metadata_request, 0, b"\3", uvarint(2**31), "topics", 5, 45),
    ("compact-count-nested", "FetchRequest", 12, _fetch_request, 28, b"\2", uvarint(2**31), "topics[0].partitions", 33, 37),
    # string length 32767 with 3 bytes left
    ("string-32767", "FindCoordinatorRequest", 0, _find_coordinator, 0, b"\0\3", b"\x7f\xff", "key", 2, 3),
    ("string-32767-nested", "MetadataRequest", 0, _metadata_request, 9, b"\0\3", b"\x7f\xff", "topics[1].name", 11, 3),
    ("compact-string-32767", "FindCoordinatorRequest", 3, _find_coordinator, 0, b"\4", uvarint(32768), "key", 3, 5),
    # legacy bytes length 2**31-1 with 10 bytes left
    ("bytes-2**31-1", "ProduceRequest", 3, _produce_request, 23, b"\0\0\0\x0a", INT32_MAX,
     "topic_data[0].partition_data[0].records", 27, 10),
    # uvarints longer than 5 bytes
    ("varint-6-count", "MetadataRequest", 12, _metadata_request, 0, b"\3", SIX_BYTE_VARINT, "topics", 0, 45),
    ("varint-6-string", "FindCoordinatorRequest", 3, _find_coordinator, 0, b"\4", SIX_BYTE_VARINT, "key", 0, 5),
    ("varint-6-tag-count", "FindCoordinatorRequest", 3, _find_coordinator, 5, b"\0", SIX_BYTE_VARINT, "<tagged fields>", 5, 0),
    ("varint-6-tag-size", "NoOpRecord", 0, _no_op_record, 2, b"\2", SIX_BYTE_VARINT, "<tagged fields>", 2, 2),
    # negative legacy lengths other than -1
    ("nullable-string-minus-2", "RequestHeader", 1, _request_header, 8, b"\0\3", b"\xff\xfe", "client_id", 10, 3),
    ("string-minus-2", "FindCoordinatorRequest", 0, _find_coordinator, 0, b"\0\3", b"\xff\xfe", "key", 2, 3),
    ("nullable-array-minus-5", "MetadataRequest", 1, _metadata_request, 0, b"\0\0\0\2", b"\xff\xff\xff\xfb", "topics", 4, 10),
    ("array-minus-5", "MetadataRequest", 0, _metadata_request, 0, b"\0\0\0\2", b"\xff\xff\xff\xfb", "topics", 4, 10),
    ("nullable-bytes-minus-2", "ProduceRequest", 3, _produce_request, 23, b"\0\0\0\x0a", b"\xff\xff\xff\xfe",
     "topic_data[0].partition_data[0].records", 27, 10),
]


def hostile_input(name, version, build, at, old, new, left) -> bytes:
    data = build(version).encode(version)
    assert data[at : at + len(old)] == old, f"case is off: {data.hex()} has {data[at:at + len(old)].hex()} at {at}"
    out = data[:at] + new + data[at + len(old) :]
    assert len(out) - at - len(new) == left, f"case is off: {len(out) - at - len(new)} bytes follow, not {left}"
    return out


def _decode_error(cls, data: bytes, version: int) -> DecodeError:
    with pytest.raises(DecodeError) as info:
        cls.decode(data, version)
    return info.value


@pytest.mark.parametrize(
    "name,version,build,at,old,new,path,offset,left",
    [pytest.param(*case[1:], id=case[0]) for case in HOSTILE],
)
def test_hostile_length(name, version, build, at, old, new, path, offset, left):
    cls = message_class(name)
    data = hostile_input(name, version, build, at, old, new, left)
    _decode_error(cls, data, version)  # warm up: imports and first-call costs are not the decoder's

    # Refused after bounded work, counted in calls (a walk over the announced count would make
    # millions): the same on a busy machine as on a quiet one.
    refused, calls = raised_after(cls.decode, data, version)
    assert isinstance(refused, DecodeError), refused
    assert calls < 5_000, f"rejecting made {calls} calls"

    tracemalloc.start()
    try:
        e = _decode_error(cls, data, version)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1_000_000, f"rejecting allocated {peak} bytes"

    assert e.path == path, str(e)
    assert e.offset == offset, str(e)
    assert located_problem(e, len(data)) is None, located_problem(e, len(data))
    assert e.context == f"{name} v{version}"

    # decode_from fails the same way, also when the message starts further into a buffer
    with pytest.raises(DecodeError) as info:
        cls.decode_from(b"\0" * 7 + data, version, 7)
    assert (info.value.path, info.value.offset) == (path, offset + 7)


# -- Random bytes ----------------------------------------------------------------------------------

PAIRS = [(name, v) for name in shipped_names() for v in shipped_class(name).versions()]


def _unsorted_unknown_tags_equal(a, b, version: int) -> bool:
    """The same message, comparing floats bit for bit and unknown tagged fields in tag order."""
    return same_json(canonical_unknown_tags(a.to_json(version)), canonical_unknown_tags(b.to_json(version)))


def _random_bytes(pair, data):
    name, version = pair
    cls = shipped_class(name)
    try:
        msg = cls.decode(data, version)
    except DecodeError as e:
        event("DecodeError")
        problem = located_problem(e, len(data), field_level=TRAILING not in e.reason)
        assert problem is None, f"{name} v{version} {data.hex()}: {problem}"
        return
    event("decoded")
    # It decoded: the encoding we write back is canonical and decodes to the same message.
    out = msg.encode(version)
    assert msg.size(version) == len(out)
    back = cls.decode(out, version)
    assert back.encode(version) == out
    # Unknown tagged fields compare in tag order: see test_unknown_tags_out_of_order.
    assert _unsorted_unknown_tags_equal(back, msg, version), f"{name} v{version} {data.hex()}"


# A fifth of the sweep in the fast suite, the whole in the slow tier.
test_random_bytes, test_random_bytes_sweep = hypothesis_twins(
    800, 4000, pair=st.sampled_from(PAIRS), data=st.binary(max_size=200)
)(_random_bytes)


def _random_bytes_after_a_valid_prefix(pair, data):
    """Random bytes spliced onto the start of a real encoding, to get past the first field."""
    name, version = pair
    cls = shipped_class(name)
    valid = cls().encode(version) if _encodable(cls, version) else b""
    cut = len(valid) // 2
    try:
        cls.decode(valid[:cut] + data, version)
    except DecodeError as e:
        problem = located_problem(e, cut + len(data), field_level=TRAILING not in e.reason)
        assert problem is None, f"{name} v{version} {(valid[:cut] + data).hex()}: {problem}"


test_random_bytes_after_a_valid_prefix, test_random_bytes_after_a_valid_prefix_sweep = hypothesis_twins(
    300, 1500, pair=st.sampled_from(PAIRS), data=st.binary(max_size=120)
)(_random_bytes_after_a_valid_prefix)


def _encodable(cls, version: int) -> bool:
    try:
        cls().encode(version)
        return True
    except Exception:  # noqa: BLE001 - defaults need not be valid at every version
        return False


def test_unknown_tags_out_of_order():
    """NoOpRecord v0 with unknown tags 5 then 3: either reject it or read it back the same."""
    cls = message_class("NoOpRecord")
    data = bytes.fromhex("02" "0500" "0300")
    try:
        msg = cls.decode(data, 0)
    except DecodeError:
        return  # rejecting tags out of order would be a fix too
    assert cls.decode(msg.encode(0), 0) == msg


# -- Framed decoders -------------------------------------------------------------------------------

RECORD_TYPES = sorted(set(REGISTRY.record_types()) | set(DISKLESS_REGISTRY.record_types()))
BOTH = pytest.mark.parametrize("registry", [REGISTRY, DISKLESS_REGISTRY], ids=["kafka", "diskless"])


def _random_record_values(registry, record_type, version, body, raw, junk):
    """KRaft record values: frame varints and body, random; only DecodeError comes out."""
    value = junk if raw else b"\x01" + uvarint(record_type) + uvarint(version) + body
    try:
        kraft.decode_record_value(value, registry)
    except DecodeError as e:
        assert e.offset is not None and 0 <= e.offset <= len(value), (value.hex(), str(e))


test_random_record_values, test_random_record_values_sweep = map(BOTH, hypothesis_twins(
    200, 800, record_type=st.sampled_from(RECORD_TYPES) | st.integers(0, 2**32 - 1),
    version=st.integers(0, 3) | st.integers(0, 2**32 - 1), body=st.binary(max_size=120),
    raw=st.booleans(), junk=st.binary(max_size=12),
)(_random_record_values))  # fmt: skip


@pytest.mark.parametrize("value", ["", "01", "0103", "0180"])
def test_record_value_frame_errors_name_the_field(value):
    data = bytes.fromhex(value)
    with pytest.raises(DecodeError) as info:
        kraft.decode_record_value(data)
    assert located_problem(info.value, len(data)) is None


API_KEYS = sorted(set(REGISTRY.api_keys()) | set(DISKLESS_REGISTRY.api_keys()))


def _random_requests(registry, api_key, version, rest, framed):
    """Request frames with a known api key and random version, header and body bytes."""
    payload = api_key.to_bytes(2, "big") + version.to_bytes(2, "big") + rest
    data = protocol.frame(payload) if framed else payload
    try:
        protocol.decode_request(data, size_prefix=framed, registry=registry)
    except DecodeError as e:
        assert e.offset is not None and 0 <= e.offset <= len(data), (data.hex(), str(e))
    except UnsupportedVersionError:
        # A version the api key lacks: see test_request_with_unknown_version_is_a_decode_error.
        assert api_key not in registry.api_keys() or version not in registry.request_class(api_key).versions()


test_random_requests, test_random_requests_sweep = map(BOTH, hypothesis_twins(
    300, 1500, api_key=st.sampled_from(API_KEYS), version=st.integers(0, 20),
    rest=st.binary(max_size=120), framed=st.booleans(),
)(_random_requests))  # fmt: skip


def _random_responses(pair, payload, framed):
    registry, api_key, version = pair
    data = protocol.frame(payload) if framed else payload
    try:
        protocol.decode_response(data, api_key, version, size_prefix=framed, registry=registry)
    except DecodeError as e:
        assert e.offset is not None and 0 <= e.offset <= len(data), (data.hex(), str(e))


test_random_responses, test_random_responses_sweep = hypothesis_twins(
    250, 1000, pair=st.sampled_from([(r, k, v) for r in (REGISTRY, DISKLESS_REGISTRY)
                                     for k in r.api_keys() for v in r.response_class(k).versions()]),
    payload=st.binary(max_size=120), framed=st.booleans(),
)(_random_responses)  # fmt: skip


@settings(max_examples=500, deadline=None, database=None)
@given(data=st.binary(max_size=16), offset=st.integers(0, 20))
def test_random_frames(data, offset):
    try:
        payload, end = protocol.unframe(data, offset)
    except DecodeError as e:
        assert e.path and e.offset is not None
    else:
        assert end <= len(data) and len(payload) == end - offset - 4


@pytest.mark.parametrize("header", ["7f7f0000", "00037f7f"])
def test_request_with_unknown_version_is_a_decode_error(header):
    data = protocol.frame(bytes.fromhex(header) + bytes.fromhex("00000001ffff00000000"))
    with pytest.raises(DecodeError):
        protocol.decode_request(data)


def test_framed_body_error_offsets_are_input_offsets():
    body_cls = message_class("MetadataRequest")
    data = bytearray(protocol.encode_request(body_cls(topics=[]), 1, 7, "cli"))
    data[-4:] = b"\xff\xff\xff\xfb"  # topics count -5; the count ends where the input ends
    with pytest.raises(DecodeError) as info:
        protocol.decode_request(bytes(data))
    assert info.value.offset == len(data)
