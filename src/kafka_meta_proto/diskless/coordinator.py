"""``BatchCoordinator``: the design's plugin interface over one ``__diskless-metadata`` partition,
its log under a data directory or in a Kafka cluster's topic (``topic_backend``) and its state in
SQLite.

Every change goes the same way: decide it from the state (inside an open SQLite transaction,
applying each record as it is decided, so later parts of a request see earlier ones), append the
records to the log as one batch and fsync it, commit the transaction with the log position, and
only then answer. A crash after the append and before the commit leaves records the state lacks;
opening the coordinator again applies them from the log (``catch_up``), once, since the position
commits with the changes.

A read-only coordinator keeps its own SQLite file and follows a leader's log directory (the
stand-in for an in-sync replica of the partition), or the topic in the cluster: it catches up
before every read, serves reads,
and answers every write with NOT_COORDINATOR, the error Kafka's coordinators give a request that
reached a broker not leading the coordinator's partition (the caller finds the leader again with
a ``write:`` FindCoordinator key).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Protocol

from ..diskless_messages.diskless_log_start_offset_record import DisklessLogStartOffsetRecord as LogStartOffsetRecord
from ..diskless_messages.diskless_objects_deleted_record import DisklessObjectsDeletedRecord as ObjectsDeletedRecord
from ..diskless_messages.diskless_topic_record import DisklessTopicRecord as TopicRecord
from ..diskless_messages.remove_diskless_topic_record import RemoveDisklessTopicRecord as RemoveTopicRecord
from ..error_codes import ErrorCode
from ..kraft.rules import MAX_PARTITIONS_PER_REQUEST  # also bounds what one request makes here
from ..message import Message
from ..uuid import Uuid
from . import reads
from .commits import INT64_MAX, ObjectCommit, partition_error
from .store import LogPosition, Store
from .topic_backend import MetadataTopic
from .topic_log import LocalTopic, partition_dir
from .types import HIGH_WATERMARK, CommitBatchRequest, CommitBatchResponse, CreateTopicAndPartitionsRequest
from .types import DeleteRecordsRequest, DeleteRecordsResponse, FileToDelete, FindBatchRequest
from .types import FindBatchResponse, ListOffsetsRequest, ListOffsetsResponse, TopicIdPartition


NOT_COORDINATOR = ErrorCode.NOT_COORDINATOR
ObjectBatches = tuple[str, int, int, list[CommitBatchRequest]]  # key, uploader, size, batches
Emit = Callable[[Message], None]  # applies a record and keeps it for the log
Decide = Callable[[Emit], object]  # one write's decision: emits its records, returns its answer


class Clock(Protocol):
    """What gives the coordinator the time: milliseconds since the epoch."""

    def __call__(self) -> int: ...


def wall_clock_ms() -> int:
    return time.time_ns() // 1_000_000


def expired_batches(
    batches: list[tuple[int, int, int]], now: int, retention_ms: int, retention_bytes: int
) -> int:
    """How many of the oldest ``batches`` (last offset, timestamp, size) retention drops, in
    Kafka's order (-1: no limit). By size first, and only while what is left still holds
    ``retention_bytes`` or more: Kafka never cuts a log below its retention.bytes. Then by time,
    while the next one is more than ``retention_ms`` old."""
    dropped = 0
    if retention_bytes >= 0:
        excess = sum(size for _, _, size in batches) - retention_bytes
        while dropped < len(batches) and batches[dropped][2] <= excess:
            excess -= batches[dropped][2]
            dropped += 1
    if retention_ms >= 0:
        while dropped < len(batches) and now - batches[dropped][1] > retention_ms:
            dropped += 1
    return dropped


def state_file(data: Path, partition: int) -> Path:
    return Path(data) / f"batch-coordinator-{partition}.sqlite"


class BatchCoordinator:
    """The coordinator of ``__diskless-metadata`` partition ``partition``, its log and state in
    ``data``; with ``follow``, a read-only one following the log in that data directory."""

    def __init__(
        self,
        data: Path | str,
        partition: int = 0,
        *,
        follow: Path | str | None = None,
        topic: MetadataTopic | None = None,
        read_only: bool = False,
        clock: Clock = wall_clock_ms,
    ):
        """``topic`` is where the partition's log lives (default: a local log in ``data``, or
        in ``follow``), closed with the coordinator; ``read_only`` makes a coordinator of that
        topic a follower."""
        self.data = Path(data)
        self.partition = partition
        self.read_only = read_only or follow is not None
        self.clock = clock
        self.data.mkdir(parents=True, exist_ok=True)
        self.log_dir = partition_dir(Path(follow) if follow is not None else self.data, partition)
        self.topic: MetadataTopic = LocalTopic(self.log_dir) if topic is None else topic
        if not self.read_only:
            self.topic.create()
        self.store = self._open_store()
        self.reader = Store(state_file(self.data, partition))  # sees committed state only
        self.failed: OSError | None = None
        self.catch_up()
        self.appender = None if self.read_only else self.topic.appender(self.store.position())

    def _open_store(self) -> Store:
        """The SQLite state, rebuilt from nothing when it claims more than the log holds (a log
        replaced or cut behind its back: the log is the truth), or when another schema version
        made it (its tables may lack what the records put there)."""
        path = state_file(self.data, self.partition)
        store = Store(path)
        if store.outdated or not self.topic.holds(store.position()):
            store.close()
            for leftover in path.parent.glob(path.name + "*"):  # the file, its -wal and -shm
                leftover.unlink()
            store = Store(path)
        return store

    def catch_up(self) -> int:
        """Apply the log's records the state lacks; return how many batches were applied."""
        applied = 0
        for records, position in self.topic.records_after(self.store.position()):
            self.store.begin()
            try:
                for record in records:
                    self.store.apply(record)
            except BaseException:
                self.store.rollback()
                raise
            self.store.commit(position)
            applied += 1
        return applied

    def close(self) -> None:
        if self.appender is not None:
            self.appender.close()
        self.topic.close()
        self.reader.close()
        self.store.close()

    def __enter__(self) -> BatchCoordinator:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- the write path ------------------------------------------------------------------------

    def begin_writes(self, decides: list[Decide]) -> tuple[list[object], LogPosition | None]:
        """Open a transaction and run each ``decide(emit)`` in it; each record emitted is applied
        at once, so later decisions see earlier ones. A decision that raises is undone alone (its
        result is the exception): the transaction is rolled back and the others decided again
        without it. All records are appended as one batch, not yet fsynced; the position after
        it (None: nothing to write, the transaction is closed) goes to ``end_writes`` once the
        batch is synced."""
        if self.failed is not None:
            raise OSError(f"the coordinator's log failed earlier ({self.failed}); restart it")
        failures: dict[int, Exception] = {}  # decisions that raised, left out of the next pass
        while True:
            records: list[Message] = []
            self.store.begin()
            try:
                results = self._decide_all(decides, failures, records)
                if results is None:  # one more decision raised: decide again without it
                    self.store.rollback()
                    continue
                if not records:
                    self.store.rollback()
                    return results, None
                assert self.appender is not None  # a read-only coordinator's decisions emit nothing
                return results, self.appender.append_unsynced(records, self.clock())
            except BaseException:
                self.store.rollback()
                raise

    def _decide_all(self, decides: list[Decide], failures: dict[int, Exception], records: list[Message]) -> list[object] | None:
        """One pass over the decisions in the open transaction, those in ``failures`` answered
        with their exception; None when another one raises (it joins ``failures``).

        A pass is redone rather than each decision wrapped in a savepoint: a savepoint makes
        SQLite journal every page a decision touches, nearly doubling the cost of applying a
        commit, and a decision raises only on a fault."""

        def emit(record: Message) -> None:
            self.store.apply(record)
            records.append(record)

        results: list[object] = []
        for index, decide in enumerate(decides):
            if index in failures:
                results.append(failures[index])
                continue
            try:
                results.append(decide(emit))
            except Exception as e:
                failures[index] = e
                return None
        return results

    def sync(self) -> None:
        """fsync the appended batch (a failure stops all writes until a restart: the log may
        hold a batch the state does not)."""
        assert self.appender is not None
        try:
            self.appender.sync()
        except OSError as e:
            self.failed = e
            raise

    def end_writes(self, position: LogPosition) -> None:
        self.store.commit(position)

    def abort_writes(self) -> None:
        self.store.rollback()

    def _write(self, decide: Decide) -> object:
        """One decision: decide, append, fsync, commit, and only then return its answer."""
        results, position = self.begin_writes([decide])
        if position is not None:
            try:
                self.sync()
            except BaseException:
                self.abort_writes()
                raise
            self.end_writes(position)
        if isinstance(results[0], Exception):
            raise results[0]
        return results[0]

    def _read(self) -> Store:
        if self.read_only:
            self.catch_up()
        return self.reader

    # -- the plugin interface: each write is a decision, run by _write (or a group commit) -----

    def create_topic_and_partitions(
        self, requests: Iterable[CreateTopicAndPartitionsRequest]
    ) -> list[int]:
        """Create the topics' partitions (more partitions for a known topic add the missing
        ones; the same count again changes nothing; fewer is INVALID_PARTITIONS; more than
        MAX_PARTITIONS_PER_REQUEST new ones in all is POLICY_VIOLATION for every topic)."""
        return self._write(self.create_decision(list(requests)))  # type: ignore[return-value]

    def create_decision(self, requests: list[CreateTopicAndPartitionsRequest]) -> Decide:
        def decide(emit: Emit) -> list[int]:
            if self.read_only:
                return [NOT_COORDINATOR] * len(requests)
            added = sum(max(r.num_partitions - (self.store.num_partitions(r.topic_id) or 0), 0) for r in requests)
            if added > MAX_PARTITIONS_PER_REQUEST:
                return [ErrorCode.POLICY_VIOLATION] * len(requests)
            errors: list[int] = []
            for request in requests:
                known = self.store.num_partitions(request.topic_id) or 0
                if request.topic_id == Uuid.ZERO_UUID:
                    errors.append(ErrorCode.INVALID_REQUEST)
                    continue
                if request.num_partitions <= 0 or request.num_partitions < known:
                    errors.append(ErrorCode.INVALID_PARTITIONS)
                    continue
                if request.num_partitions > known:
                    emit(TopicRecord(topic_id=request.topic_id, num_partitions=request.num_partitions))
                errors.append(ErrorCode.NONE)
            return errors

        return decide

    def commit_file(
        self, object_key: str, uploader_broker_id: int, file_size: int, batches: list[CommitBatchRequest]
    ) -> list[CommitBatchResponse]:
        """Commit the batches of one uploaded object (see ``commits`` for the rules)."""
        return self.commit_files([(object_key, uploader_broker_id, file_size, batches)])[0]

    def commit_files(self, objects: list[ObjectBatches]) -> list[list[CommitBatchResponse]]:
        """Commit several objects in one log batch, in order; one answer list per object. An
        object key committed before is refused whole (INVALID_REQUEST): a key names one upload."""
        return self._write(self.commit_decision(objects))  # type: ignore[return-value]

    def commit_decision(self, objects: list[ObjectBatches]) -> Decide:
        def decide(emit: Emit) -> list[list[CommitBatchResponse]]:
            if self.read_only:
                return [[CommitBatchResponse(NOT_COORDINATOR)] * len(b) for _, _, _, b in objects]
            answers = []
            for key, uploader, size, batches in objects:
                if not key or self.store.object_exists(key) or not 0 <= size <= INT64_MAX:
                    answers.append([CommitBatchResponse(ErrorCode.INVALID_REQUEST)] * len(batches))
                    continue
                commit = ObjectCommit(self.store, key, uploader, size, self.clock())
                answers.append(commit.decide_all(batches))
                emit(commit.record())
            return answers

        return decide

    def find_batches(self, requests: list[FindBatchRequest], fetch_max_bytes: int) -> list[FindBatchResponse]:
        return reads.find_batches(self._read(), requests, fetch_max_bytes)

    def found_rows(self, requests: list[FindBatchRequest], fetch_max_bytes: int, columns: str) -> list[reads.FoundRows]:
        """``find_batches``' batches as rows of ``columns`` (the wire encodes its answer from them)."""
        return reads.found_rows(self._read(), requests, fetch_max_bytes, columns)

    def list_offsets(self, requests: list[ListOffsetsRequest]) -> list[ListOffsetsResponse]:
        store = self._read()
        return [reads.list_offset(store, request) for request in requests]

    def delete_records(self, requests: list[DeleteRecordsRequest]) -> list[DeleteRecordsResponse]:
        """Move each partition's log start offset up to the offset given (-1: the high
        watermark); batches wholly below it go, and objects left without a live batch are soft
        deleted. An offset above the high watermark is OFFSET_OUT_OF_RANGE."""
        return self._write(self.delete_records_decision(requests))  # type: ignore[return-value]

    def delete_records_decision(self, requests: list[DeleteRecordsRequest]) -> Decide:
        def decide(emit: Emit) -> list[DeleteRecordsResponse]:
            if self.read_only:
                return [DeleteRecordsResponse(NOT_COORDINATOR)] * len(requests)
            return [self._delete_records(request, emit) for request in requests]

        return decide

    def _delete_records(self, request: DeleteRecordsRequest, emit: Emit) -> DeleteRecordsResponse:
        tp = request.topic_id_partition
        error = partition_error(self.store, tp)
        if error is not None:
            return DeleteRecordsResponse(error)
        log_start, high_watermark = self.store.offsets(tp.topic_id, tp.partition)  # type: ignore[misc]
        offset = high_watermark if request.offset == HIGH_WATERMARK else request.offset
        if not 0 <= offset <= high_watermark:
            return DeleteRecordsResponse(ErrorCode.OFFSET_OUT_OF_RANGE, log_start)
        if offset > log_start:
            self._move_log_start(tp, offset, emit)
            log_start = offset
        return DeleteRecordsResponse(ErrorCode.NONE, log_start)

    def _move_log_start(self, tp: TopicIdPartition, offset: int, emit: Emit) -> None:
        emit(LogStartOffsetRecord(topic_id=tp.topic_id, partition_index=tp.partition,
                                  log_start_offset=offset, changed_at=self.clock()))  # fmt: skip

    def delete_topics(self, topic_ids: Iterable[Uuid]) -> list[int]:
        """Remove topics with their partitions and batches (UNKNOWN_TOPIC_ID for one not known)."""
        return self._write(self.delete_topics_decision(list(topic_ids)))  # type: ignore[return-value]

    def delete_topics_decision(self, topic_ids: list[Uuid]) -> Decide:
        def decide(emit: Emit) -> list[int]:
            if self.read_only:
                return [NOT_COORDINATOR] * len(topic_ids)
            errors: list[int] = []
            for topic_id in topic_ids:
                if self.store.num_partitions(topic_id) is None:
                    errors.append(ErrorCode.UNKNOWN_TOPIC_ID)
                    continue
                emit(RemoveTopicRecord(topic_id=topic_id, removed_at=self.clock()))
                errors.append(ErrorCode.NONE)
            return errors

        return decide

    def enforce_retention(self, tp: TopicIdPartition, retention_ms: int, retention_bytes: int) -> int:
        """Drop a partition's oldest batches as Kafka's retention drops segments
        (``expired_batches``); return the log start offset after it."""
        if self.read_only:
            raise PermissionError("a read-only batch coordinator does not enforce retention")

        def decide(emit: Emit) -> int:
            offsets = self.store.offsets(tp.topic_id, tp.partition)
            if offsets is None:
                raise KeyError(f"no diskless partition {tp}")
            batches = self.store.partition_batches_by_age(tp.topic_id, tp.partition)
            dropped = expired_batches(batches, self.clock(), retention_ms, retention_bytes)
            new_start = batches[dropped - 1][0] + 1 if dropped else offsets[0]
            if new_start > offsets[0]:
                self._move_log_start(tp, new_start, emit)
            return new_start

        return self._write(decide)  # type: ignore[return-value]

    def get_files_to_delete(self) -> list[FileToDelete]:
        """The soft-deleted objects, oldest first: brokers delete them from object storage."""
        return [FileToDelete(key, at) for key, at in self._read().files_to_delete()]

    def delete_files(self, object_keys: Iterable[str]) -> None:
        """Forget soft-deleted objects that are now gone from object storage (other keys are
        ignored: an object still in use is never forgotten)."""
        if self.read_only:
            raise PermissionError("a read-only batch coordinator does not delete files")
        asked = set(object_keys)

        def decide(emit: Emit) -> None:
            keys = sorted(key for key in asked if self.store.is_soft_deleted(key))
            if keys:
                emit(ObjectsDeletedRecord(object_keys=keys))

        self._write(decide)

    def is_safe_to_delete_file(self, object_key: str) -> bool:
        """Whether no live batch uses the object: it is soft deleted, or was never committed
        (an upload whose commit failed). An upload still waiting for its commit is also
        unknown: callers delete only objects older than any commit can take."""
        store = self._read()
        return store.is_soft_deleted(object_key) or not store.object_exists(object_key)
