"""The pipeline on the real KRaft logs of ../shared/kafka-reference: every record lands in the
records table and in its typed table, the counts match plain single-process reads, and each typed
row holds exactly the record's JSON form."""

from __future__ import annotations

import json
from collections import Counter

import pyarrow.dataset as ds
import pytest

from conftest import reference
from kafka_meta_proto.log import SegmentReader, SnapshotReader
from kafka_meta_proto.pipeline.inputs import discover
from kafka_meta_proto.pipeline.local import count_paths
from kafka_meta_proto.pipeline.tables import TIMESTAMP, TYPED_META, typed_schema
from kafka_meta_proto.pipeline.typed import json_form

from .jsonform import strip_nulls


@pytest.fixture(scope="module")
def real(spark, tmp_path_factory):
    from kafka_meta_proto.pipeline.job import run_audit

    logs = reference("real", "kraft-logs")
    out = tmp_path_factory.mktemp("real-audit")
    report = run_audit([str(logs)], str(out), spark=spark, progress=False)
    return logs, out, report


def table(path, columns=None):
    return ds.dataset(path, format="parquet").to_table(columns=columns)


def test_every_file_is_found(real):
    logs, _, report = real
    on_disk = {p for p in logs.rglob("*") if p.name.endswith((".log", ".checkpoint")) and "__cluster_metadata" in str(p)}
    on_disk |= set(logs.rglob("bootstrap.checkpoint"))
    assert {d.uri for d in discover([str(logs)]).files} == {str(p) for p in on_disk}
    assert len(report.files) == len(on_disk)


def test_counts_match_the_single_process_reader(real):
    logs, out, report = real
    plain = count_paths([str(logs)])
    written = Counter(zip(*(table(out / "records", ["cluster", "file"]).column(c).to_pylist() for c in ("cluster", "file"))))
    assert dict(written) == dict(plain.records)
    assert {(f.cluster, f.file): f.records_written for f in report.files if f.records_written} == dict(plain.records)
    assert {t: v["records"] for t, v in report.types.items()} == dict(plain.types)
    assert report.balanced and report.records_reported == 0


def test_counts_match_the_log_readers(real):
    """Independently of the pipeline's decoder: the log package's own readers, record by record."""
    logs, _, report = real
    by_file = {}
    for f in discover([str(logs)]).files:
        reader = SegmentReader(f.uri) if f.kind == "segment" else SnapshotReader(f.uri, strict=False)
        with reader:
            by_file[(f.cluster, f.file)] = sum(len(batch.records) for _, batch in reader)
    assert {(f.cluster, f.file): f.records_read for f in report.files} == by_file
    assert {(f.cluster, f.file): f.records_written for f in report.files} == by_file


def test_every_record_is_in_its_typed_table_exactly(real):
    _, out, report = real
    records = table(out / "records").to_pylist()
    by_type = {}
    for r in records:
        by_type.setdefault(r["type_name"], {})[(r["cluster"], r["file"], r["offset"])] = r
    for type_name, info in report.types.items():
        typed = table(out / "typed" / info["table"])
        assert typed.schema == typed_schema(type_name)  # the generated Arrow schema, as written
        rows = typed.to_pylist()
        assert len(rows) == len(by_type[type_name]) == info["records"] == info["typed"]
        for row in rows:
            record = by_type[type_name][(row["cluster"], row["file"], row["offset"])]
            assert row["record_version"] == record["version"]
            assert row["batch_offset"] == record["batch_offset"] and row["timestamp"] == record["timestamp"]
            assert json_form(row, type_name) == strip_nulls(json.loads(record["payload"])), (type_name, row["offset"])


def test_timestamps_are_parquet_timestamps(real):
    """Milliseconds since the epoch, UTC, as Parquet TIMESTAMP: Spark reads TIMESTAMP, pandas
    datetime64[ms, UTC]."""
    _, out, report = real
    for name in ["records", "batches", "quarantine"] + [f"typed/{t['table']}" for t in report.types.values()]:
        schema = ds.dataset(out / name, format="parquet").schema
        assert schema.field("timestamp").type == TIMESTAMP, name
    assert TYPED_META.field("timestamp").type == TIMESTAMP


def test_real_kafka_logs_pass_the_metadata_audits(real):
    """Logs Kafka itself wrote keep every rule the metadata audits check."""
    _, _, report = real
    for audit in ("producer-ids", "topic-ids", "brokers", "diskless"):
        assert report.audits[audit]["violations"] == 0, report.audits[audit]
