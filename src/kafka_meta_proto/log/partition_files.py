"""A data partition's directory (``<topic>-<partition>``): its ``*.log`` segments appended
through ``SegmentWriter``, an index of where each batch lies, reads of whole batches by offset,
truncation and the removal of old segments.

Opening a directory that already holds segments recovers it as Kafka's log recovery does: every
batch is read back (``SegmentReader``, CRCs checked) and a torn tail, a batch cut short by a
crash mid-append, is cut off. New batches then go to a new segment named after the next offset.

Only bytes and offsets are known here; what a batch means to a broker (high watermark, producer
state, leader epochs) is the caller's.
"""

from __future__ import annotations

import bisect
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from .header import BatchHeader
from .names import segment_name
from .segment import SegmentReader, list_segments
from .segment_writer import SegmentWriter

if TYPE_CHECKING:
    from .source import Buffer

DEFAULT_SEGMENT_BYTES = 1 << 30  # Kafka's log.segment.bytes
DEFAULT_SEGMENT_MS = 7 * 24 * 3600 * 1000  # Kafka's log.roll.ms
PARTITION_METADATA = "partition.metadata"


@dataclass(frozen=True, slots=True)
class StoredBatch:
    """Where one batch lies and what a reader looks up without opening it."""

    base_offset: int
    last_offset: int
    segment: int  # the base offset of the segment holding it (its file name)
    position: int
    size: int
    max_timestamp: int
    leader_epoch: int


class PartitionFiles:
    """The segments of one partition directory, with every batch indexed by offset."""

    def __init__(
        self,
        directory: str | os.PathLike[str],
        *,
        segment_bytes: int = DEFAULT_SEGMENT_BYTES,
        segment_ms: int = DEFAULT_SEGMENT_MS,
    ) -> None:
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)
        self.batches: list[StoredBatch] = []
        self._last_offsets: list[int] = []  # batches' last offsets, for bisect
        self._readers: dict[int, int] = {}  # segment base offset -> file descriptor
        self._writer = SegmentWriter(self.directory, segment_bytes, segment_ms)
        self._recover()

    @property
    def end_offset(self) -> int:
        """The offset the next batch gets (the log end offset)."""
        return self._writer.next_offset

    def _recover(self) -> None:
        for segment in list_segments(self.directory):
            before = len(self.batches)
            with SegmentReader(segment.path) as reader:
                for position, batch in reader:
                    self._index(StoredBatch(batch.base_offset, batch.last_offset,
                                            segment.base_offset, position,
                                            batch.batch_length + 12, batch.max_timestamp,
                                            batch.partition_leader_epoch))  # fmt: skip
                tail = reader.truncated_tail
            if len(self.batches) == before:  # nothing whole in it: the next append rewrites it
                segment.path.unlink()
                continue
            if tail is not None:  # a torn append: Kafka's recovery cuts it off too
                os.truncate(segment.path, tail[0])
            self._writer.segments.append(segment.path.name)
        if self.batches:
            self._writer.next_offset = self.batches[-1].last_offset + 1

    def start_at(self, offset: int) -> None:
        """Make an empty log start at ``offset`` (a follower or a log after DeleteRecords)."""
        if self.batches:
            raise ValueError("the log is not empty")
        self._writer.close()
        self._writer.next_offset = offset

    def append(self, data: Buffer, header: BatchHeader, rest: Buffer = b"") -> StoredBatch:
        """Write one whole batch whose base offset is ``end_offset``: ``data``, then ``rest`` for
        a batch in two pieces (its stamped header, then the records as they came)."""
        if header.base_offset != self._writer.next_offset:
            raise ValueError(f"batch at {header.base_offset}, log ends at {self.end_offset}")
        name, position = self._writer.append(data, header.last_offset_delta + 1,
                                             header.partition_leader_epoch, header.max_timestamp,
                                             rest)  # fmt: skip
        self._writer.flush()
        stored = StoredBatch(header.base_offset, header.last_offset, int(name[:20]), position,
                             len(data) + len(rest), header.max_timestamp,
                             header.partition_leader_epoch)  # fmt: skip
        self._index(stored)
        return stored

    def _index(self, stored: StoredBatch) -> None:
        self.batches.append(stored)
        self._last_offsets.append(stored.last_offset)

    def find(self, offset: int) -> int:
        """The index of the first batch holding ``offset`` or any later one."""
        return bisect.bisect_left(self._last_offsets, offset)

    def read(self, offset: int, max_bytes: int, end_offset: int, at_least_one: bool) -> bytes:
        """Whole batches from the one holding ``offset``, within one segment, none starting at
        or past ``end_offset``, at most ``max_bytes`` of them unless ``at_least_one`` lets the
        first batch through whatever its size (Kafka's rule for the first partition of a fetch)."""
        first = self.find(offset)
        chosen: list[StoredBatch] = []
        total = 0
        for stored in self.batches[first:]:
            if stored.base_offset >= end_offset or (chosen and stored.segment != chosen[0].segment):
                break
            if total + stored.size > max_bytes and not (at_least_one and not chosen):
                break
            chosen.append(stored)
            total += stored.size
        if not chosen:
            return b""
        start = chosen[0]
        return os.pread(self._reader(start.segment), total, start.position)

    def batch_bytes(self, stored: StoredBatch) -> bytes:
        return os.pread(self._reader(stored.segment), stored.size, stored.position)

    def _reader(self, segment: int) -> int:
        fd = self._readers.get(segment)
        if fd is None:
            fd = self._readers[segment] = os.open(self.directory / segment_name(segment), os.O_RDONLY)
        return fd

    def truncate_to(self, offset: int) -> None:
        """Drop every batch from the one holding ``offset`` on (a follower's truncation): segments
        that start there or later are deleted, the one holding it is cut before it."""
        first = self.find(offset)
        if first == len(self.batches):
            return
        cut = self.batches[first]
        self._writer.close()
        for stored_segment in sorted({b.segment for b in self.batches[first:]}):
            path = self.directory / segment_name(stored_segment)
            self._forget_reader(stored_segment)
            if stored_segment == cut.segment and cut.position > 0:
                os.truncate(path, cut.position)
            else:
                path.unlink()
                self._writer.segments.remove(path.name)
        del self.batches[first:]
        del self._last_offsets[first:]
        self._writer.next_offset = cut.base_offset

    def delete_segments_before(self, offset: int) -> None:
        """Delete the segments wholly below ``offset``, as retention does; the active one stays."""
        while len(self._writer.segments) > 1:
            oldest = int(self._writer.segments[0][:20])
            following = int(self._writer.segments[1][:20])
            if following > offset:
                return
            self._forget_reader(oldest)
            (self.directory / segment_name(oldest)).unlink()
            self._writer.segments.pop(0)
            kept = self.find(following)
            del self.batches[:kept]
            del self._last_offsets[:kept]

    def _forget_reader(self, segment: int) -> None:
        fd = self._readers.pop(segment, None)
        if fd is not None:
            os.close(fd)

    def close(self) -> None:
        self._writer.close()
        for segment in list(self._readers):
            self._forget_reader(segment)


def write_partition_metadata(directory: str | os.PathLike[str], topic_id: str) -> Path:
    """``partition.metadata``: the topic id of the partition's topic, as Kafka's
    PartitionMetadataFile writes it (version 0)."""
    path = Path(directory) / PARTITION_METADATA
    path.write_text(f"version: 0\ntopic_id: {topic_id}\n")
    return path
