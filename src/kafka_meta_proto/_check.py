"""What makes a message unwritable: the field, what it expects and what it holds.

The generated writers and sizers check little themselves: a value of the wrong type or out of range
makes ``struct`` or ``str`` raise, without saying which field. When they fail, Message walks the
object again here, slowly, and raises the first problem found with its path
(``listeners[0].port``). Only ever called after a failure, so valid messages pay nothing for it.
"""

from __future__ import annotations

import dataclasses
import struct
from typing import Any

from .errors import EncodeError, KafkaProtocolError, UnsupportedVersionError
from .schema_info import INT_RANGES, FieldInfo

FORMATS = {
    "int8": ">b",
    "int16": ">h",
    "uint16": ">H",
    "int32": ">i",
    "uint32": ">I",
    "int64": ">q",
    "float64": ">d",
}
STRING_LIMIT = 0x7FFF
_DEFAULTS: dict[type, dict[str, Any]] = {}


def find_problem(obj: Any, version: int, flexible: bool) -> KafkaProtocolError | None:
    """The first field of ``obj`` (a message) that the writer at ``version`` refuses, as the
    error to raise (without context); None when the walk finds nothing wrong."""
    return _struct(obj, version, flexible, "")


def _show(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _defaults(cls: type) -> dict[str, Any]:
    known = _DEFAULTS.get(cls)
    if known is None:
        known = {}
        for f in dataclasses.fields(cls):
            if f.default_factory is not dataclasses.MISSING:
                known[f.name] = f.default_factory()
            else:
                known[f.name] = f.default
        _DEFAULTS[cls] = known
    return known


def _struct(o: Any, version: int, flexible: bool, prefix: str) -> KafkaProtocolError | None:
    cls = type(o)
    infos: tuple[FieldInfo, ...] | None = getattr(cls, "_FIELDS", None)
    if infos is None or not dataclasses.is_dataclass(cls):  # (on cls: o stays Any for mypy)
        return None
    defaults = _defaults(cls)
    for info in infos:
        path = prefix + info.name
        value = getattr(o, info.name)
        if not info.present(version):
            if not info.ignorable and value != defaults[info.name]:
                return UnsupportedVersionError(
                    f"{path}: {cls.__name__}.{info.name} has a non-default value ({_show(value)}), "
                    f"but version {version} has no such field"
                )
            continue
        if info.is_tagged(version) and value == defaults[info.name]:
            continue  # a tagged field at its default is not written
        if value is None:
            if info.is_nullable(version):
                continue
            return EncodeError(f"null, but the field is not nullable in version {version}", path)
        problem = _value(info, info.type, value, version, flexible, path)
        if problem is not None:
            return problem
    unknown = o.unknown_tagged_fields
    if unknown:
        path = prefix + "unknown_tagged_fields"
        if not flexible:
            return UnsupportedVersionError(
                f"{path}: set, but version {version} has no tagged fields"
            )
        try:
            for tag, data in unknown:
                if not isinstance(tag, int) or not 0 <= tag <= 0xFFFFFFFF:
                    return EncodeError(f"tag {_show(tag)} is not an unsigned 32-bit integer", path)
                memoryview(data)
        except (TypeError, ValueError):
            return EncodeError(f"expects (tag, bytes) pairs, got {_show(unknown)}", path)
    return None


def _value(
    info: FieldInfo, type_name: str, value: Any, version: int, flexible: bool, path: str
) -> KafkaProtocolError | None:
    if type_name.startswith("[]"):
        if not isinstance(value, (list, tuple)):
            return EncodeError(f"expects a list, got {_show(value)}", path)
        element = type_name[2:]
        for i, item in enumerate(value):
            where = f"{path}[{i}]"
            if item is None:
                return EncodeError("null element; list elements are never null", where)
            problem = _value(info, element, item, version, flexible, where)
            if problem is not None:
                return problem
        return None
    fmt = FORMATS.get(type_name)
    if fmt is not None:
        try:
            struct.pack(fmt, value)
        except (struct.error, TypeError, ValueError, OverflowError):
            if type_name == "float64":
                return EncodeError(f"expects float64 (a number), got {_show(value)}", path)
            lo, hi = INT_RANGES[type_name]
            if isinstance(value, int):
                return EncodeError(f"{value} is out of range for {type_name} ({lo} to {hi})", path)
            return EncodeError(
                f"expects {type_name} (an integer from {lo} to {hi}), got {_show(value)}", path
            )
        return None
    if type_name == "bool":
        return None  # written as its truth value
    if type_name == "uuid":
        try:
            struct.pack(">16s", value.bytes)
        except (AttributeError, struct.error, TypeError):
            return EncodeError(f"expects a Uuid, got {_show(value)}", path)
        return None
    if type_name == "string":
        if not isinstance(value, str):
            return EncodeError(f"expects a str, got {_show(value)}", path)
        try:
            n = len(value.encode())
        except UnicodeEncodeError as e:
            return EncodeError(f"cannot be written as UTF-8 ({e.reason})", path)
        if n > STRING_LIMIT:
            return EncodeError(f"is {n} bytes of UTF-8; strings hold at most {STRING_LIMIT}", path)
        return None
    if type_name in ("bytes", "records"):
        try:
            memoryview(value)
        except TypeError:
            return EncodeError(
                f"expects bytes (or another bytes-like value), got {_show(value)}", path
            )
        return None
    # A struct: info.struct is its class.
    if info.struct is not None and not isinstance(value, info.struct):
        return EncodeError(f"expects a {info.struct.__name__}, got {_show(value)}", path)
    return _struct(value, version, flexible, path + ".")
