"""KRaft metadata logs on disk: record batch v2 framing, compression, segment and snapshot files.

This package is the one place that reads and writes Kafka's log files:

- ``source``: where the bytes come from (a mapped file, windows through pyarrow.fs, a buffer);
- ``header``: the batch header's layout and a named view of it;
- ``records``: the records inside a batch; ``control``: control records and their JSON form;
- ``batch``: RecordBatch, reading one batch and writing one; ``plain_batch``: writing simple
  batches fast;
- ``scan``: the one walk over a file's batches, naming the damage it recovers from;
- ``segment``: readers of segment and snapshot files, and directory listings;
- ``names``: the names of the files; ``segment_writer`` and ``snapshot_writer``: writing them.

Record values stay bytes here; ``kafka_meta_proto.kraft`` decodes metadata records.
"""

from .batch import RecordBatch, decode_batch
from .compression import DEFAULT_MAX_DECOMPRESSED, CompressionType, compress, decompress
from .control import ControlRecordType, control_key, parse_control_key
from .crc import crc32c
from .errors import CompressionError, CorruptBatchError, LogFormatError, TruncatedBatchError
from .header import BatchHeader, TimestampType
from .names import parse_segment_name, parse_snapshot_name
from .records import Record, decode_records, encode_records, iter_records
from .scan import BatchView, Damage, DamageKind, scan, scan_batches
from .segment import (
    BatchReader,
    SegmentFile,
    SegmentReader,
    SnapshotFile,
    SnapshotReader,
    list_segments,
    list_snapshots,
)
from .source import BufferSource, ByteSource, MappedFile, WindowedFile, open_source

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
    "MappedFile",
    "Record",
    "RecordBatch",
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
    "iter_records",
    "list_segments",
    "list_snapshots",
    "open_source",
    "parse_control_key",
    "parse_segment_name",
    "parse_snapshot_name",
    "scan",
    "scan_batches",
]
