"""A produced partition's records checked as Kafka's leader checks them, and stamped."""

from __future__ import annotations

import struct

import pytest

from kafka_meta_proto.error_codes import ErrorCode
from kafka_meta_proto.log import Record, RecordBatch, decode_batch
from kafka_meta_proto.log.header import TimestampType, computed_crc
from kafka_meta_proto.testing.broker.batch_checks import BatchRefused, check_produced, stamp

from .helpers import batch


def refusal(records: bytes | None) -> BatchRefused:
    with pytest.raises(BatchRefused) as caught:
        check_produced(records, 9)
    return caught.value


def with_int(data: bytes, offset: int, fmt: str, value: int) -> bytes:
    out = bytearray(data)
    struct.pack_into(fmt, out, offset, value)
    return bytes(out)


def test_a_sound_batch_passes_and_is_stamped_with_offset_and_epoch_outside_the_crc():
    data = batch([b"a", b"b", b"c"])
    checked = check_produced(data, 9)
    assert checked.records_count == 3
    stamped = b"".join(stamp(checked, 42, 5, None))
    decoded, _ = decode_batch(stamped)  # the CRC still holds
    assert (decoded.base_offset, decoded.partition_leader_epoch) == (42, 5)
    assert stamped[21:] == data[21:]  # CRC-covered bytes untouched


def test_log_append_time_sets_the_type_and_max_timestamp_with_a_new_crc():
    data = batch([b"a", b"b"], compression=1, timestamp=1000)
    stamped = b"".join(stamp(check_produced(data, 9), 0, 0, 123456))
    decoded, _ = decode_batch(stamped)
    assert decoded.timestamp_type == TimestampType.LOG_APPEND_TIME
    assert decoded.max_timestamp == 123456
    assert [decoded.timestamp_of(r) for r in decoded.records] == [123456, 123456]


FRAMING_FAULTS = {
    "empty": (b"", ErrorCode.INVALID_RECORD, "at least one record batch"),
    "null": (None, ErrorCode.INVALID_RECORD, "at least one record batch"),
    "two batches": (batch([b"a"], timestamp=1) + batch([b"b"], timestamp=1), ErrorCode.INVALID_RECORD,
                    "exactly one record batch"),
    "cut short": (batch([b"a"], timestamp=1)[:-3], ErrorCode.INVALID_RECORD, "at least one record batch"),
    "magic 1": (with_int(batch([b"a"], timestamp=1), 16, ">b", 1), ErrorCode.INVALID_RECORD, "magic"),
    "short length": (with_int(batch([b"a"], timestamp=1), 8, ">i", 20), ErrorCode.CORRUPT_MESSAGE,
                     "below the minimum"),
    "crc": (batch([b"a"], timestamp=1)[:-1] + b"\x01", ErrorCode.CORRUPT_MESSAGE, "corrupt"),
    "base offset": (with_int(batch([b"a"], timestamp=1), 0, ">q", 5), ErrorCode.INVALID_RECORD,
                    "should be 0"),
}  # fmt: skip


@pytest.mark.parametrize("records, code, words", FRAMING_FAULTS.values(), ids=FRAMING_FAULTS)
def test_framing_and_crc_faults(records, code, words):
    refused = refusal(records)
    assert refused.code == code and words in refused.message


def _seal(data: bytes) -> bytes:
    """``data`` with its CRC computed afresh (to reach the checks after the CRC's)."""
    return with_int(data, 17, ">I", computed_crc(data, 0, len(data)))


def test_control_batches_counts_and_sequences():
    control = _seal(with_int(batch([b"a"]), 21, ">h", 0x20))
    assert "control records" in refusal(control).message
    miscounted = _seal(with_int(batch([b"a", b"b"]), 57, ">i", 3))
    assert refusal(miscounted).code == ErrorCode.INVALID_RECORD
    no_sequence = batch([b"a"], producer=(5, 0, -1))
    assert "Invalid sequence number" in refusal(no_sequence).message


def test_records_that_do_not_decode_are_corrupt_and_bad_offset_deltas_invalid():
    data = batch([b"abc"])
    broken = _seal(data[:61] + b"\x7f" + data[62:])  # a record length running past the batch
    assert refusal(broken).code == ErrorCode.CORRUPT_MESSAGE
    skipping = RecordBatch.create([Record(offset_delta=0, value=b"a"), Record(offset_delta=2, value=b"b")])
    skipping.last_offset_delta = 1
    refused = refusal(skipping.encode())
    assert refused.code == ErrorCode.INVALID_RECORD and refused.record_errors[0][0] == 1


def test_a_batch_over_max_message_bytes_is_too_large():
    data = batch([b"x" * 1000])
    assert check_produced(data, 9, len(data)).records_count == 1
    with pytest.raises(BatchRefused) as caught:
        check_produced(data, 9, len(data) - 1)
    assert caught.value.code == ErrorCode.MESSAGE_TOO_LARGE


# Records checked in place: the same refusals for every codec the records may come in.
CODECS = {"none": 0, "gzip": 1, "snappy": 2, "lz4": 3, "zstd": 4}
_LAST_OFFSET_DELTA_AT, _COUNT_AT, _LENGTH_AT = 23, 57, 8


def _counted(data: bytes, count: int) -> bytes:
    """``data`` saying it holds ``count`` records (its count and offset range agree), resealed."""
    data = with_int(with_int(data, _COUNT_AT, ">i", count), _LAST_OFFSET_DELTA_AT, ">i", count - 1)
    return _seal(data)


@pytest.mark.parametrize("codec", CODECS.values(), ids=CODECS)
def test_sound_batches_of_every_codec_pass(codec):
    data = batch([b"v%d" % i * 20 for i in range(50)], compression=codec, keys=[b"k"] * 50)
    assert check_produced(data, 9).records_count == 50


@pytest.mark.parametrize("codec", CODECS.values(), ids=CODECS)
def test_offset_deltas_that_skip_are_invalid_in_every_codec(codec):
    records = [Record(offset_delta=d, value=b"a") for d in (0, 1, 2, 4, 5)]
    skipping = RecordBatch.create(records, compression=codec)
    skipping.last_offset_delta = 4
    refused = refusal(skipping.encode())
    assert refused.code == ErrorCode.INVALID_RECORD
    assert refused.record_errors == [(3, "Invalid offset delta 4")]


@pytest.mark.parametrize("codec", CODECS.values(), ids=CODECS)
def test_record_counts_above_or_below_the_records_are_corrupt_in_every_codec(codec):
    data = batch([b"a", b"b", b"c"], compression=codec)
    assert check_produced(_counted(data, 3), 9).records_count == 3
    for count in (2, 4):
        refused = refusal(_counted(data, count))
        assert refused.code == ErrorCode.CORRUPT_MESSAGE and "corrupt" in refused.message


@pytest.mark.parametrize("codec", CODECS.values(), ids=CODECS)
def test_a_crc_that_does_not_match_is_corrupt_in_every_codec(codec):
    data = bytearray(batch([b"a", b"b"], compression=codec))
    data[-1] ^= 0xFF
    refused = refusal(bytes(data))
    assert refused.code == ErrorCode.CORRUPT_MESSAGE and "CRC mismatch" in refused.message


COMPRESSED = {name: codec for name, codec in CODECS.items() if codec}


@pytest.mark.parametrize("codec", COMPRESSED.values(), ids=COMPRESSED)
def test_a_compressed_payload_cut_short_is_corrupt(codec):
    data = batch([b"value %d" % i for i in range(40)], compression=codec)
    cut = with_int(data[:-4], _LENGTH_AT, ">i", len(data) - 4 - 12)
    refused = refusal(_seal(cut))
    assert refused.code == ErrorCode.CORRUPT_MESSAGE and "corrupt" in refused.message


def test_a_record_malformed_after_sound_ones_is_corrupt_whatever_its_offset_delta():
    data = batch([b"abc", b"def"])
    broken = _seal(data[:-1] + b"\x02")  # the second record's header count: 1, and no header
    refused = refusal(broken)
    assert refused.code == ErrorCode.CORRUPT_MESSAGE and "record 1" in refused.message


def test_the_batch_is_checked_and_stamped_without_copying_the_request():
    frame = b"\x00" * 7 + batch([b"a", b"b"], timestamp=5)
    view = memoryview(frame)[7:]
    checked = check_produced(view, 9)
    assert checked.data is view
    header, records = stamp(checked, 3, 1, None)
    assert records.obj is frame  # the records go to the segment from the request's bytes
    assert decode_batch(header + bytes(records))[0].base_offset == 3
