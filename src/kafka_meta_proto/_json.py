"""Kafka's JSON form of the messages: the conversions of each schema type, and each message
class's ``_TO_JSON``/``_FROM_JSON`` (set by the generated modules), which read the class's field
tables."""

from __future__ import annotations

import base64
import binascii
import builtins
from collections.abc import Callable
from functools import partial
from typing import Any, TypeVar

from . import json_plan
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
        raise error(
            path, NOT_NULLABLE if v is None else f"an array is expected, got {type(v).__name__}"
        )
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


# -- The JSON form of a struct, read from the classes' field tables ------------------------------
#
# Each message class's _TO_JSON and _FROM_JSON: the same rules as Kafka's JsonConverter, taken
# from the field tables (``_FIELDS``) once per class and version and kept as plans.

_TO_PLANS: dict[tuple[type, int], Any] = {}


def to_json(o: Any, version: int) -> dict[str, Any]:
    """Kafka's JSON form of ``o`` (a message) at ``version``, by its JSON plan (json_plan.py,
    the plan the compiled codec compiles)."""
    plan = _TO_PLANS.get((o.__class__, version))
    if plan is None:
        plan = _TO_PLANS[(o.__class__, version)] = json_plan.program(o.__class__, version)
    return _form(plan[1], o)


def _differs(v: object, default: object) -> builtins.bool:
    """Whether a tagged field's value is not its default (then it is written)."""
    if default is None:
        return v is not None
    if default.__class__ is list and not default:
        return v.__class__ is not list or builtins.bool(v)
    return builtins.bool(v != default)


def _form(fields: tuple[tuple[Any, ...], ...], o: Any) -> dict[str, Any]:
    d: dict[str, Any] = {}
    for key, attr, kind, when_differs, default, child in fields:
        v = getattr(o, attr)
        if when_differs and not _differs(v, default):
            continue
        if kind == "v":
            d[key] = v
        elif kind == "u":  # never nullable: what is not a Uuid is written as str writes it
            d[key] = str(v)
        elif v is None:  # the other kinds are of nullable types
            d[key] = None
        elif kind == "S":
            d[key] = _form(child[1], v)
        elif kind == "y":
            d[key] = b64(v)
        elif kind == "[v":
            d[key] = list(v)
        elif kind == "[S":
            d[key] = [_form(child[1], e) for e in v]
        elif kind == "[u":
            d[key] = [str(e) for e in v]
        else:  # "[y"
            d[key] = [b64(e) for e in v]
    if o.unknown_tagged_fields:
        d["_unknownTaggedFields"] = unknown_to_json(o.unknown_tagged_fields)
    return d


# A from_json plan: (class, fields), a field (key, attribute, convert, mandatory, null_ok,
# child plan or None, is_array); convert is this module's converter of a scalar's type.
_FromPlan = tuple[Any, tuple[tuple[Any, ...], ...]]
_FROM_PLANS: dict[tuple[type, int], _FromPlan] = {}
MANDATORY = "is missing but mandatory in this version"


def from_json_plan(cls: Any, version: int, flexible: builtins.bool) -> _FromPlan:
    """How to read ``cls`` at ``version`` of a message that is flexible there or not. Every field
    of the struct is read when its key is there; a field is mandatory where the version has it
    untagged; null is taken where the field is nullable or null is its default."""
    fresh = cls()
    fields = []
    for info in cls._FIELDS:
        mandatory = info.present(version) and not (flexible and info.is_tagged(version))
        null_ok = info.is_nullable(version) or getattr(fresh, info.name) is None
        child = from_json_plan(info.struct, version, flexible) if info.struct is not None else None
        convert = (
            None
            if child is not None
            else globals()[_CONVERTERS.get(info.element_type, info.element_type)]
        )
        fields.append(
            (info.json_name, info.name, convert, mandatory, null_ok, child, info.is_array)
        )
    return cls, tuple(fields)


_CONVERTERS = {"bytes": "bytes_"}  # the converter of each schema type not named after it


def from_json(cls: Any) -> Callable[[Any, int, str], Any]:
    """The message class's _FROM_JSON: ``(obj, version, path) -> message``, errors naming
    ``path`` followed by the field's path."""

    def read(d: Any, version: int, path: str) -> Any:
        plan = _FROM_PLANS.get((cls, version))
        if plan is None:
            low = cls.LOWEST_FLEXIBLE_VERSION
            plan = _FROM_PLANS[(cls, version)] = from_json_plan(
                cls, version, low is not None and version >= low
            )
        return _read(plan, d, path)

    return read


def _read_element(plan: _FromPlan, d: Any, path: str) -> Any:
    """One struct of an array: its path goes on with a dot (``topics[2].name``)."""
    return _read(plan, d, path + ".")


def _read(plan: _FromPlan, d: Any, path: str) -> Any:
    if not isinstance(d, dict):
        raise unexpected(d, path, "an object")
    o = plan[0]()
    for key, attr, convert, mandatory, null_ok, child, is_array in plan[1]:
        v = d.get(key, MISSING)
        if v is MISSING:
            if mandatory:
                raise error(path + key, MANDATORY)
            continue
        if v is None and null_ok:
            value = None
        elif child is None:
            value = array(v, path + key, convert) if is_array else convert(v, path + key)
        elif is_array:
            value = array(v, path + key, partial(_read_element, child))
        else:
            value = _read(child, v, path + key + ".")
        setattr(o, attr, value)
    if "_unknownTaggedFields" in d:
        o.unknown_tagged_fields = unknown_from_json(d["_unknownTaggedFields"], path)
    return o
