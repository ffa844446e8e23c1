"""Conversions between message values and Kafka's JSON form (used by generated code)."""

from __future__ import annotations

import base64
import binascii
import builtins

from .errors import DecodeError
from .uuid import Uuid

MISSING = object()


NOT_NULLABLE = "is null but not nullable in this version"


def error(path: str, reason: str) -> DecodeError:
    return DecodeError(reason, None, path.rstrip("."))


def unexpected(value, path: str, expected: str) -> DecodeError:
    """The error for a value of the wrong kind; null gets its own reason. Generated code accepts
    null itself where the field is nullable, so null reaching a converter is a refused null."""
    return error(path, NOT_NULLABLE if value is None else f"{expected} is expected, got {value!r}")


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _integer(value, path: str, lo: int, hi: int) -> int:
    if isinstance(value, builtins.bool) or not isinstance(value, int):
        if isinstance(value, float) and value.is_integer():
            value = int(value)
        else:
            raise unexpected(value, path, "an integer")
    if not lo <= value <= hi:
        raise error(path, f"{value} is out of range [{lo}, {hi}]")
    return value


def int8(v, path):
    return _integer(v, path, -(2**7), 2**7 - 1)


def int16(v, path):
    return _integer(v, path, -(2**15), 2**15 - 1)


def uint16(v, path):
    return _integer(v, path, 0, 2**16 - 1)


def int32(v, path):
    return _integer(v, path, -(2**31), 2**31 - 1)


def uint32(v, path):
    return _integer(v, path, 0, 2**32 - 1)


def int64(v, path):
    return _integer(v, path, -(2**63), 2**63 - 1)


def bool(v, path):  # noqa: A001 - named after the schema type
    if v is True or v is False:
        return v
    raise unexpected(v, path, "true or false")


def float64(v, path):
    if isinstance(v, (int, float)) and not isinstance(v, builtins.bool):
        return float(v)
    if v in ("NaN", "Infinity", "-Infinity"):
        return float(v.replace("Infinity", "inf"))
    raise unexpected(v, path, "a number")


def string(v, path):
    if isinstance(v, str):
        return v
    raise unexpected(v, path, "a string")


def bytes_(v, path):
    if not isinstance(v, str):
        raise unexpected(v, path, "base64 text")
    try:
        return base64.b64decode(v, validate=True)
    except (binascii.Error, ValueError) as e:
        raise error(path, f"invalid base64: {e}") from None


# Named after the schema types the generated code asks for (``_j.bytes``, ``_j.records``).
globals()["bytes"] = bytes_
records = bytes_


def uuid(v, path):
    if v is None:
        raise error(path, NOT_NULLABLE)
    try:
        return Uuid.from_string(v)
    except ValueError as e:
        raise error(path, str(e)) from None


def array(v, path: str, element):
    if not isinstance(v, list):
        raise error(path, NOT_NULLABLE if v is None else f"an array is expected, got {type(v).__name__}")
    return [element(e, f"{path}[{i}]") for i, e in enumerate(v)]


def unknown_to_json(fields) -> list:
    return [{"tag": tag, "data": b64(data)} for tag, data in fields]


def unknown_from_json(v, path: str) -> tuple:
    if not isinstance(v, list):
        raise error(path + "_unknownTaggedFields", "an array is expected")
    out = []
    for i, item in enumerate(v):
        p = f"{path}_unknownTaggedFields[{i}]"
        if not isinstance(item, dict) or "tag" not in item or "data" not in item:
            raise error(p, 'an object {"tag": T, "data": base64} is expected')
        out.append((uint32(item["tag"], p + ".tag"), bytes_(item["data"], p + ".data")))
    return tuple(sorted(out, key=lambda t: t[0]))
