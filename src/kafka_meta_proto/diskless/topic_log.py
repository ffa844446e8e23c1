"""The coordinator's partition of ``__diskless-metadata`` as a local log in Kafka's on-disk format:
``DIR/__diskless-metadata-<p>/`` with ``*.log`` segments (record batches v2) and a
``leader-epoch-checkpoint``, readable with ``kafka-meta-proto dump-log --diskless``; ``LocalTopic`` offers it to the
coordinator as a ``topic_backend.MetadataTopic``.

``LogAppender`` writes one batch per state change and fsyncs it before returning: only then may
the change be applied and answered. ``LogTail`` reads the complete batches after a position; the
leader uses it to catch up at start, a read-only coordinator to follow the leader's log.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

from ..kraft import decode_record_value, encode_record_value
from ..log.batch import RecordBatch
from ..log.errors import LogFormatError
from ..log.plain_batch import encode_plain_batch
from ..log.segment import BatchReader, list_segments
from ..log.segment_writer import SegmentWriter, write_leader_epoch_checkpoint
from ..diskless_messages import REGISTRY as DISKLESS_REGISTRY
from ..message import Message
from .store import LogPosition

TOPIC = "__diskless-metadata"
LEADER_EPOCH = 0  # one leader for the life of a local log
SEGMENT_BYTES = 1 << 30  # Kafka's log.segment.bytes default
SEGMENT_MS = 7 * 24 * 3600 * 1000  # Kafka's log.roll.ms default
BATCH_OVERHEAD = 12  # base offset and length, before the length counts


def partition_dir(data: Path, partition: int) -> Path:
    return Path(data) / f"{TOPIC}-{partition}"


def _fsync_dir(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


class _SyncedSegmentWriter(SegmentWriter):
    """A segment writer that can fsync what it wrote, and the directory entry of a new segment."""

    def _roll(self, timestamp: int) -> None:
        super()._roll(timestamp)
        _fsync_dir(self.directory)

    def sync(self) -> None:
        if self._file is not None:
            self._file.flush()
            os.fsync(self._file.fileno())


class LogTail:
    """Reads the complete batches of a partition directory after a position, and moves on."""

    def __init__(self, directory: Path, position: LogPosition):
        self.directory = Path(directory)
        self.position = position

    def batches(self) -> Iterator[tuple[RecordBatch, LogPosition]]:
        """Each complete batch after the position, with the position after it (which it also
        becomes). A batch cut short at the end of the last segment is a write in progress (or
        one a crash cut): reading stops before it."""
        segments = [s for s in list_segments(self.directory) if s.base_offset >= self.position.segment_base]
        for index, segment in enumerate(segments):
            here = self.position
            start = here.byte_position if segment.base_offset == here.segment_base else 0
            with open(segment.path, "rb") as file:
                file.seek(start)
                data = file.read()
            reader = BatchReader(data, file=segment.path)
            for offset_in, batch in reader:
                if batch.base_offset != self.position.next_offset:
                    raise LogFormatError(
                        f"{segment.path}: batch at offset {batch.base_offset} where "
                        f"{self.position.next_offset} was expected"
                    )
                end = start + offset_in + BATCH_OVERHEAD + batch.batch_length
                self.position = LogPosition(
                    batch.base_offset + batch.last_offset_delta + 1, segment.base_offset, end
                )
                yield batch, self.position
            last = index == len(segments) - 1
            if reader.truncated_tail is not None and not last:
                raise LogFormatError(f"{segment.path}: a cut batch before the end of the log")
            if not last:  # the next segment starts where this one's offsets end
                self.position = LogPosition(self.position.next_offset, segments[index + 1].base_offset, 0)

    def records(self, registry: object) -> Iterator[tuple[list[Message], LogPosition]]:
        """Like ``batches``, each batch as its decoded records."""
        for batch, position in self.batches():
            values = [r.value for r in batch.records if r.value is not None]
            yield [decode_record_value(v, registry).message for v in values], position  # type: ignore[arg-type]


class LogAppender:
    """Appends state changes to the partition's log, one fsynced batch per change."""

    def __init__(self, directory: Path, end: LogPosition):
        """``end`` is where the log's complete batches end (``LogTail`` gives it): anything after
        it, a batch a crash cut short, is cut off; the next batch starts a new segment."""
        self.directory = Path(directory)
        segments = list_segments(self.directory)
        if segments and segments[-1].base_offset == end.segment_base:
            with open(segments[-1].path, "r+b") as file:
                file.truncate(end.byte_position)
                os.fsync(file.fileno())
        self.writer = _SyncedSegmentWriter(self.directory, SEGMENT_BYTES, SEGMENT_MS)
        self.writer.next_offset = end.next_offset
        self.writer.segments = [s.path.name for s in segments]

    @classmethod
    def create_directory(cls, directory: Path) -> None:
        """Make the partition directory, with its leader-epoch checkpoint, if it is missing."""
        directory.mkdir(parents=True, exist_ok=True)
        if not (directory / "leader-epoch-checkpoint").exists():
            write_leader_epoch_checkpoint(directory, [(LEADER_EPOCH, 0)])
            _fsync_dir(directory)

    @property
    def next_offset(self) -> int:
        return self.writer.next_offset

    def append(self, records: list[Message], timestamp: int) -> LogPosition:
        """Write ``records`` as one batch, fsync it, and return the position after it."""
        position = self.append_unsynced(records, timestamp)
        self.sync()
        return position

    def append_unsynced(self, records: list[Message], timestamp: int) -> LogPosition:
        """Write ``records`` as one batch; it is durable only after ``sync``."""
        values = [encode_record_value(record, 0) for record in records]
        data = encode_plain_batch(values, self.writer.next_offset, timestamp, LEADER_EPOCH)
        name, position = self.writer.append(data, len(values), LEADER_EPOCH, timestamp)
        base = int(name.split(".")[0])
        return LogPosition(self.writer.next_offset, base, position + len(data))

    def sync(self) -> None:
        self.writer.sync()

    def close(self) -> None:
        self.writer.close()


class LocalTopic:
    """The partition as a local log in ``directory`` (a ``topic_backend.MetadataTopic``)."""

    def __init__(self, directory: Path):
        self.directory = Path(directory)

    def create(self) -> None:
        LogAppender.create_directory(self.directory)

    def holds(self, position: LogPosition) -> bool:
        segment = self.directory / f"{position.segment_base:020d}.log"
        return not position.next_offset or (
            segment.exists() and segment.stat().st_size >= position.byte_position
        )

    def records_after(self, position: LogPosition) -> Iterator[tuple[list[Message], LogPosition]]:
        if self.directory.exists():
            yield from LogTail(self.directory, position).records(DISKLESS_REGISTRY)

    def appender(self, end: LogPosition) -> LogAppender:
        return LogAppender(self.directory, end)

    def close(self) -> None:
        pass
