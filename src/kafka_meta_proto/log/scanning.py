"""The one walk over record batches: sound batches and named damage, recovering past the damage.

``scan(source)`` yields, in file order, a ``BatchView`` for each batch whose framing and CRC are
sound and a ``Damage`` for each stretch that is not one:

- ``CORRUPT``: a batch whose stored CRC does not match; its length field is trusted to go on
  (the batch fit in the file), and its bytes stay at hand (``Damage.view``);
- ``TRUNCATED``: the file ends inside a batch (a crash mid-append), with no sound batch after it;
- ``UNREADABLE``: bytes that are no batch (a bad magic or length, or a length running past the
  end with sound batches after it); the walk goes on at the next position holding a sound batch.

Records are not read here: ``BatchView.records()`` yields them one at a time, ``decode()`` makes a
RecordBatch. A sound batch whose records do not parse is ``MALFORMED`` damage, which
``scan_batches`` (the walk with every batch decoded) reports, and ``malformed()`` makes for a
reader of views. What a consumer does with damage (stop, skip, report) is its own policy.

Byte ranges: ``scan(source, start, end)`` walks the batches that start in ``[start, end)``. When
``start`` is not 0 it begins at the first position >= ``start`` holding a sound batch, and it
walks on until it reaches, at or after ``end``, another such position: the ranges of a file cut
at any points cover it with no gap and no overlap.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any
from dataclasses import dataclass, field
from operator import itemgetter

from .._strenum import StrEnum
from .batch import RecordBatch, build_batch, iter_batch_records, read_frame, read_records
from .compression import DEFAULT_MAX_DECOMPRESSED
from .errors import CorruptBatchError, LogFormatError, TruncatedBatchError
from .crc import crc32c
from .header import (
    CRC_START,
    HEADER,
    HEADER_SIZE,
    LOG_OVERHEAD,
    MAGIC,
    MAGIC_OFFSET,
    MIN_BATCH_LENGTH,
    BatchHeader,
    computed_crc,
    plausible_length,
    read_length,
    read_partial_header,
    stored_crc,
)
from .records import Record
from .source import Buffer, ByteSource, find_byte

_unpack_header = HEADER.unpack_from
MAX_PLAUSIBLE_COUNT = 1 << 24  # a damaged header's count beyond this is not believed


class DamageKind(StrEnum):
    """What is wrong with a stretch of a log file (the names the audit's tables use)."""

    CORRUPT = "corrupt batch"
    MALFORMED = "malformed batch"
    TRUNCATED = "truncated tail"
    UNREADABLE = "unreadable bytes"


class BatchView(tuple[Any, ...]):
    """A batch whose framing (and CRC, unless not checked) is sound: its header and bytes.
    (A tuple: one is made per batch, and a tuple is the cheapest object to make.)"""

    __slots__ = ()

    position = property(itemgetter(0))
    header = property(itemgetter(1))
    data = property(itemgetter(2))
    max_decompressed = property(itemgetter(3))

    def __new__(cls, position: int, header: BatchHeader, data: bytes, max_decompressed: int) -> BatchView:
        return _new_tuple(cls, (position, header, data, max_decompressed))

    def records(self) -> Iterator[Record]:
        """Its records one at a time; a LogFormatError when they stop parsing (``malformed``
        makes it the batch's damage)."""
        return iter_batch_records(self[1], self[2], self[3])

    def record_list(self) -> list[Record]:
        """All of its records (a LogFormatError, with the batch's position, if they do not parse)."""
        try:
            return read_records(self[1], self[2], self[3])[0]
        except LogFormatError as exc:
            _place(exc, self[0])
            raise

    def decode(self) -> RecordBatch:
        """The batch with all of its records (a LogFormatError if they do not parse)."""
        try:
            return build_batch(self[1], self[2], self[3])
        except LogFormatError as exc:
            _place(exc, self[0])
            raise


_new_tuple = tuple.__new__


def _place(exc: LogFormatError, position: int) -> None:
    if exc.position is None:
        exc.position = exc.offset = position


@dataclass(slots=True)
class Damage:
    """A stretch of a file that is no sound batch: ``length`` bytes from ``position``.

    ``fields`` holds what could be read of the batch header there (BatchHeader's field names);
    ``view`` the batch itself when its framing was sound (CORRUPT, MALFORMED).
    """

    kind: DamageKind
    position: int
    length: int
    detail: str
    error: LogFormatError
    fields: dict[str, int] = field(default_factory=dict)
    view: BatchView | None = None

    @property
    def records_held(self) -> int | None:
        """The records the damaged batch held, by its header: its count, else lastOffsetDelta
        + 1; None for bytes that are no batch, or a header not to be believed."""
        if self.kind == DamageKind.UNREADABLE:
            return None
        count = self.fields.get("records_count")
        if count is not None and 0 <= count <= MAX_PLAUSIBLE_COUNT:
            return count
        delta = self.fields.get("last_offset_delta")
        if delta is not None and 0 <= delta < MAX_PLAUSIBLE_COUNT:
            return delta + 1
        return None


def malformed(view: BatchView, error: LogFormatError) -> Damage:
    """The damage a sound batch is whose records do not parse."""
    _place(error, view.position)
    return Damage(DamageKind.MALFORMED, view.position, len(view.data), error.reason, error,
                  view.header._asdict(), view)  # fmt: skip


# --- finding sound batches ------------------------------------------------------------------


def is_batch_start(source: ByteSource, pos: int) -> bool:
    """A sound batch starts at ``pos``: a header as Kafka writes them, and a CRC that matches."""
    available = source.size - pos
    buf, base = source.view(pos, HEADER_SIZE)
    length = plausible_length(buf, pos - base, available)
    if length < 0:
        return False
    buf, base = source.view(pos, LOG_OVERHEAD + length)
    rel = pos - base
    return computed_crc(buf, rel, LOG_OVERHEAD + length) == stored_crc(buf, rel)


def find_batch(source: ByteSource, pos: int) -> int:
    """The first position >= ``pos`` where a sound batch starts (the source's size if none)."""
    size = source.size
    while pos + HEADER_SIZE <= size:
        buf, base = source.view(pos, HEADER_SIZE)
        stop = min(size, base + len(buf)) - base
        i = find_byte(buf, MAGIC, pos + MAGIC_OFFSET - base, stop)
        if i < 0:
            if base + stop >= size:
                return size
            pos = base + stop - MAGIC_OFFSET
            continue
        candidate = base + i - MAGIC_OFFSET
        if candidate + HEADER_SIZE > size:
            return size
        if is_batch_start(source, candidate):
            return candidate
        pos = candidate + 1
    return size


# --- the walk ---------------------------------------------------------------------------------


def _window(source: ByteSource, pos: int, size: int) -> tuple[Buffer, int]:
    """``(buffer, base)`` covering the batch at ``pos`` as far as its length field says."""
    length = -1
    if size - pos >= LOG_OVERHEAD:
        buf, base = source.view(pos, LOG_OVERHEAD)
        length = read_length(buf, pos - base)
    return source.view(pos, LOG_OVERHEAD + length if length >= MIN_BATCH_LENGTH else HEADER_SIZE)


def range_start(source: ByteSource, start: int) -> int:
    """Where the walk of the range from ``start`` begins: 0, or the first position >= ``start``
    holding a sound batch."""
    return start if start == 0 else find_batch(source, start)


def scan(
    source: ByteSource,
    start: int = 0,
    end: int | None = None,
    *,
    verify_crc: bool = True,
    max_decompressed: int = DEFAULT_MAX_DECOMPRESSED,
) -> Iterator[BatchView | Damage]:
    """The batches and damage of ``source`` (see the module docstring). With ``verify_crc``
    false no CRC is checked: every batch with sound framing is a BatchView."""
    end = source.size if end is None else end
    pos = range_start(source, start)
    while True:
        step = scan_step(source, pos, end, verify_crc, max_decompressed)
        if step is None:
            return
        item, pos = step
        yield item


def scan_step(
    source: ByteSource, pos: int, end: int, verify_crc: bool = True,
    max_decompressed: int = DEFAULT_MAX_DECOMPRESSED,
) -> tuple[BatchView | Damage, int] | None:  # fmt: skip
    """One step of ``scan``: the batch or damage at ``pos`` and the position after it; None where
    the walk of the range ending at ``end`` is over (the end of the source, the next range's first
    batch, or after a truncated tail). For a reader that walks some batches its own way (the
    pipeline's compiled walk) and hands the rest to this one, position by position."""
    size = source.size
    if pos >= size or (pos >= end and is_batch_start(source, pos)):
        return None
    whole = source.whole
    if whole is not None:
        buf, rel, available = whole, pos, size - pos
    else:
        buf, base = _window(source, pos, size)
        rel = pos - base
        available = min(len(buf) - rel, size - pos)
    if available >= HEADER_SIZE:  # the common case, checked inline: read_frame says why not
        header = _new_tuple(BatchHeader, _unpack_header(buf, rel))
        batch_size = LOG_OVERHEAD + header[1]
        if header[3] == MAGIC and MIN_BATCH_LENGTH <= header[1] and batch_size <= available:
            return _sound_frame(buf, rel, pos, header, batch_size, verify_crc, max_decompressed)
    damage = _frame_damage(source, buf, rel, pos, available)
    if damage.kind == DamageKind.TRUNCATED:
        return damage, size
    return damage, pos + damage.length


def _sound_frame(buf: Buffer, rel: int, pos: int, header: BatchHeader, batch_size: int, verify_crc: bool,
                 max_decompressed: int) -> tuple[BatchView | Damage, int]:  # fmt: skip
    """The batch whose framing is sound at ``pos``: its view, or CORRUPT damage."""
    data = buf[rel : rel + batch_size]  # one copy; records' keys and values slice it
    if type(data) is not bytes:
        data = bytes(data)
    view = _new_tuple(BatchView, (pos, header, data, max_decompressed))
    if verify_crc:
        computed = (
            crc32c(data[CRC_START:])
            if batch_size <= 4096
            else computed_crc(data, 0, batch_size)
        )
        if computed != header[4]:
            return _corrupt(view, computed), pos + batch_size
    return view, pos + batch_size


def _frame_damage(source: ByteSource, buf: Buffer, rel: int, pos: int, available: int) -> Damage:
    """What is at ``pos`` when no sound frame is: a truncated tail, or unreadable bytes up to the
    next sound batch."""
    try:
        read_frame(buf, rel, available)
    except TruncatedBatchError as exc:
        return _cut_short(source, buf, rel, pos, available, exc)
    except LogFormatError as exc:
        _place(exc, pos)
        after = find_batch(source, pos + 1)
        return Damage(DamageKind.UNREADABLE, pos, after - pos, exc.reason, exc)
    raise AssertionError(f"read_frame accepted the frame at {pos} the walk refused")


def _cut_short(source: ByteSource, buf: Buffer, rel: int, pos: int, available: int, exc: TruncatedBatchError) -> Damage:
    """A batch running past the end: a truncated tail, or unreadable bytes when a sound batch
    follows somewhere after its start."""
    _place(exc, pos)
    left = source.size - pos
    after = find_batch(source, pos + 1)
    if after >= source.size:
        fields = read_partial_header(buf, rel, min(available, HEADER_SIZE))
        return Damage(DamageKind.TRUNCATED, pos, left, f"the file ends {left} bytes into a batch",
                      exc, fields)  # fmt: skip
    length = read_length(buf, rel) if available >= LOG_OVERHEAD else -1
    return Damage(DamageKind.UNREADABLE, pos, after - pos,
                  f"batch length {length} runs past the end of the file", exc)  # fmt: skip


def _corrupt(view: BatchView, computed: int) -> Damage:
    stored = view.header.crc
    error = CorruptBatchError(
        f"CRC mismatch: stored {stored:#010x}, computed {computed:#010x}",
        stored_crc=stored,
        computed_crc=computed,
        position=view.position,
    )
    return Damage(DamageKind.CORRUPT, view.position, len(view.data), error.reason, error,
                  view.header._asdict(), view)  # fmt: skip


def scan_batches(source: ByteSource, start: int = 0, end: int | None = None, **options: Any) -> Iterator[tuple[int, RecordBatch | Damage]]:  # fmt: skip
    """``scan`` with each sound batch decoded: ``(position, RecordBatch)``, or
    ``(position, Damage)`` for damage, MALFORMED for a sound batch whose records do not parse."""
    for item in scan(source, start, end, **options):
        if isinstance(item, Damage):
            yield item.position, item
            continue
        try:
            yield item.position, item.decode()
        except LogFormatError as exc:
            yield item.position, malformed(item, exc)
