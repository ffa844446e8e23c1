"""Python expressions for field values: defaults, comparisons with them, annotations, docstrings."""

from __future__ import annotations

from .layout import Wire, is_zero_copy
from .spec import EMPTY_STRUCT, FieldSpec

PY_TYPES = {
    "bool": "bool", "int8": "int", "int16": "int", "uint16": "int", "int32": "int", "uint32": "int",
    "int64": "int", "float64": "float", "string": "str", "bytes": "bytes", "records": "bytes",
    "uuid": "Uuid",
}  # fmt: skip


def default_expr(f: FieldSpec) -> str:
    """A Python expression equal to the field's default (a new object when mutable)."""
    d = f.default
    t = f.type
    if d is None:
        return "None"
    if t.is_array:
        return "[]"
    if d is EMPTY_STRUCT:
        return f"{t.name}()"
    if t.name == "uuid":
        return "Uuid.ZERO_UUID" if d == bytes(16) else f"Uuid({d!r})"
    if t.name == "float64":
        return f'float("{d!r}")' if d != d or d in (float("inf"), float("-inf")) else repr(d)
    return repr(d)


def empty_struct_constant(f: FieldSpec) -> str | None:
    """The module constant a struct default is compared with (one shared empty instance, made once
    per module), or None when the default is not an empty struct."""
    return f"_EMPTY_{f.type.name}" if f.default is EMPTY_STRUCT else None


def differs(var: str, f: FieldSpec) -> str:
    """A condition equal to ``var != <f's default>``.

    ``is not None`` for a null default (the same truth for every value a field holds: none of them
    equals None). An empty-list default is tested without building a list. A struct default is
    compared field by field, as the dataclass __eq__ would, instead of building two tuples (this
    runs for every absent tagged struct field of every object written)."""
    if f.default is None:
        return f"{var} is not None"
    if f.type.is_array:
        # the same truth as ``var != []`` (None, a tuple or a non-empty list): 25 ns instead of 54
        return f"({var}.__class__ is not list or {var})"
    constant = empty_struct_constant(f)
    if constant is None:
        return f"{var} != {default_expr(f)}"
    if f.struct is None:
        return f"{var} != {constant}"
    terms = [f"{var}.__class__ is not {f.type.name}"]
    for g in f.struct.fields:
        if g.default is EMPTY_STRUCT or g.type.name == "float64":
            return f"{var} != {constant}"
        terms.append(f"{var}.{g.py_name} != {default_expr(g)}")
    terms.append(f"{var}.unknown_tagged_fields != ()")
    return "(" + " or ".join(terms) + ")"


def dataclass_default(f: FieldSpec) -> str:
    if f.default is None:
        return "None"
    if f.type.is_array:
        return "_field(default_factory=list)"
    if f.default is EMPTY_STRUCT:
        return f"_field(default_factory={f.type.name})"
    return default_expr(f)


def annotation(f: FieldSpec) -> str:
    t = f.type
    if t.is_array:
        e = t.element
        base = f"list[{e.name if e.is_struct else PY_TYPES[e.name]}]"
    elif t.is_struct:
        base = t.name
    else:
        base = PY_TYPES[t.name] + (" | memoryview" if is_zero_copy(f) else "")
    nullable = not f.nullable_versions.empty or f.default is None
    return f"{base} | None" if nullable else base


def shown_default(f: FieldSpec) -> str:
    """The field's default as the class docstring shows it (a new list or struct for each object)."""
    if f.default is None:
        return "None"
    if f.type.is_array:
        return "[]"
    text = default_expr(f)
    if isinstance(f.default, str) and text.startswith("'") and '"' not in text:
        text = '"' + text[1:-1] + '"'  # as the code below it writes strings
    return text


def init_annotation(f: FieldSpec) -> str:
    """The constructor's annotation of the field: what __init__ accepts, wider than the attribute's
    for uuid fields (Kafka's text form and uuid.UUID are made Uuids by __post_init__)."""
    nullable = " | None" if not f.nullable_versions.empty or f.default is None else ""
    if f.type.name == "uuid":
        return "_UuidLike" + nullable
    if f.type.name == "[]uuid":
        return "_UuidListLike" + nullable
    return annotation(f)


def fresh_default(f: FieldSpec, target: str) -> list[str]:
    """Statements that store a new default value in target while decoding: an empty struct is
    built as a decoded one is (object.__new__, slots set, no __init__ call)."""
    s = f.struct
    if f.default is EMPTY_STRUCT and s is not None and all(g.default is not EMPTY_STRUCT for g in s.fields):
        d = "_d_" + f.type.name  # one local per struct type: mypy gives each local one type
        lines = [f"{d} = _new({f.type.name})"]
        lines += [f"{d}.{g.py_name} = {default_expr(g)}" for g in s.fields]
        return lines + [f"{d}.unknown_tagged_fields = ()", f"{target} = {d}"]
    return [f"{target} = {default_expr(f)}"]


def error_path(w: Wire) -> str:
    """The field's name in a DecodeError path; "[]" marks an array of structs (index to come)."""
    return w.name + ("[]" if w.kind == "array" and w.elem == "struct" else "")


def escape_docstring(text: str) -> str:
    """Text that prints as itself inside a triple-quoted docstring."""
    return text.replace("\\", "\\\\").replace('"""', '\\"\\"\\"')


def docstring(text: str) -> str:
    """Text for a one-line docstring: whitespace folded, backslashes and triple quotes escaped."""
    return escape_docstring(" ".join(text.split())).strip() or "-"
