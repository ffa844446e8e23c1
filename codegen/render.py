"""Render a validated message spec to Python source through the jinja2 templates, then black."""

from __future__ import annotations

from pathlib import Path

import black
import jinja2

from kafka_meta_proto.wire import SMALL_ARRAY  # arrays shorter than this use precompiled Structs

from .layout import Run, StructVersion, Wire, children_first, is_zero_copy, message_layouts
from .spec import EMPTY_STRUCT, FieldSpec, MessageSpec, StructSpec, Versions, snake_case

TEMPLATES = Path(__file__).parent / "templates"
BLACK_MODE = black.Mode(line_length=100, target_versions={black.TargetVersion.PY310})
PY_TYPES = {
    "bool": "bool", "int8": "int", "int16": "int", "uint16": "int", "int32": "int", "uint32": "int",
    "int64": "int", "float64": "float", "string": "str", "bytes": "bytes", "records": "bytes",
    "uuid": "Uuid",
}  # fmt: skip
_CODE_NAMES = {"?": "bool"}  # struct codes in module constant names (_A_bool...)


def module_name(msg: MessageSpec) -> str:
    return snake_case(msg.name)


def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(TEMPLATES)),
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        undefined=jinja2.StrictUndefined,
        autoescape=False,
    )
    return env


_ENV = None


def environment() -> jinja2.Environment:
    global _ENV
    if _ENV is None:
        _ENV = _environment()
    return _ENV


def default_expr(f: FieldSpec, fresh: bool = False) -> str:
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


def compare_default(f: FieldSpec) -> str:
    """default_expr for comparisons: a struct default is one shared empty instance (made once per
    module), not a new object per comparison."""
    if f.default is EMPTY_STRUCT:
        return f"_EMPTY_{f.type.name}"
    return default_expr(f)


def differs(var: str, f: FieldSpec) -> str:
    """A condition equal to ``var != <f's default>``. For a struct default it compares field by
    field, as the dataclass __eq__ would, instead of building two tuples (cheaper, and this runs
    for every absent tagged struct field of every object written)."""
    if f.type.is_array and compare_default(f) == "[]":
        # the same truth as ``var != []`` (None, a tuple or a non-empty list), without building
        # a list per test: 25 ns instead of 54
        return f"({var}.__class__ is not list or {var})"
    if f.default is not EMPTY_STRUCT or f.struct is None:
        return f"{var} != {compare_default(f)}"
    terms = [f"{var}.__class__ is not {f.type.name}"]
    for g in f.struct.fields:
        if g.default is EMPTY_STRUCT or g.type.name == "float64":
            return f"{var} != {compare_default(f)}"
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


def w_path(w: Wire) -> str:
    """The field's name in a DecodeError path; "[]" marks an array of structs (index to come)."""
    return w.name + ("[]" if w.kind == "array" and w.elem == "struct" else "")


def _doc(text: str) -> str:
    return " ".join(text.split()).replace("\\", "\\\\").replace('"""', '\\"\\"\\"').strip() or "-"


class _Renderer:
    def __init__(self, msg: MessageSpec, source: str):
        self.msg = msg
        self.source = source
        self.layouts = message_layouts(msg)
        self.constants: list[tuple[str, str]] = []
        formats: dict[str, str] = {}
        for svs in self.layouts.values():
            for sv in svs:
                for step in sv.steps:
                    if isinstance(step, Run):
                        if step.fmt not in formats:
                            formats[step.fmt] = f"_S{len(formats)}"
                            self.constants.append((formats[step.fmt], step.fmt))
                        step.const = formats[step.fmt]
        # Precompiled array Structs, by (length prefix, element code): "" for reading, "B" (one
        # compact length byte) or "i" (a legacy count) for writing.
        self.array_constants: dict[tuple[str, str], str] = {}
        for svs in self.layouts.values():
            for sv in svs:
                for w in [s for s in sv.steps if isinstance(s, Wire)] + sv.tagged:
                    if w.kind == "array" and w.elem == "fixed":
                        for prefix in ("", "B" if w.compact else "i"):
                            self.array_const(prefix, w)

        # Which function shapes each layout needs: the one-object functions (_read_X, _write_X,
        # _size_X) for the message itself, struct fields and tagged struct arrays, and the list
        # functions (_readn_X...) for untagged struct arrays, which loop inside one call.
        self.single: set[str] = {sv.suffix for sv in self.layouts[msg.name]}
        self.lists: set[str] = set()
        for svs in self.layouts.values():
            for sv in svs:
                for w in [s for s in sv.steps if isinstance(s, Wire)]:
                    if w.kind == "array" and w.elem == "struct":
                        self.lists.add(w.ref)
                    elif w.kind == "struct":
                        self.single.add(w.ref)
                for w in sv.tagged:
                    if w.kind == "struct" or (w.kind == "array" and w.elem == "struct"):
                        (self.lists if w.kind == "array" else self.single).add(w.ref)

    @staticmethod
    def retry_table(sv: StructVersion) -> str:
        """The fixed-width arrays of a layout, as wire.read_fixed_array's arguments by field path:
        their inline reads have no bounds check, so the error handler reads them again carefully."""
        items = [
            f'"{w.name}": ("{w.fmt}", {w.width}, {w.compact}, {w.nullable})'
            for w in [s for s in sv.steps if isinstance(s, Wire)] + sv.tagged
            if w.kind == "array" and w.elem == "fixed"
        ]
        return "{" + ", ".join(items) + "}" if items else ""

    def array_const(self, prefix: str, w: Wire) -> str:
        key = (prefix, w.fmt)
        name = self.array_constants.get(key)
        if name is None:
            name = self.array_constants[key] = f"_A{prefix}_{_CODE_NAMES.get(w.fmt, w.fmt)}"
        return name

    def version_condition(self, versions: Versions, layouts, untagged_of: FieldSpec | None = None) -> str:
        """A condition on ``version`` that holds exactly for the versions of interest among the
        versions this struct exists at."""
        have = [sv.version for sv in layouts]
        wanted = [v for v in have if v in versions]
        if untagged_of is not None:
            wanted = [v for v in wanted if not (self.msg.flexible(v) and untagged_of.tagged(v))]
        if not wanted:
            return "False"
        if wanted == have:
            return "True"
        lo, hi = wanted[0], wanted[-1]
        if wanted != [v for v in have if lo <= v <= hi]:
            return f"version in {tuple(wanted)!r}"
        if hi == have[-1]:
            return f"version >= {lo}"
        if lo == have[0]:
            return f"version <= {hi}"
        return f"{lo} <= version <= {hi}"

    def classes(self) -> list[StructSpec]:
        """Children first, so every class exists before a parent names it."""
        return children_first(self.msg)

    def render(self) -> str:
        msg = self.msg
        layouts = self.layouts
        root_versions = layouts[msg.name]

        def table(prefix: str) -> str:
            items = ", ".join(f"{sv.version}: {prefix}{sv.suffix}" for sv in root_versions)
            return "{" + items + "}"

        def unique_layouts(s: StructSpec):
            return [sv for sv in layouts[s.name] if sv.suffix == f"{s.name}_v{sv.version}"]

        template = environment().get_template("module.j2")
        classes = self.classes()
        text = template.render(
            msg=msg,
            source=self.source,
            classes=classes,
            nested=[s for s in classes if s is not msg.struct],
            layouts=layouts,
            constants=self.constants,
            array_constants=[(name, prefix, code) for (prefix, code), name in sorted(self.array_constants.items())],
            array_const=self.array_const,
            small_array=SMALL_ARRAY,
            absent_fields=lambda sv: sv.absent,
            single_readers=self.single,
            retry_table=self.retry_table,
            retry_args=lambda sv: f", buf, _R_{sv.suffix}" if self.retry_table(sv) else "",
            list_readers=self.lists,
            unique_layouts=unique_layouts,
            table=table,
            annotation=annotation,
            dataclass_default=dataclass_default,
            default_expr=default_expr,
            compare_default=compare_default,
            differs=differs,
            empty_struct=EMPTY_STRUCT,
            zero_copy_fields=lambda s: [f.py_name for f in s.fields if not f.type.is_array and is_zero_copy(f)],
            zero_copy=any(is_zero_copy(f) and not f.type.is_array for c in classes for f in c.fields),
            empty_structs=sorted({f.type.name for c in classes for f in c.fields if f.default is EMPTY_STRUCT}),
            doc=lambda s: _doc(s.about or (f"{msg.name} message." if s is msg.struct else f"The {s.name} struct.")),
            field_doc=lambda f: _doc(f.about),
            first_name=lambda sv: (sv.steps[0].fields[0].name if isinstance(sv.steps[0], Run) else w_path(sv.steps[0])) if sv.steps else "<tagged fields>",
            w_path=w_path,
            run_targets=lambda step: "(" + ", ".join("_raw_" + w.attr if w.is_uuid else "o." + w.attr for w in step.fields) + ("," if len(step.fields) == 1 else "") + ")",
            run_values=lambda step: ", ".join(f"o.{w.attr}" + (".bytes" if w.is_uuid else "") for w in step.fields),
            class_of=lambda sv: sv.struct.name,
            fixed_width=lambda sv: sum(s.width for s in sv.steps if isinstance(s, Run)),
            uvarint_len=lambda n: 1 if n < 0x80 else (2 if n < 0x4000 else 3),
            version_condition=self.version_condition,
            range_of=lambda v: None if v.empty else (v.lowest, v.highest),
        )  # fmt: skip
        return text


def render_message(msg: MessageSpec, source: str) -> str:
    """The formatted Python module for one message."""
    return format_source(_Renderer(msg, source).render())


def format_source(text: str) -> str:
    return black.format_str(text, mode=BLACK_MODE)


def render_package_init(package: str, specs: list[MessageSpec], sources: dict[str, str]) -> str:
    template = environment().get_template("package_init.j2")
    return format_source(
        template.render(
            package=package,
            specs=specs,
            module_name=module_name,
        )
    )
