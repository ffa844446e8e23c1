"""kafka-meta-proto format without Kafka: what it writes, and what it refuses."""

from __future__ import annotations

import pytest

from kafka_meta_proto import cli, dump
from kafka_meta_proto.localfiles import read_meta_properties
from kafka_meta_proto.storage import FormatError, feature_levels, metadata_version_level

SNAPSHOT = "__cluster_metadata-0/00000000000000000000-0000000000.checkpoint"

CLUSTER_ID = "MkU3OEVBNTcwNTJENDM2Qg"


def config(tmp_path, **extra) -> str:
    """A node's server.properties (node 3, two log dirs, a static quorum); a None drops a key."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    path = tmp_path / "server.properties"
    lines = {"node.id": "3", "log.dirs": f"{tmp_path / 'a'},{tmp_path / 'b'}",
             "controller.quorum.voters": "3@localhost:9093", **extra}  # fmt: skip
    path.write_text("".join(f"{k}={v}\n" for k, v in lines.items() if v is not None))
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
    assert (tmp_path / "m" / SNAPSHOT).exists() and not (tmp_path / "a" / SNAPSHOT).exists()
    assert not list(tmp_path.rglob("bootstrap.checkpoint"))


def test_the_layout_follows_the_release(tmp_path):
    """4.4 on: the snapshot (0, 0) in the metadata log, for controllers only; before: a
    bootstrap.checkpoint beside it, for every node."""
    for release, roles, where in [("4.4", "controller", SNAPSHOT), ("4.4-IV0", "broker,controller", SNAPSHOT),
                                  ("4.4", "broker", None), ("4.3", "broker", "bootstrap.checkpoint"),
                                  ("3.9", "controller", "bootstrap.checkpoint")]:  # fmt: skip
        node = tmp_path / f"{release}-{roles.replace(',', '+')}"
        settings = config(node, **{"process.roles": roles})
        assert cli.main(["format", "-c", settings, "-t", CLUSTER_ID, "-r", release]) == 0
        found = sorted(str(p.relative_to(node / "a")) for p in (node / "a").rglob("*") if p.is_file())
        assert found == sorted(["meta.properties"] + ([where] if where else [])), (release, roles)
        if where:
            header, first = list(dump.iter_json_records(str(node / "a" / where)))[:2]
            assert first["data"] == {"name": "metadata.version", "featureLevel": metadata_version_level(release)}
            # Kafka 4.4's header carries the time of formatting; the older file's carries 0.
            stamped = header["data"]["lastContainedLogTimestamp"]
            assert (stamped > 0) == (where == SNAPSHOT), (release, stamped)


@pytest.mark.parametrize("release, level, share", [
    ("4.4", 33, 2), ("4.4.0", 33, 2), ("4.4-IV2", 33, 2), ("4.4-IV1", 32, 2), ("4.4-IV0", 31, 2),
    ("4.3", 30, 1), ("4.3-IV0", 30, 1), ("4.2", 29, 1), ("4.0", 25, 0), ("3.9", 21, 0), ("3.3", 7, 0),
])  # fmt: skip
def test_release_versions_as_kafka_4_4_0_maps_them(release, level, share):
    """What kafka-storage version-mapping --release-version R prints in Kafka 4.4.0."""
    levels = feature_levels(release)
    assert (levels["metadata.version"], levels["share.version"]) == (level, share)


def test_the_default_is_4_4s_levels():
    assert feature_levels() == {"metadata.version": 33, "transaction.version": 2, "group.version": 1,
                                "eligible.leader.replicas.version": 1, "share.version": 2,
                                "streams.version": 1}  # fmt: skip


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
    for unknown in ("2.8", "3.2", "4.5", "4.5-IV0", "4.4-IV3", "four"):  # 4.5-IV0 is not production
        with pytest.raises(FormatError, match="unknown release version"):
            feature_levels(unknown)
    assert cli.main(["format", "-c", config(tmp_path / "z"), "-t", CLUSTER_ID, "-r", "4.5"]) == 1
    assert "unknown release version '4.5'" in capsys.readouterr().err
