"""kafka-meta-proto format without Kafka: what it writes, and what it refuses."""

from __future__ import annotations

import pytest

from kafka_meta_proto import cli
from kafka_meta_proto.tools import dump
from kafka_meta_proto.tools.localfiles import read_meta_properties
from kafka_meta_proto.tools.storage import FormatError, feature_levels, metadata_version_level

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


# A dynamic quorum (KIP-853): --standalone, --initial-controllers, --no-initial-controllers.

DIR_1, DIR_2 = "4znU-ou9Taa06bmEJxsjnw", "yPeQXUlvSjGDhkZh5D5Y5Q"
KRAFT_1 = {"version": 0, "kRaftVersion": 1}


def dynamic(tmp_path, **extra) -> str:
    """A controller of a dynamic quorum: bootstrap servers and no controller.quorum.voters."""
    return config(tmp_path, **{"controller.quorum.voters": None, "controller.quorum.bootstrap.servers": "localhost:9093",
                               "process.roles": "controller", "controller.listener.names": "CONTROLLER",
                               "listeners": "CONTROLLER://localhost:9093", **extra})  # fmt: skip


def voter(node_id, directory_id, host="localhost", port=9093) -> dict:
    return {"voterId": node_id, "voterDirectoryId": directory_id,
            "endpoints": [{"name": "CONTROLLER", "host": host, "port": port}],
            "kRaftVersionFeature": {"minSupportedVersion": 0, "maxSupportedVersion": 1}}  # fmt: skip


def controls(path) -> list[tuple]:
    """The control records of a snapshot: (offset, batch base offset, type, data)."""
    return [(r["offset"], r["batchBaseOffset"], r["type"], r["data"])
            for r in dump.iter_json_records(str(path)) if r["control"]]  # fmt: skip


def first_data_offset(path) -> int:
    return next(r["offset"] for r in dump.iter_json_records(str(path)) if not r["control"])


def formats(settings, *options) -> int:
    return cli.main(["format", "-c", settings, "-t", CLUSTER_ID, *options])


def test_standalone_writes_kraft_version_and_this_node_as_the_voter(tmp_path):
    assert formats(dynamic(tmp_path), "--standalone") == 0
    own = str(read_meta_properties(tmp_path / "a").directory_id)
    found = controls(tmp_path / "a" / SNAPSHOT)
    assert [c[:3] for c in found] == [(0, 0, "SNAPSHOT_HEADER"), (1, 0, "KRAFT_VERSION"), (2, 0, "KRAFT_VOTERS"),
                                      (9, 9, "SNAPSHOT_FOOTER")]  # fmt: skip
    assert found[1][3] == KRAFT_1
    assert found[2][3] == {"version": 0, "voters": [voter(3, own)]}
    assert first_data_offset(tmp_path / "a" / SNAPSHOT) == 3
    assert str(read_meta_properties(tmp_path / "b").directory_id) != own


@pytest.mark.parametrize("settings, address", [
    ({"advertised.listeners": "CONTROLLER://other.example:9999"}, ("other.example", 9999)),
    ({"listeners": "CONTROLLER://:9094"}, ("localhost", 9094)),
    ({"listeners": "PLAINTEXT://localhost:9092,CONTROLLER://[::1]:9095", "process.roles": "broker,controller"},
     ("::1", 9095)),
])  # fmt: skip
def test_standalone_takes_the_advertised_controller_listener(tmp_path, settings, address):
    assert formats(dynamic(tmp_path, **settings), "-s") == 0
    voters = controls(tmp_path / "a" / SNAPSHOT)[2][3]["voters"]
    assert (voters[0]["endpoints"][0]["host"], voters[0]["endpoints"][0]["port"]) == address


def test_initial_controllers_name_the_voters_and_the_metadata_directory_id(tmp_path):
    voters = f"3@localhost:9093:{DIR_1},2@host2:9094:{DIR_2}"
    assert formats(dynamic(tmp_path, **{"metadata.log.dir": tmp_path / "m"}), "-I", voters) == 0
    assert str(read_meta_properties(tmp_path / "m").directory_id) == DIR_1
    assert {str(read_meta_properties(tmp_path / d).directory_id) for d in "ab"}.isdisjoint({DIR_1, DIR_2})
    found = controls(tmp_path / "m" / SNAPSHOT)
    assert found[2][3] == {"version": 0, "voters": [voter(3, DIR_1), voter(2, DIR_2, "host2", 9094)]}
    # A node that is not among them: a new directory id, the same voters.
    assert formats(dynamic(tmp_path / "other"), "--initial-controllers", f"2@host2:9094:{DIR_2}") == 0
    assert str(read_meta_properties(tmp_path / "other" / "a").directory_id) != DIR_2
    assert controls(tmp_path / "other" / "a" / SNAPSHOT)[2][3]["voters"] == [voter(2, DIR_2, "host2", 9094)]
    # A broker: the directory id, no snapshot (a broker's metadata log starts empty).
    assert formats(dynamic(tmp_path / "broker", **{"process.roles": "broker"}), "-I", voters) == 0
    assert str(read_meta_properties(tmp_path / "broker" / "a").directory_id) == DIR_1
    assert not list((tmp_path / "broker").rglob("*.checkpoint"))


def test_no_initial_controllers_writes_kraft_version_alone(tmp_path):
    assert formats(dynamic(tmp_path), "--no-initial-controllers") == 0
    found = controls(tmp_path / "a" / SNAPSHOT)
    assert [c[:3] for c in found] == [(0, 0, "SNAPSHOT_HEADER"), (1, 0, "KRAFT_VERSION"), (8, 8, "SNAPSHOT_FOOTER")]
    assert first_data_offset(tmp_path / "a" / SNAPSHOT) == 2
    # With a static quorum the option changes nothing: kraft.version 0, no record for it.
    assert formats(config(tmp_path / "static", **{"process.roles": "controller"}), "-N") == 0
    assert [c[2] for c in controls(tmp_path / "static" / "a" / SNAPSHOT)] == ["SNAPSHOT_HEADER", "SNAPSHOT_FOOTER"]
    # kraft.version given as Kafka's tool allows it is not a FeatureLevelRecord.
    assert formats(dynamic(tmp_path / "kv"), "-N", "-f", "kraft.version=1") == 0
    names = [r["data"]["name"] for r in dump.iter_json_records(str(tmp_path / "kv" / "a" / SNAPSHOT)) if not r["control"]]
    assert "kraft.version" not in names and names[0] == "metadata.version"


def test_up_to_4_3_the_voters_have_a_snapshot_of_their_own(tmp_path):
    """As Kafka 3.9.2's tool writes them: bootstrap.checkpoint with the feature levels, and the
    snapshot (0, 0) with the header, KRaftVersion, Voters and the footer; -N adds nothing."""
    assert formats(dynamic(tmp_path), "-s", "-r", "3.9") == 0
    found = controls(tmp_path / "a" / SNAPSHOT)
    assert [c[:3] for c in found] == [(0, 0, "SNAPSHOT_HEADER"), (1, 0, "KRAFT_VERSION"), (2, 0, "KRAFT_VOTERS"),
                                      (3, 3, "SNAPSHOT_FOOTER")]  # fmt: skip
    assert found[2][3]["voters"] == [voter(3, str(read_meta_properties(tmp_path / "a").directory_id))]
    assert [r["type"] for r in dump.iter_json_records(str(tmp_path / "a" / "bootstrap.checkpoint"))] == [
        "SNAPSHOT_HEADER", "FEATURE_LEVEL_RECORD", "SNAPSHOT_FOOTER"]
    assert formats(dynamic(tmp_path / "n"), "-N", "-r", "4.3") == 0
    assert sorted(p.name for p in (tmp_path / "n" / "a").rglob("*") if p.is_file()) == ["bootstrap.checkpoint",
                                                                                     "meta.properties"]  # fmt: skip


IC = f"3@localhost:9093:{DIR_1}"
STATIC = {"controller.quorum.voters": "3@localhost:9093", "controller.quorum.bootstrap.servers": None}
BROKER = {"process.roles": "broker", "listeners": "PLAINTEXT://localhost:9092"}

# What Kafka 4.4.0's storage tool refuses (exit status 1, nothing written), and a word of its meaning.
REFUSALS = [
    ({}, [], "give --standalone, --initial-controllers or --no-initial-controllers"),
    (BROKER, ["-s"], "--standalone formats a controller"),
    (STATIC, ["-s"], "controller.quorum.voters is set"),
    (STATIC, ["-I", IC], "controller.quorum.voters is set"),
    ({}, ["-s", "-N"], "exclude one another"),
    ({}, ["-s", "-I", IC], "exclude one another"),
    ({"controller.quorum.bootstrap.servers": None}, [], "needs controller.quorum.bootstrap.servers"),
    ({}, ["-s", "-f", "kraft.version=0"], "kraft.version 0 cannot be set for a dynamic quorum"),
    (STATIC, ["-f", "kraft.version=1"], "kraft.version 1 needs a dynamic quorum"),
    ({}, ["-I", "3@localhost:9093"], "no ':' after the port"),
    ({}, ["-I", "3@localhost:9093:xyz"], "is not a directory id"),
    ({}, ["-I", "3localhost:9093:" + DIR_1], "has no '@'"),
    ({}, ["-I", "x@localhost:9093:" + DIR_1], "is not a non-negative integer"),
    ({}, ["-I", f"{IC},3@localhost:9094:{DIR_2}"], "node id 3 more than once"),
]


@pytest.mark.parametrize("settings, options, meaning", REFUSALS)
def test_quorum_refusals(tmp_path, capsys, settings, options, meaning):
    assert formats(dynamic(tmp_path, **settings), *options) == 1
    assert meaning in capsys.readouterr().err
    assert not (tmp_path / "a").exists()


def test_what_kafka_accepts(tmp_path):
    """A broker needs none of the options, and takes -N and -I; a static controller takes -N."""
    assert formats(dynamic(tmp_path / "1", **BROKER)) == 0
    assert formats(dynamic(tmp_path / "2", **BROKER), "-N") == 0
    assert formats(dynamic(tmp_path / "3", **STATIC), "-N") == 0
    assert formats(dynamic(tmp_path / "4"), "-s", "-f", "kraft.version=1", "-r", "3.8") == 0


def test_bootstrap_files_are_laid_out_as_the_shared_snapshot_writer_does(tmp_path):
    """Without quorum records format's writer gives the bytes of log.snapshot_writer."""
    import io

    from kafka_meta_proto import message_class
    from kafka_meta_proto.log.snapshot_writer import write_snapshot
    from kafka_meta_proto.tools.storage import bootstrap_values, write_bootstrap_file

    values = bootstrap_values(feature_levels())
    header = message_class("SnapshotHeaderRecord")(version=0, last_contained_log_timestamp=5).encode(0)
    expected = io.BytesIO()
    write_snapshot(expected, header, values, message_class("SnapshotFooterRecord")(version=0).encode(0), epoch=0, timestamp=7)
    assert write_bootstrap_file(tmp_path / "x", values, 7, 5).read_bytes() == expected.getvalue()
