"""KRaft metadata logs on disk: record batch v2 framing, compression, segment and snapshot files.

This package is the one place that reads and writes Kafka's log files:

- ``source``: where the bytes come from (a mapped file, windows through pyarrow.fs, a buffer);
- ``header``: the batch header's layout and a named view of it;
- ``records``: the records inside a batch; ``control``: control records and their JSON form;
- ``batch``: RecordBatch, reading one batch and writing one; ``plain_batch``: writing simple
  batches fast;
- ``scanning``: ``scan``, the one walk over a file's batches, naming the damage it recovers from;
- ``segment``: readers of segment and snapshot files, and directory listings;
- ``names``: the names of the files; ``segment_writer`` and ``snapshot_writer``: writing them.

Record values stay bytes here; ``kafka_meta_proto.kraft`` decodes metadata records.
"""

import importlib

# Each public name and the submodule it lives in. Imported on first use (PEP 562), so that a
# module needing only control records (kraft) or record framing does not load the compression
# codecs, crc32c or pyarrow.
_HOMES = {
    "RecordBatch": "batch", "decode_batch": "batch", "MAX_RECORDS_PER_BATCH": "batch",
    "DEFAULT_MAX_DECOMPRESSED": "compression", "CompressionType": "compression", "compress": "compression",
    "decompress": "compression", "iter_decompress": "compression",
    "ControlRecordType": "control", "control_key": "control", "parse_control_key": "control",
    "crc32c": "crc",
    "CompressionError": "errors", "CorruptBatchError": "errors", "LogFormatError": "errors",
    "TruncatedBatchError": "errors", "RecordCountError": "errors", "RecordLimitError": "errors",
    "BatchHeader": "header", "TimestampType": "header",
    "parse_segment_name": "names", "parse_snapshot_name": "names",
    "Record": "records", "decode_records": "records", "encode_records": "records", "iter_records": "records",
    "iter_records_in_pieces": "records",
    "BatchView": "scanning", "Damage": "scanning", "DamageKind": "scanning", "scan": "scanning",
    "scan_batches": "scanning",
    "BatchReader": "segment", "SegmentFile": "segment", "SegmentReader": "segment", "SnapshotFile": "segment",
    "SnapshotReader": "segment", "list_segments": "segment", "list_snapshots": "segment",
    "BufferSource": "source", "ByteSource": "source", "MappedFile": "source", "WindowedFile": "source",
    "open_source": "source",
}  # fmt: skip


def __getattr__(name: str) -> object:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value


__all__ = [
    "BatchHeader",
    "BatchReader",
    "BatchView",
    "BufferSource",
    "ByteSource",
    "CompressionError",
    "CompressionType",
    "ControlRecordType",
    "CorruptBatchError",
    "DEFAULT_MAX_DECOMPRESSED",
    "Damage",
    "DamageKind",
    "LogFormatError",
    "MAX_RECORDS_PER_BATCH",
    "MappedFile",
    "Record",
    "RecordBatch",
    "RecordCountError",
    "RecordLimitError",
    "SegmentFile",
    "SegmentReader",
    "SnapshotFile",
    "SnapshotReader",
    "TimestampType",
    "TruncatedBatchError",
    "WindowedFile",
    "compress",
    "control_key",
    "crc32c",
    "decode_batch",
    "decode_records",
    "decompress",
    "encode_records",
    "iter_decompress",
    "iter_records",
    "iter_records_in_pieces",
    "list_segments",
    "list_snapshots",
    "open_source",
    "parse_control_key",
    "parse_segment_name",
    "parse_snapshot_name",
    "scan",
    "scan_batches",
]
