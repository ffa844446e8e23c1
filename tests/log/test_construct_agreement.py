"""The fast reader agrees field for field with the declarative construct model on real files."""

from __future__ import annotations

import pytest

from kafka_meta_proto.log import (
    CompressionType,
    Record,
    RecordBatch,
    SegmentReader,
    decode_batch,
    decompress,
    parse_control_key,
)

from . import construct_model as model
from .reference import file_params


def _model_record(parsed) -> Record:
    return Record(
        attributes=parsed.attributes,
        timestamp_delta=parsed.timestamp_delta,
        offset_delta=parsed.offset_delta,
        key=parsed.key.data,
        value=parsed.value.data,
        headers=[(h.key.decode("utf-8", "surrogateescape"), h.value.data) for h in parsed.headers],
    )


def assert_agrees(parsed, position: int, batch: RecordBatch) -> None:
    body = parsed.batch
    attributes = body.attributes
    assert (
        parsed.base_offset,
        body.partition_leader_epoch,
        body.magic,
        body.crc,
        body.last_offset_delta,
        body.base_timestamp,
        body.max_timestamp,
        body.producer_id,
        body.producer_epoch,
        body.base_sequence,
        body.records_count,
    ) == (
        batch.base_offset,
        batch.partition_leader_epoch,
        batch.magic,
        batch.crc,
        batch.last_offset_delta,
        batch.base_timestamp,
        batch.max_timestamp,
        batch.producer_id,
        batch.producer_epoch,
        batch.base_sequence,
        len(batch.records),
    ), f"header differs at position {position}"
    assert len(body.crc_data) + 9 == batch.batch_length
    assert attributes.compression == batch.compression
    assert attributes.timestamp_type == batch.timestamp_type
    assert attributes.transactional == batch.is_transactional
    assert attributes.control == batch.is_control
    assert attributes.delete_horizon == batch.has_delete_horizon
    records = [_model_record(r) for r in model.parse_records(parsed, decompress)]
    assert records == batch.records, f"records differ at position {position}"
    if attributes.control:
        for record in records:
            key = model.ControlRecordKey.parse(record.key)
            assert (key.version, key.type) == parse_control_key(record.key)


@pytest.mark.parametrize("path", file_params())
def test_construct_model_agrees_with_reader(path):
    data = path.read_bytes()
    parsed_batches = model.LogFile.parse(data)
    with SegmentReader(path) as reader:
        batches = list(reader)
    assert len(parsed_batches) == len(batches)
    for parsed, (position, batch) in zip(parsed_batches, batches):
        assert_agrees(parsed, position, batch)


@pytest.mark.parametrize("codec", list(CompressionType))
def test_construct_model_agrees_on_synthetic_batches(codec):
    """Features the real files lack: compression, headers, null keys, big varints, flags."""
    records = [
        Record(timestamp_delta=0, offset_delta=0, key=b"k", value=b"v"),
        Record(timestamp_delta=-5, offset_delta=1, key=None, value=None, headers=[("h", None)]),
        Record(
            timestamp_delta=1 << 40,
            offset_delta=300,
            key=b"",
            value=b"x" * 1000,
            headers=[("a", b""), ("\u00e9t\u00e9", b"\x00\xff")],
        ),
    ]
    batch = RecordBatch.create(
        records,
        base_offset=1 << 33,
        base_timestamp=1_700_000_000_000,
        compression=codec,
        transactional=True,
        producer_id=12345,
        producer_epoch=7,
        base_sequence=99,
        partition_leader_epoch=3,
    )
    encoded = batch.encode()
    (parsed,) = model.LogFile.parse(encoded)
    decoded, _ = decode_batch(encoded)
    assert_agrees(parsed, 0, decoded)
    assert model.crc32c_reference(encoded[21:]) == decoded.crc
