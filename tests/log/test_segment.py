"""Segment and snapshot files: truncated tails, CRC mismatches, snapshot framing, listing."""

from __future__ import annotations

import random

import pytest

from kafka_meta_proto.log import (
    BatchReader,
    ControlRecordType,
    CorruptBatchError,
    LogFormatError,
    Record,
    RecordBatch,
    SegmentReader,
    SnapshotReader,
    control_key,
    list_segments,
    list_snapshots,
    parse_snapshot_name,
)

from .reference import SKIP_REASON, real_log_files


def make_batches(count: int = 5) -> list[bytes]:
    out = []
    for i in range(count):
        records = [Record(offset_delta=j, value=b"value %d/%d" % (i, j)) for j in range(i + 1)]
        out.append(
            RecordBatch.create(records, base_offset=100 * i, base_timestamp=1000 + i).encode()
        )
    return out


def positions(batches: list[bytes]) -> list[int]:
    result, pos = [], 0
    for b in batches:
        result.append(pos)
        pos += len(b)
    return result


def read_all(reader) -> list[tuple[int, RecordBatch]]:
    with reader:
        return list(reader)


def test_reads_a_segment(tmp_path):
    batches = make_batches()
    path = tmp_path / "00000000000000000000.log"
    path.write_bytes(b"".join(batches))
    reader = SegmentReader(path)
    read = read_all(reader)
    assert [p for p, _ in read] == positions(batches)
    assert [b.encode() for _, b in read] == batches
    assert reader.truncated_tail is None and reader.corrupt_batches == 0


def test_empty_segment(tmp_path):
    path = tmp_path / "00000000000000000000.log"
    path.write_bytes(b"")
    reader = SegmentReader(path)
    assert read_all(reader) == [] and reader.truncated_tail is None


def test_truncated_tail_stops_cleanly_at_every_cut(tmp_path):
    batches = make_batches(3)
    data = b"".join(batches)
    last = positions(batches)[-1]
    path = tmp_path / "00000000000000000000.log"
    for cut in range(last, len(data)):
        path.write_bytes(data[:cut])
        reader = SegmentReader(path)
        read = read_all(reader)
        assert [b.encode() for _, b in read] == batches[:-1]
        assert reader.truncated_tail == ((last, cut - last) if cut > last else None)


def test_crc_mismatch_names_file_and_position(tmp_path):
    batches = make_batches()
    bad_at = positions(batches)[2]
    data = bytearray(b"".join(batches))
    data[bad_at + 70] ^= 0xFF  # inside the third batch's records
    path = tmp_path / "00000000000000000000.log"
    path.write_bytes(bytes(data))

    reader = SegmentReader(path)
    seen = []
    with pytest.raises(CorruptBatchError) as info, reader:
        for position, _ in reader:
            seen.append(position)
    assert seen == positions(batches)[:2]
    assert info.value.file == path and info.value.position == bad_at
    assert str(path) in str(info.value) and f"position {bad_at}" in str(info.value)

    reader = SegmentReader(path, skip_corrupt=True)
    read = read_all(reader)
    assert [p for p, _ in read] == [p for p in positions(batches) if p != bad_at]
    assert reader.corrupt_batches == 1 and reader.corrupt_positions == [bad_at]


def test_structural_damage_is_an_error_even_when_skipping(tmp_path):
    batches = make_batches(3)
    data = bytearray(b"".join(batches))
    at = positions(batches)[1]
    data[at + 8 : at + 12] = (10).to_bytes(4, "big")  # batch length below the minimum
    path = tmp_path / "00000000000000000000.log"
    path.write_bytes(bytes(data))
    with pytest.raises(LogFormatError, match="below the minimum") as info:
        read_all(SegmentReader(path, skip_corrupt=True))
    assert info.value.file == path and info.value.position == at


def test_batch_reader_over_a_buffer_can_be_iterated_twice():
    data = b"".join(make_batches(3)) + b"\x00\x01"
    reader = BatchReader(data)
    first, second = list(reader), list(reader)
    assert [p for p, _ in first] == [p for p, _ in second]
    assert reader.truncated_tail == (len(data) - 2, 2)


@pytest.mark.skipif(not real_log_files(), reason=SKIP_REASON)
def test_real_segment_cut_or_damaged_at_random(tmp_path):
    source = max(
        (p for p in real_log_files() if p.suffix == ".log"), key=lambda p: p.stat().st_size
    )
    data = source.read_bytes()
    with SegmentReader(source) as reader:
        starts = [p for p, _ in reader]
    ends = starts[1:] + [len(data)]
    rng = random.Random(7)
    path = tmp_path / source.name
    for _ in range(5):
        cut = rng.randrange(len(data))
        path.write_bytes(data[:cut])
        reader = SegmentReader(path)
        read = read_all(reader)
        complete = [(s, e) for s, e in zip(starts, ends) if e <= cut]
        assert [p for p, _ in read] == [s for s, _ in complete]
        tail_start = complete[-1][1] if complete else 0
        assert reader.truncated_tail == (
            (tail_start, cut - tail_start) if cut > tail_start else None
        )
    damaged = bytearray(data)
    victim = rng.choice(starts[1:])
    damaged[victim + 30] ^= 0x10  # inside the header's CRC-covered part
    path.write_bytes(bytes(damaged))
    with pytest.raises(CorruptBatchError) as info:
        read_all(SegmentReader(path))
    assert info.value.position == victim
    reader = SegmentReader(path, skip_corrupt=True)
    assert len(read_all(reader)) == len(starts) - 1 and reader.corrupt_positions == [victim]


# --- snapshots ---------------------------------------------------------------------------


def snapshot_bytes(header: bool = True, footer: bool = True, epoch: int = 3) -> bytes:
    parts = []
    if header:
        parts.append(
            RecordBatch.create(
                [
                    Record(key=control_key(ControlRecordType.SNAPSHOT_HEADER), value=b"\x00" * 11),
                    Record(
                        offset_delta=1,
                        key=control_key(ControlRecordType.KRAFT_VERSION),
                        value=b"\x00" * 5,
                    ),
                ],
                control=True,
                partition_leader_epoch=epoch,
            ).encode()
        )
    parts.append(
        RecordBatch.create(
            [Record(value=b"\x01\x0c\x00metadata")], partition_leader_epoch=epoch
        ).encode()
    )
    if footer:
        parts.append(
            RecordBatch.create(
                [Record(key=control_key(ControlRecordType.SNAPSHOT_FOOTER), value=b"\x00\x00\x00")],
                control=True,
                partition_leader_epoch=epoch,
            ).encode()
        )
    return b"".join(parts)


def test_snapshot_reader(tmp_path):
    path = tmp_path / "00000000000000000500-0000000003.checkpoint"
    path.write_bytes(snapshot_bytes())
    reader = SnapshotReader(path)
    read = read_all(reader)
    assert len(read) == 3 and reader.has_header and reader.has_footer
    assert reader.snapshot_id == (500, 3)
    boot = tmp_path / "bootstrap.checkpoint"
    boot.write_bytes(snapshot_bytes())
    assert SnapshotReader(boot).snapshot_id == (0, 0)


@pytest.mark.parametrize(
    "header,footer,match",
    [(False, True, "start with a SnapshotHeader"), (True, False, "end with a SnapshotFooter")],
)
def test_snapshot_without_header_or_footer(tmp_path, header, footer, match):
    path = tmp_path / "00000000000000000500-0000000003.checkpoint"
    path.write_bytes(snapshot_bytes(header, footer))
    with pytest.raises(LogFormatError, match=match):
        read_all(SnapshotReader(path))
    reader = SnapshotReader(path, strict=False)
    assert len(read_all(reader)) == 1 + header + footer
    assert (reader.has_header, reader.has_footer) == (header, footer)


def test_truncated_snapshot_is_reported(tmp_path):
    path = tmp_path / "00000000000000000500-0000000003.checkpoint"
    data = snapshot_bytes()
    path.write_bytes(data[:-5])
    with pytest.raises(LogFormatError, match="SnapshotFooter"):
        read_all(SnapshotReader(path))
    reader = SnapshotReader(path, strict=False)
    read_all(reader)
    assert reader.truncated_tail is not None and not reader.has_footer
    path.write_bytes(b"")
    with pytest.raises(LogFormatError, match="SnapshotHeader"):
        read_all(SnapshotReader(path))


# --- listing -----------------------------------------------------------------------------


def test_listing_a_metadata_directory(tmp_path):
    names = [
        "00000000000000001234.log",
        "00000000000000000000.log",
        "00000000000000000000.index",
        "00000000000000000000.timeindex",
        "00000000000000000999.log.deleted",
        "00000000000000000777.log.cleaned",
        "00000000000000000500-0000000003.checkpoint",
        "00000000000000000100-0000000002.checkpoint",
        "00000000000000000900-0000000004.checkpoint.part",
        "00000000000000000050-0000000001.checkpoint.deleted",
        "leader-epoch-checkpoint",
        "partition.metadata",
        "quorum-state",
        "1234.log",
    ]
    for name in names:
        (tmp_path / name).write_bytes(b"")
    (tmp_path / "00000000000000099999.log").mkdir()
    segments = list_segments(tmp_path)
    assert [(s.base_offset, s.path.name) for s in segments] == [
        (0, "00000000000000000000.log"),
        (1234, "00000000000000001234.log"),
    ]
    snapshots = list_snapshots(tmp_path)
    assert [(s.end_offset, s.epoch) for s in snapshots] == [(100, 2), (500, 3)]
    assert parse_snapshot_name("00000000000000000500-0000000003.checkpoint") == (500, 3)
    assert parse_snapshot_name("bootstrap.checkpoint") is None
