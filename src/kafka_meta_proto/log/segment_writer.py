"""Writing a partition's log: ``*.log`` segments rolled as Kafka rolls them, and the
``leader-epoch-checkpoint`` beside them."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

from .names import segment_name

if TYPE_CHECKING:
    from .source import Buffer

LEADER_EPOCH_CHECKPOINT = "leader-epoch-checkpoint"
LEADER_EPOCH_CHECKPOINT_VERSION = 0


class SegmentWriter:
    """Appends encoded batches to ``*.log`` segments, rolling like Kafka's UnifiedLog.

    A new segment starts when the batch would take the current one past ``segment_bytes``, or when
    the batch is ``segment_ms`` newer than the segment's first batch; it is named after the base
    offset of its first batch.
    """

    def __init__(self, directory: Path, segment_bytes: int, segment_ms: int):
        self.directory = directory
        self.segment_bytes = segment_bytes
        self.segment_ms = segment_ms
        self.next_offset = 0
        self.segments: list[str] = []
        self.batches = 0
        self.bytes = 0
        self.epochs: list[tuple[int, int]] = []  # (leader epoch, start offset)
        self.last_batch: tuple[str, int, int, int, int] | None = (
            None  # name, position, size, base, count
        )
        self._file: BinaryIO | None = None
        self._size = 0
        self._first_timestamp = 0

    def append(self, data: Buffer, count: int, epoch: int, timestamp: int,
               rest: Buffer = b"") -> tuple[str, int]:  # fmt: skip
        """Write one encoded batch (its base offset must be ``next_offset``), ``data`` followed by
        ``rest`` for a batch in two pieces (a header stamped apart from the records it came
        with, which are written without being joined to it); return (file, position)."""
        size = len(data) + len(rest)
        if (
            self._file is None
            or (self._size and self._size + size > self.segment_bytes)
            or timestamp - self._first_timestamp > self.segment_ms
        ):
            self._roll(timestamp)
        position = self._size
        assert self._file is not None  # _roll opened it
        self._file.write(data)
        if rest:
            self._file.write(rest)
        self._size += size
        self.bytes += size
        self.batches += 1
        if not self.epochs or self.epochs[-1][0] != epoch:
            self.epochs.append((epoch, self.next_offset))
        name = self.segments[-1]
        self.last_batch = (name, position, size, self.next_offset, count)
        self.next_offset += count
        return name, position

    def _roll(self, timestamp: int) -> None:
        self.close()
        name = segment_name(self.next_offset)
        self.segments.append(name)
        self._file = open(self.directory / name, "wb", buffering=1 << 20)
        self._size = 0
        self._first_timestamp = timestamp

    def flush(self) -> None:
        """Hand what was appended to the file system, so readers of the segment see it."""
        if self._file is not None:
            self._file.flush()

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


def write_leader_epoch_checkpoint(directory: Path, epochs: list[tuple[int, int]]) -> Path:
    """``leader-epoch-checkpoint``: its version, the number of entries, then one ``<epoch>
    <start offset>`` line per leader epoch, as Kafka's LeaderEpochCheckpointFile writes it."""
    path = Path(directory) / LEADER_EPOCH_CHECKPOINT
    path.write_text(f"{LEADER_EPOCH_CHECKPOINT_VERSION}\n{len(epochs)}\n"
                    + "".join(f"{epoch} {offset}\n" for epoch, offset in epochs))  # fmt: skip
    return path
