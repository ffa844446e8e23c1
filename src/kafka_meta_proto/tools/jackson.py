"""JSON text as Kafka's tools write it: Jackson's ``ObjectNode.toString()`` over the JSON
converters' trees (compact, non-ASCII as is, upper-case ``\\u00XX`` escapes, unknown tagged fields
left out, float64 values as Java's ``Double.toString``)."""

from __future__ import annotations

import json
import re
from decimal import Decimal
from typing import Any


def java_double(value: float) -> str:
    """Java's ``Double.toString``: shortest digits, plain for 1e-3 <= |x| < 1e7, else ``d.dddE±n``."""
    if value != value:
        return "NaN"
    if value in (float("inf"), float("-inf")):
        return "Infinity" if value > 0 else "-Infinity"
    if value == 0:
        return "-0.0" if str(value).startswith("-") else "0.0"
    sign, digit_tuple, exponent = Decimal(repr(value)).as_tuple()
    assert isinstance(exponent, int)  # a finite value's exponent (not 'n', 'N' or 'F')
    digits = "".join(map(str, digit_tuple)).rstrip("0") or "0"
    # value = 0.d1d2... scaled: d1.d2d3... * 10**sci
    sci = len(digit_tuple) - 1 + exponent
    prefix = "-" if sign else ""
    if 1e-3 <= abs(value) < 1e7:
        if sci >= 0:
            whole = digits[: sci + 1].ljust(sci + 1, "0")
            frac = digits[sci + 1 :] or "0"
            return f"{prefix}{whole}.{frac}"
        return f"{prefix}0.{'0' * (-sci - 1)}{digits}"
    return f"{prefix}{digits[0]}.{digits[1:] or '0'}E{sci}"


_UPPER_ESCAPE = re.compile(r"(?<!\\)((?:\\\\)*)\\u00([0-9a-f]{2})")
_dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode
_dumps_str = json.JSONEncoder(ensure_ascii=False).encode


def _java_json(obj: Any) -> str:
    """The slow path of kafka_json: floats as Java writes them, unknown tagged fields left out."""
    if isinstance(obj, dict):
        return (
            "{"
            + ",".join(
                f"{_dumps_str(k)}:{_java_json(v)}"
                for k, v in obj.items()
                if k != "_unknownTaggedFields"
            )
            + "}"
        )
    if isinstance(obj, list):
        return "[" + ",".join(_java_json(v) for v in obj) + "]"
    if isinstance(obj, float):
        text = java_double(obj)
        return text if text[-1].isdigit() else f'"{text}"'  # Jackson quotes NaN and Infinity
    return _dumps(obj)


def kafka_json(obj: Any, has_floats: bool = False) -> str:
    """Compact JSON text of a ``to_json`` dict as Kafka's tools print it (Jackson's toString).

    Jackson writes non-ASCII characters as they are and control characters as ``\\u00XX`` with
    upper-case hex; Kafka's converters leave out unknown tagged fields. Pass ``has_floats`` for
    a message with float64 fields, so that they are written as Java's ``Double.toString`` does.
    """
    text = None if has_floats else _dumps(obj)
    if text is None or "_unknownTaggedFields" in text:
        text = _java_json(obj)
    if "\\u00" in text:
        text = _UPPER_ESCAPE.sub(lambda m: m.group(1) + "\\u00" + m.group(2).upper(), text)
    return text


_FLOAT_CLASSES: dict[type, bool] = {}


def has_float_fields(cls: type) -> bool:
    """Whether a message class (or one of its structs) has a float64 field."""
    known = _FLOAT_CLASSES.get(cls)
    if known is None:
        known = _FLOAT_CLASSES[cls] = any(
            "float64" in info[2] or (info[8] is not None and has_float_fields(info[8]))
            for info in getattr(cls, "_FIELDS", ())
        )
    return known
