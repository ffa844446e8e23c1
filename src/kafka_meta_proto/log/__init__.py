"""KRaft metadata logs on disk: record batch v2 framing, compression, segment and snapshot files.

Record values stay bytes here; ``kafka_meta_proto.kraft`` decodes metadata records.
"""

from .batch import (
    ControlRecordType,
    Record,
    RecordBatch,
    TimestampType,
    control_key,
    decode_batch,
    decode_records,
    encode_records,
    parse_control_key,
)
from .compression import DEFAULT_MAX_DECOMPRESSED, CompressionType, compress, decompress
from .crc import crc32c
from .errors import CompressionError, CorruptBatchError, LogFormatError, TruncatedBatchError
from .segment import (
    BatchReader,
    SegmentFile,
    SegmentReader,
    SnapshotFile,
    SnapshotReader,
    list_segments,
    list_snapshots,
    parse_snapshot_name,
)

__all__ = [
    "BatchReader",
    "CompressionError",
    "CompressionType",
    "ControlRecordType",
    "CorruptBatchError",
    "DEFAULT_MAX_DECOMPRESSED",
    "LogFormatError",
    "Record",
    "RecordBatch",
    "SegmentFile",
    "SegmentReader",
    "SnapshotFile",
    "SnapshotReader",
    "TimestampType",
    "TruncatedBatchError",
    "compress",
    "control_key",
    "crc32c",
    "decode_batch",
    "decode_records",
    "decompress",
    "encode_records",
    "list_segments",
    "list_snapshots",
    "parse_control_key",
    "parse_snapshot_name",
]
