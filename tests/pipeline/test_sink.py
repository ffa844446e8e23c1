"""The workers' writing of the records table (sink.py), without Spark: what lands in a part, the
rows handed on, counts per type, the commit by rename, retries and failures."""

from __future__ import annotations

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from kafka_meta_proto import simulator
from kafka_meta_proto.pipeline import sink
from kafka_meta_proto.pipeline.decode import RECORD, decode_unit
from kafka_meta_proto.pipeline.inputs import discover
from kafka_meta_proto.pipeline.tables import RECORD_TABLE


@pytest.fixture(scope="module")
def units(tmp_path_factory):
    root = tmp_path_factory.mktemp("sim")
    simulator.simulate(root, records=3000, seed=5, clusters=1, faults=("corrupt-batch",), segment_bytes=120_000)
    return [u.row() for u in discover([str(root)]).units()]


def decoded(unit: dict) -> tuple[pa.Table, list[pa.RecordBatch]]:
    """What decode_unit gives for a unit: its record rows (the table's columns) and the rest."""
    records, others = [], []
    for batch in decode_unit(unit):
        (records if batch.column(0)[0].as_py() == RECORD else others).append(batch)
    table = pa.Table.from_batches(records, schema=records[0].schema) if records else None
    return (table.select(RECORD_TABLE) if table is not None else None), others


def test_each_unit_writes_its_records_and_hands_on_the_rest(units, tmp_path):
    directory = sink._Directory(str(tmp_path))
    total = 0
    for unit in units:
        out = list(sink.write_unit(directory, unit))
        want_records, want_others = decoded(unit)
        counts = [b for b in out if b.column(0)[0].as_py() == sink.COUNTS]
        assert [b for b in out if b.column(0)[0].as_py() != sink.COUNTS] == want_others
        part = tmp_path / f"part-{unit['unit']:05d}.parquet"
        if want_records is None:
            assert not part.exists() and not counts
            continue
        written = pq.read_table(part)
        assert written.schema == sink.RECORDS_SCHEMA
        assert written.equals(want_records.cast(sink.RECORDS_SCHEMA))
        # one count row per record type, adding up to the records written
        (count_batch,) = counts
        by_type = dict(zip(count_batch.column("type_name").to_pylist(), count_batch.column("records_count").to_pylist()))
        want = {}
        for name in want_records.column("type_name").to_pylist():
            want[name] = want.get(name, 0) + 1
        assert by_type == want
        assert set(count_batch.column("file").to_pylist()) == {unit["file"]}
        total += written.num_rows
    assert total > 3000
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(p.name for p in tmp_path.glob("part-*.parquet"))


def test_a_retried_unit_replaces_its_part(units, tmp_path):
    directory = sink._Directory(str(tmp_path))
    unit = max(units, key=lambda u: u["end"] - u["start"])
    first = list(sink.write_unit(directory, unit))
    second = list(sink.write_unit(directory, unit))
    assert first == second
    assert [p.name for p in tmp_path.iterdir()] == [f"part-{unit['unit']:05d}.parquet"]


def test_a_failing_unit_leaves_nothing_visible(units, tmp_path, monkeypatch):
    unit = max(units, key=lambda u: u["end"] - u["start"])

    def failing(u, **options):
        for i, batch in enumerate(decode_unit(u, batch_rows=100)):
            if i == 3:
                raise OSError("worker lost its disk")
            yield batch

    monkeypatch.setattr(sink, "decode_unit", failing)
    with pytest.raises(OSError, match="lost its disk"):
        list(sink.write_unit(sink._Directory(str(tmp_path)), unit))
    assert list(tmp_path.iterdir()) == []


def test_parts_through_pyarrow_fs(units, tmp_path, monkeypatch):
    """A non-local output URI is written through pyarrow.fs (file:// standing in for s3a:// or
    hdfs://), committed the same way."""
    monkeypatch.setattr(sink, "is_local", lambda uri: False)
    directory = sink._Directory(f"file://{tmp_path}")
    assert directory.fs is not None
    unit = max(units, key=lambda u: u["end"] - u["start"])
    list(sink.write_unit(directory, unit))
    want, _ = decoded(unit)
    assert pq.read_table(tmp_path / f"part-{unit['unit']:05d}.parquet").equals(want.cast(sink.RECORDS_SCHEMA))
    assert len(list(tmp_path.iterdir())) == 1
