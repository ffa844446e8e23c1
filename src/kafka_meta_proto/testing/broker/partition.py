"""One partition replica on a broker: its log (``log.partition_files``), high watermark, log
start offset, leader-epoch cache (the ``leader-epoch-checkpoint`` file) and producer state.
Segments roll at the topic's ``segment.bytes`` and ``segment.ms`` as it was when the replica was
opened; retention does not run (records go only through DeleteRecords).

The high watermark: the leader copies every batch it appends to its live in-sync followers before
it answers (see ``replication``), so once an append returns every such replica holds it and the
high watermark is the log end offset. Consumers read up to it; with no transactions served the
last stable offset is the high watermark too.

Offsets by timestamp follow Kafka's UnifiedLog: EARLIEST (-2) and EARLIEST_LOCAL (-4) the log
start offset with the epoch that holds it, LATEST (-1) the high watermark with the current leader
epoch, MAX_TIMESTAMP (-3) the first record of the largest timestamp, LATEST_TIERED (-5) and
EARLIEST_PENDING_UPLOAD (-6) offset -1 and epoch -1 (no tiered storage), a timestamp the first
record at or after it; a found offset at or past the high watermark counts as none (-1).
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ...log.batch import decode_batch
from ...log.header import TimestampType, read_header
from ...log.partition_files import (
    DEFAULT_SEGMENT_BYTES,
    DEFAULT_SEGMENT_MS,
    PartitionFiles,
    StoredBatch,
    write_partition_metadata,
)
from ...log.segment_writer import write_leader_epoch_checkpoint
from .batch_checks import CheckedBatch, header_of, stamp
from .producer_state import ProducerStates

if TYPE_CHECKING:
    from ...log.source import Buffer

EARLIEST = -2
LATEST = -1
MAX_TIMESTAMP = -3
EARLIEST_LOCAL = -4
LATEST_TIERED = -5
EARLIEST_PENDING_UPLOAD = -6
NO_TIMESTAMP = -1


@dataclass(frozen=True)
class Appended:
    """Where an append put a batch (or, for a duplicate, where the original lies)."""

    first_offset: int
    last_offset: int
    log_append_time: int  # -1 under CreateTime
    duplicate: bool = False


@dataclass(frozen=True)
class FoundOffset:
    timestamp: int
    offset: int
    leader_epoch: int


class Partition:
    """A replica of ``topic``-``index`` kept in ``directory``."""

    def __init__(self, topic: str, index: int, topic_id: str, directory: Path,
                 config: dict[str, str] | None = None):  # fmt: skip
        self.topic, self.index, self.topic_id = topic, index, topic_id
        config = config or {}
        self.files = PartitionFiles(
            directory,
            segment_bytes=int(config.get("segment.bytes", DEFAULT_SEGMENT_BYTES)),
            segment_ms=int(config.get("segment.ms", DEFAULT_SEGMENT_MS)),
        )
        write_partition_metadata(directory, topic_id)
        self.epochs: list[tuple[int, int]] = []  # (leader epoch, start offset)
        self.producers = ProducerStates()
        # (base offset, stamped header, records) of the latest append as leader, until replicated
        self._last_append: tuple[int, bytes, Buffer] | None = None
        self.log_start_offset = self.files.batches[0].base_offset if self.files.batches else 0
        self._rebuild_from_log()
        self.high_watermark = self.log_end_offset

    @property
    def directory(self) -> Path:
        return self.files.directory

    @property
    def log_end_offset(self) -> int:
        return self.files.end_offset

    @property
    def latest_epoch(self) -> int:
        return self.epochs[-1][0] if self.epochs else -1

    # --- writing ---------------------------------------------------------------------------

    def append_as_leader(self, batch: CheckedBatch, leader_epoch: int, now: int,
                         timestamp_type: TimestampType) -> Appended:  # fmt: skip
        """Check the producer, stamp and write ``batch``: where it went (for a duplicate, which
        is not written again, where the original lies). ProducerStateError when refused."""
        duplicate = self.producers.check(batch.header)
        append_time = now if timestamp_type == TimestampType.LOG_APPEND_TIME else None
        if duplicate is not None:
            shown = duplicate.timestamp if append_time is not None else NO_TIMESTAMP
            return Appended(duplicate.first_offset, duplicate.last_offset, shown, True)
        base = self.log_end_offset
        header, records = stamp(batch, base, leader_epoch, append_time)
        self.append_replica(header, records)
        self._last_append = (base, header, records)
        last = base + batch.records_count - 1
        return Appended(base, last, append_time if append_time is not None else NO_TIMESTAMP)

    def append_replica(self, data: Buffer, rest: Buffer = b"") -> None:
        """Write a batch as stamped by the leader (a follower's copy, or the leader's own, whose
        stamped header ``data`` comes apart from its records ``rest``)."""
        self._last_append = None
        header = header_of(data)
        if not self.files.batches and header.base_offset != self.files.end_offset:
            self.files.start_at(header.base_offset)
            self.log_start_offset = header.base_offset
        self.files.append(data, header, rest)
        self._note_epoch(header.partition_leader_epoch, header.base_offset)
        self.producers.record(header, header.base_offset, header.max_timestamp)

    def batch_pieces(self, index: int) -> tuple[Buffer, ...]:
        """The bytes of the log's ``index``-th batch (in ``files.batches``), for a follower's copy:
        the leader's latest append as it was written (its stamped header and the request's
        records), any other read back."""
        stored = self.files.batches[index]
        last = self._last_append
        if last is not None and last[0] == stored.base_offset:
            return last[1:]
        return (self.files.batch_bytes(stored),)

    def forget_last_append(self) -> None:
        """Let go of the latest append's request bytes once the followers have their copies."""
        self._last_append = None

    def become_leader(self, epoch: int) -> None:
        """Start ``epoch`` at the log end offset, as Kafka's new leader does before any append."""
        self._note_epoch(epoch, self.log_end_offset)

    def _note_epoch(self, epoch: int, start: int) -> None:
        if epoch >= 0 and epoch > self.latest_epoch:
            self.epochs.append((epoch, start))
            write_leader_epoch_checkpoint(self.directory, self.epochs)

    def truncate_to(self, offset: int) -> None:
        """Drop the records at ``offset`` and later (a follower catching up with a new leader)."""
        self._last_append = None
        self.files.truncate_to(offset)
        self._rebuild_from_log()
        self.high_watermark = min(self.high_watermark, self.log_end_offset)

    def delete_records(self, offset: int) -> None:
        """Move the log start offset up to ``offset`` (at most the high watermark), deleting the
        segments wholly below it, as DeleteRecords does."""
        if offset > self.log_start_offset:
            self.log_start_offset = offset
            self.files.delete_segments_before(offset)

    def _rebuild_from_log(self) -> None:
        """Producer state and leader epochs read back from the batches on disk."""
        self.producers.clear()
        self.epochs = []
        for stored in self.files.batches:
            header = read_header(self.files.batch_bytes(stored)[:61])
            if header.partition_leader_epoch > self.latest_epoch:
                self.epochs.append((header.partition_leader_epoch, header.base_offset))
            self.producers.record(header, header.base_offset, header.max_timestamp)
        write_leader_epoch_checkpoint(self.directory, self.epochs)

    # --- reading ---------------------------------------------------------------------------

    def read(self, offset: int, max_bytes: int, at_least_one: bool) -> bytes:
        """Whole batches from ``offset`` up to the high watermark (see PartitionFiles.read)."""
        return self.files.read(offset, max_bytes, self.high_watermark, at_least_one)

    def epoch_of(self, offset: int) -> int:
        """The leader epoch whose leader wrote ``offset`` (-1 before any)."""
        starts = [start for _, start in self.epochs]
        at = bisect.bisect_right(starts, offset) - 1
        return self.epochs[at][0] if at >= 0 else -1

    def end_offset_for_epoch(self, epoch: int) -> tuple[int, int]:
        """(epoch, end offset) as Kafka's LeaderEpochFileCache.endOffsetFor answers."""
        if epoch < 0 or not self.epochs:
            return -1, -1
        if epoch == self.latest_epoch:
            return epoch, self.log_end_offset
        higher = next(((e, start) for e, start in self.epochs if e > epoch), None)
        if higher is None:
            return -1, -1
        floor = [e for e, _ in self.epochs if e <= epoch]
        return (floor[-1] if floor else epoch), higher[1]

    def offset_for_timestamp(self, timestamp: int, current_epoch: int) -> FoundOffset:
        """ListOffsets' answer for ``timestamp`` (special values in the module docstring)."""
        if timestamp in (EARLIEST, EARLIEST_LOCAL):
            start = self.log_start_offset
            return FoundOffset(NO_TIMESTAMP, start, self.epoch_of(start))
        if timestamp == LATEST:
            return FoundOffset(NO_TIMESTAMP, self.high_watermark, current_epoch)
        if timestamp < 0 and timestamp != MAX_TIMESTAMP:
            return FoundOffset(NO_TIMESTAMP, -1, -1)
        found = self._max_timestamp() if timestamp == MAX_TIMESTAMP else self._at_or_after(timestamp)
        if found is None or found.offset >= self.high_watermark:
            return FoundOffset(NO_TIMESTAMP, -1, -1)
        return found

    def _records(self, stored: StoredBatch) -> list[tuple[int, int]]:
        """(offset, timestamp) of each record of a stored batch."""
        batch, _ = decode_batch(self.files.batch_bytes(stored))
        return [(batch.offset_of(r), batch.timestamp_of(r)) for r in batch.records]

    def _live_batches(self) -> list[StoredBatch]:
        return [b for b in self.files.batches if b.last_offset >= self.log_start_offset]

    def _at_or_after(self, timestamp: int) -> FoundOffset | None:
        for stored in self._live_batches():
            if stored.max_timestamp < timestamp:
                continue
            for offset, at in self._records(stored):
                if at >= timestamp and offset >= self.log_start_offset:
                    return FoundOffset(at, offset, stored.leader_epoch)
        return None

    def _max_timestamp(self) -> FoundOffset | None:
        batches = self._live_batches()
        if not batches:
            return None
        best = max(batches, key=lambda b: b.max_timestamp)  # the first batch of the largest
        for offset, at in self._records(best):
            if at == best.max_timestamp:
                return FoundOffset(at, offset, best.leader_epoch)
        return FoundOffset(best.max_timestamp, best.base_offset, best.leader_epoch)

    def close(self) -> None:
        self.files.close()
