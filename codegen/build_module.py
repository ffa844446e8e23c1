"""The model of one generated module: the classes, the codecs of every struct, the tables."""

from __future__ import annotations

import json
import textwrap

from kafka_meta_proto.wire import SMALL_ARRAY

from .build_codec import CodecBuilder
from .constants import Constants
from .layout import children_first, is_zero_copy, message_layouts
from .model import Attribute, ClassDef, Module, StructCode
from .spec import FieldSpec, MessageSpec, StructSpec
from .values import (
    annotation,
    dataclass_default,
    docstring,
    escape_docstring,
    init_annotation,
    shown_default,
)
from .versions import Versions

# The unknown tagged fields every class keeps: its attribute, and its entry in the class docstring.
UNKNOWN_TAGGED = "unknown_tagged_fields: tuple[tuple[int, bytes], ...] = ()"
UNKNOWN_TAGGED_ABOUT = "Tagged fields this schema does not know, as (tag, raw bytes), kept to be written back."
DOC_WIDTH = 100  # the generated modules' line length, counted from the class's indentation


def module_model(msg: MessageSpec, source: str) -> Module:
    layouts = message_layouts(msg)
    classes = children_first(msg)  # every class exists before a parent names it
    constants = Constants()
    codecs = CodecBuilder(layouts, msg.name, constants)
    structs = [StructCode(codecs=codecs.codecs(s.name)) for s in classes]
    roots = layouts[msg.name]
    return Module(
        source=source,
        doc=module_doc(msg),
        names=[s.name for s in classes],
        classes=[class_def(msg, s, classes) for s in classes],
        constants=constants.items([s.name for s in classes]),
        structs=structs,
        field_infos=[(s.name, [field_info(f) for f in s.fields]) for s in classes],
        message=msg.name,
        tables=[
            ("_READERS", table("_read_", roots)),
            ("_WRITERS", table("_write_", roots)),
            ("_SIZERS", table("_size_", roots)),
            ("_TO_JSON", "_to_json"),  # Kafka's JSON form, from the tables (kafka_meta_proto._json)
            ("_FROM_JSON", f"_from_json({msg.name})"),
        ],
        small_array=SMALL_ARRAY,
    )


def module_doc(msg: MessageSpec) -> str:
    kind = ""
    if msg.api_key is not None:
        kind = f" ({'record type' if msg.type == 'metadata' else 'api key'} {msg.api_key})"
    return f"{msg.name}{kind}: versions {msg.valid_versions}, flexible {msg.flexible_versions}."


def class_def(msg: MessageSpec, s: StructSpec, classes: list[StructSpec]) -> ClassDef:
    is_message = s is msg.struct
    class_vars = []
    if is_message:
        flexible = msg.flexible_versions
        listeners = "(" + "".join(json.dumps(name) + ", " for name in msg.listeners) + ")"
        class_vars = [
            ("NAME", "str", f'"{msg.name}"'),
            ("MESSAGE_TYPE", "str", f'"{msg.type}"'),
            ("API_KEY", "int | None", str(msg.api_key)),
            ("LOWEST_VERSION", "int", str(msg.valid_versions.lowest)),
            ("HIGHEST_VERSION", "int", str(msg.valid_versions.highest)),
            ("LOWEST_FLEXIBLE_VERSION", "int | None", str(None if flexible.empty else flexible.lowest)),
            ("LISTENERS", "tuple[str, ...]", listeners),
            ("LATEST_VERSION_UNSTABLE", "bool", str(msg.latest_version_unstable)),
        ]
    return ClassDef(
        name=s.name,
        doc=class_doc(msg, s),
        is_message=is_message,
        class_vars=class_vars,
        struct_aliases=[n.name for n in classes if n is not s] if is_message else [],
        attributes=[
            Attribute(f.py_name, annotation(f), dataclass_default(f), docstring(f.about) if f.about else "")
            for f in s.fields
        ],
        zero_copy=[f.py_name for f in s.fields if not f.type.is_array and is_zero_copy(f)],
        uuids=[f.py_name for f in s.fields if f.type.name == "uuid"],
        uuid_lists=[f.py_name for f in s.fields if f.type.name == "[]uuid"],
        init_params=[(f.py_name, init_annotation(f)) for f in s.fields],
    )


def class_doc(msg: MessageSpec, s: StructSpec) -> str:
    """The class docstring: what the class is, then each constructor argument (every field) with
    its type, default, the versions it exists in (tagged and nullable ones too) and its about
    text, so that help() shows what the schema says. Lines after the first are indented for the
    class body; the text is escaped for a triple-quoted string."""
    if s is msg.struct:
        head = [module_doc(msg)] + ([docstring(s.about)] if s.about else [])
    else:
        head = [docstring(s.about) if s.about else f"The {s.name} struct of {msg.name}."]
    lines = []
    for i, paragraph in enumerate(head):
        lines += ([""] if i else []) + textwrap.wrap(paragraph, DOC_WIDTH - 4, break_on_hyphens=False)
    lines += ["", f"Keyword arguments, also the attributes (versions of {msg.name}):"]
    for f in s.fields:
        lines.append(f"{f.py_name}: {annotation(f)} = {escape_docstring(shown_default(f))}")
        about = " ".join(f.about.split())
        text = field_versions(f, msg.valid_versions) + (" " + about if about else "")
        lines += ["    " + line for line in textwrap.wrap(escape_docstring(text), DOC_WIDTH - 8, break_on_hyphens=False)]
    lines += [UNKNOWN_TAGGED, "    " + UNKNOWN_TAGGED_ABOUT]
    return "\n".join(("    " + line if line and n else line) for n, line in enumerate(lines)) + "\n    "


def field_versions(f: FieldSpec, valid: Versions) -> str:
    """"Versions 12-18, tagged (tag 0), nullable." and the like: the field's versions within the
    message's, and where it is tagged or nullable when that is not all of them."""

    def within(v: Versions) -> Versions:
        return v.intersect(valid)

    versions = within(f.versions)
    if versions.empty:
        parts = ["In no version"]
    else:
        parts = [f"{'Version' if versions.lowest == versions.highest else 'Versions'} {versions}"]
    tagged, nullable = within(f.tagged_versions), within(f.nullable_versions)
    if not tagged.empty:
        parts.append(f"tagged (tag {f.tag})" if tagged == versions else f"tagged in {tagged} (tag {f.tag})")
    if not nullable.empty:
        parts.append("nullable" if nullable == versions else f"nullable in {nullable}")
    if f.type.name == "uuid":
        parts.append("also takes Kafka's text form or a uuid.UUID")
    elif f.type.name == "[]uuid":
        parts.append("its elements may also be Kafka's text form or uuid.UUIDs")
    return ", ".join(parts) + "."


def field_info(f: FieldSpec) -> str:
    """The field's FieldInfo: name, JSON name, type and versions, then the facts that are not
    their defaults (kafka_meta_proto.schema_info), by keyword."""

    def span(v) -> str:
        return "None" if v.empty else f"({v.lowest}, {v.highest})"

    args = [f'"{f.py_name}"', f'"{f.json_name}"', f'"{f.type}"', span(f.versions)]
    facts = {
        "nullable": span(f.nullable_versions),
        "tagged": span(f.tagged_versions),
        "tag": str(f.tag),
        "ignorable": str(f.ignorable),
        "struct": f.type.struct_name or "None",
        # the field's own flexible versions, for its lengths (kafka_meta_proto.layouts)
        "flexible": "None" if f.flexible_versions is None else span(f.flexible_versions).replace("None", "()"),
        "zero_copy": str(not f.type.is_array and is_zero_copy(f)),
    }
    args += [f"{name}={value}" for name, value in facts.items() if value not in ("None", "False")]
    return "_FieldInfo(" + ", ".join(args) + ")"


def table(prefix: str, roots) -> str:
    return "{" + ", ".join(f"{sv.version}: {prefix}{sv.suffix}" for sv in roots) + "}"
