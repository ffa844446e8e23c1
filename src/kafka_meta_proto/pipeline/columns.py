"""The rows the decoder hands to Spark: their kinds, their columns (Arrow and Spark types), and
the issues they report. Every other module names these through the constants here.

Every row has a ``kind``:

- ``RECORD``: one record, decoded with the generated classes; ``payload`` is Kafka's JSON form
  (``Message.to_json``) of the metadata record, or of the control record's message (written at
  the version its Version field names, as Kafka's dump tool writes it);
- ``BATCH``: one batch header (also for a batch whose CRC does not match: ``crc_ok`` false);
- ``ISSUE``: what could not be read: a batch with a CRC mismatch (``corrupt batch``) or with
  malformed records (``malformed batch``), a ``truncated tail``, ``unreadable bytes`` between two
  sound batches, or one ``undecodable record`` value (``payload`` then holds its bytes, base64).
  ``records_lost`` counts the records it held (from the batch header, when readable);
- ``COUNTS``: in the summary a task hands on (sink.py), the records of one type it wrote.
"""

from __future__ import annotations

from enum import IntEnum

import pyarrow as pa

from .._strenum import StrEnum
from ..log.scanning import DamageKind


class RowKind(IntEnum):
    RECORD = 0
    BATCH = 1
    ISSUE = 2
    COUNTS = 3


class Issue(StrEnum):
    """The issue a quarantine row names: the scan's damage, or one record that did not decode."""

    CORRUPT_BATCH = DamageKind.CORRUPT.value
    MALFORMED_BATCH = DamageKind.MALFORMED.value
    TRUNCATED_TAIL = DamageKind.TRUNCATED.value
    UNREADABLE_BYTES = DamageKind.UNREADABLE.value
    UNDECODABLE_RECORD = "undecodable record"


class Column(StrEnum):
    KIND = "kind"
    CLUSTER = "cluster"
    FILE = "file"
    FILE_KIND = "file_kind"
    POSITION = "position"  # byte position of the batch in the file
    BATCH_OFFSET = "batch_offset"
    OFFSET = "offset"
    TIMESTAMP = "timestamp"  # ms since the epoch (batch max timestamp for BATCH)
    RECORD_TYPE = "record_type"  # metadata record type; null for control records
    CONTROL_TYPE = "control_type"  # control record type; null for metadata records
    TYPE_NAME = "type_name"  # TOPIC_RECORD, ..., LEADER_CHANGE, SNAPSHOT_HEADER
    VERSION = "version"
    PAYLOAD = "payload"
    LEADER_EPOCH = "leader_epoch"
    LAST_OFFSET_DELTA = "last_offset_delta"
    RECORDS_COUNT = "records_count"
    BATCH_LENGTH = "batch_length"
    ATTRIBUTES = "attributes"
    CRC_OK = "crc_ok"
    OFFSETS_OK = "offsets_ok"  # record offset deltas are 0..n-1, lastOffsetDelta n-1
    CONTROL_TYPES = "control_types"  # control batches: the types of their records
    ISSUE = "issue"
    DETAIL = "detail"
    RECORDS_LOST = "records_lost"
    BYTES_LOST = "bytes_lost"


C = Column
# (column, Arrow type, Spark SQL type) of the rows, in this order.
COLUMNS = [
    (C.KIND, pa.int8(), "TINYINT"),
    (C.CLUSTER, pa.string(), "STRING"),
    (C.FILE, pa.string(), "STRING"),
    (C.FILE_KIND, pa.string(), "STRING"),
    (C.POSITION, pa.int64(), "BIGINT"),
    (C.BATCH_OFFSET, pa.int64(), "BIGINT"),
    (C.OFFSET, pa.int64(), "BIGINT"),
    (C.TIMESTAMP, pa.int64(), "BIGINT"),
    (C.RECORD_TYPE, pa.int16(), "SMALLINT"),
    (C.CONTROL_TYPE, pa.int16(), "SMALLINT"),
    (C.TYPE_NAME, pa.string(), "STRING"),
    (C.VERSION, pa.int16(), "SMALLINT"),
    (C.PAYLOAD, pa.string(), "STRING"),
    (C.LEADER_EPOCH, pa.int32(), "INT"),
    (C.LAST_OFFSET_DELTA, pa.int32(), "INT"),
    (C.RECORDS_COUNT, pa.int32(), "INT"),
    (C.BATCH_LENGTH, pa.int32(), "INT"),
    (C.ATTRIBUTES, pa.int16(), "SMALLINT"),
    (C.CRC_OK, pa.bool_(), "BOOLEAN"),
    (C.OFFSETS_OK, pa.bool_(), "BOOLEAN"),
    (C.CONTROL_TYPES, pa.string(), "STRING"),
    (C.ISSUE, pa.string(), "STRING"),
    (C.DETAIL, pa.string(), "STRING"),
    (C.RECORDS_LOST, pa.int32(), "INT"),
    (C.BYTES_LOST, pa.int64(), "BIGINT"),
]
ARROW_SCHEMA = pa.schema([(str(name), t) for name, t, _ in COLUMNS])
SPARK_DDL = ", ".join(f"`{name}` {ddl}" for name, _, ddl in COLUMNS)

# The columns each kind of row fills (the others are null, or the unit's constants).
RECORD_COLUMNS = [C.POSITION, C.BATCH_OFFSET, C.OFFSET, C.TIMESTAMP, C.RECORD_TYPE, C.CONTROL_TYPE,
                  C.TYPE_NAME, C.VERSION, C.PAYLOAD]  # fmt: skip
BATCH_COLUMNS = [C.POSITION, C.BATCH_OFFSET, C.TIMESTAMP, C.LEADER_EPOCH, C.LAST_OFFSET_DELTA,
                 C.RECORDS_COUNT, C.BATCH_LENGTH, C.ATTRIBUTES, C.CRC_OK, C.OFFSETS_OK,
                 C.CONTROL_TYPES]  # fmt: skip
ISSUE_COLUMNS = [C.POSITION, C.BATCH_OFFSET, C.OFFSET, C.TIMESTAMP, C.LEADER_EPOCH,
                 C.LAST_OFFSET_DELTA, C.RECORDS_COUNT, C.BATCH_LENGTH, C.ATTRIBUTES, C.CRC_OK,
                 C.ISSUE, C.DETAIL, C.RECORDS_LOST, C.BYTES_LOST, C.PAYLOAD]  # fmt: skip
UNIT_CONSTANTS = [C.CLUSTER, C.FILE, C.FILE_KIND]  # the same for every row of a unit

# A damaged batch's header fields (log.header.BatchHeader's names) -> the columns they fill.
HEADER_COLUMNS = {
    "base_offset": C.BATCH_OFFSET,
    "batch_length": C.BATCH_LENGTH,
    "partition_leader_epoch": C.LEADER_EPOCH,
    "last_offset_delta": C.LAST_OFFSET_DELTA,
    "records_count": C.RECORDS_COUNT,
    "attributes": C.ATTRIBUTES,
    "max_timestamp": C.TIMESTAMP,
}
