"""Wire primitives shared by the generated codecs: unsigned varints and tagged-field sections.

The generated code inlines the common one-byte cases; these functions are the slow paths.
"""

from __future__ import annotations

import struct

from .errors import DecodeError

INT16 = struct.Struct(">h")
INT32 = struct.Struct(">i")
UINT32 = struct.Struct(">I")


def read_uvarint(buf, pos: int) -> tuple[int, int]:
    """Read an unsigned varint of at most 5 bytes (Kafka's readUnsignedVarint)."""
    value = 0
    shift = 0
    start = pos
    while True:
        if pos >= len(buf):
            raise DecodeError("truncated unsigned varint", start)
        b = buf[pos]
        pos += 1
        value |= (b & 0x7F) << shift
        if b < 0x80:
            if value > 0xFFFFFFFF:
                raise DecodeError("unsigned varint exceeds 32 bits", start)
            return value, pos
        shift += 7
        if shift > 28:
            raise DecodeError("unsigned varint longer than 5 bytes", start)


def uvarint(value: int) -> bytes:
    """Encode an unsigned 32-bit varint."""
    if value < 0x80:
        if value < 0:
            raise ValueError(f"unsigned varint cannot hold {value}")
        return bytes((value,))
    if value > 0xFFFFFFFF:
        raise ValueError(f"unsigned varint cannot hold {value}")
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def uvarint_size(value: int) -> int:
    """Bytes taken by ``uvarint(value)``."""
    if value < 0x80:
        return 1
    if value < 0x4000:
        return 2
    if value < 0x200000:
        return 3
    if value < 0x10000000:
        return 4
    return 5


def too_many(count: int, pos: int, what: str = "array") -> DecodeError:
    return DecodeError(f"{what} length {count} exceeds the bytes left", pos)


def read_tag_header(buf, pos: int) -> tuple[int, int, int]:
    """Read one tagged field's tag and size; return (tag, size, position of its data)."""
    tag = buf[pos]
    if tag < 0x80:
        pos += 1
    else:
        tag, pos = read_uvarint(buf, pos)
    size = buf[pos]
    if size < 0x80:
        pos += 1
    else:
        size, pos = read_uvarint(buf, pos)
    if pos + size > len(buf):
        raise DecodeError(f"tagged field {tag} of {size} bytes runs past the end", pos)
    return tag, size, pos


def write_tagged(out: bytearray, fields: list) -> None:
    """Write a tagged-field section: count, then (tag, size, data) in tag order."""
    fields.sort(key=_tag_of)
    out += uvarint(len(fields))
    for tag, data in fields:
        out += uvarint(tag)
        out += uvarint(len(data))
        out += data


def tagged_section_size(fields) -> int:
    total = uvarint_size(len(fields))
    for tag, data in fields:
        total += uvarint_size(tag) + uvarint_size(len(data)) + len(data)
    return total


def _tag_of(item) -> int:
    return item[0]


def utf8_size(text: str) -> int:
    """UTF-8 length of a string without encoding it when it is ASCII."""
    return len(text) if text.isascii() else len(text.encode("utf-8"))


# -- Array elements: strings and bytes inside arrays go through these (fields are inlined). ----


def _read_text(buf, pos: int, n: int, what: str):
    if n < 0:
        raise DecodeError(f"null or negative length {n} inside an array", pos)
    end = pos + n
    if end > len(buf):
        raise DecodeError(f"{what} length {n} runs past the end", pos)
    if what == "string":
        if n > 0x7FFF:
            raise DecodeError(f"string length {n} exceeds 32767", pos)
        return buf[pos:end].decode(), end
    return buf[pos:end], end


def read_string(buf, pos: int):
    (n,) = INT16.unpack_from(buf, pos)
    return _read_text(buf, pos + 2, n, "string")


def read_compact_string(buf, pos: int):
    n, pos = read_uvarint(buf, pos)
    return _read_text(buf, pos, n - 1, "string")


def read_bytes(buf, pos: int):
    (n,) = INT32.unpack_from(buf, pos)
    return _read_text(buf, pos + 4, n, "bytes")


def read_compact_bytes(buf, pos: int):
    n, pos = read_uvarint(buf, pos)
    return _read_text(buf, pos, n - 1, "bytes")


def _encoded(text: str) -> bytes:
    if text is None:
        from .errors import EncodeError

        raise EncodeError("null element in an array of strings")
    raw = text.encode()
    if len(raw) > 0x7FFF:
        from .errors import EncodeError

        raise EncodeError(f"string of {len(raw)} bytes; strings hold at most 32767")
    return raw


def write_string(out: bytearray, text: str) -> None:
    raw = _encoded(text)
    out += INT16.pack(len(raw))
    out += raw


def write_compact_string(out: bytearray, text: str) -> None:
    raw = _encoded(text)
    out += uvarint(len(raw) + 1)
    out += raw


def write_bytes(out: bytearray, data: bytes) -> None:
    out += INT32.pack(len(data))
    out += data


def write_compact_bytes(out: bytearray, data: bytes) -> None:
    out += uvarint(len(data) + 1)
    out += data


def size_string(text: str) -> int:
    return 2 + utf8_size(text)


def size_compact_string(text: str) -> int:
    n = utf8_size(text)
    return n + uvarint_size(n + 1)


def size_bytes(data: bytes) -> int:
    return 4 + len(data)


def size_compact_bytes(data: bytes) -> int:
    return len(data) + uvarint_size(len(data) + 1)


def low_level_error(exc: Exception, field: str, pos: int) -> DecodeError:
    """Turn what Python raised while reading into a DecodeError for the field at pos."""
    if isinstance(exc, UnicodeDecodeError):
        reason = f"invalid UTF-8 in string ({exc.reason})"
    elif isinstance(exc, IndexError) or "requires a buffer" in str(exc):
        reason = "input ends in the middle of the field"
    else:
        reason = f"cannot read the field: {exc}"
    return DecodeError(reason, pos).within(field)
