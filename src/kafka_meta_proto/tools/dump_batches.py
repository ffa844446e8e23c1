"""A file as dump-log reads it: the heading Kafka prints for its name, and its batches with their
records (small batches read whole, large ones a record at a time), damage noted in a summary."""

from __future__ import annotations

import itertools
import os
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Union

from ..log.errors import LogFormatError, TruncatedBatchError
from ..log.header import BatchHeader
from ..log.names import BOOTSTRAP_CHECKPOINT, leading_offset, parse_snapshot_name, suffix_kind
from ..log.records import Record
from ..log.scanning import BatchView, Damage, scan
from ..log.source import ByteSource

BOOTSTRAP_FILENAME = BOOTSTRAP_CHECKPOINT
# A file's path as the functions here take it.
StrPath = Union[str, "os.PathLike[str]"]


def java_file_text(path: StrPath) -> str:
    """How java.io.File prints a path: repeated separators collapsed, no trailing separator."""
    text = re.sub(r"/+", "/", str(path))
    return text[:-1] if len(text) > 1 and text.endswith("/") else text


def file_kind(name: str) -> str | None:
    """``log`` or ``checkpoint`` by the suffix after the last dot (as Kafka picks), else None."""
    return suffix_kind(name)


def heading(path: Path) -> str | None:
    """The line Kafka prints after ``Dumping``: the segment's start or the snapshot's id."""
    name = path.name
    kind = file_kind(name)
    if kind == "log":
        start = leading_offset(name)
        return f"Log starting offset: {start}" if start is not None else None
    if kind == "checkpoint":
        if name == BOOTSTRAP_FILENAME:
            return "KRaft bootstrap snapshot"
        snapshot_id = parse_snapshot_name(name)
        if snapshot_id is not None:
            return f"Snapshot end offset: {snapshot_id[0]}, epoch: {snapshot_id[1]}"
    return None


@dataclass
class FileSummary:
    """What dumping one file found."""

    path: str
    batches: int = 0
    records: int = 0
    invalid_batches: int = 0  # stored CRC does not match
    first_invalid_position: int | None = None
    undecoded_records: int = 0  # payloads printed as "Error at ..."
    trailing_bytes: int = 0
    errors: list[str] = field(default_factory=list)
    # The first NON_CONSECUTIVE_KEPT pairs; non_consecutive_count counts them all.
    non_consecutive: list[tuple[int, int]] = field(default_factory=list)
    non_consecutive_count: int = 0
    last_offset: int = -1  # of the last record dumped


# A batch counting at most this many records, whose keys and values come to at most EAGER_BYTES,
# is read whole before it is shown (a batch whose records do not parse shows none of them); a
# larger one is shown one record at a time as it is read (a compressed one decompressed a piece
# at a time), so memory does not grow with the batch (its records up to a parse error are shown).
EAGER_RECORDS = 4096
EAGER_BYTES = 16 << 20
# Non-consecutive offset pairs kept for the report on stderr (a hostile batch can hold millions).
NON_CONSECUTIVE_KEPT = 1000


def iter_file_batches(
    source: ByteSource, summary: FileSummary
) -> Iterator[tuple[int, BatchHeader, bool, Iterable[Record] | None]]:
    """``(position, header, CRC valid, records or None)`` for each batch, as Kafka's tool shows them.

    The records are a list for a batch of at most EAGER_RECORDS records (and EAGER_BYTES of keys
    and values), else an iterator reading them one at a time (a parse error ends it, its problem in ``summary.errors``): use them before
    asking for the next batch.

    dump-log's policy over the scan: a batch whose CRC does not match is shown with its records,
    as Kafka shows it; a batch whose records cannot be read comes with None, its problem in
    ``summary.errors``; at bytes that are no batch, or a batch running past the end, the dump of
    the file stops (``summary.trailing_bytes``), as Kafka's does. A batch cut by the source's
    limit (``--max-bytes``) in a file that holds more ends the dump without a problem.
    """
    for item in scan(source):
        view: BatchView
        if isinstance(item, Damage):
            if item.view is None:  # truncated, or unreadable
                truncated = isinstance(item.error, TruncatedBatchError)
                if not truncated:
                    summary.errors.append(f"position {item.position}: {item.error.reason}")
                if truncated and source.size < getattr(source, "file_size", source.size):
                    # The cut of --max-bytes fell inside this batch: the dump ends before it,
                    # as Kafka's does, and that is no damage (the file goes on).
                    return
                summary.trailing_bytes = source.size - item.position
                return
            view, valid = item.view, False
        else:
            view, valid = item, True
        records: Iterable[Record] | None
        if view.header.records_count > EAGER_RECORDS:
            records = _streamed_records(view.records, summary, view.position)
        else:
            records = _eager_records(view, summary)
        summary.batches += 1
        if not valid:
            summary.invalid_batches += 1
            if summary.first_invalid_position is None:
                summary.first_invalid_position = view.position
        yield view.position, view.header, valid, records


def _streamed_records(
    records: Callable[[], Iterable[Record]], summary: FileSummary, position: int
) -> Iterator[Record]:
    """``records()``'s records, a parse error ending them (noted in ``summary``)."""
    try:
        yield from records()
    except LogFormatError as exc:
        summary.errors.append(f"position {position}: {exc.reason}")


def _eager_records(view: BatchView, summary: FileSummary) -> Iterable[Record] | None:
    """A small batch's records as a list (None, its problem noted, if they do not parse); past
    EAGER_BYTES of keys and values, the ones read and then the rest streamed."""
    read: list[Record] = []
    size = 0
    try:
        records = view.records()
        for record in records:
            read.append(record)
            size += len(record.key or b"") + len(record.value or b"")
            if size > EAGER_BYTES:
                rest = _streamed_records(lambda: records, summary, view.position)
                return itertools.chain(read, rest)
    except LogFormatError as exc:
        summary.errors.append(f"position {view.position}: {exc.reason}")
        return None
    return read
