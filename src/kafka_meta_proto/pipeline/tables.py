"""The output tables: their columns, and each typed table's Spark schema.

Under the output directory (Parquet, one directory per table):

- ``records``: every record: cluster, file, file_kind, batch_offset, offset, timestamp,
  record_type (null for control records), type_name, version and payload, Kafka's JSON form of
  the record; written by the workers as they decode (sink.py);
- ``typed/<type>``: one table per record type present (``topic_record``, ``partition_record``,
  ..., ``leader_change``, ``snapshot_header``): the record's position columns and
  ``record_version``, then one column per field of the message (every field of every version,
  named as in Kafka's JSON form), typed by the schema ``python -m codegen`` generates
  (``kafka_meta_proto.messages._spark_schemas``);
- ``batches``: every batch header, ``crc_ok`` false for a batch quarantined for its CRC;
- ``quarantine``: what could not be read (see decode.py), with the records it held;
- ``files``: per file, records read, written and reported;
- ``violations``: the findings of the audits, one partition per audit (``violations/audit=<name>``).
"""

from __future__ import annotations

from .. import kraft
from ..log.control import CONTROL_MESSAGES, CONTROL_TYPE_NAMES, MARKERS
from ..messages import REGISTRY
from ..messages._spark_schemas import SCHEMAS
from .columns import COLUMNS, Column

C = Column
# The records table holds what cannot be had elsewhere (a batch's position is in ``batches``, a
# control record's type in ``type_name``).
RECORD_TABLE = [C.CLUSTER, C.FILE, C.FILE_KIND, C.BATCH_OFFSET, C.OFFSET, C.TIMESTAMP, C.RECORD_TYPE,
                C.TYPE_NAME, C.VERSION, C.PAYLOAD]  # fmt: skip
RECORDS_DDL = ", ".join(f"`{name}` {ddl}" for name in RECORD_TABLE for column, _, ddl in COLUMNS if column == name)
BATCH_TABLE = [C.CLUSTER, C.FILE, C.FILE_KIND, C.POSITION, C.BATCH_OFFSET, C.LAST_OFFSET_DELTA, C.RECORDS_COUNT,
               C.LEADER_EPOCH, C.TIMESTAMP, C.BATCH_LENGTH, C.ATTRIBUTES, C.CRC_OK, C.OFFSETS_OK,
               C.CONTROL_TYPES]  # fmt: skip
QUARANTINE_TABLE = [C.CLUSTER, C.FILE, C.FILE_KIND, C.POSITION, C.ISSUE, C.DETAIL, C.BATCH_OFFSET, C.OFFSET,
                    C.RECORDS_LOST, C.BYTES_LOST, C.LEADER_EPOCH, C.TIMESTAMP, C.PAYLOAD]  # fmt: skip
# position columns of each typed table; the message's own fields follow
RECORD_VERSION = "record_version"  # a typed table's name for the record's version
TYPED_META = [(C.CLUSTER, "STRING"), (C.FILE, "STRING"), (C.FILE_KIND, "STRING"), (C.BATCH_OFFSET, "BIGINT"),
              (C.OFFSET, "BIGINT"), (C.TIMESTAMP, "BIGINT"), (RECORD_VERSION, "SMALLINT")]  # fmt: skip
TYPED_META_DDL = ", ".join(f"`{n}` {t}" for n, t in TYPED_META)
# ABORT / COMMIT markers have no message schema; their value is (version int16, coordinatorEpoch int32)
MARKER_DDL = "`version` SMALLINT, `coordinatorEpoch` INT"


def type_names() -> dict[str, str | None]:
    """Every record type name the decoder gives -> its message name (None: transaction markers)."""
    names: dict[str, str | None] = {}
    for record_type in REGISTRY.record_types():
        cls = REGISTRY.record_class(record_type)
        names[kraft.record_type_name(cls.NAME)] = cls.NAME
    for code, name in CONTROL_TYPE_NAMES.items():
        names[name] = CONTROL_MESSAGES.get(code)
    return names


def table_name(type_name: str) -> str:
    """TOPIC_RECORD -> topic_record, LEADER_CHANGE -> leader_change."""
    return type_name.lower()


def message_ddl(type_name: str) -> str:
    """The Spark DDL of a record type's message fields (generated from its schema)."""
    message = type_names().get(type_name)
    if message is None:
        if type_name in (CONTROL_TYPE_NAMES[m] for m in MARKERS):
            return MARKER_DDL
        raise KeyError(f"no record type named {type_name}")
    return SCHEMAS[message]


def typed_ddl(type_name: str) -> str:
    """The whole typed table: position columns, then the message's fields."""
    return f"{TYPED_META_DDL}, {message_ddl(type_name)}"


def table_types() -> dict[str, str]:
    """Typed table name -> record type name, for every type there can be."""
    return {table_name(t): t for t in type_names()}
