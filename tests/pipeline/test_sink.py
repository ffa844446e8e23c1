"""The workers' writing of the tables (sink.py), without Spark: what lands in each part, the
summary handed on, the audit files, the commit by rename, retries and failures."""

from __future__ import annotations

from collections import Counter

import pyarrow as pa
import pyarrow.dataset as ds
import pyarrow.parquet as pq
import pytest

from kafka_meta_proto import simulator
from kafka_meta_proto.pipeline import sink
from kafka_meta_proto.pipeline.decode import BATCH, ISSUE, RECORD, decode_unit
from kafka_meta_proto.pipeline.events import EVENT_SCHEMA, EVENT_TYPES
from kafka_meta_proto.pipeline.inputs import discover
from kafka_meta_proto.pipeline.job import task_units
from kafka_meta_proto.pipeline.tables import BATCHES_SCHEMA, QUARANTINE_SCHEMA, RECORDS_SCHEMA, TIMESTAMP, table_name


@pytest.fixture(scope="module")
def units(tmp_path_factory):
    root = tmp_path_factory.mktemp("sim")
    simulator.simulate(root, records=3000, seed=5, clusters=1, faults=("corrupt-batch",), segment_bytes=120_000)
    inventory = discover([str(root)])
    return task_units(inventory, inventory.units())


def decoded(units: list[dict]) -> dict[int, list[pa.RecordBatch]]:
    """What decode_unit gives for the units, by kind of row."""
    out: dict[int, list] = {RECORD: [], BATCH: [], ISSUE: []}
    for unit in units:
        for batch in decode_unit(unit):
            out[batch.column(0)[0].as_py()].append(batch)
    return out


def rows(batches: list[pa.RecordBatch], schema: pa.Schema) -> list[dict]:
    """The rows of decoder batches as a table of ``schema`` holds them (timestamps as TIMESTAMP)."""
    table = pa.Table.from_batches(batches).select(schema.names)
    table = table.set_column(schema.get_field_index("timestamp"), "timestamp", table.column("timestamp").cast(TIMESTAMP))
    return sorted(table.cast(schema).to_pylist(), key=repr)


def read(path) -> pa.Table:
    return ds.dataset(path, format="parquet").to_table()


def test_a_task_writes_every_table_and_hands_on_the_summary(units, tmp_path):
    summary = pa.Table.from_batches(list(sink.write_task(sink._Directory(str(tmp_path)), units)))
    want = decoded(units)
    first = f"part-{units[0]['unit']:05d}.parquet"
    # records, batches and quarantine: exactly the decoder's rows, one part each
    for name, schema, kind in (("records", RECORDS_SCHEMA, RECORD), ("batches", BATCHES_SCHEMA, BATCH),
                               ("quarantine", QUARANTINE_SCHEMA, ISSUE)):  # fmt: skip
        assert [p.name for p in (tmp_path / name).iterdir()] == [first]
        written = pq.read_table(tmp_path / name / first)
        assert written.schema == schema
        assert sorted(written.to_pylist(), key=repr) == rows(want[kind], schema), name
    assert len(want[ISSUE]) == 1  # the planted corrupt batch
    # a typed table per record type, as many rows as records of the type
    per_type = Counter(pa.Table.from_batches(want[RECORD]).column("type_name").to_pylist())
    assert {p.name for p in (tmp_path / "typed").iterdir()} == {table_name(t) for t in per_type}
    assert {t: read(tmp_path / "typed" / table_name(t)).num_rows for t in per_type} == dict(per_type)
    # the summary: records per type, batches and the records they announce, problems
    counts = Counter()
    for r in summary.to_pylist():
        if r["kind"] == sink.COUNTS:
            counts[r["type_name"]] += r["rows"]
    assert counts == per_type
    batches = [r for r in summary.to_pylist() if r["kind"] == BATCH]
    assert sum(r["rows"] for r in batches) == sum(b.num_rows for b in want[BATCH])
    assert sum(r["announced"] for r in batches) == sum(sum(b.column("records_count").to_pylist()) for b in want[BATCH])
    assert [(r["issue"], r["rows"]) for r in summary.to_pylist() if r["kind"] == ISSUE] == [("corrupt batch", 1)]
    # the audits' files: the events of every replayed record the audits read, sorted by seq
    events = pq.read_table(tmp_path / sink.AUDIT_DIR / "c0" / "events" / first)
    assert events.schema == EVENT_SCHEMA
    seq = events.column("seq").to_pylist()
    assert seq == sorted(seq) and len(seq) == len(set(seq))
    replayed = {u["file"]: u["min_offset"] for u in units if u["replayed"]}
    want_events = 0
    for type_name in set(per_type) & set(EVENT_TYPES):
        for r in read(tmp_path / "typed" / table_name(type_name)).to_pylist():
            if r["file"] in replayed and r["offset"] >= replayed[r["file"]]:
                want_events += type_name != "CONFIG_RECORD" or (r["resource_type"] == 2 and r["name"] == "diskless.enable")
    assert 0 < events.num_rows == want_events
    assert pq.read_table(tmp_path / sink.AUDIT_DIR / "c0" / "batches" / first).num_rows == sum(
        b.num_rows for b in want[BATCH]
    )
    # nothing hidden left behind
    assert not [p for p in tmp_path.rglob(".*")]


def test_a_retried_task_replaces_its_parts(units, tmp_path):
    directory = sink._Directory(str(tmp_path))
    first = list(sink.write_task(directory, units))
    files = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p.is_file())
    second = list(sink.write_task(directory, units))
    assert first == second
    assert sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p.is_file()) == files


def test_a_failing_task_leaves_nothing_visible(units, tmp_path, monkeypatch):
    real = sink.decode_unit
    seen = []

    def failing(unit, **options):
        for batch in real(unit, **options):
            seen.append(batch)
            if len(seen) == 6:
                raise OSError("worker lost its disk")
            yield batch

    monkeypatch.setattr(sink, "decode_unit", failing)
    with pytest.raises(OSError, match="lost its disk"):
        list(sink.write_task(sink._Directory(str(tmp_path)), units))
    assert [p for p in tmp_path.rglob("*") if p.is_file()] == []


def test_parts_through_pyarrow_fs(units, tmp_path, monkeypatch):
    """A non-local output URI is written through pyarrow.fs (file:// standing in for s3a:// or
    hdfs://), committed the same way."""
    monkeypatch.setattr(sink, "is_local", lambda uri: False)
    directory = sink._Directory(f"file://{tmp_path}")
    assert directory.fs is not None
    list(sink.write_task(directory, units))
    want = decoded(units)
    first = f"part-{units[0]['unit']:05d}.parquet"
    assert sorted(pq.read_table(tmp_path / "records" / first).to_pylist(), key=repr) == rows(want[RECORD], RECORDS_SCHEMA)
    assert not [p for p in tmp_path.rglob(".*")]
