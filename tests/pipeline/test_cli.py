"""``kafka-meta-proto audit`` end to end, on a small built-in sample."""

from __future__ import annotations

import json

import pytest

from kafka_meta_proto import cli


def test_audit_command_on_a_small_sample(spark, tmp_path, capsys):
    out = tmp_path / "out"
    code = cli.main(["audit", "--out", str(out), "--sample-records", "1800", "--seed", "5"])
    printed = capsys.readouterr()
    assert code == 0, printed.err
    # the progress line, then the report as tables
    assert "[audit] writing the built-in sample: 1800 records in 6 clusters" in printed.err
    assert "[audit] decoding" in printed.err and "[audit] auditing: done" in printed.err
    for heading in ("Files (read = written + reported)", "Record types (records table = typed table)", "Audits"):
        assert heading in printed.out
    for audit in ("producer-ids", "topic-ids", "brokers", "diskless", "log"):
        assert f"\n{audit} " in printed.out
    assert "every record accounted for" in printed.out
    report = json.loads((out / "report.json").read_text())
    assert report["records_read"] == report["records_written"] + report["records_reported"]
    assert sorted(report["clusters"]) == [f"cluster-{i}" for i in range(6)]
    assert (out / "sample-logs" / "cluster-0" / "__cluster_metadata-0").is_dir()
    assert (out / "typed" / "topic_record").is_dir() and (out / "records").is_dir()
    # a finished run: the report is there and the marker of an unfinished one is gone
    assert (out / "report.txt").is_file() and not (out / "_AUDIT_INCOMPLETE").exists()
    assert "about " in printed.err and " MB, to " in printed.err  # the sample's expected size


def test_audit_command_reports_missing_input(spark, tmp_path, capsys):
    empty = tmp_path / "empty"
    empty.mkdir()
    assert cli.main(["audit", str(empty), "--out", str(tmp_path / "out"), "--no-progress"]) == 2
    assert "no KRaft metadata files" in capsys.readouterr().err


@pytest.mark.slow  # over ten seconds: the slow tier (.ci/run)
def test_inputs_and_output_through_hadoop_filesystem_uris(spark, tmp_path, monkeypatch):
    """A PATH and --out that are URIs, not local paths: the input is listed through Spark's
    Hadoop FileSystem, the counts and the report read back through Spark (file:// stands in
    for hdfs:// or s3a:// here)."""
    from kafka_meta_proto.pipeline import inputs
    from kafka_meta_proto.pipeline.job import run_audit
    from kafka_meta_proto.pipeline.local import count_paths

    from .logs import Cluster

    logs = tmp_path / "logs"
    Cluster("remote").healthy().write(logs)
    plain = count_paths([str(logs)])
    monkeypatch.setattr(inputs, "is_local", lambda uri: False)
    report = run_audit([f"file://{logs}"], f"file://{tmp_path}/out", spark=spark, progress=False)
    assert report.clusters == ["remote"]
    assert {f.file: f.records_written for f in report.files} == {f: n for (_, f), n in plain.records.items()}
    assert report.balanced and report.violations == 0
    assert (tmp_path / "out" / "report").is_dir() and not (tmp_path / "out" / "report.txt").exists()


def test_audit_command_needs_java_for_a_cluster_master_too(tmp_path, monkeypatch, capsys):
    """The driver's JVM starts in this process whatever the master, so no Java is a plain
    message for spark:// as for local[2] (not a traceback from pyspark)."""
    pytest.importorskip("pyspark", reason="pyspark is not installed")
    from kafka_meta_proto.pipeline import spark as spark_mod

    monkeypatch.setattr(spark_mod, "java_available", lambda: False)
    monkeypatch.delenv("PYSPARK_GATEWAY_PORT", raising=False)
    for master in ("local[2]", "spark://127.0.0.1:7077"):
        assert cli.main(["audit", str(tmp_path), "--master", master, "--out", str(tmp_path / "out")]) == 2
        assert "Spark needs Java" in capsys.readouterr().err


def test_audit_checks_local_paths_before_starting_spark(tmp_path, capsys, monkeypatch):
    from kafka_meta_proto.pipeline import job, spark

    def no_session(*args, **kwargs):
        raise AssertionError("a Spark session was started")

    monkeypatch.setattr(spark, "session", no_session)
    monkeypatch.setattr(job, "session", no_session)
    assert cli.main(["audit", str(tmp_path / "nowhere"), "--out", str(tmp_path / "out")]) == 2
    assert capsys.readouterr().err == f"kafka-meta-proto audit: no such file or directory: {tmp_path / 'nowhere'}\n"
