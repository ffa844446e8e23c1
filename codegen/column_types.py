"""One walk over a schema type for each column type system the generator prints (Spark DDL,
Arrow): arrays and structs nest the same way in both, only the spelling differs."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .spec import FieldType, StructSpec


@dataclass(frozen=True)
class ColumnTypes:
    """How one type system spells a scalar, an array of an element and a struct."""

    system: str  # named in errors: "Spark", "Arrow"
    scalars: dict[str, str]
    array: Callable[[str], str]
    struct: Callable[[StructSpec, bool], str]

    def of(self, t: FieldType, struct: StructSpec | None, flexible: bool) -> str:
        """The type text of ``t``; ``struct`` is the spec of the struct ``t`` names, if any."""
        if t.is_array:
            return self.array(self.of(t.element, struct, flexible))
        if t.is_struct:
            if struct is None:
                raise ValueError(f"struct type {t} has no struct spec")
            return self.struct(struct, flexible)
        try:
            return self.scalars[t.name]
        except KeyError:
            raise ValueError(f"no {self.system} type for schema type {t}") from None
