"""What each generated class knows of its schema, for tools that work across all messages
(hypothesis strategies, Spark schemas, documentation) and for the compiled codec's programs
(kafka_meta_proto.layouts)."""

from __future__ import annotations

from typing import NamedTuple

OPEN = 0x7FFF  # the upper bound of an open-ended range such as "3+"

# The value range of each integer type of the schema format.
INT_RANGES = {
    "int8": (-(2**7), 2**7 - 1),
    "int16": (-(2**15), 2**15 - 1),
    "uint16": (0, 2**16 - 1),
    "int32": (-(2**31), 2**31 - 1),
    "uint32": (0, 2**32 - 1),
    "int64": (-(2**63), 2**63 - 1),
}


_Type = type  # inside the class body, "type" names the field


class FieldInfo(NamedTuple):
    name: str  # Python attribute
    json_name: str  # Kafka's JSON name
    type: str  # schema type: "int32", "string", "[]int32", "[]Topic", "Topic", ...
    versions: tuple[int, int]
    nullable: tuple[int, int] | None = None
    tagged: tuple[int, int] | None = None
    tag: int | None = None
    ignorable: bool = False
    struct: _Type | None = None  # the class of a struct or struct-array field
    # The field's own flexible versions where they differ from the message's (() for none):
    # outside them its lengths are the legacy ones.
    flexible: tuple[int, int] | tuple[()] | None = None
    zero_copy: bool = False  # bytes decoded as a slice of the input ("records", or zeroCopy)

    def present(self, version: int) -> bool:
        return self.versions[0] <= version <= self.versions[1]

    def is_nullable(self, version: int) -> bool:
        return self.nullable is not None and self.nullable[0] <= version <= self.nullable[1]

    def is_tagged(self, version: int) -> bool:
        return self.tagged is not None and self.tagged[0] <= version <= self.tagged[1]

    @property
    def is_array(self) -> bool:
        return self.type.startswith("[]")

    @property
    def element_type(self) -> str:
        return self.type[2:] if self.is_array else self.type
