"""The record walk (log/record_walk.py): its compiled and Python twins answer alike, and their
verdict is the record reader's, on sound records and on every kind of damage."""

from __future__ import annotations

import importlib
import random

import pytest

from kafka_meta_proto.log import Record, encode_records, iter_records
from kafka_meta_proto.log.errors import LogFormatError
from kafka_meta_proto.log.record_walk import first_bad_record, python_first_bad_record

try:
    compiled_walk = importlib.import_module("kafka_meta_proto.log._records").first_bad_record
except ImportError:  # a build without the C extensions: the Python twin stands alone
    compiled_walk = None


def sound_records() -> list[Record]:
    """Records exercising every field: null and empty keys and values, headers, long varints."""
    return [
        Record(offset_delta=0, value=b"v"),
        Record(offset_delta=1, timestamp_delta=-1, key=None, value=None),
        Record(offset_delta=2, timestamp_delta=1 << 40, key=b"", value=b"x" * 300),
        Record(
            offset_delta=3,
            attributes=-1,
            key=b"k" * 70,
            value=b"",
            headers=[("h", b"1"), ("", None), ("n\xff", b"y" * 200)],
        ),
        Record(offset_delta=4, timestamp_delta=-(1 << 62), value=b"z" * 9000),
    ]


def reader_verdict(data: bytes, pos: int, count: int) -> int | str:
    """What the record reader says: -1 for sound records with offset delta i at index i, the
    index of the first with another offset delta, or "corrupt" where it raises."""
    try:
        for index, record in enumerate(iter_records(data, pos, count)):
            if record.offset_delta != index:
                return index
    except LogFormatError:
        return "corrupt"
    return -1


def walks(data: bytes | memoryview, pos: int, count: int) -> int:
    """The Python twin's answer, held equal to the compiled one's where it is built."""
    answer = python_first_bad_record(data, pos, count)
    if compiled_walk is not None:
        assert compiled_walk(data, pos, count) == answer, (bytes(data).hex(), pos, count)
    return answer


def agrees_with_reader(data: bytes, pos: int, count: int) -> None:
    answer = walks(data, pos, count)
    verdict = reader_verdict(data, pos, count)
    if verdict == "corrupt":
        assert answer >= 0
    else:
        assert answer == verdict, (data.hex(), pos, count)


def test_sound_records_pass_in_any_buffer_at_any_position():
    records = encode_records(sound_records())
    for data, pos in ((records, 0), (b"\x00" * 61 + records, 61)):
        for buffer in (data, bytearray(data), memoryview(data)):
            assert walks(buffer, pos, 5) == -1
    assert walks(b"", 0, 0) == -1
    assert first_bad_record(records, 0, 5) == -1  # the one the package picked


def test_counts_that_do_not_match_name_where_the_records_stop():
    records = encode_records(sound_records())
    assert walks(records, 0, 4) == 4  # the fifth record is left over
    assert walks(records, 0, 6) == 5  # the sixth is not there
    assert walks(records, 0, -1) == 0
    assert walks(records + b"\x00", 0, 5) == 5


def test_offset_deltas_out_of_order_name_the_first_such_record():
    records = sound_records()
    records[3].offset_delta = 7
    records[4].offset_delta = 8
    data = encode_records(records)
    assert walks(data, 0, 5) == 3 == reader_verdict(data, 0, 5)


def test_a_position_outside_the_data_is_refused_by_both_twins():
    walkers = [python_first_bad_record] + ([compiled_walk] if compiled_walk else [])
    for walk in walkers:
        for pos in (-1, 4):
            with pytest.raises(ValueError):
                walk(b"abc", pos, 0)


def test_every_byte_changed_and_every_cut_agree_with_the_reader():
    data = encode_records(sound_records()[:4])  # the last, 9 KB, adds nothing but time
    rng = random.Random(30)
    for at in range(len(data)):
        for value in {0x00, 0x01, 0x7F, 0x80, 0xFF, data[at] ^ 0x01, rng.randrange(256)}:
            changed = data[:at] + bytes((value,)) + data[at + 1 :]
            agrees_with_reader(changed, 0, 4)
        agrees_with_reader(data[:at], 0, 4)


def random_records(rng: random.Random) -> list[Record]:
    return [
        Record(
            offset_delta=i,
            timestamp_delta=rng.choice([0, 5, -70, 9000, 1 << 33]),
            key=rng.choice([None, b"", b"k" * rng.randrange(200)]),
            value=rng.choice([None, b"v" * rng.randrange(300)]),
            headers=rng.choice([[], [("a", b"b")]]),
        )
        for i in range(rng.randrange(1, 6))
    ]


def test_random_splices_agree_with_the_reader():
    rng = random.Random(3030)
    for _ in range(200):
        records = random_records(rng)
        data = encode_records(records)
        for _ in range(20):
            at, size = rng.randrange(len(data)), rng.randrange(1, 6)
            changed = data[:at] + rng.randbytes(size) + data[at + rng.randrange(0, 6) :]
            agrees_with_reader(changed, 0, len(records) + rng.choice((-1, 0, 0, 1)))
