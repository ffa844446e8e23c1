"""The JSON part of the model: Kafka's JSON form of a struct (as its JsonConverter writes it),
with every version condition folded against the versions the struct exists at."""

from __future__ import annotations

from .conditions import VersionCond, either, guarded
from .model import FromJson, JsonCodec, ToJson
from .spec import FieldSpec, FieldType, MessageSpec, StructSpec


def to_json_value(t: FieldType, v: str) -> str:
    if t.is_array:
        e = t.element
        if e.is_struct:
            return f"[_to_json_{e.name}(_e, version) for _e in {v}]"
        if e.name in ("bytes", "records"):
            return f"[_j.b64(_e) for _e in {v}]"
        if e.name == "uuid":
            return f"[str(_e) for _e in {v}]"
        return f"list({v})"
    if t.is_struct:
        return f"_to_json_{t.name}({v}, version)"
    if t.name in ("bytes", "records"):
        return f"_j.b64({v})"
    if t.name == "uuid":
        return f"str({v})"
    return v


# The converter in _json of each schema type that is not its own name there.
CONVERTERS = {"bytes": "bytes_"}


def from_json_value(t: FieldType, v: str, key: str) -> str:
    """``v`` converted; errors name ``path + key``."""
    if t.is_array:
        e = t.element
        converter = CONVERTERS.get(e.name, e.name)
        element = f"lambda _e, _p: _from_json_{e.name}(_e, version, _p + '.')" if e.is_struct else f"_j.{converter}"
        return f'_j.array({v}, path + "{key}", {element})'
    if t.is_struct:
        return f'_from_json_{t.name}({v}, version, path + "{key}.")'
    return f'_j.{CONVERTERS.get(t.name, t.name)}({v}, path + "{key}")'


def json_codec(msg: MessageSpec, s: StructSpec, have: list[int], differs) -> JsonCodec:
    """``have``: the versions the struct exists at; ``differs(var, field)``: the test of a value
    against the field's default."""
    to_json = [to_json_field(f, have, differs) for f in s.fields]
    to_json = [t for t in to_json if t is not None]
    n = 0
    while n < len(to_json) and not to_json[n].cond and not to_json[n].bind:
        n += 1
    return JsonCodec(
        cls=s.name,
        leading=to_json[:n],
        to_json=to_json[n:],
        from_json=[from_json_field(msg, f, have) for f in s.fields],
    )


def to_json_field(f: FieldSpec, have: list[int], differs) -> ToJson | None:
    """Untagged fields are written in the versions that have them; tagged ones only when they
    differ from their default. None when the field is in none of the struct's versions."""
    present = VersionCond.of(have, f.present)
    tagged = VersionCond.of(have, lambda v: f.present(v) and v in f.tagged_versions)
    # None is printed as null; a string is printed as it is, None or not.
    may_be_null = f.type.can_be_nullable and f.type.name != "string"
    if f.tag is None or tagged.never:
        cond = guarded(present, "")
        if cond is None:
            return None
        if not may_be_null:
            return ToJson(f.json_name, f.py_name, cond, to_json_value(f.type, "o." + f.py_name))
        value = "None if _v is None else " + to_json_value(f.type, "_v")
        return ToJson(f.json_name, f.py_name, cond, value, bind="inside")
    cond = either(present & ~tagged, tagged, differs("_v", f))
    if cond is None:
        return None
    # Written only when it differs from a null default: then it is not null.
    if may_be_null and not (f.default is None and (present & ~tagged).never):
        value = "None if _v is None else " + to_json_value(f.type, "_v")
    else:
        value = to_json_value(f.type, "_v")
    return ToJson(f.json_name, f.py_name, cond, value, bind="before")


def from_json_field(msg: MessageSpec, f: FieldSpec, have: list[int]) -> FromJson:
    # Mandatory where the field is present and not tagged; a tagged field may be left out.
    mandatory = VersionCond.of(have, lambda v: f.present(v) and not (msg.flexible(v) and f.tagged(v)))
    # Null is accepted where the field is nullable (and where null is its default, which means it
    # is nullable wherever it is present); elsewhere the converters refuse it.
    null_ok = VersionCond.of(have, lambda v: v in f.nullable_versions or f.default is None)
    if null_ok.never:
        null_test = ""
    elif null_ok.always:
        null_test = "_v is None"
    else:
        null_test = f"_v is None and {null_ok.text}"
    if mandatory.always:
        missing = "always"
    else:
        missing = "" if mandatory.never else mandatory.text
    return FromJson(f.json_name, f.py_name, from_json_value(f.type, "_v", f.json_name), missing, null_test)
