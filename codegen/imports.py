"""The import lines of a generated module, chosen from the names its code uses.

Every name generated code may take from elsewhere is listed once here with the statement that
provides it, in the order the statements are printed; a module gets the ones its printed code
names (found by parsing that code), so none is unused.
"""

from __future__ import annotations

import ast

# (local name, statement), in printing order: standard library, then this package (a blank line
# between the two groups).
STDLIB_IMPORTS = [
    ("_dataclass", "from dataclasses import dataclass as _dataclass"),
    ("_field", "from dataclasses import field as _field"),
    ("_Struct", "from struct import Struct as _Struct"),
    ("_StructError", "from struct import error as _StructError"),
    ("_pack", "from struct import pack as _pack"),
    ("_unpack_from", "from struct import unpack_from as _unpack_from"),
    ("TYPE_CHECKING", "from typing import TYPE_CHECKING"),
    ("ClassVar", "from typing import ClassVar"),
    ("TypeAlias", "from typing import TypeAlias"),
]
PACKAGE_IMPORTS = [
    ("_j", "from kafka_meta_proto import _json as _j"),
    ("_w", "from kafka_meta_proto import wire as _w"),
    ("_from_json", "from kafka_meta_proto._json import from_json as _from_json"),
    ("_to_json", "from kafka_meta_proto._json import to_json as _to_json"),
    ("DecodeError", "from kafka_meta_proto.errors import DecodeError"),
    ("EncodeError", "from kafka_meta_proto.errors import EncodeError"),
    ("UnsupportedVersionError", "from kafka_meta_proto.errors import UnsupportedVersionError"),
    ("_install", "from kafka_meta_proto.codec import install as _install"),
    ("_programs", "from kafka_meta_proto.layouts import programs as _programs"),
    ("_Message", "from kafka_meta_proto.message import Message as _Message"),
    ("_absent", "from kafka_meta_proto.message import absent_field_error as _absent"),
    ("_detached_state", "from kafka_meta_proto.message import detached_state as _detached_state"),
    ("_FieldInfo", "from kafka_meta_proto.schema_info import FieldInfo as _FieldInfo"),
    ("Uuid", "from kafka_meta_proto.uuid import Uuid"),
    ("_as_uuid", "from kafka_meta_proto.uuid import coerce as _as_uuid"),
    ("_as_uuids", "from kafka_meta_proto.uuid import coerce_list as _as_uuids"),
    ("_UuidLike", "from kafka_meta_proto.uuid import UuidLike as _UuidLike"),
    ("_UuidListLike", "from kafka_meta_proto.uuid import UuidListLike as _UuidListLike"),
    ("_BYTE", "from kafka_meta_proto.wire import BYTE as _BYTE"),
    ("_INT16", "from kafka_meta_proto.wire import INT16 as _INT16"),
    ("_INT32", "from kafka_meta_proto.wire import INT32 as _INT32"),
    ("_read_unknown", "from kafka_meta_proto.wire import read_unknown_tagged as _read_unknown"),
    ("_read_tag_header", "from kafka_meta_proto.wire import read_tag_header as _read_tag_header"),
    ("_uvarint", "from kafka_meta_proto.wire import read_uvarint as _uvarint"),
    ("_tagged_size", "from kafka_meta_proto.wire import tagged_section_size as _tagged_size"),
    ("_too_many", "from kafka_meta_proto.wire import too_many as _too_many"),
    ("_uvarint_bytes", "from kafka_meta_proto.wire import uvarint as _uvarint_bytes"),
    ("_uvarint_size", "from kafka_meta_proto.wire import uvarint_size as _uvarint_size"),
    ("_write_tagged", "from kafka_meta_proto.wire import write_tagged as _write_tagged"),
]

# Module-level aliases printed after the imports, each when the code uses it.
ALIASES = [
    ("_MISSING", "_MISSING = _j.MISSING"),
    ("_new", "_new = object.__new__"),
    ("_view", "_view = memoryview  # zero-copy fields are slices of the input"),
    ("_isascii", "_isascii = str.isascii  # sizers: refuses what is not a str, as encode does"),
]


def names_used(code: str) -> set[str]:
    """Every name the code reads (annotations included); a name only assigned to is not used."""
    return {n.id for n in ast.walk(ast.parse(code)) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def header_for(code: str) -> tuple[list[list[str]], list[str]]:
    """(groups of import statements, alias statements) that the code needs, in printing order."""
    used = names_used(code)
    aliases = [line for name, line in ALIASES if name in used]
    if aliases:
        used |= names_used("\n".join(aliases))
    groups = [[line for name, line in group if name in used] for group in (STDLIB_IMPORTS, PACKAGE_IMPORTS)]
    return [g for g in groups if g], aliases
