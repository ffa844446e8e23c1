"""Zigzag varints as in Kafka's ByteUtils (readVarint / readVarlong / writeVarint / writeVarlong).

A value is zigzag-mapped (0, -1, 1, -2, ... -> 0, 1, 2, 3, ...) and written 7 bits at a time,
low bits first, with the high bit of each byte set when more bytes follow. Kafka limits an int32
varint to 5 bytes and an int64 varlong to 10.

The record reader inlines the one-byte case; these functions are its slow path and the writer.
Readers return ``(value, next_pos)`` and raise ``ValueError`` with a short reason, which the
caller turns into a LogFormatError naming the batch.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .source import Buffer

INT32_MIN, INT32_MAX = -(1 << 31), (1 << 31) - 1
INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1


def _read_unsigned(buf: Buffer, pos: int, max_bytes: int, limit: int, what: str) -> tuple[int, int]:
    raw = 0
    shift = 0
    end = pos + max_bytes
    size = len(buf)
    while pos < end:
        if pos >= size:
            raise ValueError(f"{what} runs past the end of the data")
        b = buf[pos]
        pos += 1
        raw |= (b & 0x7F) << shift
        if b < 0x80:
            if raw > limit:
                raise ValueError(f"{what} value out of range")
            return raw, pos
        shift += 7
    raise ValueError(f"{what} longer than {max_bytes} bytes")


def read_varint(buf: Buffer, pos: int) -> tuple[int, int]:
    """Read a zigzag int32 varint (at most 5 bytes)."""
    b = buf[pos] if pos < len(buf) else 0x80
    if b < 0x80:  # one byte: the common case
        return (b >> 1) ^ -(b & 1), pos + 1
    raw, pos = _read_unsigned(buf, pos, 5, 0xFFFFFFFF, "varint")
    return (raw >> 1) ^ -(raw & 1), pos


def read_varlong(buf: Buffer, pos: int) -> tuple[int, int]:
    """Read a zigzag int64 varlong (at most 10 bytes)."""
    b = buf[pos] if pos < len(buf) else 0x80
    if b < 0x80:
        return (b >> 1) ^ -(b & 1), pos + 1
    raw, pos = _read_unsigned(buf, pos, 10, 0xFFFFFFFFFFFFFFFF, "varlong")
    return (raw >> 1) ^ -(raw & 1), pos


# Encodings of the small values records use all the time (-64..63 fit in one byte).
_ONE_BYTE = {v: bytes((((v << 1) ^ (v >> 63)),)) for v in range(-64, 64)}


def _write_unsigned(raw: int) -> bytes:
    out = bytearray()
    while raw >= 0x80:
        out.append((raw & 0x7F) | 0x80)
        raw >>= 7
    out.append(raw)
    return bytes(out)


def write_varint(value: int) -> bytes:
    """Encode ``value`` (an int32) as a zigzag varint."""
    small = _ONE_BYTE.get(value)
    if small is not None:
        return small
    if not INT32_MIN <= value <= INT32_MAX:
        raise ValueError(f"varint value {value} is outside int32")
    return _write_unsigned((value << 1) ^ (value >> 31))


def write_varlong(value: int) -> bytes:
    """Encode ``value`` (an int64) as a zigzag varlong."""
    small = _ONE_BYTE.get(value)
    if small is not None:
        return small
    if not INT64_MIN <= value <= INT64_MAX:
        raise ValueError(f"varlong value {value} is outside int64")
    return _write_unsigned((value << 1) ^ (value >> 63))
