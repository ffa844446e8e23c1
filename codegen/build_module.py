"""The model of one generated module: the classes, the codecs of every struct, the tables."""

from __future__ import annotations

import json

from kafka_meta_proto.wire import SMALL_ARRAY

from . import build_program
from .build_codec import CodecBuilder
from .build_json import json_codec
from .constants import Constants
from .layout import children_first, is_zero_copy, message_layouts
from .model import Attribute, ClassDef, Module, StructCode
from .spec import FieldSpec, MessageSpec, StructSpec
from .values import annotation, dataclass_default, docstring


def module_model(msg: MessageSpec, source: str) -> Module:
    layouts = message_layouts(msg)
    classes = children_first(msg)  # every class exists before a parent names it
    constants = Constants()
    codecs = CodecBuilder(layouts, msg.name, constants)
    structs = []
    for s in classes:
        have = [sv.version for sv in layouts[s.name]]
        structs.append(
            StructCode(
                codecs=codecs.codecs(s.name),
                json=json_codec(msg, s, have, codecs.differs) if have else None,
            )
        )
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
            ("_TO_JSON", f"_to_json_{msg.name}"),
            ("_FROM_JSON", f"_from_json_{msg.name}"),
        ],
        small_array=SMALL_ARRAY,
        programs=build_program.programs(layouts),
        program_table=build_program.version_table(roots),
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
    about = s.about or (f"{msg.name} message." if is_message else f"The {s.name} struct.")
    return ClassDef(
        name=s.name,
        doc=docstring(about),
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
    )


def field_info(f: FieldSpec) -> str:
    """The field's FieldInfo; the last argument is the class of its struct or struct elements."""

    def span(v) -> str:
        return "None" if v.empty else f"({v.lowest}, {v.highest})"

    args = [
        f'"{f.py_name}"', f'"{f.json_name}"', f'"{f.type}"', span(f.versions), span(f.nullable_versions),
        span(f.tagged_versions), str(f.tag), str(f.ignorable), f.type.struct_name or "None",
    ]  # fmt: skip
    return "_FieldInfo(" + ", ".join(args) + ")"


def table(prefix: str, roots) -> str:
    return "{" + ", ".join(f"{sv.version}: {prefix}{sv.suffix}" for sv in roots) + "}"
