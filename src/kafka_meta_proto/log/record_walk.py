"""Records checked where they lie, without building them: a broker's check of a produced batch.

``first_bad_record(data, pos, count)`` walks the records of ``data[pos:]`` (any buffer; a
compressed batch's records once decompressed) reading only lengths and varints, as Kafka's
``DefaultRecord.readPartiallyFrom`` skips keys, values and headers. It answers -1 when there are
exactly ``count`` records there, each framed as ``records.iter_records`` reads it and record
``i`` with offset delta ``i``; otherwise the index of the first record that is not so (``count``
when bytes follow the last). It says where, not why: a caller that needs the reason reads the
records with ``iter_records``, which names it.

The compiled walk (``log/_records.c``, beside the compiled record reader) is used where it is
built; ``python_first_bad_record`` is its twin, used under the pure Python codec, with the same
answers on any input.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..codec import compiled_module
from ..wire import read_varint, read_varlong
from .records import MIN_RECORD_BODY

if TYPE_CHECKING:
    from collections.abc import Callable


def python_first_bad_record(data: bytes, pos: int, count: int) -> int:
    """``first_bad_record`` in Python (see the module docstring). ``data`` may be any buffer, as
    for the readers of ``wire.py`` it calls; it is typed as they type theirs."""
    if not 0 <= pos <= len(data):
        raise ValueError(f"position {pos} is outside the {len(data)} bytes")
    if count < 0:
        return 0
    second = _SECOND
    for index in range(count):
        start = pos
        # The common record inline, as records._parse reads it: varints of one or two bytes,
        # key and value within the record, no headers. Any other record (a longer varint, a
        # read past the end, sizes that do not add up) is walked again by _record_end.
        try:
            n = data[pos]
            if n > 0x7F:
                n, pos = (n & 0x7F) | second[data[pos + 1]], pos + 1
            end = pos + 1 + ((n >> 1) ^ -(n & 1))
            pos += 2  # the length's last byte and the attributes
            if data[pos] > 0x7F:  # the timestamp delta, not needed
                second[data[pos + 1]]
                pos += 1
            n = data[pos + 1]
            if n > 0x7F:
                n, pos = (n & 0x7F) | second[data[pos + 2]], pos + 1
            if (n >> 1) ^ -(n & 1) != index:
                return index
            n = data[pos + 2]  # the key's size: -1 is null
            if n > 0x7F:
                n, pos = (n & 0x7F) | second[data[pos + 3]], pos + 1
            key = (n >> 1) ^ -(n & 1)
            pos += 3 + key if key > 0 else 3
            n = data[pos]  # the value's
            if n > 0x7F:
                n, pos = (n & 0x7F) | second[data[pos + 1]], pos + 1
            value = (n >> 1) ^ -(n & 1)
            pos += 1 + value if value > 0 else 1
            # no size below -1 (null), no headers, and the fields end where the length says
            if key >= -1 and value >= -1 and data[pos] == 0 and pos + 1 == end:
                pos = end
                continue
        except IndexError:
            pass
        try:
            pos = _record_end(data, start, index)
        except (ValueError, IndexError):  # a varint too long, or a read past the data
            return index
        if pos < 0:
            return index
    return -1 if pos == len(data) else count


# The second byte of a two-byte varint, shifted into place; a byte that says more follow is not
# there, so that a longer varint fails the lookup (an IndexError: not the common record).
_SECOND = tuple(b << 7 for b in range(0x80))


def _record_end(data: bytes, pos: int, index: int) -> int:
    """Where record ``index``, at ``pos``, ends if it is sound with offset delta ``index``, else
    -1. ValueError or IndexError where a varint cannot be read."""
    length, pos = read_varint(data, pos)
    end = pos + length
    if length < MIN_RECORD_BODY or end > len(data):
        return -1
    _, pos = read_varlong(data, pos + 1)  # past the attributes: the timestamp delta
    offset_delta, pos = read_varint(data, pos)
    if offset_delta != index:
        return -1
    for _ in range(2):  # the key, then the value: -1 is null
        size, pos = read_varint(data, pos)
        if size < -1 or size > end - pos:
            return -1
        pos += max(size, 0)
    headers, pos = read_varint(data, pos)
    if headers < 0 or headers > (end - pos) // 2:  # two length bytes a header at least
        return -1
    for _ in range(headers):
        size, pos = read_varint(data, pos)  # the name, which may not be null
        if size < 0 or size > end - pos:
            return -1
        size, pos = read_varint(data, pos + size)
        if size < -1 or size > end - pos:
            return -1
        pos += max(size, 0)
    return pos if pos == end else -1


_compiled = compiled_module("log._records")
first_bad_record: Callable[[Any, int, int], int] = (
    python_first_bad_record if _compiled is None else _compiled.first_bad_record
)
