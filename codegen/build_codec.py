"""The binary codec part of the model: a reader, writer and sizer per wire layout of a struct."""

from __future__ import annotations

from . import layout
from .constants import Constants
from .model import Codec, FieldStep, RunStep
from .values import differs, empty_struct_constant, error_path, fresh_default


def uvarint_len(n: int) -> int:
    return 1 if n < 0x80 else (2 if n < 0x4000 else 3)


class CodecBuilder:
    def __init__(self, layouts: dict[str, list[layout.StructVersion]], root: str, constants: Constants):
        self.layouts = layouts
        self.constants = constants
        # Which function shapes each layout needs: single-object functions (_read_X...) for the
        # message itself and struct fields; list functions (_readn_X...), which loop inside one
        # call, for struct arrays.
        self.single: set[str] = {sv.suffix for sv in layouts[root]}
        self.many: set[str] = set()
        for svs in layouts.values():
            for sv in svs:
                for w in sv.steps:
                    if isinstance(w, layout.Wire) and w.kind == "array" and w.elem == "struct":
                        self.many.add(w.ref)
                    elif isinstance(w, layout.Wire) and w.kind == "struct":
                        self.single.add(w.ref)
                for w in sv.tagged:
                    if w.kind == "array" and w.elem == "struct":
                        self.many.add(w.ref)
                    elif w.kind == "struct":
                        self.single.add(w.ref)

    def differs(self, var: str, f) -> str:
        constant = empty_struct_constant(f)
        text = differs(var, f)
        if constant is not None and constant in text:
            self.constants.empty(f.type.name)
        return text

    def codecs(self, struct_name: str) -> list[Codec]:
        """One codec per distinct layout (the versions sharing it use the first one's)."""
        return [self.codec(sv) for sv in layout.distinct_layouts(self.layouts[struct_name])]

    def codec(self, sv: layout.StructVersion) -> Codec:
        steps = [self.run(s) if isinstance(s, layout.Run) else self.field(s) for s in sv.steps]
        tagged = [self.tagged_field(w) for w in sv.tagged]
        fixed_arrays = [w for w in [s for s in sv.steps if isinstance(s, layout.Wire)] + sv.tagged
                        if w.kind == "array" and w.elem == "fixed"]  # fmt: skip
        retry = ""
        if fixed_arrays:
            items = ", ".join(f'"{w.name}": ("{w.fmt}", {w.width}, {w.compact}, {w.nullable})' for w in fixed_arrays)
            retry = f", buf, {self.constants.retry('{' + items + '}')}"
        if not steps:
            first_path = "<tagged fields>"
        else:
            first_path = steps[0].path
        return Codec(
            suffix=sv.suffix,
            cls=sv.struct.name,
            single=sv.suffix in self.single,
            many=sv.suffix in self.many,
            flexible=sv.flexible,
            steps=steps,
            tagged=tagged,
            absent=[(self.differs("o." + f.py_name, f), f.py_name) for f in sv.absent if not f.ignorable],
            tag_defaults=[fresh_default(w.spec, "o." + w.attr) for w in sv.tagged] if sv.flexible else [],
            absent_defaults=[fresh_default(f, "o." + f.py_name) for f in sv.absent],
            first_path=first_path,
            can_fail=bool(steps) or sv.flexible,
            nested=", nested=True" if sv.struct_array_loops else "",
            retry=retry,
            fixed_size=sum(s.width for s in steps if isinstance(s, RunStep)) + (1 if sv.flexible else 0),
            known_tag_count="".join(f" + (1 if {self.differs('o.' + w.attr, w.spec)} else 0)" for w in sv.tagged),
        )

    def run(self, run: layout.Run) -> RunStep:
        fields = run.fields
        targets = ", ".join("_raw_" + w.attr if w.is_uuid else "o." + w.attr for w in fields)
        return RunStep(
            path=fields[0].name,
            struct=self.constants.struct(run.fmt),
            width=run.width,
            targets=f"({targets},)" if len(fields) == 1 else targets,
            values=", ".join(f"o.{w.attr}" + (".bytes" if w.is_uuid else "") for w in fields),
            uuids=[w.attr for w in fields if w.is_uuid],
            can_refuse=any(w.fmt != "?" for w in fields),
        )

    def field(self, w: layout.Wire, can_be_null: bool = True) -> FieldStep:
        step = FieldStep(w=w, path=error_path(w), attr=w.attr)
        if w.kind != "fixed" and can_be_null:
            step.on_null = "write" if w.nullable else "refuse"
        if w.kind == "struct":
            step.null_bytes = 'b"\\x00"' if w.tagged else 'b"\\xff"'
        elif w.compact:
            step.null_bytes = 'b"\\x00"'
        else:
            step.null_bytes = 'b"\\xff\\xff"' if w.kind == "string" else 'b"\\xff\\xff\\xff\\xff"'
        step.null_size = 1 if (w.compact or w.kind == "struct") else (2 if w.kind == "string" else 4)
        if w.kind == "array" and w.elem == "fixed":
            step.unpack_array = self.constants.array("", w.fmt)
            step.pack_array = self.constants.array("B" if w.compact else "i", w.fmt)
        return step

    def tagged_field(self, w: layout.Wire) -> FieldStep:
        # A tagged field is written when it differs from its default: from a null default, the
        # value written is never null.
        step = self.field(w, can_be_null=w.spec.default is not None)
        step.tag = w.tag
        step.written_if = self.differs("_v", w.spec)
        step.tag_size = uvarint_len(w.tag)
        if w.kind == "fixed":
            step.part = f'_pack(">{w.fmt}", _v{".bytes" if w.is_uuid else ""})'
            step.size = step.tag_size + uvarint_len(w.width) + w.width
        return step
