"""Wire primitives shared by the generated codecs and the log layer: unsigned varints, the zigzag
varints of log records and tagged-field sections.

The generated code inlines the common one-byte cases; these functions are the slow paths.
"""

from __future__ import annotations

import struct
from typing import Any, Literal, TypeVar, overload

from .errors import DecodeError, EncodeError
from .uuid import Uuid

# What the readers read from (Message.decode makes bytes of any bytes-like input).
Buffer = bytes
# One tagged field the schema does not know: (tag, raw bytes).
Tagged = tuple[int, bytes]

INT16 = struct.Struct(">h")
INT32 = struct.Struct(">i")
UINT32 = struct.Struct(">I")
BYTE = tuple(bytes((i,)) for i in range(256))  # BYTE[n] == bytes((n,)), without building it

# Arrays of fixed-width elements shorter than this are read and written through precompiled
# Structs (codegen.render.SMALL_ARRAY must match).
SMALL_ARRAY = 32
_ARRAY_STRUCTS: dict[tuple[str, str], tuple[struct.Struct, ...]] = {}
_new = object.__new__


def array_structs(prefix: str, code: str) -> tuple[struct.Struct, ...]:
    """``t[n]`` is ``Struct(f">{prefix}{n}{code}")`` for n < SMALL_ARRAY: n elements of the struct
    format code, after ``prefix`` ("" nothing, "B" a one-byte compact length, "i" a legacy count).
    """
    key = (prefix, code)
    table = _ARRAY_STRUCTS.get(key)
    if table is None:
        if len(code) == 1:
            formats = [f">{prefix}{n}{code}" for n in range(SMALL_ARRAY)]
        else:  # "16s" is one 16-byte string, whatever its count: repeat it
            formats = [f">{prefix}{code * n}" for n in range(SMALL_ARRAY)]
        table = _ARRAY_STRUCTS[key] = tuple(map(struct.Struct, formats))
    return table


def read_uvarint(buf: Buffer, pos: int) -> tuple[int, int]:
    """Read an unsigned varint of at most 5 bytes (Kafka's readUnsignedVarint)."""
    if 0 <= pos < len(buf):
        value = buf[pos]
        if value < 0x80:  # one byte: most varints
            return value, pos + 1
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
    return _write_unsigned(value)


def _write_unsigned(raw: int) -> bytes:
    out = bytearray()
    while raw >= 0x80:
        out.append((raw & 0x7F) | 0x80)
        raw >>= 7
    out.append(raw)
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


# Zigzag varints of log records, as in Kafka's ByteUtils (readVarint / readVarlong / writeVarint /
# writeVarlong): a value is zigzag-mapped (0, -1, 1, -2, ... -> 0, 1, 2, 3, ...) then written as
# an unsigned varint; an int32 takes at most 5 bytes, an int64 at most 10. The record reader
# inlines the one-byte case; these are its slow path and the writer. The readers raise ValueError
# with a short reason, which the log layer turns into a LogFormatError naming the batch.
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


def too_many(count: int, pos: int, what: str = "array") -> DecodeError:
    return DecodeError(f"{what} length {count} exceeds the bytes left", pos)


def read_tag_header(buf: Buffer, pos: int) -> tuple[int, int, int]:
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


def read_unknown_tagged(buf: Buffer, pos: int) -> tuple[tuple[Tagged, ...], int]:
    """Read a tagged-field section of fields the schema does not know (a count that is not 0
    first): (the fields as (tag, raw bytes) in tag order, the position after them). Readers test
    for the usual empty section inline and call this for the rest."""
    try:
        count, pos = read_uvarint(buf, pos)
        if count > len(buf) - pos:
            raise too_many(count, pos, "tagged field count")
        unknown = []
        for _ in range(count):
            tag, size, pos = read_tag_header(buf, pos)
            end = pos + size
            unknown.append((tag, buf[pos:end]))
            pos = end
    except IndexError as e:
        raise low_level_error(e, "", pos) from None
    return tuple(sorted(unknown)), pos  # Kafka reads tags in any order


def write_tagged(out: list[bytes], fields: list[Tagged]) -> None:
    """Append a tagged-field section to the parts: count, then (tag, size, data) in tag order."""
    fields.sort(key=_tag_of)
    out.append(uvarint(len(fields)))
    for tag, data in fields:
        out.append(uvarint(tag))
        out.append(uvarint(len(data)))
        out.append(data)


def tagged_section_size(fields: tuple[Tagged, ...] | list[Tagged]) -> int:
    """The size of write_tagged's section, refusing what it refuses (a tag outside 32 bits, data
    that is not bytes-like)."""
    total = uvarint_size(len(fields))
    for tag, data in fields:
        if not 0 <= tag <= 0xFFFFFFFF:
            raise ValueError(f"unsigned varint cannot hold {tag}")
        n = byte_length(data)
        total += uvarint_size(tag) + uvarint_size(n) + n
    return total


def _tag_of(item: Tagged) -> int:
    return item[0]


def utf8_size(text: str) -> int:
    """UTF-8 length of a string without encoding it when it is ASCII (TypeError for a non-str)."""
    return len(text) if str.isascii(text) else len(text.encode("utf-8"))


def byte_length(data: object) -> int:
    """``len(data)`` of a bytes-like value; TypeError for anything a bytes join refuses."""
    return memoryview(data).nbytes  # type: ignore[arg-type]  # refusing the rest is the point


def check_uuids(values: list[Any]) -> None:
    """Refuse a list whose elements the writer cannot write as uuids (it joins their .bytes)."""
    for value in values:
        memoryview(value.bytes)


# -- Array elements: strings and bytes inside arrays go through these (fields are inlined). ----


def _read_text(buf: Buffer, pos: int, n: int, what: str) -> tuple[Any, int]:
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


def read_string(buf: Buffer, pos: int) -> tuple[str, int]:
    (n,) = INT16.unpack_from(buf, pos)
    return _read_text(buf, pos + 2, n, "string")


def read_compact_string(buf: Buffer, pos: int) -> tuple[str, int]:
    n, pos = read_uvarint(buf, pos)
    return _read_text(buf, pos, n - 1, "string")


def read_bytes(buf: Buffer, pos: int) -> tuple[Buffer, int]:
    (n,) = INT32.unpack_from(buf, pos)
    return _read_text(buf, pos + 4, n, "bytes")


def read_compact_bytes(buf: Buffer, pos: int) -> tuple[Buffer, int]:
    n, pos = read_uvarint(buf, pos)
    return _read_text(buf, pos, n - 1, "bytes")


def _encoded(text: str | None) -> bytes:
    if text is None:
        from .errors import EncodeError

        raise EncodeError("null element in an array of strings")
    raw = text.encode()
    if len(raw) > 0x7FFF:
        from .errors import EncodeError

        raise EncodeError(f"string of {len(raw)} bytes; strings hold at most 32767")
    return raw


# The writers append bytes-like parts to a list, which the caller joins once.


def write_string(out: list[bytes], text: str) -> None:
    raw = _encoded(text)
    out.append(INT16.pack(len(raw)))
    out.append(raw)


def write_compact_string(out: list[bytes], text: str) -> None:
    raw = _encoded(text)
    out.append(uvarint(len(raw) + 1))
    out.append(raw)


def write_bytes(out: list[bytes], data: bytes) -> None:
    out.append(INT32.pack(len(data)))
    out.append(data)


def write_compact_bytes(out: list[bytes], data: bytes) -> None:
    out.append(uvarint(len(data) + 1))
    out.append(data)


# The sizers refuse what the writers above refuse.


def _text_size(text: str | None) -> int:
    if text is None:
        raise EncodeError("null element in an array of strings")
    n = utf8_size(text)
    if n > 0x7FFF:
        raise EncodeError(f"string of {n} bytes; strings hold at most 32767")
    return n


def size_string(text: str) -> int:
    return 2 + _text_size(text)


def size_compact_string(text: str) -> int:
    n = _text_size(text)
    return n + uvarint_size(n + 1)


def size_bytes(data: bytes) -> int:
    return 4 + byte_length(data)


def size_compact_bytes(data: bytes) -> int:
    n = byte_length(data)
    return n + uvarint_size(n + 1)


# -- The slow paths of fields the generated readers inline for the common case. -----------------
# Each reads the field from its length prefix at ``pos`` and raises exactly what the inline code
# would (reason and offset; the generated reader adds the field path).


def _read_count(buf: Buffer, pos: int, compact: bool) -> tuple[int, int]:
    if compact:
        n = buf[pos]
        if n < 0x80:
            pos += 1
        else:
            n, pos = read_uvarint(buf, pos)
        return n - 1, pos
    (n,) = INT32.unpack_from(buf, pos)
    return n, pos + 4


# The readers below return None only for a nullable field: overloads tell mypy so, as the
# generated code passes nullable as a literal.
@overload
def read_string_field(
    buf: Buffer, pos: int, compact: bool, nullable: Literal[False]
) -> tuple[str, int]: ...
@overload
def read_string_field(
    buf: Buffer, pos: int, compact: bool, nullable: bool
) -> tuple[str | None, int]: ...
def read_string_field(
    buf: Buffer, pos: int, compact: bool, nullable: bool
) -> tuple[str | None, int]:
    """A string field (compact or int16 length); (value, next position)."""
    if compact:
        n, pos = _read_count(buf, pos, True)
    else:
        (n,) = INT16.unpack_from(buf, pos)
        pos += 2
    if n < 0:
        if not nullable:
            raise DecodeError("null value for a non-nullable field", pos)
        if n != -1:
            raise DecodeError(f"invalid length {n}", pos)
        return None, pos
    end = pos + n
    if end > len(buf):
        raise DecodeError(f"length {n} runs past the end", pos)
    if n > 0x7FFF:
        raise DecodeError(f"string length {n} exceeds 32767", pos)
    try:
        return buf[pos:end].decode(), end
    except UnicodeDecodeError as e:
        raise DecodeError(f"invalid UTF-8 in string ({e.reason})", pos) from None


def _array_count(
    buf: Buffer, pos: int, compact: bool, nullable: bool, width: int
) -> tuple[int, int]:
    """The element count of an array field, -1 for null; checks it against the bytes left."""
    n, pos = _read_count(buf, pos, compact)
    if n < 0:
        if not nullable:
            raise DecodeError("null array for a non-nullable field", pos)
        if n != -1:
            raise DecodeError(f"invalid array length {n}", pos)
    elif n * width > len(buf) - pos:
        raise too_many(n, pos)
    return n, pos


@overload
def read_fixed_array(
    buf: Buffer, pos: int, code: str, width: int, compact: bool, nullable: Literal[False]
) -> tuple[list[Any], int]: ...
@overload
def read_fixed_array(
    buf: Buffer, pos: int, code: str, width: int, compact: bool, nullable: bool
) -> tuple[list[Any] | None, int]: ...
def read_fixed_array(
    buf: Buffer, pos: int, code: str, width: int, compact: bool, nullable: bool
) -> tuple[list[Any] | None, int]:
    """An array of fixed-width elements (struct format code, width in bytes)."""
    n, pos = _array_count(buf, pos, compact, nullable, width)
    if n < 0:
        return None, pos
    return list(struct.unpack_from(">%d%s" % (n, code), buf, pos)), pos + n * width


def uuid_list(buf: Buffer, pos: int, n: int) -> list[Uuid]:
    """n Uuids from the 16 * n bytes at pos (the caller has checked they are there)."""
    out = []
    raws: tuple[Any, ...] | list[Any]
    if n < SMALL_ARRAY:
        raws = _UUIDS[n].unpack_from(buf, pos)
    else:
        raws = [buf[p : p + 16] for p in range(pos, pos + 16 * n, 16)]
    for raw in raws:
        u = _new(Uuid)  # Uuid(raw) without __init__'s checks: raw is 16 bytes
        u.bytes = raw
        out.append(u)
    return out


_UUIDS = array_structs("", "16s")


@overload
def read_uuid_array(
    buf: Buffer, pos: int, compact: bool, nullable: Literal[False]
) -> tuple[list[Uuid], int]: ...
@overload
def read_uuid_array(
    buf: Buffer, pos: int, compact: bool, nullable: bool
) -> tuple[list[Uuid] | None, int]: ...
def read_uuid_array(
    buf: Buffer, pos: int, compact: bool, nullable: bool
) -> tuple[list[Uuid] | None, int]:
    n, pos = _array_count(buf, pos, compact, nullable, 16)
    if n < 0:
        return None, pos
    return uuid_list(buf, pos, n), pos + 16 * n


_E = TypeVar("_E", bound=BaseException)


def in_element(e: _E, index: int) -> _E:
    """Note which element of an array of structs a list reader was reading when e arose; the
    reader of the struct holding the array puts it in the path (``topics[3].name``)."""
    e.__dict__["_element"] = index
    return e


def element_of(e: DecodeError) -> int | None:
    index: int | None = e.__dict__.pop("_element", None)
    return index


def read_error(
    exc: Exception,
    field: str,
    pos: int,
    buf: Buffer | None = None,
    retry: dict[str, tuple[str, int, bool, bool]] | None = None,
    nested: bool = False,
) -> Exception:
    """What a generated reader raises for ``exc``, which arose while it read ``field`` at ``pos``:
    a DecodeError gets the field in its path (with the element index a list reader noted, for a
    reader that holds arrays of structs: ``nested``); what Python raises on bad input becomes a
    DecodeError (low_level_error); anything else is passed on as it is."""
    if isinstance(exc, DecodeError):
        return exc.within(field, element_of(exc)) if nested else exc.within(field)
    if isinstance(exc, (struct.error, IndexError, UnicodeDecodeError)):
        return low_level_error(exc, field, pos, buf, retry)
    return exc


def low_level_error(
    exc: Exception,
    field: str,
    pos: int,
    buf: Buffer | None = None,
    retry: dict[str, tuple[str, int, bool, bool]] | None = None,
) -> DecodeError:
    """Turn what Python raised while reading into a DecodeError for the field at pos.

    ``retry`` maps the fields whose inline read relies on ``unpack_from`` failing on a short
    buffer (arrays of fixed-width elements) to read_fixed_array's arguments: reading the field
    again carefully gives the exact error ("array length 3 exceeds the bytes left")."""
    if retry is not None and buf is not None and isinstance(exc, struct.error):
        args = retry.get(field)
        if args is not None:
            try:
                read_fixed_array(buf, pos, *args)
            except DecodeError as e:
                return e.within(field)
            except (struct.error, IndexError):
                pass
    if isinstance(exc, UnicodeDecodeError):
        reason = f"invalid UTF-8 in string ({exc.reason})"
    elif isinstance(exc, IndexError) or "requires a buffer" in str(exc):
        reason = "input ends in the middle of the field"
    else:
        reason = f"cannot read the field: {exc}"
    return DecodeError(reason, pos).within(field)
