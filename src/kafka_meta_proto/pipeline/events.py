"""What the audits read, prepared by the workers as they decode: narrow, sorted, per cluster.

Next to the tables, each decoding task writes, for every cluster its units belong to, three small
Parquet files under the job's audit directory (``<out>/_audit/c<cluster index>/``):

- ``events-<task>``: the metadata records the audits replay (EVENT_TYPES), one row each with only
  the fields the rules read, under common names (``broker_id``, ``topic_id``...), limited to the
  cluster's replay (see inputs.stream_plan) and sorted by ``seq``, the replay order;
- ``batches-<task>``: every batch header, sorted by (stream, base offset, file, position), where a
  stream is the cluster's segments, or one snapshot file;
- ``issues-<task>``: every quarantined problem, with its ``seq`` when its file is replayed.

The events are taken from the typed tables' Arrow batches column by column (no Python work per
record). A cluster's files from all tasks are then merged by the audits (audits.py), which read
nothing else.
"""

from __future__ import annotations

from enum import IntEnum

import pyarrow as pa
import pyarrow.compute as pc

from ..kraft.rules import CONFIG_TOPIC, DISKLESS_CONFIG, FENCE, UNFENCE
from .columns import Column
from .inputs import SEGMENT

C = Column


class EventType(IntEnum):
    """The metadata records the audits read."""

    PRODUCER_IDS = 1
    REGISTER_BROKER = 2
    UNREGISTER_BROKER = 3
    FENCE_BROKER = 4
    UNFENCE_BROKER = 5
    BROKER_REGISTRATION_CHANGE = 6
    TOPIC = 7
    REMOVE_TOPIC = 8
    PARTITION = 9
    PARTITION_CHANGE = 10
    MAPPING = 11  # TopicPartitionToBatchCoordinatorMapping
    CONFIG = 12  # only diskless.enable of a topic


E = EventType
# record type name -> (event type, {event column: typed table column})
EVENT_TYPES = {
    "PRODUCER_IDS_RECORD": (E.PRODUCER_IDS, {"broker_id": "broker_id", "epoch": "broker_epoch",
                                             "next_id": "next_producer_id"}),
    "REGISTER_BROKER_RECORD": (E.REGISTER_BROKER, {"broker_id": "broker_id", "epoch": "broker_epoch",
                                                   "incarnation": "incarnation_id", "fenced": "fenced"}),
    "UNREGISTER_BROKER_RECORD": (E.UNREGISTER_BROKER, {"broker_id": "broker_id", "epoch": "broker_epoch"}),
    "FENCE_BROKER_RECORD": (E.FENCE_BROKER, {"broker_id": "id", "epoch": "epoch"}),
    "UNFENCE_BROKER_RECORD": (E.UNFENCE_BROKER, {"broker_id": "id", "epoch": "epoch"}),
    "BROKER_REGISTRATION_CHANGE_RECORD": (E.BROKER_REGISTRATION_CHANGE, {"broker_id": "broker_id",
                                                                         "epoch": "broker_epoch", "fenced": "fenced"}),
    "TOPIC_RECORD": (E.TOPIC, {"name": "name", "topic_id": "topic_id"}),
    "REMOVE_TOPIC_RECORD": (E.REMOVE_TOPIC, {"topic_id": "topic_id"}),
    "PARTITION_RECORD": (E.PARTITION, {"topic_id": "topic_id", "partition": "partition_id"}),
    "PARTITION_CHANGE_RECORD": (E.PARTITION_CHANGE, {"topic_id": "topic_id", "partition": "partition_id"}),
    "TOPIC_PARTITION_TO_BATCH_COORDINATOR_MAPPING": (E.MAPPING, {
        "topic_id": "topic_id", "partition": "partition_index", "coordinator": "batch_coordinator_partition_index"}),
    "CONFIG_RECORD": (E.CONFIG, {"name": "resource_name", "config_value": "value"}),
}  # fmt: skip

EVENT_SCHEMA = pa.schema([
    ("seq", pa.int64()), ("type", pa.int8()), ("file", pa.string()), ("file_kind", pa.string()),
    ("batch_offset", pa.int64()), ("offset", pa.int64()), ("timestamp", pa.int64()),
    ("broker_id", pa.int32()), ("epoch", pa.int64()), ("next_id", pa.int64()), ("incarnation", pa.string()),
    ("fenced", pa.int8()), ("name", pa.string()), ("topic_id", pa.string()), ("partition", pa.int32()),
    ("coordinator", pa.int32()), ("config_value", pa.string()),
])  # fmt: skip
AUDIT_BATCH_SCHEMA = pa.schema([
    ("stream", pa.string()), ("batch_offset", pa.int64()), ("file", pa.string()), ("position", pa.int64()),
    ("file_kind", pa.string()), ("last_offset_delta", pa.int32()), ("records_count", pa.int32()),
    ("leader_epoch", pa.int32()), ("timestamp", pa.int64()), ("crc_ok", pa.bool_()), ("offsets_ok", pa.bool_()),
    ("control_types", pa.string()),
])  # fmt: skip
AUDIT_ISSUE_SCHEMA = pa.schema([
    ("file", pa.string()), ("position", pa.int64()), ("issue", pa.string()), ("detail", pa.string()),
    ("batch_offset", pa.int64()), ("offset", pa.int64()), ("records_lost", pa.int32()), ("bytes_lost", pa.int64()),
    ("seq", pa.int64()),
])  # fmt: skip
ISSUE_SORT = [("position", "ascending", "at_start")]
# (column, order, where nulls go): the audits merge the files in the same order
EVENT_SORT = [("seq", "ascending", "at_start"), ("file", "ascending", "at_start"), ("offset", "ascending", "at_start")]
BATCH_SORT = [("stream", "ascending", "at_start"), ("batch_offset", "ascending", "at_start"),
              ("file", "ascending", "at_start"), ("position", "ascending", "at_start")]  # fmt: skip


def _millis(column: pa.Array) -> pa.Array:
    return column.cast(pa.int64()) if pa.types.is_timestamp(column.type) else column


def events(type_name: str, typed: pa.RecordBatch, unit: dict) -> pa.RecordBatch | None:
    """The audit events of a typed batch (None when the type is none of theirs, or the unit's
    file is not replayed). ``unit`` carries the replay plan: ``replayed``, ``min_offset``,
    ``seq_shift``."""
    spec = EVENT_TYPES.get(type_name)
    if spec is None or not unit["replayed"]:
        return None
    kind, fields = spec
    keep = pc.greater_equal(typed.column("offset"), unit["min_offset"])
    if kind == E.CONFIG:  # only diskless.enable of topics matters
        keep = pc.and_(keep, pc.and_(pc.equal(typed.column("resource_type"), CONFIG_TOPIC),
                                     pc.equal(typed.column("name"), DISKLESS_CONFIG)))  # fmt: skip
    typed = typed.filter(keep)
    n = typed.num_rows
    if n == 0:
        return None
    columns = []
    for field in EVENT_SCHEMA:
        name = field.name
        if name == "seq":
            value = pc.add(typed.column("offset"), unit["seq_shift"])
        elif name == "type":
            value = pa.repeat(pa.scalar(int(kind), pa.int8()), n)
        elif name in ("file", "file_kind", "batch_offset", "offset"):
            value = typed.column(name)
        elif name == "timestamp":
            value = _millis(typed.column(name))
        elif name not in fields:
            value = pa.nulls(n, field.type)
        elif kind == E.REGISTER_BROKER and name == "fenced":  # a boolean: as the change record's 1 / -1
            value = pc.if_else(typed.column(fields[name]), FENCE, UNFENCE)
        else:
            value = typed.column(fields[name])
        columns.append(value.cast(field.type))
    return pa.RecordBatch.from_arrays(columns, schema=EVENT_SCHEMA)


def audit_batches(batches: pa.RecordBatch) -> pa.RecordBatch:
    """The batch header rows, narrowed to what the log audit reads."""
    n = batches.num_rows
    kind = batches.column(C.FILE_KIND)
    stream = pc.if_else(pc.equal(kind, SEGMENT), pa.scalar(""), batches.column(C.FILE))
    columns = []
    for field in AUDIT_BATCH_SCHEMA:
        value = stream if field.name == "stream" else batches.column(field.name)
        columns.append(_millis(value).cast(field.type) if len(value) == n else value)
    return pa.RecordBatch.from_arrays(columns, schema=AUDIT_BATCH_SCHEMA)


def audit_issues(issues: pa.RecordBatch, unit: dict) -> pa.RecordBatch:
    """The quarantine rows, narrowed, with the replay position of the problem (``seq``) when the
    unit's file is replayed: its batch's offset, else its record's, else the file's base."""
    n = issues.num_rows
    if unit["replayed"]:
        where = pc.coalesce(issues.column(C.BATCH_OFFSET), issues.column(C.OFFSET), pa.scalar(unit["file_base"], pa.int64()))
        seq = pc.add(where, unit["seq_shift"])
    else:
        seq = pa.nulls(n, pa.int64())
    columns = [seq if f.name == "seq" else issues.column(f.name).cast(f.type) for f in AUDIT_ISSUE_SCHEMA]
    return pa.RecordBatch.from_arrays(columns, schema=AUDIT_ISSUE_SCHEMA)
