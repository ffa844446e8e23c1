"""Reading ``*.log`` segment files and ``*.checkpoint`` snapshot files, and listing them.

Both hold record batches v2 back to back. A KRaft snapshot (``<end offset>-<epoch>.checkpoint``,
also ``bootstrap.checkpoint``) starts with a control batch whose first record is a SnapshotHeader
(from Kafka 3.9 on possibly followed by KRaftVersion and KRaftVoters records) and ends with a
control batch holding the SnapshotFooter; between them, metadata record batches.

The readers memory-map the file, walk it with ``scan.scan`` and yield ``(file_position,
RecordBatch)``. Their policy for damage: like Kafka's log recovery, they stop cleanly at a batch
running past the end (a crash mid-append) and report it as ``truncated_tail = (position,
bytes_left)``. A CRC mismatch raises CorruptBatchError naming the file and position, or with
``skip_corrupt=True`` is skipped (its length field still says where the next batch starts) and
counted in ``corrupt_batches``. Any other damage raises LogFormatError.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from .batch import MAX_RECORDS_PER_BATCH, RecordBatch, build_batch
from .compression import DEFAULT_MAX_DECOMPRESSED
from .control import ControlRecordType
from .errors import LogFormatError, TruncatedBatchError
from .names import parse_segment_name, parse_snapshot_name, snapshot_id
from .scanning import Damage, DamageKind, scan
from .source import Buffer, BufferSource, ByteSource, MappedFile

_Reader = TypeVar("_Reader", bound="SegmentReader")


class BatchReader:
    """The batches of a buffer holding record batches back to back.

    Iterate to get ``(position, RecordBatch)``; afterwards ``truncated_tail`` is
    ``(position, bytes_left)`` if the buffer ended inside a batch (else None),
    ``corrupt_batches`` counts the batches skipped for a CRC mismatch and
    ``corrupt_positions`` lists where they were.
    """

    def __init__(
        self,
        buf: Buffer | ByteSource,
        *,
        file: object = None,
        skip_corrupt: bool = False,
        verify_crc: bool = True,
        max_decompressed: int = DEFAULT_MAX_DECOMPRESSED,
        max_records: int = MAX_RECORDS_PER_BATCH,
    ) -> None:
        self._source = buf if isinstance(buf, ByteSource) else BufferSource(buf)
        self.file = file
        self.skip_corrupt = skip_corrupt
        self.verify_crc = verify_crc
        self.max_decompressed = max_decompressed
        self.max_records = max_records
        self.truncated_tail: tuple[int, int] | None = None
        self.corrupt_batches = 0
        self.corrupt_positions: list[int] = []

    def __iter__(self) -> Iterator[tuple[int, RecordBatch]]:
        self.truncated_tail = None
        self.corrupt_batches = 0
        self.corrupt_positions = []
        for item in scan(self._source, verify_crc=self.verify_crc, max_decompressed=self.max_decompressed):
            if isinstance(item, Damage):
                error = item.error
                if isinstance(error, TruncatedBatchError):  # Kafka's recovery stops here too
                    self.truncated_tail = (item.position, error.bytes_left)
                    return
                if item.kind == DamageKind.CORRUPT and self.skip_corrupt:
                    self.corrupt_batches += 1
                    self.corrupt_positions.append(item.position)
                    continue
                error.file = self.file
                raise error
            try:
                batch = build_batch(item.header, item.data, self.max_decompressed, self.max_records)
            except LogFormatError as exc:
                exc.file = self.file
                if exc.position is None:
                    exc.position = exc.offset = item.position
                raise
            yield item.position, batch


class SegmentReader(BatchReader):
    """The batches of a ``*.log`` segment file, read through a memory map.

    Use as a context manager (or call ``close()``) to release the map::

        with SegmentReader(path) as reader:
            for position, batch in reader:
                ...
            if reader.truncated_tail: ...
    """

    def __init__(self, path: str | os.PathLike[str], **options: Any) -> None:
        self.path = Path(path)
        super().__init__(MappedFile(self.path), file=self.path, **options)

    @property
    def size(self) -> int:
        return self._source.size

    def close(self) -> None:
        self._source.close()

    def __enter__(self: _Reader) -> _Reader:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


class SnapshotReader(SegmentReader):
    """The batches of a KRaft ``*.checkpoint`` snapshot file.

    With ``strict=True`` (the default) the file must open with a SnapshotHeader control batch
    and end with a SnapshotFooter one, else LogFormatError. Either way ``has_header`` and
    ``has_footer`` say what was found, once iterated. ``snapshot_id`` is ``(end_offset, epoch)``
    from the file name (``bootstrap.checkpoint`` is Kafka's ``(0, 0)``), or None.
    """

    def __init__(self, path: str | os.PathLike[str], *, strict: bool = True, **options: Any) -> None:
        super().__init__(path, **options)
        self.strict = strict
        self.snapshot_id = snapshot_id(self.path.name)
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
                position=self.truncated_tail[0] if self.truncated_tail else self.size,
            )


# --- directory listing -------------------------------------------------------------------


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


def list_segments(directory: str | os.PathLike[str]) -> list[SegmentFile]:
    """The ``*.log`` segments of a partition directory in offset order (see names.py for
    what is left out)."""
    found = []
    for entry in os.scandir(os.fspath(directory)):
        base_offset = parse_segment_name(entry.name)
        if base_offset is not None and entry.is_file():
            found.append(SegmentFile(base_offset, Path(entry.path)))
    return sorted(found)


def list_snapshots(directory: str | os.PathLike[str]) -> list[SnapshotFile]:
    """The complete ``*.checkpoint`` snapshots of a metadata log directory, oldest first."""
    found = []
    for entry in os.scandir(os.fspath(directory)):
        found_id = parse_snapshot_name(entry.name)
        if found_id and entry.is_file():
            found.append(SnapshotFile(found_id[0], found_id[1], Path(entry.path)))
    return sorted(found)
