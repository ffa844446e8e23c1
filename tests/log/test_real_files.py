"""Every real KRaft file and batch in the reference data: read, CRC-checked, re-encoded exactly."""

from __future__ import annotations

import struct
from collections import Counter

import pytest

from kafka_meta_proto.log import (
    ControlRecordType,
    LogFormatError,
    SegmentReader,
    SnapshotReader,
    decode_batch,
    list_segments,
    list_snapshots,
)
from kafka_meta_proto.log.crc import crc32c

from .reference import KRAFT_LOGS, file_params, jsonl, needs_reference, real_log_files


def _reader(path):
    return SnapshotReader(path) if path.suffix == ".checkpoint" else SegmentReader(path)


@pytest.mark.parametrize("path", file_params())
def test_file_reads_completely_and_reencodes_identically(path):
    data = path.read_bytes()
    encoded = []
    expected_position = 0
    with _reader(path) as reader:
        for position, batch in reader:
            assert position == expected_position
            assert batch.magic == 2
            # decode_batch verified the CRC; check the stored one against the bytes again here.
            assert batch.crc == crc32c(data[position + 21 : position + 12 + batch.batch_length])
            encoded.append(batch.encode())
            expected_position += len(encoded[-1])
        assert reader.truncated_tail is None
        assert reader.corrupt_batches == 0
    assert encoded, "no batches read"
    assert b"".join(encoded) == data


@pytest.mark.parametrize("path", file_params())
def test_batch_headers_are_consistent(path):
    with _reader(path) as reader:
        batches = [batch for _, batch in reader]
    for batch in batches:
        assert len(batch.records) >= 1
        # Kafka writes records with offset deltas 0..n-1 and lastOffsetDelta = n-1.
        assert [r.offset_delta for r in batch.records] == list(range(len(batch.records)))
        assert batch.last_offset_delta == len(batch.records) - 1
        assert batch.max_timestamp == max(batch.timestamp_of(r) for r in batch.records)
        assert batch.compression == 0
        assert not batch.is_transactional
        if batch.is_control:
            assert batch.control_type in set(ControlRecordType)
    # Offsets only grow from one batch to the next (gaps are allowed).
    for before, after in zip(batches, batches[1:]):
        assert after.base_offset >= before.next_offset


@pytest.mark.parametrize(
    "path", [p for p in file_params() if p.values[0] is None or p.values[0].suffix == ".checkpoint"]
)
def test_snapshots_have_header_first_and_footer_last(path):
    with SnapshotReader(path) as reader:
        batches = [batch for _, batch in reader]
        assert reader.has_header and reader.has_footer
    assert batches[0].records[0].control_type == ControlRecordType.SNAPSHOT_HEADER
    assert batches[-1].control_types() == [ControlRecordType.SNAPSHOT_FOOTER]
    assert all(not batch.is_control for batch in batches[1:-1])
    if path.name != "bootstrap.checkpoint":
        end_offset, epoch = reader.snapshot_id
        # The snapshot holds the state up to end_offset, taken in epoch.
        assert all(batch.partition_leader_epoch == epoch for batch in batches)


@needs_reference
def test_totals_and_directory_listing():
    files = real_log_files()
    batches = records = 0
    control = Counter()
    for path in files:
        with _reader(path) as reader:
            for _, batch in reader:
                batches += 1
                records += len(batch.records)
                control.update(batch.control_types())
    assert len(files) == 14
    assert (batches, records) == (12397, 13715)
    assert (
        control[ControlRecordType.SNAPSHOT_HEADER]
        == control[ControlRecordType.SNAPSHOT_FOOTER]
        == 6
    )
    assert control[ControlRecordType.LEADER_CHANGE] > 0

    directories = sorted(KRAFT_LOGS.rglob("__cluster_metadata-0"))
    listed_segments = [s.path for d in directories for s in list_segments(d)]
    listed_snapshots = [s for d in directories for s in list_snapshots(d)]
    assert sorted(listed_segments) == sorted(
        p for p in files if p.parent.name == "__cluster_metadata-0" and p.suffix == ".log"
    )
    assert [(s.end_offset, s.epoch) for s in listed_snapshots] == [(7111, 1)]


def test_every_kraft_batches_line_decodes_and_reencodes():
    lines = jsonl("kraft_batches.jsonl")
    assert len(lines) == 786
    for line in lines:
        data = bytes.fromhex(line["hex"])
        batch, end = decode_batch(data)
        assert end == len(data)
        assert batch.encode() == data
        assert batch.base_offset == line["base_offset"]
        assert len(batch.records) == line["record_count"]
        assert batch.is_control == line["control"]


def test_kraft_records_lines_match_the_decoded_batches():
    """Each record value in kraft_records.jsonl is the value of a record in the batch it names."""
    files = {str(p.relative_to(KRAFT_LOGS)): p for p in real_log_files()}
    by_source = {}
    checked = 0
    for line in jsonl("kraft_records.jsonl"):
        repo_path = line["source"].split(":", 1)
        repo, path = repo_path[0].split("@")[0].replace("/", "__"), repo_path[1]
        commit = repo_path[0].split("@")[1][:12]
        key = f"{repo}/{commit}/{path}"
        if key not in files:
            continue
        if key not in by_source:
            with _reader(files[key]) as reader:
                by_source[key] = dict(iter(reader))
        batch = by_source[key][line["byte_offset_of_batch"]]
        values = [r.value for r in batch.records]
        assert bytes.fromhex(line["hex"]) in values
        if "key_hex" in line:
            record = batch.records[values.index(bytes.fromhex(line["hex"]))]
            assert record.key == bytes.fromhex(line["key_hex"])
            assert record.control_type.name == line["control_type"]
        checked += 1
    assert checked == 320


def _embedded_batches(data: bytes):
    """Positions of CRC-valid v2 batches inside a captured frame (a Fetch response, say)."""
    pos = data.find(b"\x02", 16)
    while pos != -1:
        start = pos - 16
        if len(data) - start >= 61:
            (length,) = struct.unpack_from(">i", data, start + 8)
            if 49 <= length <= len(data) - start - 12:
                (crc,) = struct.unpack_from(">I", data, start + 17)
                if crc32c(data[start + 21 : start + 12 + length]) == crc:
                    yield start, data[start : start + 12 + length]
        pos = data.find(b"\x02", pos + 1)


def test_batches_inside_other_real_captures():
    """Batches found in Fetch/Produce captures from brokers and clients (some compressed).

    Those that Kafka's own reader would reject must raise LogFormatError: codecrafters' logs
    hold records with header count -1 (Kafka: "Found invalid number of record headers"), and a
    kafkajs fixture has a zstd payload under attributes that say uncompressed.
    """
    outcome = Counter()
    for name in ("kafkajs.jsonl", "sarama.jsonl", "codecrafters.jsonl", "kafka-protocol-rs.jsonl"):
        for line in jsonl(name):
            for _, raw in _embedded_batches(bytes.fromhex(line["hex"])):
                codec = struct.unpack_from(">h", raw, 21)[0] & 7
                try:
                    batch, _ = decode_batch(raw)
                except LogFormatError as exc:
                    assert "header count -1" in str(exc) or "key length" in str(exc)
                    outcome[(name, "rejected")] += 1
                    continue
                assert batch.encode() == raw
                outcome[(name, codec)] += 1
    assert outcome[("kafkajs.jsonl", 1)] == 3  # gzip
    assert outcome[("kafkajs.jsonl", 2)] == 1  # snappy, raw (not xerial-framed), from a broker
    assert outcome[("kafkajs.jsonl", 0)] >= 20
    assert outcome[("codecrafters.jsonl", 0)] >= 60
    assert outcome[("codecrafters.jsonl", "rejected")] == 39
    assert outcome[("kafkajs.jsonl", "rejected")] == 1
