"""Deciding a commit: which batches of an uploaded object are accepted, the offsets they get,
and what each is answered, by the rules of Kafka's log for idempotent producers
(``ProducerStateManager``, ``ProducerAppendInfo``):

- a batch already committed by the same producer and epoch (one of its last five, matched by
  first and last sequence) is a duplicate: answered with its original offsets, not written again,
  even when DeleteRecords or retention has removed its records since;
- an epoch below the producer's current one: INVALID_PRODUCER_EPOCH;
- a new epoch must start at sequence 0, the current one continue at last sequence + 1 (wrapping
  after 2**31 - 1): otherwise OUT_OF_ORDER_SEQUENCE_NUMBER.

The producer's state is what the store retains of its newest batches (``producer_batches``),
which deletions of records leave alone. A producer without one, or whose newest batch's timestamp
is ``PRODUCER_ID_EXPIRATION_MS`` or more before the decision's time, may start anywhere, as in
Kafka once it has expired the producer.

The result is one ``DisklessCommitRecord`` holding the accepted batches with their assigned
offsets; nothing here writes.
"""

from __future__ import annotations

from typing import Protocol

from ..error_codes import ErrorCode
from ..uuid import Uuid
from ..diskless_messages.diskless_commit_record import DisklessBatch, DisklessCommitRecord
from .store import LOG_APPEND_TIME, PRODUCER_BATCHES_KEPT, ProducerBatch, Store, producer_expired
from .types import NO_PRODUCER_ID, NO_TIMESTAMP, CommitBatchRequest, CommitBatchResponse
from .types import TopicIdPartition

TIMESTAMP_TYPES = (-1, 0, 1)  # none, create time, log-append time
INT32_MAX = (1 << 31) - 1
INT64_MAX = (1 << 63) - 1  # what SQLite and the records' int64 fields hold


def partition_error(store: Store, tp: TopicIdPartition) -> int | None:
    """Why a partition cannot be used: an unknown topic id, or a partition it does not have."""
    if store.offsets(tp.topic_id, tp.partition) is not None:
        return None
    return missing_partition_error(store, tp)


def missing_partition_error(store: Store, tp: TopicIdPartition) -> int:
    """The error for a partition the state does not have: is its topic known?"""
    if store.num_partitions(tp.topic_id) is None:
        return ErrorCode.UNKNOWN_TOPIC_ID
    return ErrorCode.UNKNOWN_TOPIC_OR_PARTITION


def malformed(batch: CommitBatchRequest) -> bool:
    """Coordinates no upload can have, or sequences that do not match the record count."""
    if batch.byte_offset < 0 or batch.size <= 0 or batch.base_offset < 0:
        return True
    if batch.byte_offset + batch.size > INT64_MAX:  # ends past any object's size
        return True
    # a record batch's last offset delta is an int32 in Kafka's format
    if not 0 <= batch.last_offset - batch.base_offset <= INT32_MAX:
        return True
    if batch.message_timestamp_type not in TIMESTAMP_TYPES:
        return True
    if batch.producer_id == NO_PRODUCER_ID:
        return False
    count = batch.last_offset - batch.base_offset + 1
    return batch.base_sequence < 0 or batch.last_sequence != (batch.base_sequence + count - 1) % (INT32_MAX + 1)


class TimestampedBatch(Protocol):
    """What a batch's reported timestamp is made of (a stored batch, or one being committed)."""

    @property
    def message_timestamp_type(self) -> int: ...
    @property
    def log_append_time(self) -> int: ...
    @property
    def batch_max_timestamp(self) -> int: ...


def batch_timestamp(batch: TimestampedBatch) -> int:
    """The timestamp Kafka reports for a batch: its append time under LOG_APPEND_TIME."""
    if batch.message_timestamp_type == LOG_APPEND_TIME:
        return int(batch.log_append_time)
    return int(batch.batch_max_timestamp)


def _retained(batch: DisklessBatch) -> ProducerBatch:
    """What the store will retain of a batch accepted in the commit being decided."""
    return ProducerBatch(batch.producer_epoch, batch.base_sequence, batch.last_sequence,
                         batch.base_offset, batch.last_offset, batch_timestamp(batch))  # fmt: skip


def in_sequence(last: int, first: int) -> bool:
    return first == last + 1 or (first == 0 and last == INT32_MAX)


class ObjectCommit:
    """The decisions for one object, batch by batch, and the record they make."""

    def __init__(self, store: Store, object_key: str, uploader_broker_id: int, object_size: int, now: int):
        self.store = store
        self.object_key = object_key
        self.uploader_broker_id = uploader_broker_id
        self.object_size = object_size
        self.now = now
        self.accepted: list[DisklessBatch] = []  # with their assigned offsets, in order
        self.accepted_bytes = 0  # their sizes added: the object's used size, kept within int64
        # per partition: [log start offset, next offset] as the accepted batches leave them, or
        # the error that refuses it; read from the state once per partition and object (the
        # state does not change meanwhile)
        self.partitions: dict[TopicIdPartition, list[int] | int] = {}

    def decide_all(self, batches: list[CommitBatchRequest]) -> list[CommitBatchResponse]:
        """``decide`` each batch in order, the partitions' offsets read first, one statement a
        topic."""
        by_topic: dict[Uuid, list[TopicIdPartition]] = {}
        for tp in {batch.topic_id_partition for batch in batches}:
            by_topic.setdefault(tp.topic_id, []).append(tp)
        for topic_id, tps in by_topic.items():
            found = self.store.partition_offsets(topic_id, [tp.partition for tp in tps])
            for tp in tps:
                self._keep(tp, found.get(tp.partition))
        return [self.decide(batch) for batch in batches]

    def decide(self, batch: CommitBatchRequest) -> CommitBatchResponse:
        tp = batch.topic_id_partition
        state = self.partitions.get(tp)
        if state is None:
            state = self._keep(tp, self.store.offsets(tp.topic_id, tp.partition))
        if isinstance(state, int):  # the error refusing the partition
            return CommitBatchResponse(state)
        if malformed(batch) or self.accepted_bytes + batch.size > INT64_MAX:
            return CommitBatchResponse(ErrorCode.INVALID_REQUEST)
        log_start, base = state
        if batch.producer_id != NO_PRODUCER_ID:
            answer = self._producer_check(batch, log_start)
            if answer is not None:
                return answer
        last = base + batch.last_offset - batch.base_offset
        state[1] = last + 1
        self.accepted.append(self._entry(batch, base, last))
        self.accepted_bytes += batch.size
        append_time = self.now if batch.message_timestamp_type == LOG_APPEND_TIME else NO_TIMESTAMP
        return CommitBatchResponse(ErrorCode.NONE, base, append_time, log_start)

    def _keep(self, tp: TopicIdPartition, offsets: tuple[int, int] | None) -> list[int] | int:
        """Keep a partition's state from its offsets in the state (None: it has none)."""
        state = list(offsets) if offsets is not None else missing_partition_error(self.store, tp)
        self.partitions[tp] = state
        return state

    def _entry(self, batch: CommitBatchRequest, base: int, last: int) -> DisklessBatch:
        tp = batch.topic_id_partition
        return DisklessBatch(
            topic_id=tp.topic_id, partition_index=tp.partition, byte_offset=batch.byte_offset,
            size=batch.size, base_offset=base, last_offset=last, log_append_time=self.now,
            batch_max_timestamp=batch.batch_max_timestamp,
            message_timestamp_type=batch.message_timestamp_type, producer_id=batch.producer_id,
            producer_epoch=batch.producer_epoch, base_sequence=batch.base_sequence,
            last_sequence=batch.last_sequence,
        )  # fmt: skip

    def _recent(self, tp: TopicIdPartition, producer_id: int) -> list[ProducerBatch]:
        """The producer's latest batches in the partition, newest first: those accepted in this
        commit, then the ones the store retains."""
        mine = [
            _retained(b) for b in reversed(self.accepted)
            if (b.topic_id, b.partition_index, b.producer_id) == (tp.topic_id, tp.partition, producer_id)
        ]  # fmt: skip
        stored = self.store.retained_batches(tp.topic_id, tp.partition, producer_id)
        return (mine + stored)[:PRODUCER_BATCHES_KEPT]

    def _producer_check(self, batch: CommitBatchRequest, log_start: int) -> CommitBatchResponse | None:
        """The answer for a duplicate or a refused batch; None to accept it."""
        recent = self._recent(batch.topic_id_partition, batch.producer_id)
        if not recent or producer_expired(recent[0].timestamp, self.now):
            return None  # no state for this producer: any sequence is accepted
        epoch = recent[0].producer_epoch
        if batch.producer_epoch == epoch:
            for old in recent:
                if old.producer_epoch != epoch:
                    break
                if (old.base_sequence, old.last_sequence) == (batch.base_sequence, batch.last_sequence):
                    # Kafka answers a duplicate with the timestamp its batch was stored with
                    return CommitBatchResponse(
                        ErrorCode.NONE, old.base_offset, old.timestamp, log_start, True
                    )
            if not in_sequence(recent[0].last_sequence, batch.base_sequence):
                return CommitBatchResponse(ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER)
            return None
        if batch.producer_epoch < epoch:
            return CommitBatchResponse(ErrorCode.INVALID_PRODUCER_EPOCH)
        if batch.base_sequence != 0:
            return CommitBatchResponse(ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER)
        return None

    def record(self) -> DisklessCommitRecord:
        return DisklessCommitRecord(
            object_key=self.object_key, uploader_broker_id=self.uploader_broker_id,
            object_size=self.object_size, committed_at=self.now, batches=self.accepted,
        )  # fmt: skip
