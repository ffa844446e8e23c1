"""Records, the contents of a record batch v2, in their uncompressed form.

Each record::

    length varint | attributes int8 | timestampDelta varlong | offsetDelta varint |
    keyLength varint (-1 = null) | key | valueLength varint (-1 = null) | value |
    headerCount varint | headers, each: keyLength varint, key (UTF-8),
                                        valueLength varint (-1 = null), value

Values stay bytes: this module frames records, it does not interpret them.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from ..codec import compiled_module
from ..errors import EncodeError
from ..wire import read_varint, read_varlong, write_varint, write_varlong
from .control import ControlRecordType, parse_control_key
from .errors import LogFormatError, RecordCountError

# attributes, timestampDelta, offsetDelta, keyLength, valueLength, headerCount: a byte each at least
MIN_RECORD_BODY = 6
MIN_RECORD_SIZE = MIN_RECORD_BODY + 1  # plus the length varint


@dataclass(slots=True)
class Record:
    """One record of a batch. Offsets and timestamps are deltas from the batch's bases."""

    attributes: int = 0
    timestamp_delta: int = 0
    offset_delta: int = 0
    key: bytes | None = None
    value: bytes | None = None
    headers: list[tuple[str, bytes | None]] = field(default_factory=list)

    @property
    def control_type(self) -> ControlRecordType | int:
        """The control record type its key names (only meaningful inside a control batch)."""
        return ControlRecordType.of(parse_control_key(self.key)[1])


def _encode_record(record: Record) -> bytes:
    if not -128 <= record.attributes <= 127:
        raise EncodeError(f"record attributes {record.attributes} do not fit in int8")
    parts = [
        bytes((record.attributes & 0xFF,)),
        write_varlong(record.timestamp_delta),
        write_varint(record.offset_delta),
    ]
    key = record.key
    if key is None:
        parts.append(b"\x01")  # zigzag(-1)
    else:
        parts.append(write_varint(len(key)))
        parts.append(key)
    value = record.value
    if value is None:
        parts.append(b"\x01")
    else:
        parts.append(write_varint(len(value)))
        parts.append(value)
    headers = record.headers
    parts.append(write_varint(len(headers)))
    for name, header_value in headers:
        name_bytes = name.encode("utf-8", "surrogateescape")
        parts.append(write_varint(len(name_bytes)))
        parts.append(name_bytes)
        if header_value is None:
            parts.append(b"\x01")
        else:
            parts.append(write_varint(len(header_value)))
            parts.append(header_value)
    body = b"".join(parts)
    return write_varint(len(body)) + body


def encode_records(records: list[Record]) -> bytes:
    """The records section of a batch, uncompressed."""
    return b"".join([_encode_record(record) for record in records])


def _decode_headers(
    data: bytes, pos: int, end: int, count: int
) -> tuple[list[tuple[str, bytes | None]], int]:
    if count < 0:
        raise LogFormatError(f"negative header count {count}")
    if count > (end - pos) // 2:  # each header takes two length bytes at least
        raise LogFormatError(
            f"header count {count} exceeds the {end - pos} bytes left in the record"
        )
    headers = []
    for _ in range(count):
        size, pos = read_varint(data, pos)
        if size < 0 or size > end - pos:
            raise LogFormatError(f"header key length {size} is negative or runs past the record")
        # surrogateescape: a key that is not valid UTF-8 still round-trips byte for byte
        name = data[pos : pos + size].decode("utf-8", "surrogateescape")
        pos += size
        size, pos = read_varint(data, pos)
        if size < 0:
            if size != -1:
                raise LogFormatError(f"header value length {size}")
            value = None
        else:
            if size > end - pos:
                raise LogFormatError(f"header value length {size} runs past the record")
            value = data[pos : pos + size]
            pos += size
        headers.append((name, value))
    return headers, pos


# The compiled codec's record parser (None under pure Python): it reads records in chunks of
# at most COMPILED_CHUNK, so that a large batch is still held a chunk at a time, and declines
# (None) a chunk with anything amiss, which the Python reader then reads and reports.
_compiled = compiled_module("log._records")  # the C twin of this reader (log/_records.c)
if _compiled is not None:
    _compiled.setup_records(Record)
# parse_records(data, pos, n): n records read in C; None under pure Python
_parse_records: Any = None if _compiled is None else _compiled.parse_records
COMPILED_CHUNK = 256


def iter_records(data: bytes, pos: int, count: int) -> Iterator[Record]:
    """The ``count`` records of ``data[pos:]``, one at a time; they must fill it exactly (a
    LogFormatError says where they do not: at once for a count that cannot fit, else when the
    iteration reaches that point). ``data`` may be any buffer: others than bytes are copied
    once, so that keys and values are bytes whatever the buffer."""
    if count < 0:
        raise LogFormatError(f"negative records count {count}")
    if type(data) is not bytes:
        data = bytes(data)
    if count > (len(data) - pos) // MIN_RECORD_SIZE:
        raise RecordCountError(
            f"records count {count} cannot fit in the {len(data) - pos} bytes of records data"
        )
    if _parse_records is None:  # pure Python: the reader itself, no generator in between
        return _parse(data, pos, 0, count, None)
    return _compiled_records(data, pos, count)


def _compiled_records(data: bytes, pos: int, count: int) -> Iterator[Record]:
    """Chunks from the compiled parser while it reads them, then the Python reader from the
    first record of the chunk it declined."""
    index = 0
    while index < count:
        n = min(count - index, COMPILED_CHUNK)
        chunk = _parse_records(data, pos, n)
        if chunk is None:
            break
        records, pos = chunk
        yield from records
        index += n
    yield from _parse(data, pos, index, count, None)


def records_from(data: bytes, pos: int, index: int, count: int) -> Iterator[Record]:
    """Records ``index`` to ``count`` of a batch's records ``data``, the first at ``pos``: the
    rest of them, for a reader that took the first ``index`` itself (errors number the records
    from the batch's first, and the data must end after the last, as for ``iter_records``)."""
    if index == count and pos == len(data):
        return iter(())
    return _parse(data, pos, index, count, None)


# A malformed record's fields can be read up to this many bytes past its end before the
# reader sees that they overrun it: a record that fails nearer the end of a piece is read again
# with more bytes after it, so that it fails the same way whatever the piece boundaries.
_OVERRUN = 64


def iter_records_in_pieces(pieces: Iterable[bytes], count: int) -> Iterator[Record]:
    """The ``count`` records of the bytes ``pieces`` hold end to end (a decompressor's output),
    one at a time, with the same results and errors as ``iter_records`` over their join.

    A record cut by a piece boundary is carried over and completed from the next pieces, so
    what is held at once is a piece and the record being read, whatever the records' total.
    Pieces are taken as records need them; a single piece is read as ``iter_records`` reads.
    """
    if count < 0:
        raise LogFormatError(f"negative records count {count}")
    pieces = iter(pieces)
    first = next(pieces, b"")
    second = next(pieces, None)
    if second is None:
        return iter_records(first, 0, count)
    return _records_across(first, second, pieces, count)


def _records_across(buf: bytes, following: bytes | None, pieces: Iterator[bytes], count: int) -> Iterator[Record]:  # fmt: skip
    # where _parse stopped: record index, position in buf, bytes it needs from there, and the
    # record's length when it runs past buf (else None)
    stop: list[Any] = [0, 0, 0, None]
    index = pos = 0
    while following is not None:
        yield from _parse(buf, pos, index, count, stop)
        index, pos, need, length = stop
        if index == count and not need:  # every record read: whatever follows is left over
            left = len(buf) - pos + len(following) + sum(len(piece) for piece in pieces)
            if left:
                raise RecordCountError(_left_over(left, count))
            return
        # Carry the unfinished record over, with as many pieces as it needs, into one buffer
        # that grows in place (BytesIO hands its buffer over without a copy): a large record
        # is held once, not once in pieces and again joined.
        carry = io.BytesIO()
        carry.write(memoryview(buf)[pos:])
        buf = b""
        while following is not None and carry.tell() < need:
            carry.write(following)
            following = next(pieces, None)
        if carry.tell() < need and length is not None:  # (the error the whole reader gives)
            raise LogFormatError(
                f"record {index}: record length {length} is too small or runs past the data"
            )
        buf = carry.getvalue()
        pos = 0
    yield from _parse(buf, pos, index, count, None)


def _left_over(left: int, count: int) -> str:
    return (
        f"{left} bytes left over after the last of {count} records (more records, or bytes "
        "that are none)"
    )


# The second byte of a two-byte varint, shifted into place; a byte that says more follow is not
# there, so that a longer varint fails the lookup (an IndexError, which the loop reads as "not
# the common record").
_SECOND = tuple(b << 7 for b in range(0x80))


def _parse(data: bytes, pos: int, first: int, count: int, stop: list[Any] | None) -> Iterator[Record]:  # fmt: skip
    """Records ``first`` to ``count`` of ``data[pos:]``. With ``stop`` None the data must end
    exactly after the last (a RecordCountError if not); with ``stop`` a list, more data follows
    (``_stop_or_raise`` and ``_finish`` say how the walk ends)."""
    index, start = first, pos
    try:
        for index in range(first, count):
            start = pos
            # The common record is read inline: varints of one or two bytes (zigzag values
            # -8192..8191), key and value within the record, no headers. Any other (a longer
            # varint, a read past the end, a length that does not add up) is read again by
            # _read_record, which gives the record or the precise error.
            try:
                n = data[pos]
                if n > 0x7F:
                    n, pos = (n & 0x7F) | _SECOND[data[pos + 1]], pos + 1
                length = (n >> 1) ^ -(n & 1)
                record_end = pos + 1 + length
                attributes, n = (data[pos + 1] ^ 0x80) - 0x80, data[pos + 2]
                pos += 2
                if n > 0x7F:
                    n, pos = (n & 0x7F) | _SECOND[data[pos + 1]], pos + 1
                timestamp_delta, pos = (n >> 1) ^ -(n & 1), pos + 1
                n = data[pos]
                if n > 0x7F:
                    n, pos = (n & 0x7F) | _SECOND[data[pos + 1]], pos + 1
                offset_delta, pos = (n >> 1) ^ -(n & 1), pos + 1
                n = data[pos]
                if n > 0x7F:
                    n, pos = (n & 0x7F) | _SECOND[data[pos + 1]], pos + 1
                size, pos = (n >> 1) ^ -(n & 1), pos + 1
                key = None if size < 0 else data[pos : pos + size]
                if size > 0:
                    pos += size
                n, negative = data[pos], size < -1
                if n > 0x7F:
                    n, pos = (n & 0x7F) | _SECOND[data[pos + 1]], pos + 1
                size, pos = (n >> 1) ^ -(n & 1), pos + 1
                if size < 0:
                    value = None
                else:
                    value = data[pos : pos + size]
                    pos += size
                # no negative length but -1 (null), no headers, the fields end where length says
                if not (negative or size < -1 or data[pos] or pos + 1 != record_end):
                    pos += 1
                    yield Record(attributes, timestamp_delta, offset_delta, key, value, [])
                    continue
            except IndexError:
                pass
            record, pos = _read_record(data, start)
            yield record
    except (LogFormatError, ValueError, IndexError) as exc:
        _stop_or_raise(exc, data, start, index, count, stop)
        return
    _finish(data, pos, count, stop)


def _read_record(data: bytes, pos: int) -> tuple[Record, int]:
    """The record at ``pos``, read field by field, and the position after it: the reader of the
    records the loop does not read inline. Raises where the record is wrong: LogFormatError,
    ValueError (a varint's reason) or IndexError (a read past the end of ``data``)."""
    length, pos = _varint_at(data, pos)
    record_end = pos + length
    if length < MIN_RECORD_BODY or record_end > len(data):
        raise LogFormatError(f"record length {length} is too small or runs past the data")
    attributes = data[pos]
    if attributes > 127:
        attributes -= 256
    timestamp_delta, pos = _varint_at(data, pos + 1, read_varlong)
    offset_delta, pos = _varint_at(data, pos)
    size, pos = _varint_at(data, pos, two_inline=False)
    key, pos = _bytes_at(data, pos, record_end, size, "key")
    size, pos = _varint_at(data, pos)
    value, pos = _bytes_at(data, pos, record_end, size, "value")
    count, pos = _varint_at(data, pos, two_inline=False)
    headers, pos = _decode_headers(data, pos, record_end, count) if count else ([], pos)
    if pos != record_end:
        used = length + pos - record_end
        raise LogFormatError(f"record length says {length} bytes, its fields take {used}")
    return Record(attributes, timestamp_delta, offset_delta, key, value, headers), pos


def _varint_at(data: bytes, pos: int, read: Callable[[bytes, int], tuple[int, int]] = read_varint,
               two_inline: bool = True) -> tuple[int, int]:  # fmt: skip
    """A record's varint as the inline loop reads it: one byte (or two, with ``two_inline``)
    decoded here, longer ones by ``read``; a first byte past the end is an IndexError."""
    b = data[pos]
    if b < 0x80:
        return (b >> 1) ^ -(b & 1), pos + 1
    if two_inline and data[pos + 1] < 0x80:
        b = (b & 0x7F) | (data[pos + 1] << 7)
        return (b >> 1) ^ -(b & 1), pos + 2
    return read(data, pos)


def _bytes_at(data: bytes, pos: int, record_end: int, size: int, what: str) -> tuple[bytes | None, int]:  # fmt: skip
    """A key's or value's bytes of ``size`` (-1: null) at ``pos``, and the position after them."""
    if size < 0:
        if size != -1:
            raise LogFormatError(f"{what} length {size}")
        return None, pos
    if size > record_end - pos:
        raise LogFormatError(f"{what} length {size} runs past the record")
    return data[pos : pos + size], pos + size


def _stop_or_raise(exc: Exception, data: bytes, start: int, index: int, count: int, stop: list[Any] | None) -> None:  # fmt: skip
    """After record ``index``, at ``start``, failed with ``exc``: with ``stop`` (more data
    follows), when more data could tell, ends the walk there, setting ``stop`` to ``[index,
    start, bytes needed from there, the record's length if it runs past data, else None]``;
    otherwise raises the error naming the record."""
    # Where the record ends by its length (``start`` when that cannot be read): a record
    # failing within _OVERRUN of the end of data is read again with more bytes after it.
    try:
        length, record_end = _varint_at(data, start)
        record_end += length
    except (ValueError, IndexError):
        length, record_end = 0, start
    if stop is not None:
        if length >= MIN_RECORD_BODY and record_end > len(data):  # not wholly in data
            stop[:] = index, start, record_end - start, length
            return
        if len(data) - record_end < _OVERRUN:
            stop[:] = index, start, record_end - start + _OVERRUN, None
            return
    if isinstance(exc, LogFormatError):
        exc.reason = f"record {index}: {exc.reason}"
        raise exc
    if isinstance(exc, ValueError):  # a varint reader's reason
        raise LogFormatError(f"record {index}: {exc}") from None
    raise RecordCountError(  # a read past the end
        f"record {index}: record runs past the end of the data (fewer records than the "
        f"count {count})"
    ) from None


def _finish(data: bytes, pos: int, count: int, stop: list[Any] | None) -> None:
    """Once the last record is read, at ``pos``: ``stop`` says so, or the data must end there."""
    if stop is not None:
        stop[:] = count, pos, 0, None
    elif pos != len(data):
        raise RecordCountError(_left_over(len(data) - pos, count))


def decode_records(data: bytes, pos: int, count: int) -> list[Record]:
    """Read ``count`` records from ``data[pos:]``, which they must fill exactly."""
    return list(iter_records(data, pos, count))
