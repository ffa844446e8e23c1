"""The compiled codec's part of the model: each struct layout as a small program of field steps.

The C extension (src/kafka_meta_proto/_codec.c) interprets these tuples; they are plain data
printed into every generated module, so a schema change needs no rebuild of the extension. The
steps come from the same layout (codegen/layout.py) as the Python codecs, in the same wire order.

One layout's program: ``(class, flexible, steps, tagged, absent)``

- step: ``(attribute, kind, compact, nullable, child)``
- tagged field: ``(tag, attribute, kind, compact, nullable, child, default)``
- absent field: ``(attribute, default, checked)``: the default a decoded object gets, and whether
  encoding refuses another value (False for ignorable fields)

kind: a struct format code for fixed-width values (``?bhHiIqd``), ``u`` a uuid, ``s`` a string,
``y`` bytes, ``z`` bytes decoded as a slice of the input, ``S`` a struct (child is its program),
``[`` followed by the element's kind for arrays. A default that is a class (``list`` or a struct
class) means "call it for a fresh value"; anything else is the value itself.
"""

from __future__ import annotations

from . import layout
from .spec import FieldSpec
from .values import default_expr

# Struct format codes of fixed-width fields; uuid's "16s" is read as a Uuid.
_FIXED_KIND = {"?": "?", "b": "b", "h": "h", "H": "H", "i": "i", "I": "I", "q": "q", "d": "d", "16s": "u"}


def kind(w: layout.Wire) -> str:
    if w.kind == "fixed":
        return _FIXED_KIND[w.fmt]
    if w.kind == "string":
        return "s"
    if w.kind == "bytes":
        return "z" if w.zero_copy else "y"
    if w.kind == "struct":
        return "S"
    elem = {"fixed": _FIXED_KIND.get(w.fmt, ""), "uuid": "u", "string": "s", "bytes": "y", "struct": "S"}[w.elem]
    return "[" + elem


def program_name(suffix: str) -> str:
    return f"_P_{suffix}"


def default_value(f: FieldSpec) -> str:
    """The default as the program holds it: a class to call for mutable ones, else the value."""
    if f.default is not None and f.type.is_array:
        return "list"
    expr = default_expr(f)
    if expr.endswith("()") and f.struct is not None:
        return expr[:-2]
    return expr


def _child(w: layout.Wire) -> str:
    return program_name(w.ref) if w.ref else "None"


def step(w: layout.Wire) -> str:
    return f'("{w.attr}", "{kind(w)}", {w.compact}, {w.nullable}, {_child(w)})'


def tagged_step(w: layout.Wire) -> str:
    return f'({w.tag}, "{w.attr}", "{kind(w)}", {w.compact}, {w.nullable}, {_child(w)}, {default_value(w.spec)})'


def absent_step(f: FieldSpec) -> str:
    return f'("{f.py_name}", {default_value(f)}, {not f.ignorable})'


def _tuple(items: list[str]) -> str:
    return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")"


def program(sv: layout.StructVersion) -> str:
    steps: list[str] = []
    for s in sv.steps:
        if isinstance(s, layout.Run):
            steps += [step(w) for w in s.fields]
        else:
            steps.append(step(s))
    return (
        f"({sv.struct.name}, {sv.flexible}, {_tuple(steps)}, {_tuple([tagged_step(w) for w in sv.tagged])}, "
        f"{_tuple([absent_step(f) for f in sv.absent])})"
    )


def programs(layouts: dict[str, list[layout.StructVersion]]) -> list[tuple[str, str]]:
    """(name, program) for every distinct layout, children before their parents: the same
    grouping as the Python codecs, so versions sharing a layout share one program object."""
    return [
        (program_name(sv.suffix), program(sv))
        for svs in layouts.values()  # message_layouts orders the structs children first
        for sv in layout.distinct_layouts(svs)
    ]


def version_table(roots: list[layout.StructVersion]) -> str:
    return "{" + ", ".join(f"{sv.version}: {program_name(sv.suffix)}" for sv in roots) + "}"
