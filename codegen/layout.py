"""Wire layout: what a struct looks like on the wire at one version.

The planner resolves every version-dependent fact (present or not, tagged or not, compact or
legacy lengths, nullable or not) so the templates emit straight-line code with no version checks.
Consecutive fixed-width fields become one precompiled ``struct.Struct``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .spec import EMPTY_STRUCT, FIXED_WIDTH, FieldSpec, MessageSpec, StructSpec

# Names the generated functions use for their own scratch variables; a field whose snake_case
# name is one of these gets a trailing underscore as its local variable.
SCRATCH = {"buf", "pos", "out", "o", "d", "version", "tags", "unknown"}


@dataclass
class Wire:
    """One field as it is written at one version."""

    spec: FieldSpec
    kind: str  # fixed | string | bytes | array | struct
    compact: bool
    nullable: bool
    elem: str = ""  # for arrays: fixed | uuid | string | bytes | struct
    fmt: str = ""  # struct format of a fixed field or fixed array element
    width: int = 0
    ref: str = ""  # the nested struct's per-version function suffix (e.g. "Topic_v3")
    # A tagged field: a nullable struct there starts with an unsigned varint, 0 for null (Kafka's
    # generator), where an untagged one starts with the byte -1 for null.
    tagged: bool = False

    @property
    def attr(self) -> str:
        return self.spec.py_name

    @property
    def var(self) -> str:
        name = self.spec.py_name
        return name + "_" if name in SCRATCH else name

    @property
    def name(self) -> str:
        return self.spec.py_name

    @property
    def tag(self) -> int | None:
        return self.spec.tag

    @property
    def is_uuid(self) -> bool:
        return self.spec.type.name == "uuid"

    @property
    def is_bool(self) -> bool:
        return self.spec.type.name == "bool"

    @property
    def zero_copy(self) -> bool:
        """Decoded as a memoryview slice of the input instead of a copy, as Kafka hands out a
        slice of its buffer: ``records`` fields and bytes fields marked ``zeroCopy``."""
        return self.kind == "bytes" and is_zero_copy(self.spec)


@dataclass
class Run:
    """Consecutive fixed-width fields read and written with one precompiled Struct."""

    fields: list[Wire]

    @property
    def fmt(self) -> str:
        return ">" + "".join(w.fmt for w in self.fields)

    @property
    def width(self) -> int:
        return sum(w.width for w in self.fields)

    @property
    def names(self) -> str:
        return ", ".join(w.name for w in self.fields)


@dataclass
class StructVersion:
    """A struct at one version: the steps in wire order, its tagged fields and what it lacks."""

    struct: StructSpec
    version: int
    flexible: bool
    steps: list = field(default_factory=list)  # Run | Wire
    tagged: list[Wire] = field(default_factory=list)
    absent: list[FieldSpec] = field(default_factory=list)
    suffix: str = ""  # shared function suffix after de-duplication, e.g. "Topic_v3"

    @property
    def owns_layout(self) -> bool:
        """The first version with this wire layout, which its functions and program are named after."""
        return self.suffix == f"{self.struct.name}_v{self.version}"

    @property
    def fields(self) -> list[FieldSpec]:
        return self.struct.fields

    @property
    def struct_array_loops(self) -> bool:
        return any(isinstance(s, Wire) and s.kind == "array" and s.elem == "struct" for s in self.steps)


def wire(f: FieldSpec, version: int, flexible: bool, tagged: bool, refs: dict) -> Wire:
    """Resolve a field at a version."""
    t = f.type
    if tagged:
        compact = True
    elif f.flexible_versions is not None:
        compact = version in f.flexible_versions
    else:
        compact = flexible
    w = Wire(f, kind="", compact=compact, nullable=f.nullable(version), tagged=tagged)
    if t.is_array:
        w.kind = "array"
        e = t.element.name
        if t.element.is_struct:
            w.elem, w.ref = "struct", refs[(e, version)]
        elif e == "uuid":
            w.elem, w.width = "uuid", 16
        elif e in FIXED_WIDTH:
            w.elem = "fixed"
            w.fmt, w.width = FIXED_WIDTH[e]
        elif e == "string":
            w.elem = "string"
        else:
            w.elem = "bytes"
    elif t.is_struct:
        w.kind, w.ref = "struct", refs[(t.name, version)]
    elif t.name == "string":
        w.kind = "string"
    elif t.name in ("bytes", "records"):
        w.kind = "bytes"
    else:
        w.kind = "fixed"
        w.fmt, w.width = FIXED_WIDTH[t.name]
    return w


def struct_version(s: StructSpec, version: int, flexible: bool, refs: dict) -> StructVersion:
    sv = StructVersion(s, version, flexible)
    run: list[Wire] = []
    for f in s.fields:
        if not f.present(version):
            sv.absent.append(f)
            continue
        is_tagged = flexible and f.tagged(version)
        w = wire(f, version, flexible, is_tagged, refs)
        if is_tagged:
            sv.tagged.append(w)
        elif w.kind == "fixed":
            run.append(w)
        else:
            if run:
                sv.steps.append(Run(run))
                run = []
            sv.steps.append(w)
    if run:
        sv.steps.append(Run(run))
    sv.tagged.sort(key=lambda w: w.spec.tag)
    return sv


def message_layouts(msg: MessageSpec) -> dict[str, list[StructVersion]]:
    """Every struct of the message at every version it has, children before parents.

    A nested struct exists at the versions of the field that holds it; a common struct at the
    message versions that use it.
    """
    used: dict[str, set[int]] = {}

    def visit(s: StructSpec, versions: set[int]) -> None:
        used.setdefault(s.name, set()).update(versions)
        for f in s.fields:
            if f.struct is not None:
                visit(f.struct, {v for v in versions if f.present(v)})

    visit(msg.struct, set(msg.versions))
    refs: dict[tuple[str, int], str] = {}
    result: dict[str, list[StructVersion]] = {}
    for s in children_first(msg):  # so parents can name their children's functions
        svs = []
        for v in sorted(used.get(s.name, ())):
            sv = struct_version(s, v, msg.flexible(v), refs)
            svs.append(sv)
        result[s.name] = svs
        _share_identical(s.name, svs, refs)
    return result


def distinct_layouts(svs: list[StructVersion]) -> list[StructVersion]:
    """One struct version per distinct layout, in version order. The Python codecs and the
    compiled codec's programs are both emitted from this list, so they always group alike."""
    return [sv for sv in svs if sv.owns_layout]


def children_first(msg: MessageSpec) -> list[StructSpec]:
    """Every struct reachable from the message, each after all the structs it holds."""
    order: list[StructSpec] = []
    seen: set[str] = set()

    def visit(s: StructSpec) -> None:
        if s.name in seen:
            return
        seen.add(s.name)
        for f in s.fields:
            if f.struct is not None:
                visit(f.struct)
        order.append(s)

    visit(msg.struct)
    return order


def _share_identical(name: str, svs: list[StructVersion], refs: dict) -> None:
    """Versions with the same wire layout share one set of functions (named after the first)."""
    seen: dict[tuple, str] = {}
    for sv in svs:
        key = _layout_key(sv)
        if key not in seen:
            seen[key] = f"{name}_v{sv.version}"
        sv.suffix = seen[key]
        refs[(name, sv.version)] = sv.suffix


def _layout_key(sv: StructVersion) -> tuple:
    def one(w: Wire) -> tuple:
        return (w.spec.name, w.kind, w.compact, w.nullable, w.elem, w.fmt, w.ref, w.spec.tag, w.zero_copy, w.tagged)

    steps = tuple(tuple(one(w) for w in s.fields) if isinstance(s, Run) else one(s) for s in sv.steps)
    tagged = tuple(one(w) for w in sv.tagged)
    return (sv.flexible, steps, tagged, tuple(f.name for f in sv.absent))


def is_zero_copy(f: FieldSpec) -> bool:
    return f.zero_copy or f.type.name == "records"


def default_is_empty_struct(f: FieldSpec) -> bool:
    return f.default is EMPTY_STRUCT
