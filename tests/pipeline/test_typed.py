"""The typed tables, built by the workers from the decoded records (typed.py): for random records
of every metadata record type and every version (full integer ranges, any text, bytes, nulls,
unknown tagged fields), written into a log and through the workers' writing, each typed row holds
exactly its record's JSON form, with the derived Arrow schema; and the schemas say what the
docs promise (snake_case columns, the Spark schemas' types)."""

from __future__ import annotations

import json
import warnings

import pyarrow as pa
import pyarrow.dataset as ds
import pytest

from kafka_meta_proto import kraft
from kafka_meta_proto.messages import REGISTRY
from kafka_meta_proto.pipeline import sink
from kafka_meta_proto.pipeline.inputs import discover
from kafka_meta_proto.pipeline.schemas import arrow_schema, spark_ddl
from kafka_meta_proto.pipeline.job import task_units
from kafka_meta_proto.pipeline.tables import typed_schema
from kafka_meta_proto.pipeline.typed import json_form

from .jsonform import strip_nulls
from .logs import Cluster
from .test_spark_schema import columns

EXAMPLES = 3  # random records per type and version
ARROW_TO_SPARK = {pa.bool_(): "BOOLEAN", pa.int8(): "TINYINT", pa.int16(): "SMALLINT", pa.int32(): "INT",
                  pa.int64(): "BIGINT", pa.float64(): "DOUBLE", pa.string(): "STRING"}  # fmt: skip


def spark_type(kind: pa.DataType) -> str:
    if pa.types.is_list(kind):
        return f"ARRAY<{spark_type(kind.value_type)}>"
    if pa.types.is_struct(kind):
        return "STRUCT<" + ", ".join(f"`{f.name}`: {spark_type(f.type)}" for f in kind) + ">"
    return ARROW_TO_SPARK[kind]


def _json_named(ddl_type: str) -> str:
    """A Spark type with its struct field names dropped (the two schemas name fields apart)."""
    import re

    return re.sub(r"`[^`]*`: ", "", ddl_type)


@pytest.mark.parametrize("name", REGISTRY.names())
def test_arrow_schemas_have_the_spark_schemas_types(name):
    """Every message: the same fields in the same order with the same types as the Spark schema;
    named as the class's attributes (the Spark schema keeps the JSON names, to read payloads)."""
    cls = REGISTRY.message_class(name)
    arrow = arrow_schema(cls)
    spark = columns(spark_ddl(cls))
    want_names = [f.name for f in cls._FIELDS] + (["unknown_tagged_fields"] if cls.LOWEST_FLEXIBLE_VERSION is not None else [])
    assert arrow.names == want_names
    assert [_json_named(spark_type(f.type)) for f in arrow] == [_json_named(t) for _, t in spark]


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    """Random records of every metadata record type and version, in one log, through write_task."""
    pytest.importorskip("hypothesis")
    from hypothesis.errors import NonInteractiveExampleWarning

    from kafka_meta_proto.strategies import messages

    root = tmp_path_factory.mktemp("typed")
    cluster = Cluster("random")
    expected = set()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NonInteractiveExampleWarning)
        for record_type in REGISTRY.record_types():
            cls = REGISTRY.record_class(record_type)
            for version in cls.versions():
                values = [kraft.encode_record_value(messages(cls, version).example(), version) for _ in range(EXAMPLES)]
                cluster.records(raw_values=values)
                expected.add((kraft.record_type_name(cls.NAME), version))
    cluster.write(root / "logs")
    inventory = discover([str(root / "logs")])
    out = root / "out"
    summary = pa.Table.from_batches(list(sink.write_task(sink._Directory(str(out)), task_units(inventory, inventory.units()))))
    return out, expected, summary


def test_every_metadata_record_type_and_version_types_exactly(written):
    out, expected, summary = written
    records = ds.dataset(out / "records", format="parquet").to_table().to_pylist()
    assert {(r["type_name"], r["version"]) for r in records} == expected  # every one decoded, none quarantined
    assert not (out / "quarantine").exists()
    by_key = {(r["type_name"], r["offset"]): r for r in records}
    checked = 0
    for type_name in {t for t, _ in expected}:
        table = ds.dataset(out / "typed" / type_name.lower(), format="parquet").to_table()
        assert table.schema == typed_schema(type_name)
        for row in table.to_pylist():
            record = by_key[(type_name, row["offset"])]
            assert row["record_version"] == record["version"] and row["timestamp"] == record["timestamp"]
            assert json_form(row, type_name) == strip_nulls(json.loads(record["payload"])), (type_name, row["offset"])
            checked += 1
    assert checked == len(records) == EXAMPLES * len(expected)


def test_nullable_integers_stay_integers_in_pandas(tmp_path):
    """A column with nulls (PartitionChangeRecord.leader is null where the record leaves the
    leader unchanged) read with read_pandas or dtype_backend="pyarrow" stays an integer column."""
    pd = pytest.importorskip("pandas")
    from kafka_meta_proto.pipeline.tables import read_pandas

    from .logs import partition_change, uuid

    c = Cluster("ints")
    c.records(partition_change(uuid(2), 0, leader=7), partition_change(uuid(2), 1, leader=-2))  # -2: unchanged
    c.write(tmp_path / "logs")
    inventory = discover([str(tmp_path / "logs")])
    list(sink.write_task(sink._Directory(str(tmp_path / "out")), task_units(inventory, inventory.units())))
    path = str(tmp_path / "out" / "typed" / "partition_change_record")
    for frame in (read_pandas(path), pd.read_parquet(path, dtype_backend="pyarrow")):
        leader = frame.sort_values("partition_id")["leader"]
        assert str(leader.dtype) == "int32[pyarrow]"
        assert leader.iloc[0] == 7 and pd.isna(leader.iloc[1])
        assert str(frame["timestamp"].dtype) == "timestamp[ms, tz=UTC][pyarrow]"
