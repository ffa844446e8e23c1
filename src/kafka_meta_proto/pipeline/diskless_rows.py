"""The batch coordinator's topic as input: finding its partitions, and their records as rows.

A coordinator writes its state changes into its partition of ``__diskless-metadata``
(``diskless/topic_log.py``): ``<coordinator>/__diskless-metadata-<p>/<20-digit base>.log``. The
coordinator's name is the directory holding the partition directories, relative to the PATH
argument (as a cluster's is for the metadata logs, inputs.py). Each segment, or each byte range
of a large one, is a unit; the worker walks its batches with ``log.scanning`` and decodes every
record value with the diskless registry, chosen explicitly (its record types 11640-11644 are our
own and mean nothing in Kafka's).

One row per fact the audit reads (``ROW_SCHEMA``), so that the checks are window functions over
rows (diskless_checks.py): a ``topic`` row per DisklessTopicRecord, a ``commit`` row per
DisklessCommitRecord and a ``batch`` row per batch it commits, a ``log-start`` row per
DisklessLogStartOffsetRecord, a ``remove-topic`` row per RemoveDisklessTopicRecord and an
``objects-deleted`` row per object key a DisklessObjectsDeletedRecord names. Nothing is dropped
silently: damage (a corrupt, cut or malformed batch, unreadable bytes) and a record value that
does not decode, or is no coordinator record, each become an ``issue`` row naming the problem.

A partition kept in a Kafka cluster (``diskless/kafka_topic.py``) may also hold batches no reader
applies: control batches, and a stale writer's batch that landed at another offset than the one
its first record's key expected. Each is a ``skipped`` row, not a fact the checks read.
"""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Iterator
from dataclasses import asdict, dataclass

import pyarrow as pa

from .. import registries
from ..diskless.kafka_topic import expected_offset_key
from ..kraft.records import read_record_value
from ..log.scanning import Damage, DamageKind, scan_batches
from ..log.source import is_local, local_path, open_source
from .inputs import _posix, chunk_ranges, cluster_name, list_hadoop, list_local
from .record_decoder import DECODE_ERRORS

TOPIC = "__diskless-metadata"
_SEGMENT = re.compile(r"^(?P<coordinator>.*)/" + TOPIC + r"-(?P<partition>\d+)/(?P<base>\d{20})\.log$")
ROWS_PER_BATCH = 65536

ROW_SCHEMA = pa.schema([
    ("coordinator", pa.string()), ("partition", pa.int32()), ("file", pa.string()), ("offset", pa.int64()),
    ("kind", pa.string()), ("idx", pa.int32()), ("topic_id", pa.string()), ("partition_index", pa.int32()),
    ("object_key", pa.string()), ("object_size", pa.int64()), ("byte_offset", pa.int64()), ("size", pa.int64()),
    ("base_offset", pa.int64()), ("last_offset", pa.int64()), ("log_start_offset", pa.int64()),
    ("num_partitions", pa.int32()), ("issue", pa.string()), ("detail", pa.string()),
])  # fmt: skip
ROW_DDL = ", ".join(f"`{f.name}` {'INT' if f.type == pa.int32() else 'BIGINT' if f.type == pa.int64() else 'STRING'}"
                    for f in ROW_SCHEMA)  # fmt: skip
# Damage as the audit names it: a CRC mismatch is what the metadata log audit calls it too.
ISSUE_NAMES = {DamageKind.CORRUPT: "crc mismatch"}
UNDECODABLE, FOREIGN = "undecodable record", "not a coordinator record"


@dataclass(frozen=True)
class TopicUnit:
    """A byte range of one segment of a coordinator's partition."""

    coordinator: str
    partition: int
    file: str  # __diskless-metadata-<p>/<segment>.log
    uri: str
    base: int  # the segment's base offset, from its name
    start: int
    end: int

    def row(self) -> dict:
        return asdict(self)


def discover_topic(paths: list[str], spark=None, chunk_bytes: int = 64 << 20) -> list[TopicUnit]:
    """The units of every ``__diskless-metadata-<p>`` segment under ``paths``."""
    units = []
    for root in paths:
        if is_local(root):
            base = _posix(os.path.abspath(local_path(root))).rstrip("/")
            entries = [(_posix(p), size) for p, size in list_local(root)]
        else:
            if spark is None:
                raise ValueError(f"{root}: listing a non-local URI needs a Spark session")
            base, entries = list_hadoop(spark, root)
        if len(entries) == 1 and entries[0][0] == base:  # PATH is a segment file
            base = posixpath.dirname(base)
        for path, size in entries:
            match = _SEGMENT.match(path)
            if match is None:
                continue
            coordinator_dir = match["coordinator"]
            name = cluster_name(coordinator_dir, base)
            rel = path[len(coordinator_dir) + 1 :]
            for start, end in chunk_ranges(size, chunk_bytes):
                units.append(TopicUnit(name, int(match["partition"]), rel, path, int(match["base"]), start, end))
    return units


class TopicRows:
    """The rows of one unit, handed on as Arrow batches of ``ROW_SCHEMA``."""

    def __init__(self, unit: dict):
        self.unit = unit
        self.registry = registries.named(registries.DISKLESS)
        self.rows: list[dict] = []

    def add(self, offset, kind: str, idx: int = 0, **values) -> None:
        self.rows.append({"coordinator": self.unit["coordinator"], "partition": self.unit["partition"],
                          "file": self.unit["file"], "offset": offset, "kind": kind, "idx": idx, **values})  # fmt: skip

    def full(self, final: bool = False) -> Iterator[pa.RecordBatch]:
        if self.rows and (final or len(self.rows) >= ROWS_PER_BATCH):
            yield pa.RecordBatch.from_pylist(self.rows, ROW_SCHEMA)
            self.rows = []

    def damage(self, damage: Damage) -> None:
        self.add(damage.fields.get("base_offset"), "issue", issue=ISSUE_NAMES.get(damage.kind, damage.kind.value),
                 detail=f"at byte {damage.position} of {self.unit['file']} ({damage.length} bytes): {damage.detail}")  # fmt: skip

    def record(self, offset: int, value) -> None:
        try:
            if value is None:
                raise ValueError("a null record value")
            _, _, message = read_record_value(value, self.registry)
        except DECODE_ERRORS as exc:
            self.add(offset, "issue", issue=UNDECODABLE, detail=f"record at offset {offset}: {exc}")
            return
        add = _RECORD_ROWS.get(type(message).__name__)
        if add is None:
            self.add(offset, "issue", issue=FOREIGN, detail=f"record at offset {offset} is a {type(message).__name__}")
        else:
            add(self, offset, message)


def _topic(rows: TopicRows, offset: int, m) -> None:
    rows.add(offset, "topic", topic_id=str(m.topic_id), num_partitions=m.num_partitions)


def _commit(rows: TopicRows, offset: int, m) -> None:
    rows.add(offset, "commit", -1, object_key=m.object_key, object_size=m.object_size)
    for idx, b in enumerate(m.batches):
        rows.add(offset, "batch", idx, topic_id=str(b.topic_id), partition_index=b.partition_index,
                 object_key=m.object_key, object_size=m.object_size, byte_offset=b.byte_offset, size=b.size,
                 base_offset=b.base_offset, last_offset=b.last_offset)  # fmt: skip


def _log_start(rows: TopicRows, offset: int, m) -> None:
    rows.add(offset, "log-start", topic_id=str(m.topic_id), partition_index=m.partition_index,
             log_start_offset=m.log_start_offset)  # fmt: skip


def _remove_topic(rows: TopicRows, offset: int, m) -> None:
    rows.add(offset, "remove-topic", topic_id=str(m.topic_id))


def _objects_deleted(rows: TopicRows, offset: int, m) -> None:
    for idx, key in enumerate(m.object_keys):
        rows.add(offset, "objects-deleted", idx, object_key=key)


_RECORD_ROWS = {
    "DisklessTopicRecord": _topic,
    "DisklessCommitRecord": _commit,
    "DisklessLogStartOffsetRecord": _log_start,
    "RemoveDisklessTopicRecord": _remove_topic,
    "DisklessObjectsDeletedRecord": _objects_deleted,
}


def unit_rows(unit: dict) -> Iterator[pa.RecordBatch]:
    """The rows of one unit's batches and damage."""
    rows = TopicRows(unit)
    with open_source(unit["uri"]) as source:
        for _, item in scan_batches(source, unit["start"], unit["end"]):
            if isinstance(item, Damage):
                rows.damage(item)
            elif (why := _skipped(item)) is not None:
                rows.add(item.base_offset, "skipped", detail=f"batch at offset {item.base_offset}: {why}")
            else:
                for record in item.records:
                    rows.record(item.base_offset + record.offset_delta, record.value)
            yield from rows.full()
    yield from rows.full(final=True)


def _skipped(batch) -> str | None:
    """Why no reader applies ``batch``, or None (a local log's batches have no key)."""
    if batch.is_control:
        return "a control batch"
    key = batch.records[0].key if batch.records else None
    if key is not None and key != expected_offset_key(batch.base_offset):
        return f"written by a stale coordinator (it expected offset {int.from_bytes(key, 'big', signed=True)})"
    return None


def map_in_arrow(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """The function given to ``DataFrame.mapInArrow``: units in, rows out."""
    for unit_batch in batches:
        for unit in unit_batch.to_pylist():
            yield from unit_rows(unit)
