"""A data partition's directory: batches appended to segments, read back by offset within a
byte limit (at least one batch when asked), truncated, recovered after a torn append, and old
segments removed."""

from __future__ import annotations

import os

import pytest

from kafka_meta_proto.log import Record, RecordBatch, SegmentReader, list_segments
from kafka_meta_proto.log.header import read_header
from kafka_meta_proto.log.partition_files import PartitionFiles, write_partition_metadata


def encoded(base_offset: int, count: int, size: int = 10, epoch: int = 0) -> bytes:
    records = [Record(offset_delta=i, value=bytes([65 + i % 26]) * size) for i in range(count)]
    return RecordBatch.create(records, base_offset=base_offset, base_timestamp=1000 + base_offset,
                              partition_leader_epoch=epoch).encode()  # fmt: skip


def fill(files: PartitionFiles, counts: list[int], size: int = 10) -> list[bytes]:
    written = []
    for count in counts:
        data = encoded(files.end_offset, count, size)
        files.append(data, read_header(data))
        written.append(data)
    return written


def test_appends_are_read_back_whole_from_any_offset(tmp_path):
    files = PartitionFiles(tmp_path / "t-0")
    written = fill(files, [3, 2, 4])
    assert files.end_offset == 9
    assert files.read(0, 1 << 20, 9, False) == b"".join(written)
    assert files.read(4, 1 << 20, 9, False) == b"".join(written[1:])  # from the batch holding 4
    assert files.read(5, 1 << 20, 9, False) == written[2]
    assert files.read(5, 1 << 20, 5, True) == b""  # the batch starts at the end offset
    assert files.read(9, 1 << 20, 9, True) == b""
    assert files.read(0, 1 << 20, 3, False) == written[0]  # nothing at or past the end offset


def test_max_bytes_cuts_between_batches_and_at_least_one_lets_a_large_batch_through(tmp_path):
    files = PartitionFiles(tmp_path / "t-0")
    written = fill(files, [1, 1, 1], size=100)
    assert files.read(0, len(written[0]) + 10, 3, False) == written[0]
    assert files.read(0, 10, 3, False) == b""
    assert files.read(0, 10, 3, True) == written[0]


def test_segments_roll_by_size_and_a_read_stays_in_one(tmp_path):
    files = PartitionFiles(tmp_path / "t-0", segment_bytes=300)
    written = fill(files, [1] * 6, size=100)
    names = [s.base_offset for s in list_segments(tmp_path / "t-0")]
    assert len(names) > 1 and names[0] == 0
    first_segment = [b for b in files.batches if b.segment == 0]
    assert files.read(0, 1 << 20, 6, False) == b"".join(written[: len(first_segment)])


def test_reopening_recovers_the_index_and_cuts_a_torn_tail(tmp_path):
    files = PartitionFiles(tmp_path / "t-0")
    written = fill(files, [2, 3])
    files.close()
    path = tmp_path / "t-0" / "00000000000000000000.log"
    with open(path, "ab") as f:
        f.write(encoded(5, 2)[:30])  # a crash in the middle of an append
    again = PartitionFiles(tmp_path / "t-0")
    assert again.end_offset == 5
    assert os.path.getsize(path) == sum(map(len, written))
    fill(again, [1])
    assert again.read(0, 1 << 20, 6, False) == b"".join(written)  # the old segment only
    assert [b.base_offset for b in again.batches] == [0, 2, 5]
    assert [s.base_offset for s in list_segments(tmp_path / "t-0")] == [0, 5]


def test_truncation_cuts_the_segment_and_deletes_later_ones(tmp_path):
    files = PartitionFiles(tmp_path / "t-0", segment_bytes=200)
    written = fill(files, [1] * 5, size=60)
    files.truncate_to(3)
    assert files.end_offset == 3
    kept = b"".join(written[:3])
    on_disk = b"".join((s.path.read_bytes() for s in list_segments(tmp_path / "t-0")))
    assert on_disk == kept
    fill(files, [2])
    assert [b.base_offset for b in files.batches] == [0, 1, 2, 3]
    with SegmentReader(list_segments(tmp_path / "t-0")[-1].path) as reader:
        assert [batch.base_offset for _, batch in reader][-1] == 3


def test_old_segments_are_deleted_below_an_offset_but_never_the_active_one(tmp_path):
    files = PartitionFiles(tmp_path / "t-0", segment_bytes=200)
    fill(files, [1] * 6, size=60)
    before = [s.base_offset for s in list_segments(tmp_path / "t-0")]
    files.delete_segments_before(before[1])
    assert [s.base_offset for s in list_segments(tmp_path / "t-0")] == before[1:]
    assert files.batches[0].base_offset == before[1]
    files.delete_segments_before(1000)
    assert [s.base_offset for s in list_segments(tmp_path / "t-0")] == before[-1:]


def test_an_empty_log_may_start_at_any_offset(tmp_path):
    files = PartitionFiles(tmp_path / "t-0")
    files.start_at(40)
    fill(files, [2])
    assert [s.base_offset for s in list_segments(tmp_path / "t-0")] == [40]
    with pytest.raises(ValueError):
        files.start_at(0)
    data = encoded(7, 1)
    with pytest.raises(ValueError, match="log ends at 42"):
        files.append(data, read_header(data))


def test_partition_metadata_names_the_topic_id(tmp_path):
    path = write_partition_metadata(tmp_path, "Zd20h_uwRKGcLTrt61Hcqg")
    assert path.read_text() == "version: 0\ntopic_id: Zd20h_uwRKGcLTrt61Hcqg\n"
