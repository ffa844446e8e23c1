"""Typed rows from decoded records: the Arrow record batches of the typed tables.

A worker has, for each record, its JSON form as a dict (``Message.to_json``, which the records
table's payload is the text of). The dicts' values are taken column by column (in C with the
compiled codec) and Arrow converts each column, with nested structs named as in the JSON form;
the typed tables name their columns as the generated classes' attributes (snake_case), so a
nested column is then viewed under those names (the same buffers, no copy). Types come from the
Arrow schemas derived from the classes' field tables (``schemas.py``): a value that does not fit its column
stops the worker with an error instead of becoming a null.
"""

from __future__ import annotations

import pyarrow as pa

from .arrays import arrow_array, dict_columns
from .tables import MARKER_JSON_NAMES, TYPED_META, message_class, message_schema, typed_schema

UNKNOWN_TAGGED_JSON = "_unknownTaggedFields"  # Kafka's JSON name of the unknown tagged fields


def _json_fields(arrow_fields, infos) -> list[pa.Field]:
    """The Arrow fields of a struct renamed to Kafka's JSON names (``infos``: the class's
    ``_FIELDS``, in the same order, then the unknown tagged fields when the struct has them)."""
    out = []
    for i, field in enumerate(arrow_fields):
        if i >= len(infos):  # the unknown tagged fields close a flexible struct
            out.append(pa.field(UNKNOWN_TAGGED_JSON, field.type))
            continue
        info, kind = infos[i], field.type
        if info.struct is not None:
            inner = kind.value_type if pa.types.is_list(kind) else kind
            renamed = pa.struct(_json_fields(list(inner), info.struct._FIELDS))
            kind = pa.list_(renamed) if pa.types.is_list(kind) else renamed
        out.append(pa.field(info.json_name, kind))
    return out


def json_struct(type_name: str) -> pa.StructType:
    """The message of a record type as an Arrow struct named as in Kafka's JSON form."""
    schema = message_schema(type_name)
    cls = message_class(type_name)
    if cls is None:  # a transaction marker
        return pa.struct([pa.field(n, f.type) for n, f in zip(MARKER_JSON_NAMES, schema)])
    return pa.struct(_json_fields(list(schema), cls._FIELDS))


class TypedBuilder:
    """Builds the typed table's record batches of one record type."""

    def __init__(self, type_name: str):
        self.type_name = type_name
        self.schema = typed_schema(type_name)
        self.json = json_struct(type_name)
        self.keys = tuple(field.name for field in self.json)
        # per column: its type under the JSON names, and the schema's when they differ (nested
        # structs' field names), which a view of the same buffers gives
        self.columns = [(j.type, None if j.type == m.type else m.type)
                        for j, m in zip(self.json, message_schema(type_name))]  # fmt: skip

    def build(self, meta: list[pa.Array], data: list[dict]) -> pa.RecordBatch:
        """One batch: ``meta`` the position columns (TYPED_META's, in order), ``data`` the
        records' JSON forms. Column by column: Arrow converts a list of values faster than it
        looks each one up in a list of dicts."""
        arrays = list(meta)
        for values, (json_type, view) in zip(dict_columns(data, self.keys), self.columns):
            column = arrow_array(values, json_type)
            arrays.append(column if view is None else column.view(view))
        return pa.RecordBatch.from_arrays(arrays, schema=self.schema)


def json_form(row: dict, type_name: str) -> dict:
    """A typed row's message fields under Kafka's JSON names, nulls left out: what the record's
    payload holds (for comparing the two, and for users who want the JSON names back)."""
    struct = json_struct(type_name)
    fields = {f.name: row.get(f.name) for f in message_schema(type_name)}
    return _strip(_rename(fields, list(message_schema(type_name)), list(struct)))


def _rename(value, snake: list[pa.Field], json: list[pa.Field]):
    out = {}
    for s, j in zip(snake, json):
        v = value.get(s.name)
        if v is not None and pa.types.is_struct(_element(s.type)):
            inner_s, inner_j = list(_element(s.type)), list(_element(j.type))
            v = [_rename(e, inner_s, inner_j) for e in v] if isinstance(v, list) else _rename(v, inner_s, inner_j)
        out[j.name] = v
    return out


def _element(kind: pa.DataType) -> pa.DataType:
    return kind.value_type if pa.types.is_list(kind) else kind


def _strip(value):
    if isinstance(value, dict):
        return {k: _strip(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_strip(v) for v in value]
    return value


__all__ = ["TYPED_META", "TypedBuilder", "json_form", "json_struct"]
