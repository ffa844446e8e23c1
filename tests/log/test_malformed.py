"""Hostile and damaged bytes: always a LogFormatError, promptly, never another exception."""

from __future__ import annotations

import random
import struct

import pytest
from work_count import raised_after

from kafka_meta_proto.log import (
    CompressionError,
    CompressionType,
    CorruptBatchError,
    LogFormatError,
    Record,
    RecordBatch,
    TruncatedBatchError,
    compress,
    decode_batch,
)
from kafka_meta_proto.log.header import HEADER
from kafka_meta_proto.log.crc import crc32c


def raw_batch(records_section: bytes, count: int, attributes: int = 0, magic: int = 2) -> bytes:
    """A batch around an arbitrary records section, with a correct length and CRC."""
    header = HEADER.pack(
        0, 49 + len(records_section), 0, magic, 0, attributes, 0, 0, 0, -1, -1, -1, count
    )
    buf = bytearray(header + records_section)
    struct.pack_into(">I", buf, 17, crc32c(bytes(buf[21:])))
    return bytes(buf)


def record_bytes(body: bytes) -> bytes:
    """A record: zigzag varint length (< 64) then the body."""
    assert len(body) < 64
    return bytes([len(body) << 1]) + body


# attributes 0, timestampDelta 0, offsetDelta 0, key null, value null, no headers
MINIMAL_BODY = b"\x00\x00\x00\x01\x01\x00"


def decode_fails(data: bytes, match: str, error=LogFormatError):
    # Refused after bounded work: a damaged length must not send the reader on a long walk.
    refused, calls = raised_after(decode_batch, data)
    assert calls < 20_000, calls
    with pytest.raises(error, match=match) as info:
        raise refused if refused is not None else AssertionError("decoded without an error")
    assert info.value.position == 0
    return info.value


def test_minimal_record_is_valid():
    batch, _ = decode_batch(raw_batch(record_bytes(MINIMAL_BODY), 1))
    assert batch.records == [Record()]


@pytest.mark.parametrize("size", [0, 1, 11])
def test_fewer_bytes_than_offset_and_length(size):
    error = decode_fails(b"\x00" * size, "fewer than", TruncatedBatchError)
    assert error.bytes_left == size


def test_batch_longer_than_the_buffer():
    data = raw_batch(record_bytes(MINIMAL_BODY), 1)
    for cut in (12, 17, 60, 61, len(data) - 1):
        error = decode_fails(data[:cut], "needs", TruncatedBatchError)
        assert error.bytes_left == cut


@pytest.mark.parametrize("length", [0, 48, -1, -(1 << 31)])
def test_batch_length_below_the_minimum(length):
    data = bytearray(raw_batch(b"", 0))
    struct.pack_into(">i", data, 8, length)
    decode_fails(bytes(data), "below the minimum")


@pytest.mark.parametrize("magic", [0, 1, 3, -1])
def test_other_magic_values(magic):
    decode_fails(raw_batch(b"", 0, magic=magic), "magic")


def test_crc_mismatch():
    data = bytearray(raw_batch(record_bytes(MINIMAL_BODY), 1))
    data[-1] ^= 0x01
    error = decode_fails(bytes(data), "CRC mismatch", CorruptBatchError)
    assert error.stored_crc != error.computed_crc
    decode_batch(bytes(data[:-1]) + b"\x00", verify_crc=False)  # structurally fine


@pytest.mark.parametrize("count", [(1 << 31) - 1, 2, 1_000_000])
def test_records_count_larger_than_the_bytes_allow(count):
    decode_fails(raw_batch(record_bytes(MINIMAL_BODY), count), "records count|runs past")


def test_records_count_negative_or_short():
    decode_fails(raw_batch(record_bytes(MINIMAL_BODY), -1), "negative records count")
    section = record_bytes(MINIMAL_BODY) * 2
    decode_fails(raw_batch(section, 1), "left over")
    decode_fails(raw_batch(section + b"\x00", 2), "left over")


@pytest.mark.parametrize(
    "body,match",
    [
        (b"\x00\x00\x00" + b"\xfe\xff\xff\xff\x07" + b"\x01\x00", "key length"),  # key 2^31-1 bytes
        (b"\x00\x00\x00\x03\x01\x00", "key length -2"),
        (b"\x00\x00\x00\x01" + b"\x80\x80\x80\x80\x08" + b"\x00", "value length"),
        (b"\x00\x00\x00\x01\x01" + b"\xfe\xff\xff\xff\x07", "header count"),
        (b"\x00\x00\x00\x01\x01\x01", "negative header count"),
        (b"\x00\x00\x00\x01\x01\x02\x01\x00", "header key length -1"),
        (b"\x00\x00\x00\x01\x01\x02\x02a\x05", "header value length"),
        (b"\x00\x00" + b"\xff" * 6 + b"\x01\x01\x00", "varint longer than 5 bytes"),
        (b"\x00" + b"\xff" * 11 + b"\x00\x01\x01\x00", "varlong longer than 10 bytes"),
        (b"\x00\x00\x00" + b"\xff\xff\xff\xff\x7f" + b"\x01\x00", "out of range"),
        (MINIMAL_BODY + b"\x00", "fields take"),
        (None, "value length 2 runs past the record"),
    ],
    ids=[
        "huge key",
        "key -2",
        "huge value",
        "huge header count",
        "negative header count",
        "null header key",
        "header value past record",
        "6-byte varint",
        "11-byte varlong",
        "varint over 32 bits",
        "record longer than fields",
        "fields longer than record",
    ],
)
def test_bad_record_fields(body, match):
    # None: a record whose length (6) is shorter than its fields (a 2-byte value follows).
    section = record_bytes(body) if body is not None else b"\x0c\x00\x00\x00\x01\x04ab\x00"
    error = decode_fails(raw_batch(section, 1), match)
    assert "record 0" in error.reason


def test_record_length_bad():
    decode_fails(raw_batch(b"\x02\x00" + b"\x00" * 6, 1), "too small")  # length 1
    decode_fails(raw_batch(b"\xfe\xff\xff\xff\x07" + MINIMAL_BODY, 1), "runs past")
    decode_fails(raw_batch(b"\x80" * 7, 1), "varint|runs past")


def test_varint_running_off_the_end_of_the_batch():
    decode_fails(raw_batch(b"\x0e\x00\x00\x00\x01\x01\x80\x80", 1), "record 0")


def test_compressed_batches_with_bad_contents():
    payload = compress(CompressionType.GZIP, record_bytes(MINIMAL_BODY))
    decode_fails(raw_batch(payload, (1 << 31) - 1, attributes=1), "records count")
    decode_fails(raw_batch(payload, -5, attributes=1), "negative records count")
    decode_fails(raw_batch(b"not gzip at all", 1, attributes=1), "gzip", CompressionError)
    decode_fails(raw_batch(payload, 1, attributes=5), "unknown compression type 5")


def test_decompression_limit_applies_to_batches():
    records = [Record(offset_delta=i, value=b"\x00" * 10_000) for i in range(100)]
    encoded = RecordBatch.create(records, compression=CompressionType.ZSTD).encode()
    with pytest.raises(CompressionError, match="limit"):
        decode_batch(encoded, max_decompressed=100_000)
    assert len(decode_batch(encoded, max_decompressed=2_000_000)[0].records) == 100


def _sample_batches() -> list[bytes]:
    records = [
        Record(offset_delta=0, key=b"k", value=b"v" * 70, headers=[("h", b"x"), ("n", None)]),
        Record(offset_delta=1, timestamp_delta=1 << 20, value=None),
        Record(offset_delta=2, timestamp_delta=-9, key=b"\x00" * 130, value=b""),
    ]
    return [RecordBatch.create(records, compression=c).encode() for c in CompressionType]


@pytest.mark.parametrize("codec", list(CompressionType))
def test_random_damage_with_valid_crc_never_escapes_as_another_error(codec):
    """Mutate bytes after the CRC field and fix the CRC up, so the record parser sees the damage."""
    rng = random.Random(20240 + codec)
    original = _sample_batches()[codec]
    outcomes = {"ok": 0, "error": 0}
    for _ in range(1500):
        data = bytearray(original)
        for _ in range(rng.randint(1, 4)):
            position = rng.randrange(21, len(data))
            data[position] = rng.randrange(256)
        if rng.random() < 0.3:  # sometimes cut the records section short or pad it
            cut = rng.randrange(61, len(data) + 1)
            data = data[:cut] + bytes(rng.randrange(3))
        struct.pack_into(">i", data, 8, len(data) - 12)
        struct.pack_into(">I", data, 17, crc32c(bytes(data[21:])))
        try:
            batch, _ = decode_batch(bytes(data))
        except LogFormatError:
            outcomes["error"] += 1
        else:
            outcomes["ok"] += 1
            batch.encode()  # whatever decoded can be written back
    assert outcomes["error"] > 0


def test_every_truncation_of_a_batch_is_reported_as_truncated():
    data = _sample_batches()[0]
    for cut in range(len(data)):
        with pytest.raises(TruncatedBatchError):
            decode_batch(data[:cut])
