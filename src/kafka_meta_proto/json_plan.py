"""The compiled codec's plans of Kafka's JSON form: one struct at one version, as plain data.

A plan is ``(class, fields)``, a field ``(json name, attribute, kind, when_differs, default,
child plan)`` in the struct's declaration order, which is the order of the JSON keys. It holds
the same rules as the generated ``_to_json_*`` functions (codegen/build_json.py), read from the
classes' field tables (``_FIELDS``) at the one version, so no condition is left to test:

- a field is written in the versions that have it;
- a field that is tagged at the version is written only when it differs from its default (the
  class's own default, taken from a fresh instance);
- kind: ``v`` the value itself, ``u`` a uuid's text, ``y`` base64 of bytes or records, ``S`` a
  struct (its child plan), ``[`` followed by the element's kind for arrays.

``_codec_json.c`` compiles each plan the first time a message of that class is written at that
version; the differential tests hold it to the generated functions for every message and version.
"""

from __future__ import annotations

from typing import Any

_PLAIN = "v"
_KINDS = {"uuid": "u", "bytes": "y", "records": "y"}


def _kind(type_name: str, is_struct: bool) -> str:
    return "S" if is_struct else _KINDS.get(type_name, _PLAIN)


def program(cls: Any, version: int) -> tuple[Any, tuple[tuple[Any, ...], ...]]:
    """The plan of ``cls`` (a message or struct class) at ``version``."""
    defaults = None
    fields = []
    for info in cls._FIELDS:
        if not info.present(version):
            continue
        kind = _kind(info.element_type, info.struct is not None)
        if info.is_array:
            kind = "[" + kind
        when_differs = info.tag is not None and info.is_tagged(version)
        default = None
        if when_differs:
            defaults = defaults if defaults is not None else cls()
            default = getattr(defaults, info.name)
        child = program(info.struct, version) if info.struct is not None else None
        fields.append((info.json_name, info.name, kind, when_differs, default, child))
    return cls, tuple(fields)
