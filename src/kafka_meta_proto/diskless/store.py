"""The coordinator's state materialized in SQLite: the tables, their indexes, and the one way
they change, ``apply(record)``, for each record of the ``__diskless-metadata`` partition.

The log is the source of truth; SQLite is a view of a prefix of it. ``position`` (the next log
offset to apply and where its batch starts) is written in the same transaction as the changes
its batch makes, so after a crash the view is exactly the records before it, never half a batch,
and catching up applies each record once.

Durability: WAL journal, ``synchronous=NORMAL``. A power loss may take the last transactions
away, but never corrupts the file, and what it takes is applied again from the log (which is
fsynced before any answer), so nothing stronger is needed here.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from ..diskless_messages.diskless_commit_record import DisklessCommitRecord
from ..diskless_messages.diskless_log_start_offset_record import DisklessLogStartOffsetRecord
from ..diskless_messages.diskless_objects_deleted_record import DisklessObjectsDeletedRecord
from ..diskless_messages.diskless_topic_record import DisklessTopicRecord
from ..diskless_messages.remove_diskless_topic_record import RemoveDisklessTopicRecord
from ..message import Message
from ..uuid import Uuid
from .types import NO_PRODUCER_ID

SCHEMA = """
CREATE TABLE IF NOT EXISTS position (
    id INTEGER PRIMARY KEY CHECK (id = 0),
    next_offset INTEGER NOT NULL,      -- the first log offset not applied yet
    segment_base INTEGER NOT NULL,     -- the segment holding it
    byte_position INTEGER NOT NULL     -- where its batch starts in that segment
);
CREATE TABLE IF NOT EXISTS topics (
    topic_id BLOB PRIMARY KEY,
    num_partitions INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS partitions (
    topic_id BLOB NOT NULL,
    partition INTEGER NOT NULL,
    log_start_offset INTEGER NOT NULL,
    high_watermark INTEGER NOT NULL,
    PRIMARY KEY (topic_id, partition)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS objects (
    object_key TEXT PRIMARY KEY,
    uploader_broker_id INTEGER NOT NULL,
    size INTEGER NOT NULL,
    used_size INTEGER NOT NULL,        -- bytes of live batches in it
    committed_at INTEGER NOT NULL,
    deleted_at INTEGER                 -- soft deletion: set once no live batch uses it
);
-- the files to delete, oldest first
CREATE INDEX IF NOT EXISTS objects_soft_deleted ON objects (deleted_at) WHERE deleted_at IS NOT NULL;
CREATE TABLE IF NOT EXISTS batches (
    batch_id INTEGER PRIMARY KEY,      -- assigned in commit order: the same on every replay
    topic_id BLOB NOT NULL,
    partition INTEGER NOT NULL,
    object_key TEXT NOT NULL,
    byte_offset INTEGER NOT NULL,
    size INTEGER NOT NULL,
    base_offset INTEGER NOT NULL,
    last_offset INTEGER NOT NULL,
    log_append_time INTEGER NOT NULL,
    batch_max_timestamp INTEGER NOT NULL,
    timestamp_type INTEGER NOT NULL,
    timestamp INTEGER NOT NULL,        -- what ListOffsets compares: append time or max timestamp
    producer_id INTEGER NOT NULL,
    producer_epoch INTEGER NOT NULL,
    base_sequence INTEGER NOT NULL,
    last_sequence INTEGER NOT NULL
);
-- finding batches from an offset (offsets are gap-free, so last_offset orders them too)
CREATE UNIQUE INDEX IF NOT EXISTS batches_by_offset ON batches (topic_id, partition, last_offset);
-- idempotence reads producer_batches now: the older indexes for it go
DROP INDEX IF EXISTS batches_by_producer;
DROP INDEX IF EXISTS batches_by_producer_id;
-- the batches of an object (isSafeToDeleteFile)
CREATE INDEX IF NOT EXISTS batches_by_object ON batches (object_key);
-- an idempotent producer's state in a partition, as Kafka's log keeps it: the metadata of its
-- newest batches (at most PRODUCER_BATCHES_KEPT, all of its current epoch). Rows outlive the
-- batches (DeleteRecords and retention leave them); deleting the topic takes them.
CREATE TABLE IF NOT EXISTS producer_batches (
    topic_id BLOB NOT NULL,
    partition INTEGER NOT NULL,
    producer_id INTEGER NOT NULL,
    last_offset INTEGER NOT NULL,
    producer_epoch INTEGER NOT NULL,
    base_sequence INTEGER NOT NULL,
    last_sequence INTEGER NOT NULL,
    base_offset INTEGER NOT NULL,
    timestamp INTEGER NOT NULL,        -- as Kafka reports it: append time or max timestamp
    PRIMARY KEY (topic_id, partition, producer_id, last_offset)
) WITHOUT ROWID;
"""
# PRAGMA user_version of a file made by this schema; a file of another version is rebuilt from
# the log (1: producer_batches, which older files lack the contents of)
SCHEMA_VERSION = 1

LOG_APPEND_TIME = 1  # Kafka's TimestampType id for log-append time
PRODUCER_BATCHES_KEPT = 5  # Kafka's ProducerStateEntry.NUM_BATCHES_TO_RETAIN
PRODUCER_ID_EXPIRATION_MS = 86_400_000  # Kafka's producer.id.expiration.ms default (one day)

BATCH_COLUMNS = (
    "batch_id, topic_id, partition, object_key, byte_offset, size, base_offset, last_offset, "
    "log_append_time, batch_max_timestamp, timestamp_type, producer_id, producer_epoch, "
    "base_sequence, last_sequence"
)
# what a find gives of each batch, in the order of FindDisklessBatchesResponse's batch fields:
# the object key as its UTF-8 bytes (as the answer carries it) and the timestamp Kafka reports
# (the append time under LOG_APPEND_TIME, kept in ``timestamp``); then what the plugin
# interface's BatchInfo has besides. The query walks batches_by_offset from the offset and stops
# at the bytes wanted (EXPLAIN QUERY PLAN: SEARCH batches USING INDEX batches_by_offset
# (topic_id=? AND partition=? AND last_offset>?), no sort)
FOUND_WIRE_COLUMNS = (
    "CAST(object_key AS BLOB), byte_offset, size, base_offset, last_offset, timestamp, "
    "timestamp_type, producer_id, producer_epoch, base_sequence, last_sequence"
)
FOUND_COLUMNS = FOUND_WIRE_COLUMNS + ", batch_id, log_append_time, batch_max_timestamp"
FOUND_SIZE = 2  # the size's place in a row of either


def found_sql(columns: str) -> str:
    """The statement of ``Store.found_rows_from``, for the benchmark's floor too."""
    return (
        f"SELECT {columns} FROM batches WHERE topic_id = ? AND partition = ? "
        "AND last_offset >= ? ORDER BY last_offset"
    )


@dataclass(frozen=True)
class LogPosition:
    """The next log offset to apply, and where its batch starts."""

    next_offset: int = 0
    segment_base: int = 0
    byte_position: int = 0


class StoredBatch(NamedTuple):
    """A batch as the state holds it (the design's BatchInfo with its BatchMetadata)."""

    batch_id: int
    topic_id: Uuid
    partition: int
    object_key: str
    byte_offset: int
    size: int
    base_offset: int
    last_offset: int
    log_append_time: int
    batch_max_timestamp: int
    message_timestamp_type: int
    producer_id: int
    producer_epoch: int
    base_sequence: int
    last_sequence: int

    @classmethod
    def from_row(cls, row: tuple[Any, ...]) -> StoredBatch:
        return cls(row[0], Uuid(row[1]), *row[2:])

    @property
    def timestamp(self) -> int:
        """The batch's timestamp as Kafka reports it: the append time under LOG_APPEND_TIME."""
        if self.message_timestamp_type == LOG_APPEND_TIME:
            return self.log_append_time
        return self.batch_max_timestamp


class ProducerBatch(NamedTuple):
    """What the state retains of an idempotent producer's batch (Kafka's BatchMetadata, with the
    epoch): enough to check the next batch's sequence and answer a duplicate."""

    producer_epoch: int
    base_sequence: int
    last_sequence: int
    base_offset: int
    last_offset: int
    timestamp: int


ProducerKey = tuple[bytes, int, int]  # topic id, partition, producer id


def producer_expired(newest_timestamp: int, now: int) -> bool:
    """Whether a producer whose newest batch has ``newest_timestamp`` has no state left at
    ``now`` (Kafka's ProducerStateManager.isProducerExpired, for a producer without a
    transaction)."""
    return now - newest_timestamp >= PRODUCER_ID_EXPIRATION_MS


def starts_afresh(newest: ProducerBatch, epoch: int, now: int) -> bool:
    """Whether a batch of ``epoch`` accepted at ``now`` replaces the producer's retained batches
    rather than joining them: a new epoch resets them (Kafka's ProducerStateEntry.addBatch), and
    an expired producer has none."""
    return epoch != newest.producer_epoch or producer_expired(newest.timestamp, now)


def last_fresh_start(
    newest: ProducerBatch | None, accepted: list[ProducerBatch], now: int
) -> int | None:
    """The index of the last of a producer's ``accepted`` batches that starts afresh after the
    one before it (``newest``, the newest retained, before the first); None if none does."""
    restart = None
    for index, batch in enumerate(accepted):
        if newest is not None and starts_afresh(newest, batch.producer_epoch, now):
            restart = index
        newest = batch
    return restart


class Store:
    """The SQLite file of one coordinator: ``apply`` records, query the state."""

    def __init__(self, path: Path | str):
        self.path = path
        self.db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        fresh = self.db.execute("SELECT 1 FROM sqlite_master").fetchone() is None
        if fresh:
            self.db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        self.schema_version = int(self.db.execute("PRAGMA user_version").fetchone()[0])
        self.db.executescript(SCHEMA)

    @property
    def outdated(self) -> bool:
        """Whether the file was made by another schema: its tables may lack what this one's
        records put there, so it is to be rebuilt from the log."""
        return self.schema_version != SCHEMA_VERSION

    def close(self) -> None:
        self.db.close()

    # -- transactions ---------------------------------------------------------------------------

    def begin(self) -> None:
        self.db.execute("BEGIN IMMEDIATE")

    def commit(self, position: LogPosition) -> None:
        """Record ``position`` with the changes made since ``begin``, and commit them."""
        self.db.execute(
            "INSERT OR REPLACE INTO position VALUES (0, ?, ?, ?)",
            (position.next_offset, position.segment_base, position.byte_position),
        )
        self.db.execute("COMMIT")

    def rollback(self) -> None:
        self.db.execute("ROLLBACK")

    def position(self) -> LogPosition:
        row = self.db.execute(
            "SELECT next_offset, segment_base, byte_position FROM position"
        ).fetchone()
        return LogPosition() if row is None else LogPosition(*row)

    # -- applying records -----------------------------------------------------------------------

    def apply(self, record: Message) -> None:
        """Make the change one record of the coordinator's partition describes."""
        if isinstance(record, DisklessTopicRecord):
            self._apply_topic(record)
        elif isinstance(record, DisklessCommitRecord):
            self._apply_commit(record)
        elif isinstance(record, DisklessLogStartOffsetRecord):
            self._apply_log_start_offset(record)
        elif isinstance(record, RemoveDisklessTopicRecord):
            self._apply_remove_topic(record)
        elif isinstance(record, DisklessObjectsDeletedRecord):
            self.db.executemany(
                "DELETE FROM objects WHERE object_key = ? AND deleted_at IS NOT NULL",
                [(key,) for key in record.object_keys],
            )
        else:
            raise ValueError(f"{type(record).__name__} is not a record of the batch coordinator's partition")

    def _apply_topic(self, record: DisklessTopicRecord) -> None:
        topic = record.topic_id.bytes
        known = self.num_partitions(record.topic_id) or 0
        self.db.execute(
            "INSERT OR REPLACE INTO topics VALUES (?, ?)",
            (topic, max(known, record.num_partitions)),
        )
        self.db.executemany(
            "INSERT INTO partitions VALUES (?, ?, 0, 0)",
            [(topic, index) for index in range(known, record.num_partitions)],
        )

    def _apply_commit(self, record: DisklessCommitRecord) -> None:
        used = sum(batch.size for batch in record.batches)
        self.db.execute(
            "INSERT INTO objects VALUES (?, ?, ?, ?, ?, ?)",
            (record.object_key, record.uploader_broker_id, record.object_size, used,
             record.committed_at, record.committed_at if used == 0 else None),
        )  # fmt: skip
        rows = []
        producers: dict[ProducerKey, list[ProducerBatch]] = {}
        for b in record.batches:
            stamp = b.log_append_time if b.message_timestamp_type == LOG_APPEND_TIME else b.batch_max_timestamp
            rows.append((b.topic_id.bytes, b.partition_index, record.object_key, b.byte_offset,
                         b.size, b.base_offset, b.last_offset, b.log_append_time,
                         b.batch_max_timestamp, b.message_timestamp_type, stamp, b.producer_id,
                         b.producer_epoch, b.base_sequence, b.last_sequence))  # fmt: skip
            if b.producer_id != NO_PRODUCER_ID:
                key = (b.topic_id.bytes, b.partition_index, b.producer_id)
                producers.setdefault(key, []).append(ProducerBatch(
                    b.producer_epoch, b.base_sequence, b.last_sequence, b.base_offset,
                    b.last_offset, stamp))  # fmt: skip
        self.db.executemany(
            "INSERT INTO batches (topic_id, partition, object_key, byte_offset, size, base_offset, "
            "last_offset, log_append_time, batch_max_timestamp, timestamp_type, timestamp, "
            "producer_id, producer_epoch, base_sequence, last_sequence) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            rows,
        )
        # a partition's batches come in offset order: its last one sets the high watermark
        ends = {(b.topic_id.bytes, b.partition_index): b.last_offset + 1 for b in record.batches}
        self.db.executemany(
            "UPDATE partitions SET high_watermark = ? WHERE topic_id = ? AND partition = ?",
            [(end, topic, partition) for (topic, partition), end in ends.items()],
        )
        for key, accepted in producers.items():
            self._retain(key, accepted, record.committed_at)

    def _retain(self, key: ProducerKey, accepted: list[ProducerBatch], now: int) -> None:
        """Add a producer's batches accepted at ``now`` (in offset order) to its retained ones,
        as Kafka's producer state takes them one by one; the newest PRODUCER_BATCHES_KEPT stay.
        ``now`` is the commit's time from its record, so replaying the log keeps the same rows."""
        restart = last_fresh_start(self._newest_retained(key), accepted, now)
        if restart is not None:  # what came before it is not the producer's state any more
            self.db.execute(
                "DELETE FROM producer_batches WHERE topic_id = ? AND partition = ? AND producer_id = ?",
                key,
            )
        kept = accepted if restart is None else accepted[restart:]
        self.db.executemany(
            "INSERT INTO producer_batches (topic_id, partition, producer_id, producer_epoch, "
            "base_sequence, last_sequence, base_offset, last_offset, timestamp) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [key + tuple(b) for b in kept[-PRODUCER_BATCHES_KEPT:]],
        )
        if restart is None:
            self.db.execute(
                "DELETE FROM producer_batches WHERE topic_id = ?1 AND partition = ?2 "
                "AND producer_id = ?3 AND last_offset < (SELECT last_offset FROM producer_batches "
                "WHERE topic_id = ?1 AND partition = ?2 AND producer_id = ?3 "
                "ORDER BY last_offset DESC LIMIT 1 OFFSET ?4)",
                key + (PRODUCER_BATCHES_KEPT - 1,),
            )

    def _newest_retained(self, key: ProducerKey) -> ProducerBatch | None:
        found = self.retained_batches(Uuid(key[0]), key[1], key[2], limit=1)
        return found[0] if found else None

    def _apply_log_start_offset(self, record: DisklessLogStartOffsetRecord) -> None:
        where = ("topic_id = ? AND partition = ? AND last_offset < ?",
                 (record.topic_id.bytes, record.partition_index, record.log_start_offset))  # fmt: skip
        self._drop_batches(*where, at=record.changed_at)
        self.db.execute(
            "UPDATE partitions SET log_start_offset = ? WHERE topic_id = ? AND partition = ?",
            (record.log_start_offset, record.topic_id.bytes, record.partition_index),
        )

    def _apply_remove_topic(self, record: RemoveDisklessTopicRecord) -> None:
        topic = (record.topic_id.bytes,)
        self._drop_batches("topic_id = ?", topic, at=record.removed_at)
        self.db.execute("DELETE FROM producer_batches WHERE topic_id = ?", topic)
        self.db.execute("DELETE FROM partitions WHERE topic_id = ?", topic)
        self.db.execute("DELETE FROM topics WHERE topic_id = ?", topic)

    def _drop_batches(self, where: str, args: tuple[object, ...], at: int) -> None:
        """Delete the batches matching ``where``; objects left with no live batch are soft
        deleted at ``at``."""
        freed = self.db.execute(
            f"SELECT object_key, SUM(size) FROM batches WHERE {where} GROUP BY object_key", args
        ).fetchall()
        self.db.execute(f"DELETE FROM batches WHERE {where}", args)
        self.db.executemany(
            "UPDATE objects SET used_size = used_size - ? WHERE object_key = ?",
            [(size, key) for key, size in freed],
        )
        self.db.executemany(
            "UPDATE objects SET deleted_at = ? "
            "WHERE object_key = ? AND deleted_at IS NULL AND used_size = 0 "
            "AND NOT EXISTS (SELECT 1 FROM batches WHERE batches.object_key = objects.object_key)",
            [(at, key) for key, _ in freed],
        )

    # -- queries --------------------------------------------------------------------------------

    def num_partitions(self, topic_id: Uuid) -> int | None:
        row = self.db.execute(
            "SELECT num_partitions FROM topics WHERE topic_id = ?", (topic_id.bytes,)
        ).fetchone()
        return None if row is None else int(row[0])

    def offsets(self, topic_id: Uuid, partition: int) -> tuple[int, int] | None:
        """(log start offset, high watermark) of a partition, or None if it does not exist."""
        row = self.db.execute(
            "SELECT log_start_offset, high_watermark FROM partitions "
            "WHERE topic_id = ? AND partition = ?",
            (topic_id.bytes, partition),
        ).fetchone()
        return None if row is None else (int(row[0]), int(row[1]))

    def partition_offsets(self, topic_id: Uuid, partitions: Iterable[int]) -> dict[int, tuple[int, int]]:
        """``offsets`` of several partitions of a topic in one statement; partitions that do not
        exist are left out."""
        wanted = {int(p) for p in partitions}
        if not wanted:
            return {}
        low, high = min(wanted), max(wanted)
        if high - low < 2 * len(wanted) + 16:
            # close together: one walk of the key's range costs half the lookups one by one
            rows = self.db.execute(
                "SELECT partition, log_start_offset, high_watermark FROM partitions "
                "WHERE topic_id = ? AND partition BETWEEN ? AND ?",
                (topic_id.bytes, low, high),
            )
            return {p: (start, end) for p, start, end in rows if p in wanted}
        rows = self.db.execute(
            "SELECT partition, log_start_offset, high_watermark FROM partitions "
            "WHERE topic_id = ? AND partition IN (SELECT value FROM json_each(?))",
            (topic_id.bytes, "[" + ",".join(map(str, wanted)) + "]"),
        )
        return {p: (start, end) for p, start, end in rows}

    def found_rows_from(
        self, topic_id: Uuid, partition: int, offset: int, columns: str = FOUND_COLUMNS
    ) -> Iterator[tuple[Any, ...]]:
        """The partition's batches holding ``offset`` or later, in offset order, as rows of
        ``columns`` (``FOUND_COLUMNS`` or ``FOUND_WIRE_COLUMNS``), read lazily: a find stops
        when it has the bytes it wants."""
        return self.db.execute(found_sql(columns), (topic_id.bytes, partition, offset))

    def retained_batches(
        self, topic_id: Uuid, partition: int, producer_id: int, limit: int = PRODUCER_BATCHES_KEPT
    ) -> list[ProducerBatch]:
        """A producer's retained batches in a partition, newest first (whether or not their
        records are still live)."""
        rows = self.db.execute(
            "SELECT producer_epoch, base_sequence, last_sequence, base_offset, last_offset, "
            "timestamp FROM producer_batches WHERE topic_id = ? AND partition = ? "
            "AND producer_id = ? ORDER BY last_offset DESC LIMIT ?",
            (topic_id.bytes, partition, producer_id, limit),
        ).fetchall()
        return [ProducerBatch(*row) for row in rows]

    def first_batch_at_or_after(
        self, topic_id: Uuid, partition: int, timestamp: int
    ) -> StoredBatch | None:
        """The earliest batch whose timestamp is ``timestamp`` or later."""
        row = self.db.execute(
            f"SELECT {BATCH_COLUMNS} FROM batches WHERE topic_id = ? AND partition = ? "
            "AND timestamp >= ? ORDER BY last_offset LIMIT 1",
            (topic_id.bytes, partition, timestamp),
        ).fetchone()
        return None if row is None else StoredBatch.from_row(row)

    def batch_with_max_timestamp(self, topic_id: Uuid, partition: int) -> StoredBatch | None:
        """The earliest batch holding the partition's largest timestamp."""
        row = self.db.execute(
            f"SELECT {BATCH_COLUMNS} FROM batches WHERE topic_id = ? AND partition = ? "
            "ORDER BY timestamp DESC, last_offset ASC LIMIT 1",
            (topic_id.bytes, partition),
        ).fetchone()
        return None if row is None else StoredBatch.from_row(row)

    def partition_batches_by_age(self, topic_id: Uuid, partition: int) -> list[tuple[int, int, int]]:
        """(last offset, timestamp, size) of every live batch, in offset order (for retention)."""
        rows = self.db.execute(
            "SELECT last_offset, timestamp, size FROM batches WHERE topic_id = ? AND partition = ? "
            "ORDER BY last_offset",
            (topic_id.bytes, partition),
        ).fetchall()
        return [(int(a), int(b), int(c)) for a, b, c in rows]

    def object_exists(self, object_key: str) -> bool:
        row = self.db.execute("SELECT 1 FROM objects WHERE object_key = ?", (object_key,))
        return row.fetchone() is not None

    def files_to_delete(self) -> list[tuple[str, int]]:
        """(object key, soft-deleted at) of every soft-deleted object, oldest first."""
        rows = self.db.execute(
            "SELECT object_key, deleted_at FROM objects WHERE deleted_at IS NOT NULL "
            "ORDER BY deleted_at, object_key"
        ).fetchall()
        return [(str(key), int(at)) for key, at in rows]

    def is_soft_deleted(self, object_key: str) -> bool:
        row = self.db.execute(
            "SELECT 1 FROM objects WHERE object_key = ? AND deleted_at IS NOT NULL "
            "AND NOT EXISTS (SELECT 1 FROM batches WHERE object_key = ?)",
            (object_key, object_key),
        ).fetchone()
        return row is not None

    def topics(self) -> Iterable[tuple[Uuid, int]]:
        for topic, count in self.db.execute("SELECT topic_id, num_partitions FROM topics"):
            yield Uuid(topic), int(count)

    def snapshot(self) -> dict[str, list[tuple[object, ...]]]:
        """Every row of every state table, sorted: what two equal states have in common."""
        tables = ("topics", "partitions", "objects", "batches", "producer_batches")
        return {t: sorted(self.db.execute(f"SELECT * FROM {t}").fetchall()) for t in tables}
