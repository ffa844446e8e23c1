"""Writing and reading batches: fields, flags, compression, payload reuse, control records."""

from __future__ import annotations

import dataclasses
import gzip
import struct

import cramjam
import lz4.frame
import pytest
import zstandard

from kafka_meta_proto.errors import EncodeError
from kafka_meta_proto.log import (
    CompressionType,
    ControlRecordType,
    LogFormatError,
    Record,
    RecordBatch,
    TimestampType,
    control_key,
    decode_batch,
    encode_records,
    parse_control_key,
)
from kafka_meta_proto.log.header import HEADER, HEADER_SIZE
from kafka_meta_proto.log.crc import crc32c


def sample_records() -> list[Record]:
    return [
        Record(offset_delta=0, timestamp_delta=0, key=b"key-0", value=b"value-0"),
        Record(offset_delta=1, timestamp_delta=7, key=None, value=None),
        Record(
            offset_delta=2,
            timestamp_delta=-3,
            key=b"",
            value=b"",
            headers=[("h1", b"v"), ("h2", None)],
        ),
        Record(offset_delta=3, timestamp_delta=1 << 45, value=b"\x00" * 300, attributes=-1),
        Record(offset_delta=1000, timestamp_delta=-(1 << 62), headers=[("k" * 200, b"x" * 200)]),
    ]


def test_header_struct_is_the_61_byte_layout():
    assert HEADER.size == HEADER_SIZE == 61


@pytest.mark.parametrize("codec", list(CompressionType))
def test_encode_decode_round_trip(codec):
    batch = RecordBatch.create(
        sample_records(),
        base_offset=42,
        base_timestamp=1_700_000_000_000,
        compression=codec,
        partition_leader_epoch=5,
        producer_id=9,
        producer_epoch=2,
        base_sequence=17,
        transactional=True,
    )
    encoded = batch.encode()
    decoded, end = decode_batch(encoded)
    assert end == len(encoded)
    assert decoded.records == batch.records
    assert decoded.compression == codec
    assert decoded.batch_length == len(encoded) - 12
    assert (decoded.base_offset, decoded.partition_leader_epoch, decoded.producer_id) == (42, 5, 9)
    assert (decoded.producer_epoch, decoded.base_sequence, decoded.is_transactional) == (
        2,
        17,
        True,
    )
    assert (
        decoded.last_offset_delta == 1000
        and decoded.last_offset == 1042
        and decoded.next_offset == 1043
    )
    assert decoded.max_timestamp == 1_700_000_000_000 + (1 << 45)
    assert decoded.encode() == encoded
    # Decoding from the middle of a larger buffer.
    buf = b"\xee" * 10 + encoded + encoded
    second, end = decode_batch(memoryview(buf), 10 + len(encoded))
    assert end == len(buf) and second.records == batch.records


@pytest.mark.parametrize("codec", [c for c in CompressionType if c])
def test_unchanged_compressed_batch_keeps_its_payload(codec):
    decoded, _ = decode_batch(RecordBatch.create(sample_records(), compression=codec).encode())
    # The same records compressed differently, as another producer might: other bytes.
    foreign = _with_payload(decoded.encode(), _recompressed_differently(codec, decoded))
    assert foreign[HEADER_SIZE:] != decoded.encode()[HEADER_SIZE:]
    batch, _ = decode_batch(foreign)
    assert batch.records == decoded.records
    assert batch.encode() == foreign  # the payload it was read with comes back

    # Change a record: the payload is compressed anew and the change survives.
    batch.records[0].value = b"changed"
    changed = batch.encode()
    assert changed != foreign
    assert decode_batch(changed)[0].records[0].value == b"changed"
    # A header field change alone keeps the payload (only the CRC moves).
    batch.records[0].value = decoded.records[0].value
    batch.producer_id = 77
    assert batch.encode()[HEADER_SIZE:] == foreign[HEADER_SIZE:]
    # Switching the codec recompresses.
    batch.attributes = (batch.attributes & ~7) | (
        CompressionType.GZIP if codec != 1 else CompressionType.ZSTD
    )
    again, _ = decode_batch(batch.encode())
    assert again.records == decoded.records and again.compression != codec


def _recompressed_differently(codec: int, batch: RecordBatch) -> bytes:
    raw = encode_records(batch.records)
    if codec == CompressionType.GZIP:
        return gzip.compress(raw, compresslevel=1, mtime=12345)
    if codec == CompressionType.SNAPPY:
        return bytes(cramjam.snappy.compress_raw(raw))  # raw snappy, no xerial framing
    if codec == CompressionType.LZ4:
        return lz4.frame.compress(raw, block_linked=False, content_checksum=True)
    return zstandard.ZstdCompressor(level=19, write_checksum=True).compress(raw)


def _with_payload(encoded: bytes, payload: bytes) -> bytes:
    """The batch ``encoded`` with another records payload, length and CRC fixed up."""
    buf = bytearray(encoded[:HEADER_SIZE] + payload)
    struct.pack_into(">i", buf, 8, len(buf) - 12)
    struct.pack_into(">I", buf, 17, crc32c(bytes(buf[21:])))
    return bytes(buf)


def test_uncompressed_batches_are_always_serialised_from_fields():
    encoded = RecordBatch.create(sample_records()).encode()
    batch, _ = decode_batch(encoded)
    batch.records.append(Record(offset_delta=1001, value=b"new"))
    assert decode_batch(batch.encode())[0].records[-1].value == b"new"


def test_attribute_properties_and_absolute_helpers():
    records = [Record(offset_delta=0, timestamp_delta=5), Record(offset_delta=1, timestamp_delta=9)]
    batch = RecordBatch.create(records, base_offset=100, base_timestamp=1000)
    assert batch.timestamp_type == TimestampType.CREATE_TIME
    assert [batch.offset_of(r) for r in records] == [100, 101]
    assert [batch.timestamp_of(r) for r in records] == [1005, 1009]
    assert batch.max_timestamp == 1009 and batch.records_count == 2

    append = RecordBatch.create(
        records, base_timestamp=1000, timestamp_type=TimestampType.LOG_APPEND_TIME
    )
    append.max_timestamp = 5555  # the broker's append time
    decoded, _ = decode_batch(append.encode())
    assert decoded.timestamp_type == TimestampType.LOG_APPEND_TIME
    assert [decoded.timestamp_of(r) for r in decoded.records] == [5555, 5555]

    horizon = dataclasses.replace(batch, attributes=batch.attributes | 0x40)
    decoded, _ = decode_batch(horizon.encode())
    assert decoded.has_delete_horizon and decoded.delete_horizon_ms == 1000
    assert batch.delete_horizon_ms is None and not batch.is_control and batch.control_type is None


def test_control_batches():
    records = [
        Record(key=control_key(ControlRecordType.SNAPSHOT_HEADER), value=b"\x00\x00\x00"),
        Record(offset_delta=1, key=control_key(ControlRecordType.KRAFT_VERSION), value=b"\x00"),
        Record(offset_delta=2, key=control_key(42, version=1) + b"future", value=None),
    ]
    batch, _ = decode_batch(RecordBatch.create(records, control=True).encode())
    assert batch.is_control
    assert batch.control_type == ControlRecordType.SNAPSHOT_HEADER
    assert batch.control_types() == [
        ControlRecordType.SNAPSHOT_HEADER,
        ControlRecordType.KRAFT_VERSION,
        42,
    ]
    assert batch.records[1].value == b"\x00"  # values stay raw bytes
    assert parse_control_key(b"\x00\x00\x00\x04") == (0, 4)


@pytest.mark.parametrize("key", [None, b"", b"\x00\x00\x00", b"\xff\xff\x00\x01"])
def test_bad_control_keys_are_rejected(key):
    with pytest.raises(LogFormatError, match="control record key"):
        parse_control_key(key)
    encoded = RecordBatch.create([Record(key=key, value=b"v")], control=True).encode()
    with pytest.raises(LogFormatError, match="control record key"):
        decode_batch(encoded)


def test_headers_with_non_utf8_keys_round_trip_exactly():
    batch = RecordBatch.create([Record(headers=[("ok", b"1")])])
    encoded = bytearray(batch.encode())
    at = encoded.index(b"ok")
    encoded[at] = 0xFF  # not UTF-8
    struct.pack_into(">I", encoded, 17, crc32c(bytes(encoded[21:])))
    decoded, _ = decode_batch(bytes(encoded))
    assert decoded.encode() == bytes(encoded)


@pytest.mark.parametrize(
    "record",
    [
        Record(attributes=128),
        Record(offset_delta=1 << 31),
        Record(timestamp_delta=1 << 63),
        Record(key="text, not bytes"),
    ],
    ids=["attributes", "offset delta", "timestamp delta", "str key"],
)
def test_unencodable_records_raise_encode_error(record):
    with pytest.raises(EncodeError):
        RecordBatch.create([record]).encode()


def test_unencodable_header_fields_raise_encode_error():
    with pytest.raises(EncodeError):
        RecordBatch.create([Record()], base_offset=1 << 63).encode()
    with pytest.raises(EncodeError):
        RecordBatch(magic=1).encode()


def test_empty_batch():
    encoded = RecordBatch().encode()
    assert len(encoded) == 61
    batch, _ = decode_batch(encoded)
    assert batch.records == [] and batch.encode() == encoded


def test_create_numbers_records_as_kafkas_builder_does():
    from kafka_meta_proto.errors import EncodeError
    from kafka_meta_proto.log.batch import Record, RecordBatch, decode_batch

    mine = [Record(value=b"a"), Record(value=b"b"), Record(value=b"c")]
    batch = RecordBatch.create(mine, base_offset=10)
    assert [batch.offset_of(r) for r in batch.records] == [10, 11, 12]
    assert batch.last_offset_delta == 2 and [r.offset_delta for r in mine] == [0, 0, 0]
    decoded = decode_batch(batch.encode())
    decoded = decoded[0] if isinstance(decoded, tuple) else decoded
    assert [decoded.offset_of(r) for r in decoded.records] == [10, 11, 12]
    gapped = RecordBatch.create([Record(offset_delta=0), Record(offset_delta=5)])  # compaction leaves gaps
    assert gapped.last_offset_delta == 5
    with pytest.raises(EncodeError, match="offset deltas must increase"):
        RecordBatch.create([Record(offset_delta=3), Record(offset_delta=1)])
