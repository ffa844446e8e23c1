"""The column types of a message, Spark SQL and Arrow, derived from its class's field tables.

A message becomes one column per field of every version (a field a version lacks is null in that
version's rows), structs nest (common structs expand in place) and arrays become lists:

- Spark (``spark_ddl``): a DDL column list named as in Kafka's JSON form (``brokerId``), so
  ``from_json(payload, ddl)`` types what ``Message.to_json`` writes; plain text, no pyspark;
- Arrow (``arrow_schema``): the typed tables' schema, named by the Python attributes
  (``broker_id``), with the Spark types, which is how Spark reads the Parquet the workers write.

==========  ==================  ==========  ===========================================
schema      Spark               Arrow
==========  ==================  ==========  ===========================================
int8        TINYINT             int8        exact range
int16       SMALLINT            int16
uint16      INT                 int32       0..65535 does not fit SMALLINT
int32       INT                 int32
uint32      BIGINT              int64       0..2^32-1 does not fit INT
int64       BIGINT              int64
float64     DOUBLE              float64
bool        BOOLEAN             bool
string      STRING              string
uuid        STRING              string      Kafka's text form: 22 characters
bytes       STRING              string      base64, as in Kafka's JSON form
records     STRING              string      base64, likewise
struct      STRUCT<...>         struct
[]T         ARRAY<T>            list<T>
==========  ==================  ==========  ===========================================

Structs of flexible messages end with the tagged fields the schema does not know
(``_unknownTaggedFields`` / ``unknown_tagged_fields``), a list of ``(tag BIGINT, data STRING)``
(base64), so a row keeps everything the record held. Both are made once per class and cached.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, Generic, TypeVar

from ..schema_info import FieldInfo

SPARK_TYPES = {
    "bool": "BOOLEAN",
    "int8": "TINYINT",
    "int16": "SMALLINT",
    "uint16": "INT",
    "int32": "INT",
    "uint32": "BIGINT",
    "int64": "BIGINT",
    "float64": "DOUBLE",
    "string": "STRING",
    "uuid": "STRING",
    "bytes": "STRING",
    "records": "STRING",
}
# The Arrow type of each Spark type the messages use (the typed tables keep the Spark types).
ARROW_OF_SPARK = {
    "BOOLEAN": "bool_",
    "TINYINT": "int8",
    "SMALLINT": "int16",
    "INT": "int32",
    "BIGINT": "int64",
    "DOUBLE": "float64",
    "STRING": "string",
}
UNKNOWN_TAGGED_FIELDS = "_unknownTaggedFields"  # the Spark column (Kafka's JSON name)
UNKNOWN_TAGGED_TYPE = "ARRAY<STRUCT<`tag`: BIGINT, `data`: STRING>>"

T = TypeVar("T")


class _ColumnTypes(Generic[T]):
    """One walk over a field table for both type systems: only the spelling differs."""

    def __init__(
        self,
        scalar: Callable[[str], T],
        array: Callable[[T], T],
        struct: Callable[[list[tuple[str, T]]], T],
        named: Callable[[FieldInfo], str],
        unknown: tuple[str, Callable[[], T]],
    ) -> None:
        self.scalar, self.array, self.struct = scalar, array, struct
        self.named, self.unknown = named, unknown

    def columns(self, cls: Any, flexible: bool) -> list[tuple[str, T]]:
        """(name, type) of each field of the class, in schema order."""
        columns = [(self.named(info), self.of(info, flexible)) for info in cls._FIELDS]
        if flexible:
            columns.append((self.unknown[0], self.unknown[1]()))
        return columns

    def of(self, info: FieldInfo, flexible: bool) -> T:
        if info.struct is not None:
            element = self.struct(self.columns(info.struct, flexible))
        else:
            element = self.scalar(info.element_type)
        return self.array(element) if info.is_array else element


def quote(name: str) -> str:
    """A Spark identifier in backticks (a backtick inside is doubled)."""
    return "`" + name.replace("`", "``") + "`"


def _spark_scalar(type_name: str) -> str:
    try:
        return SPARK_TYPES[type_name]
    except KeyError:
        raise ValueError(f"no Spark type for schema type {type_name}") from None


_SPARK = _ColumnTypes[str](
    _spark_scalar,
    lambda element: f"ARRAY<{element}>",
    lambda columns: f"STRUCT<{', '.join(f'{n}: {d}' for n, d in columns)}>",
    lambda info: quote(info.json_name),
    (quote(UNKNOWN_TAGGED_FIELDS), lambda: UNKNOWN_TAGGED_TYPE),
)


def _flexible(cls: Any) -> bool:
    return cls.LOWEST_FLEXIBLE_VERSION is not None


@functools.cache
def spark_ddl(cls: Any) -> str:
    """The message class as a Spark DDL column list: ```name` STRING, `topicId` STRING, ...``."""
    return ", ".join(f"{n} {d}" for n, d in _SPARK.columns(cls, _flexible(cls)))


@functools.cache
def _arrow() -> _ColumnTypes[Any]:
    import pyarrow as pa  # only the workers and the typed tables need it

    def unknown() -> Any:
        return pa.list_(pa.struct([pa.field("tag", pa.int64()), pa.field("data", pa.string())]))

    return _ColumnTypes[Any](
        lambda type_name: getattr(pa, ARROW_OF_SPARK[_spark_scalar(type_name)])(),
        pa.list_,
        lambda columns: pa.struct([pa.field(n, t) for n, t in columns]),
        lambda info: info.name,
        ("unknown_tagged_fields", unknown),
    )


@functools.cache
def arrow_schema(cls: Any) -> Any:
    """The message class's fields as an Arrow schema (a ``pyarrow.Schema``)."""
    import pyarrow as pa

    return pa.schema([pa.field(n, t) for n, t in _arrow().columns(cls, _flexible(cls))])
