"""kafka-meta-proto format without Kafka: what it writes, and what it refuses."""

from __future__ import annotations

import pytest

from kafka_meta_proto import cli, dump
from kafka_meta_proto.localfiles import read_meta_properties
from kafka_meta_proto.storage import FormatError, feature_levels

CLUSTER_ID = "MkU3OEVBNTcwNTJENDM2Qg"


def config(tmp_path, **extra) -> str:
    tmp_path.mkdir(parents=True, exist_ok=True)
    path = tmp_path / "server.properties"
    lines = {"node.id": "3", "log.dirs": f"{tmp_path / 'a'},{tmp_path / 'b'}", **extra}
    path.write_text("".join(f"{k}={v}\n" for k, v in lines.items()))
    return str(path)


def test_every_log_dir_and_the_bootstrap_snapshot(tmp_path, capsys):
    assert (
        cli.main(
            [
                "format",
                "-c",
                config(tmp_path),
                "-t",
                CLUSTER_ID,
                "-r",
                "4.1",
                "-f",
                "share.version=1",
            ]
        )
        == 0
    )
    assert capsys.readouterr().out.count("Formatted ") == 3
    a, b = read_meta_properties(tmp_path / "a"), read_meta_properties(tmp_path / "b")
    assert (
        (a.version, a.node_id, a.cluster_id)
        == (b.version, b.node_id, b.cluster_id)
        == (1, 3, CLUSTER_ID)
    )
    assert a.directory_id != b.directory_id
    assert not (tmp_path / "b" / "bootstrap.checkpoint").exists()  # only the metadata log directory
    records = list(dump.iter_json_records(str(tmp_path / "a" / "bootstrap.checkpoint")))
    levels = [
        (r["data"]["name"], r["data"]["featureLevel"])
        for r in records
        if r["type"] == "FEATURE_LEVEL_RECORD"
    ]
    assert levels == [("metadata.version", 27), ("eligible.leader.replicas.version", 1), ("group.version", 1),
                      ("share.version", 1), ("transaction.version", 2)]  # fmt: skip
    assert [r["type"] for r in records][0] == "SNAPSHOT_HEADER" and records[-1][
        "type"
    ] == "SNAPSHOT_FOOTER"


def test_metadata_log_dir_is_its_own(tmp_path):
    assert (
        cli.main(
            [
                "format",
                "-c",
                config(tmp_path, **{"metadata.log.dir": tmp_path / "m"}),
                "-t",
                CLUSTER_ID,
            ]
        )
        == 0
    )
    assert (tmp_path / "m" / "bootstrap.checkpoint").exists() and not (
        tmp_path / "a" / "bootstrap.checkpoint"
    ).exists()


def test_refusals(tmp_path, capsys):
    settings = config(tmp_path)
    assert cli.main(["format", "-c", settings, "-t", CLUSTER_ID]) == 0
    assert cli.main(["format", "-c", settings, "-t", CLUSTER_ID]) == 1
    assert "already formatted" in capsys.readouterr().err
    assert cli.main(["format", "-c", settings, "-t", CLUSTER_ID, "--ignore-formatted"]) == 0
    assert cli.main(["format", "-c", config(tmp_path / "x"), "-t", "not-a-uuid"]) == 1
    assert (
        cli.main(["format", "-c", config(tmp_path / "y"), "-t", CLUSTER_ID, "-f", "group.version"])
        == 1
    )
    assert "NAME=LEVEL" in capsys.readouterr().err
    with pytest.raises(FormatError, match="unknown release version"):
        feature_levels("2.8")
