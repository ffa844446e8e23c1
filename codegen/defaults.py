"""Field defaults: the text a schema gives (or leaves out) as the Python value the generator
prints, by Kafka's rules for each type."""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, NoReturn

from kafka_meta_proto.schema_info import INT_RANGES

if TYPE_CHECKING:
    from .spec import FieldSpec

DECIMAL = re.compile(r"[-+]?[0-9]+")
HEX_DIGITS = re.compile(r"[0-9a-fA-F]+")
JAVA_DOUBLE = re.compile(r"[-+]?(NaN|Infinity|([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?)[dDfF]?")
URLSAFE_B64 = re.compile(r"[A-Za-z0-9_-]+={0,2}")
ZERO_UUID = bytes(16)


class EMPTY_STRUCT:  # noqa: N801 - a marker; a class so it keeps its identity across processes
    """The default of a struct field: a struct with every field at its default."""


def parse_default(f: FieldSpec, text: str, error: Callable[[str, str], NoReturn]) -> object:
    """The field's default as a Python value, from the schema's text (Kafka's rules: "" is the
    type's zero, null only where every version is nullable). ``error(rule, detail)`` raises."""
    t = f.type

    def bad(why: str) -> NoReturn:
        error("invalid default", f"{text!r} for {t} field: {why}")

    if t.name == "bool":
        if text.lower() in ("", "false"):
            return False
        if text.lower() == "true":
            return True
        bad("must be true or false")
    if t.name in INT_RANGES:
        if text == "":
            return 0
        digits, base = (text[2:], 16) if text.startswith("0x") else (text, 10)
        if not (HEX_DIGITS if base == 16 else DECIMAL).fullmatch(digits):
            bad("not an integer")
        value = int(digits, base)
        lo, hi = INT_RANGES[t.name]
        if not lo <= value <= hi:
            bad(f"out of range [{lo}, {hi}]")
        return value
    if t.name == "float64":
        if text == "":
            return 0.0
        if not JAVA_DOUBLE.fullmatch(text.strip()):
            bad("not a number")
        return float(text.replace("Infinity", "inf"))
    if t.name == "uuid":
        if text == "":
            return ZERO_UUID
        if not URLSAFE_B64.fullmatch(text):
            bad("not URL-safe base64")
        try:
            raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
        except (binascii.Error, ValueError):
            bad("not URL-safe base64")
        if len(raw) != 16:
            bad("does not decode to 16 bytes")
        return raw
    if text == "null":
        if t.name == "records":
            return None
        if not f.nullable_versions.contains_range(f.versions):
            error("null default on a non-nullable field",
                  f"null is the default but versions {f.versions} are not all nullable ({f.nullable_versions})")  # fmt: skip
        return None
    if t.name == "string":
        return text
    if t.name == "records":
        return None  # Kafka's default for records is always null
    if text != "":
        kind = "a bytes" if t.name == "bytes" else ("an array" if t.is_array else "a struct")
        bad(f"{kind} field's default can only be empty or null")
    if t.name == "bytes":
        return b""
    return [] if t.is_array else EMPTY_STRUCT
