"""Reading ``*.log`` segment files and ``*.checkpoint`` snapshot files, and listing them.

Both hold record batches v2 back to back. A KRaft snapshot (``<end offset>-<epoch>.checkpoint``,
also ``bootstrap.checkpoint``) starts with a control batch whose first record is a SnapshotHeader
(from Kafka 3.9 on possibly followed by KRaftVersion and KRaftVoters records) and ends with a
control batch holding the SnapshotFooter; between them, metadata record batches.

The readers memory-map the file and yield ``(file_position, RecordBatch)``. Like Kafka's log
recovery, they stop cleanly at a tail too short to hold the next batch (a crash mid-append) and
report it as ``truncated_tail = (position, bytes_left)``. A CRC mismatch raises CorruptBatchError
naming the file and position, or with ``skip_corrupt=True`` is skipped (its length field still
says where the next batch starts) and counted in ``corrupt_batches``.
"""

from __future__ import annotations

import mmap
import os
import re
import struct
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from .batch import LOG_OVERHEAD, ControlRecordType, RecordBatch, decode_batch
from .compression import DEFAULT_MAX_DECOMPRESSED
from .errors import CorruptBatchError, LogFormatError, TruncatedBatchError

_INT32 = struct.Struct(">i")


class BatchReader:
    """The batches of a buffer holding record batches back to back.

    Iterate to get ``(position, RecordBatch)``; afterwards ``truncated_tail`` is
    ``(position, bytes_left)`` if the buffer ended inside a batch (else None),
    ``corrupt_batches`` counts the batches skipped for a CRC mismatch and
    ``corrupt_positions`` lists where they were.
    """

    def __init__(
        self,
        buf,
        *,
        file: object = None,
        skip_corrupt: bool = False,
        verify_crc: bool = True,
        max_decompressed: int = DEFAULT_MAX_DECOMPRESSED,
    ):
        self._buf = buf
        self.file = file
        self.skip_corrupt = skip_corrupt
        self.verify_crc = verify_crc
        self.max_decompressed = max_decompressed
        self.truncated_tail: tuple[int, int] | None = None
        self.corrupt_batches = 0
        self.corrupt_positions: list[int] = []

    def __iter__(self) -> Iterator[tuple[int, RecordBatch]]:
        buf = self._buf
        end = len(buf)
        pos = 0
        self.truncated_tail = None
        self.corrupt_batches = 0
        self.corrupt_positions = []
        while pos < end:
            try:
                batch, next_pos = decode_batch(
                    buf, pos, verify_crc=self.verify_crc, max_decompressed=self.max_decompressed
                )
            except TruncatedBatchError as exc:
                self.truncated_tail = (pos, exc.bytes_left)
                return
            except CorruptBatchError as exc:
                if not self.skip_corrupt:
                    exc.file = self.file
                    raise
                self.corrupt_batches += 1
                self.corrupt_positions.append(pos)
                # The length field was sound (the batch fit in the buffer), so trust it to move on.
                pos += LOG_OVERHEAD + _INT32.unpack_from(buf, pos + 8)[0]
                continue
            except LogFormatError as exc:
                exc.file = self.file
                raise
            yield pos, batch
            pos = next_pos


class SegmentReader(BatchReader):
    """The batches of a ``*.log`` segment file, read through a memory map.

    Use as a context manager (or call ``close()``) to release the map::

        with SegmentReader(path) as reader:
            for position, batch in reader:
                ...
            if reader.truncated_tail: ...
    """

    def __init__(self, path: str | os.PathLike, **options):
        self.path = Path(path)
        with open(self.path, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            # mmap cannot map an empty file; an empty segment simply has no batches.
            self._map = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) if size else None
        super().__init__(self._map if self._map is not None else b"", file=self.path, **options)

    def close(self) -> None:
        self._buf = b""
        if self._map is not None:
            self._map.close()
            self._map = None

    def __enter__(self):
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()


class SnapshotReader(SegmentReader):
    """The batches of a KRaft ``*.checkpoint`` snapshot file.

    With ``strict=True`` (the default) the file must open with a SnapshotHeader control batch
    and end with a SnapshotFooter one, else LogFormatError. Either way ``has_header`` and
    ``has_footer`` say what was found, once iterated. ``snapshot_id`` is ``(end_offset, epoch)``
    from the file name (``bootstrap.checkpoint`` is Kafka's ``(0, 0)``), or None.
    """

    def __init__(self, path: str | os.PathLike, *, strict: bool = True, **options):
        super().__init__(path, **options)
        self.strict = strict
        self.snapshot_id = parse_snapshot_name(self.path.name)
        if self.snapshot_id is None and self.path.name == "bootstrap.checkpoint":
            self.snapshot_id = (0, 0)
        self.has_header = False
        self.has_footer = False

    def __iter__(self) -> Iterator[tuple[int, RecordBatch]]:
        self.has_header = self.has_footer = False
        first = True
        for position, batch in super().__iter__():
            if first:
                first = False
                self.has_header = batch.control_type == ControlRecordType.SNAPSHOT_HEADER
                if self.strict and not self.has_header:
                    raise LogFormatError(
                        "a snapshot must start with a SnapshotHeader control batch",
                        file=self.path,
                        position=position,
                    )
            # Only the last batch may hold the footer; a footer followed by more batches is not one.
            self.has_footer = (
                batch.is_control
                and bool(batch.records)
                and (batch.records[-1].control_type == ControlRecordType.SNAPSHOT_FOOTER)
            )
            yield position, batch
        if not self.strict:
            return
        if not self.has_header:  # an empty file: no batch at all
            raise LogFormatError(
                "a snapshot must start with a SnapshotHeader control batch",
                file=self.path,
                position=0,
            )
        if not self.has_footer:
            raise LogFormatError(
                "a snapshot must end with a SnapshotFooter control batch",
                file=self.path,
                position=self.truncated_tail[0] if self.truncated_tail else len(self._buf),
            )


# --- directory listing -------------------------------------------------------------------

_SEGMENT_NAME = re.compile(r"^(\d{20})\.log$")
_SNAPSHOT_NAME = re.compile(r"^(\d{20})-(\d{10})\.checkpoint$")


@dataclass(frozen=True, order=True)
class SegmentFile:
    """A segment file: its base offset is the first offset it holds (and its name)."""

    base_offset: int
    path: Path


@dataclass(frozen=True, order=True)
class SnapshotFile:
    """A snapshot file: the state up to ``end_offset`` (exclusive), taken in ``epoch``."""

    end_offset: int
    epoch: int
    path: Path


def parse_snapshot_name(name: str) -> tuple[int, int] | None:
    """``(end_offset, epoch)`` from ``<20-digit offset>-<10-digit epoch>.checkpoint``, else None."""
    match = _SNAPSHOT_NAME.match(name)
    return (int(match[1]), int(match[2])) if match else None


def list_segments(directory: str | os.PathLike) -> list[SegmentFile]:
    """The ``*.log`` segments of a partition directory in offset order.

    Files Kafka is about to delete or swap in (``.log.deleted``, ``.log.cleaned``,
    ``.log.swap``) and the index files are left out.
    """
    found = []
    for entry in os.scandir(directory):
        match = _SEGMENT_NAME.match(entry.name)
        if match and entry.is_file():
            found.append(SegmentFile(int(match[1]), Path(entry.path)))
    return sorted(found)


def list_snapshots(directory: str | os.PathLike) -> list[SnapshotFile]:
    """The complete ``*.checkpoint`` snapshots of a metadata log directory, oldest first.

    Partial (``.checkpoint.part``) and deleted (``.checkpoint.deleted``) ones are left out.
    """
    found = []
    for entry in os.scandir(directory):
        snapshot_id = parse_snapshot_name(entry.name)
        if snapshot_id and entry.is_file():
            found.append(SnapshotFile(snapshot_id[0], snapshot_id[1], Path(entry.path)))
    return sorted(found)
