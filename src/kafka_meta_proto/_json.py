"""Conversions between message values and Kafka's JSON form (used by generated code)."""

from __future__ import annotations

import base64
import binascii
import builtins
from collections.abc import Callable
from typing import Any, TypeVar

from .errors import DecodeError
from .uuid import Uuid

MISSING = object()
_T = TypeVar("_T")


NOT_NULLABLE = "is null but not nullable in this version"


def error(path: str, reason: str) -> DecodeError:
    return DecodeError(reason, None, path.rstrip("."))


def unexpected(value: object, path: str, expected: str) -> DecodeError:
    """The error for a value of the wrong kind; null gets its own reason. Generated code accepts
    null itself where the field is nullable, so null reaching a converter is a refused null."""
    return error(path, NOT_NULLABLE if value is None else f"{expected} is expected, got {value!r}")


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _integer(value: object, path: str, lo: int, hi: int) -> int:
    if isinstance(value, builtins.bool) or not isinstance(value, int):
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        else:
            raise unexpected(value, path, "an integer")
    if not lo <= value <= hi:
        raise error(path, f"{value} is out of range [{lo}, {hi}]")
    return value


def int8(v: object, path: str) -> int:
    return _integer(v, path, -(2**7), 2**7 - 1)


def int16(v: object, path: str) -> int:
    return _integer(v, path, -(2**15), 2**15 - 1)


def uint16(v: object, path: str) -> int:
    return _integer(v, path, 0, 2**16 - 1)


def int32(v: object, path: str) -> int:
    return _integer(v, path, -(2**31), 2**31 - 1)


def uint32(v: object, path: str) -> int:
    return _integer(v, path, 0, 2**32 - 1)


def int64(v: object, path: str) -> int:
    return _integer(v, path, -(2**63), 2**63 - 1)


def bool(v: object, path: str) -> builtins.bool:  # noqa: A001 - named after the schema type
    if v is True or v is False:
        return v
    raise unexpected(v, path, "true or false")


def float64(v: object, path: str) -> float:
    if isinstance(v, (int, float)) and not isinstance(v, builtins.bool):
        return float(v)
    if v in ("NaN", "Infinity", "-Infinity"):
        return float(v.replace("Infinity", "inf"))
    raise unexpected(v, path, "a number")


def string(v: object, path: str) -> str:
    if isinstance(v, str):
        return v
    raise unexpected(v, path, "a string")


def bytes_(v: object, path: str) -> bytes:
    if not isinstance(v, str):
        raise unexpected(v, path, "base64 text")
    try:
        return base64.b64decode(v, validate=True)
    except (binascii.Error, ValueError) as e:
        raise error(path, f"invalid base64: {e}") from None


# Named after the schema type (bytes_ for bytes, whose name stays the builtin's here).
records = bytes_


def uuid(v: object, path: str) -> Uuid:
    if v is None:
        raise error(path, NOT_NULLABLE)
    if not isinstance(v, str):
        raise error(path, f"a Uuid string is expected, got {type(v).__name__}")
    try:
        return Uuid.from_string(v)
    except ValueError as e:
        raise error(path, str(e)) from None


def array(v: object, path: str, element: Callable[[Any, str], _T]) -> list[_T]:
    if not isinstance(v, list):
        raise error(path, NOT_NULLABLE if v is None else f"an array is expected, got {type(v).__name__}")
    return [element(e, f"{path}[{i}]") for i, e in enumerate(v)]


def unknown_to_json(fields: tuple[tuple[int, bytes], ...]) -> list[dict[str, Any]]:
    return [{"tag": tag, "data": b64(data)} for tag, data in fields]


def unknown_from_json(v: object, path: str) -> tuple[tuple[int, bytes], ...]:
    if not isinstance(v, list):
        raise error(path + "_unknownTaggedFields", "an array is expected")
    out = []
    for i, item in enumerate(v):
        p = f"{path}_unknownTaggedFields[{i}]"
        if not isinstance(item, dict) or "tag" not in item or "data" not in item:
            raise error(p, 'an object {"tag": T, "data": base64} is expected')
        out.append((uint32(item["tag"], p + ".tag"), bytes_(item["data"], p + ".data")))
    return tuple(sorted(out, key=lambda t: t[0]))
