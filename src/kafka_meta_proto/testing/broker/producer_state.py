"""Idempotent producers' state in one partition, checked as Kafka's ProducerStateManager and
ProducerAppendInfo check a client's batch.

Per producer id: its epoch and the last five batches it wrote (sequence range and offsets,
Kafka's ``NUM_BATCHES_TO_RETAIN``). A batch is checked in Kafka's order:

1. a duplicate - the same epoch and exactly the sequence range of a retained batch - is not
   written again: the append succeeds with that batch's offsets (Kafka no longer answers
   DUPLICATE_SEQUENCE_NUMBER; its producers treat the original offsets as the answer);
2. an epoch older than the producer's current one is INVALID_PRODUCER_EPOCH (since Kafka 2.7,
   not PRODUCER_FENCED, so the client may abort and retry);
3. a new epoch must start at sequence 0, else OUT_OF_ORDER_SEQUENCE_NUMBER, unless the producer
   had no epoch yet;
4. within the epoch the first sequence must follow the last one written (sequences wrap from
   2^31-1 to 0), else OUT_OF_ORDER_SEQUENCE_NUMBER.

A producer id with no state here (new, or whose batches were all deleted) may start at any
sequence: since KIP-360 (Kafka 2.5) the broker accepts it, so UNKNOWN_PRODUCER_ID is never
answered to a Produce, as Kafka 4's broker never answers it. A batch with sequence -1 in an
idempotent batch is refused earlier, by the batch checks (INVALID_RECORD).
"""

from __future__ import annotations

import collections
from dataclasses import dataclass, field

from ...error_codes import ErrorCode
from ...log.header import NO_PRODUCER_EPOCH, NO_PRODUCER_ID, BatchHeader

BATCHES_RETAINED = 5  # Kafka's ProducerStateEntry.NUM_BATCHES_TO_RETAIN
MAX_SEQUENCE = (1 << 31) - 1


class ProducerStateError(Exception):
    """A batch the producer checks refuse, with the error code of the Produce answer."""

    def __init__(self, code: int, message: str):
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(frozen=True)
class WrittenBatch:
    """A producer's batch as written: its sequence range, offsets and timestamp."""

    first_sequence: int
    last_sequence: int
    first_offset: int
    last_offset: int
    timestamp: int


@dataclass
class ProducerEntry:
    epoch: int = NO_PRODUCER_EPOCH
    batches: collections.deque[WrittenBatch] = field(
        default_factory=lambda: collections.deque(maxlen=BATCHES_RETAINED)
    )

    @property
    def last_sequence(self) -> int:
        return self.batches[-1].last_sequence if self.batches else -1


def last_sequence(header: BatchHeader) -> int:
    """The sequence of the batch's last record, wrapping past 2^31-1 as Kafka's does."""
    base: int = header.base_sequence  # a namedtuple's fields are untyped
    delta: int = header.last_offset_delta
    if base > MAX_SEQUENCE - delta:
        return delta - (MAX_SEQUENCE - base) - 1
    return base + delta


def in_sequence(last: int, following: int) -> bool:
    return following == last + 1 or (following == 0 and last == MAX_SEQUENCE)


class ProducerStates:
    """The idempotent producers that wrote to one partition."""

    def __init__(self) -> None:
        self.entries: dict[int, ProducerEntry] = {}

    def check(self, header: BatchHeader) -> WrittenBatch | None:
        """The batch this one duplicates, None for a new batch to write; ProducerStateError
        when Kafka refuses it."""
        producer_id = header.producer_id
        if producer_id == NO_PRODUCER_ID:
            return None
        entry = self.entries.get(producer_id)
        if entry is None:
            return None
        epoch, first = header.producer_epoch, header.base_sequence
        if epoch == entry.epoch:
            last = last_sequence(header)
            for written in entry.batches:
                if written.first_sequence == first and written.last_sequence == last:
                    return written
        if epoch < entry.epoch:
            raise ProducerStateError(ErrorCode.INVALID_PRODUCER_EPOCH,
                                     f"Epoch of producer {producer_id} is {epoch}, which is "
                                     f"smaller than the last seen epoch {entry.epoch}")  # fmt: skip
        if epoch != entry.epoch:
            if first != 0 and entry.epoch != NO_PRODUCER_EPOCH:
                raise ProducerStateError(ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER,
                                         f"Invalid sequence number for new epoch of producer "
                                         f"{producer_id}: {epoch} (request epoch), {first} "
                                         f"(seq. number), {entry.epoch} (current epoch)")  # fmt: skip
        elif entry.batches and not in_sequence(entry.last_sequence, first):
            raise ProducerStateError(ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER,
                                     f"Out of order sequence number for producer {producer_id}: "
                                     f"{first} (incoming seq. number), {entry.last_sequence} "
                                     "(current end sequence number)")  # fmt: skip
        return None

    def record(self, header: BatchHeader, first_offset: int, timestamp: int) -> None:
        """Remember a written batch (a new epoch forgets the batches of the old one)."""
        if header.producer_id == NO_PRODUCER_ID:
            return
        entry = self.entries.setdefault(header.producer_id, ProducerEntry())
        if header.producer_epoch != entry.epoch:
            entry.batches.clear()
            entry.epoch = header.producer_epoch
        last_offset = first_offset + header.last_offset_delta
        entry.batches.append(WrittenBatch(header.base_sequence, last_sequence(header),
                                          first_offset, last_offset, timestamp))  # fmt: skip

    def clear(self) -> None:
        self.entries.clear()
