"""The output tables: their columns and Arrow schemas.

Under the output directory (Parquet, one directory per table), all written by the Python workers
as they decode (sink.py) except ``files`` and ``violations``:

- ``records``: every record: cluster, file, file_kind, batch_offset, offset, timestamp,
  record_type (null for control records), type_name, version and payload, Kafka's JSON form of
  the record;
- ``typed/<type>``: one table per record type present (``topic_record``, ``partition_record``,
  ..., ``leader_change``, ``snapshot_header``): the record's position columns and
  ``record_version``, then one column per field of the message (every field of every version,
  named as the generated class's attributes: ``topic_id``, ``partition_id``), typed by the Arrow
  schema derived from the class's field table (``pipeline/schemas.py``);
- ``batches``: every batch header, ``crc_ok`` false for a batch quarantined for its CRC;
- ``quarantine``: what could not be read (see decode.py), with the records it held;
- ``files``: per file, records read, written and reported;
- ``violations``: the findings of the audits, one partition per audit (``violations/audit=<name>``).

Every column is snake_case; ``timestamp`` is a Parquet TIMESTAMP (milliseconds, UTC).
"""

from __future__ import annotations

import functools

import pyarrow as pa

from .. import kraft, registries
from ..log.control import CONTROL_MESSAGES, CONTROL_TYPE_NAMES, MARKERS
from ..messages import REGISTRY
from .columns import ARROW_SCHEMA, Column
from .schemas import arrow_schema

C = Column
# Parquet TIMESTAMP (milliseconds, adjusted to UTC): what Kafka's record timestamps are. Spark
# reads it as TIMESTAMP, pandas as datetime64[ms, UTC].
TIMESTAMP = pa.timestamp("ms", tz="UTC")
# The records table holds what cannot be had elsewhere (a batch's position is in ``batches``, a
# control record's type in ``type_name``).
RECORD_TABLE = [C.CLUSTER, C.FILE, C.FILE_KIND, C.BATCH_OFFSET, C.OFFSET, C.TIMESTAMP, C.RECORD_TYPE,
                C.TYPE_NAME, C.VERSION, C.PAYLOAD]  # fmt: skip
BATCH_TABLE = [C.CLUSTER, C.FILE, C.FILE_KIND, C.POSITION, C.BATCH_OFFSET, C.LAST_OFFSET_DELTA, C.RECORDS_COUNT,
               C.LEADER_EPOCH, C.TIMESTAMP, C.BATCH_LENGTH, C.ATTRIBUTES, C.CRC_OK, C.OFFSETS_OK,
               C.CONTROL_TYPES]  # fmt: skip
QUARANTINE_TABLE = [C.CLUSTER, C.FILE, C.FILE_KIND, C.POSITION, C.ISSUE, C.DETAIL, C.BATCH_OFFSET, C.OFFSET,
                    C.RECORDS_LOST, C.BYTES_LOST, C.LEADER_EPOCH, C.TIMESTAMP, C.PAYLOAD]  # fmt: skip


def table_schema(columns: list[Column]) -> pa.Schema:
    """The Parquet schema of a table made of decoder columns (timestamps as TIMESTAMP)."""
    return pa.schema([pa.field(str(n), TIMESTAMP if n == C.TIMESTAMP else ARROW_SCHEMA.field(n).type) for n in columns])


RECORDS_SCHEMA = table_schema(RECORD_TABLE)
BATCHES_SCHEMA = table_schema(BATCH_TABLE)
QUARANTINE_SCHEMA = table_schema(QUARANTINE_TABLE)

# position columns of each typed table; the message's own fields follow
RECORD_VERSION = "record_version"  # a typed table's name for the record's version
TYPED_META = pa.schema([(str(C.CLUSTER), pa.string()), (str(C.FILE), pa.string()), (str(C.FILE_KIND), pa.string()),
                        (str(C.BATCH_OFFSET), pa.int64()), (str(C.OFFSET), pa.int64()), (str(C.TIMESTAMP), TIMESTAMP),
                        (RECORD_VERSION, pa.int16())])  # fmt: skip
# ABORT / COMMIT markers have no message schema; their value is (version int16, coordinatorEpoch int32)
MARKER_SCHEMA = pa.schema([("version", pa.int16()), ("coordinator_epoch", pa.int32())])
MARKER_JSON_NAMES = ("version", "coordinatorEpoch")


@functools.lru_cache(maxsize=None)
def _record_classes() -> dict[str, type]:
    """Every record type name the decoder can give, under any shipped registry -> its class. The
    registries differ only in numbers (type 29 is UNREGISTER_CONTROLLER_RECORD in Kafka's, the
    design's TOPIC_PARTITION_TO_BATCH_COORDINATOR_MAPPING in the diskless one), never in names."""
    classes: dict[str, type] = {}
    for name in registries.PACKAGES:
        registry = registries.named(name)
        for record_type in registry.record_types():
            cls = registry.record_class(record_type)
            classes[kraft.record_type_name(cls.NAME)] = cls
    return classes


def type_names() -> dict[str, str | None]:
    """Every record type name the decoder gives -> its message name (None: transaction markers)."""
    names: dict[str, str | None] = {type_name: cls.NAME for type_name, cls in _record_classes().items()}
    for code, name in CONTROL_TYPE_NAMES.items():
        names[name] = CONTROL_MESSAGES.get(code)
    return names


def table_name(type_name: str) -> str:
    """TOPIC_RECORD -> topic_record, LEADER_CHANGE -> leader_change."""
    return type_name.lower()


def is_marker(type_name: str) -> bool:
    return type_name in (CONTROL_TYPE_NAMES[m] for m in MARKERS)


def message_class(type_name: str):
    """The generated class of a record type (None for the transaction markers)."""
    cls = _record_classes().get(type_name)
    if cls is not None:
        return cls
    message = type_names().get(type_name)
    if message is None:
        if is_marker(type_name):
            return None
        raise KeyError(f"no record type named {type_name}")
    return REGISTRY.message_class(message)


def message_schema(type_name: str) -> pa.Schema:
    """The Arrow schema of a record type's message fields (derived from its class's field table)."""
    cls = message_class(type_name)
    if cls is None:
        return MARKER_SCHEMA
    return arrow_schema(cls)


def typed_schema(type_name: str) -> pa.Schema:
    """The whole typed table: position columns, then the message's fields."""
    return pa.schema(list(TYPED_META) + list(message_schema(type_name)))


def read_pandas(path: str, columns: list[str] | None = None):
    """A table (a directory of Parquet parts) as a pandas DataFrame whose columns keep their
    Arrow types: an integer column with nulls stays integer (``int32[pyarrow]``) instead of
    becoming float64, timestamps stay UTC. The same as ``pandas.read_parquet(path,
    dtype_backend="pyarrow")``."""
    import pandas as pd
    import pyarrow.dataset as ds

    return ds.dataset(path, format="parquet").to_table(columns=columns).to_pandas(types_mapper=pd.ArrowDtype)


def table_types() -> dict[str, str]:
    """Typed table name -> record type name, for every type there can be."""
    return {table_name(t): t for t in type_names()}
