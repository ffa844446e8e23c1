"""``kafka-meta-proto format`` against Kafka's storage tool: the same files in the same places, the
bootstrap records equal Kafka's, Kafka's DumpLogSegments reads them as our dump-log does, and
Kafka's controller and brokers start and serve on directories we formatted."""

from __future__ import annotations

import io
import os
import re
import subprocess
import sys

import pytest

import kafka_cluster
import kafka_oracle
from cluster.conftest import NEWEST
from cluster.helpers import connect, send
from conftest import need_kafka
from kafka_meta_proto import message_class
from kafka_meta_proto.tools import dump
from kafka_meta_proto.kraft.image import MetadataImage
from kafka_meta_proto.tools.localfiles import read_meta_properties
from kafka_meta_proto.tools.storage import feature_levels

pytestmark = [pytest.mark.cluster, pytest.mark.slow]  # real Kafka clusters: minutes

BOOTSTRAP_SNAPSHOT = "__cluster_metadata-0/00000000000000000000-0000000000.checkpoint"


def records(path) -> list[tuple]:
    return [(o["type"], o["version"], o["data"]) for o in dump.iter_json_records(str(path))]


def timeless(path) -> list[tuple]:
    """A snapshot's records, the header's log timestamp (the time of formatting, from 4.4) left out."""
    found = records(path)
    assert found[0][0] == "SNAPSHOT_HEADER"
    return [(found[0][0], found[0][1], found[0][2]["version"])] + found[1:]


def files(directory) -> list[str]:
    return sorted(str(p.relative_to(directory)) for p in directory.rglob("*") if p.is_file())


@pytest.fixture(scope="module")
def formatted(tmp_path_factory):
    """Kafka NEWEST's storage tool and ours, each run on a controller and two brokers (the
    newest release's layout, the default release version)."""
    need_kafka(NEWEST)
    made = {}
    for formatter in ("kafka", "ours"):
        cluster = kafka_cluster.KafkaCluster(
            NEWEST, tmp_path_factory.mktemp(f"format-{formatter}"), formatter=formatter
        )
        cluster.format()
        made[formatter] = cluster
    return made


def test_the_same_files_in_the_same_places(formatted):
    kafka, ours = formatted["kafka"], formatted["ours"]
    for theirs, mine in zip(kafka.nodes, ours.nodes):
        assert files(ours.data_dir(mine)) == files(kafka.data_dir(theirs)), mine
    # 4.4 (KIP-1170): the bootstrap snapshot is in the controller's metadata log, and nowhere else.
    assert files(ours.data_dir(ours.controller)) == [BOOTSTRAP_SNAPSHOT, "meta.properties"]
    assert all(files(ours.data_dir(n)) == ["meta.properties"] for n in ours.nodes if n.is_broker)


def test_bootstrap_records_equal_kafkas(formatted):
    kafka_file, our_file = (formatted[f].data_dir(formatted[f].controller) / BOOTSTRAP_SNAPSHOT
                            for f in ("kafka", "ours"))  # fmt: skip
    assert timeless(our_file) == timeless(kafka_file)
    assert records(our_file)[1] == ("FEATURE_LEVEL_RECORD", 0, {"name": "metadata.version", "featureLevel": 33})
    levels = {name: level for name, level in feature_levels().items() if level > 0}
    assert MetadataImage.from_log_dir(formatted["kafka"].data_dir(formatted["kafka"].controller)).features == levels
    for f, cluster in formatted.items():
        for node in cluster.nodes:
            meta = read_meta_properties(cluster.data_dir(node))
            assert (meta.version, meta.node_id, meta.cluster_id) == (
                1,
                node.node_id,
                cluster.cluster_id,
            ), f
            assert meta.directory_id is not None


def kafka_dump_log(path) -> list[str]:
    command = kafka_oracle.dump_log_segments(NEWEST, "--cluster-metadata-decoder", "--files", str(path))
    run = subprocess.run(command, capture_output=True, text=True, timeout=120, check=True)
    return run.stdout.splitlines()


def our_dump_log(path) -> list[str]:
    out = io.StringIO()
    assert dump.dump([str(path)], out, io.StringIO(), form=dump.tool_form(NEWEST)) == 0
    return out.getvalue().splitlines()


TIMES = re.compile(r"(CreateTime: |crc: |\"lastContainedLogTimestamp\":)\d+")


def test_kafka_dump_log_segments_reads_both_files_as_we_do(formatted):
    """Kafka's tool on its file and on ours: our dump-log prints the same lines; the two files
    differ only in their times (and so their CRCs)."""
    kafka_file, our_file = (formatted[f].data_dir(formatted[f].controller) / BOOTSTRAP_SNAPSHOT
                            for f in ("kafka", "ours"))  # fmt: skip
    theirs = kafka_dump_log(kafka_file)
    assert our_dump_log(kafka_file) == theirs
    mine = kafka_dump_log(our_file)
    assert our_dump_log(our_file) == mine
    assert theirs[1] == mine[1] == "Snapshot end offset: 0, epoch: 0"
    assert [TIMES.sub(r"\1T", line) for line in mine[1:]] == [TIMES.sub(r"\1T", line) for line in theirs[1:]]


@pytest.mark.parametrize("release", ["4.3", "3.9"])
def test_older_release_versions_write_their_own_layout(tmp_path, release):
    """Asked for a release before 4.4, ours writes bootstrap.checkpoint as that release's tool
    did; Kafka 4.4.0's tool writes its own layout whatever the release version. The records are
    the same."""
    need_kafka(NEWEST)
    made = {}
    for formatter in ("kafka", "ours"):
        cluster = kafka_cluster.KafkaCluster(NEWEST, tmp_path / formatter, brokers=0,
                                             formatter=formatter, release_version=release)  # fmt: skip
        cluster.format()
        made[formatter] = cluster.data_dir(cluster.controller)
    assert files(made["ours"]) == ["bootstrap.checkpoint", "meta.properties"]
    assert files(made["kafka"]) == [BOOTSTRAP_SNAPSHOT, "meta.properties"]
    assert timeless(made["ours"] / "bootstrap.checkpoint") == timeless(made["kafka"] / BOOTSTRAP_SNAPSHOT)
    # Our image reads either directory, a node formatted and never started, to the same features.
    levels = {name: level for name, level in feature_levels(release).items() if level > 0}
    assert MetadataImage.from_log_dir(made["kafka"]).features == MetadataImage.from_log_dir(made["ours"]).features == levels


def test_kafka_starts_and_serves_on_our_directories(tmp_path):
    need_kafka(NEWEST)
    with kafka_cluster.KafkaCluster(NEWEST, tmp_path, formatter="ours") as cluster:
        with connect(*cluster.bootstrap[0]) as conn:
            request = message_class("CreateTopicsRequest")
            topic = request.CreatableTopic(
                name="on-our-format", num_partitions=1, replication_factor=2
            )
            assert (
                send(conn, request(topics=[topic], timeout_ms=30000), 7).body.topics[0].error_code
                == 0
            )
        assert any(cluster.metadata_dir().iterdir())
        # The controller replayed our snapshot and appended its records to the log.
        log = records(cluster.metadata_dir() / "00000000000000000000.log")
        assert ("FEATURE_LEVEL_RECORD", 0, {"name": "metadata.version", "featureLevel": 33}) in log


# A dynamic quorum's options: Kafka NEWEST's tool and ours on the same configurations.

DIR_1, DIR_2 = "4znU-ou9Taa06bmEJxsjnw", "yPeQXUlvSjGDhkZh5D5Y5Q"
IC = f"1@localhost:9093:{DIR_1},2@localhost:9094:{DIR_2}"
STATIC = {"controller.quorum.voters": "1@localhost:9093", "controller.quorum.bootstrap.servers": None}
ACCEPTED = {"standalone": ({}, ["--standalone"]), "initial": ({}, ["--initial-controllers", IC]),
            "none": ({}, ["--no-initial-controllers"]), "standalone-4.3": ({}, ["-s", "-r", "4.3"])}  # fmt: skip
# Each refusal: the configuration, the options, what Kafka's message says, what ours says.
REFUSED = {
    "no-option": ({}, [], "you must specify one of the following", "give --standalone, --initial-controllers"),
    "broker-standalone": ({"process.roles": "broker", "listeners": "PLAINTEXT://localhost:9092"}, ["-s"],
                          "You can only use --standalone on a controller", "--standalone formats a controller"),
    "static-standalone": (STATIC, ["-s"], "You cannot specify controller.quorum.voters", "controller.quorum.voters is set"),
    "two-options": ({}, ["-s", "-N"], "not allowed with argument", "exclude one another"),
    "kraft-0": ({}, ["-s", "--feature", "kraft.version=0"], "Cannot set kraft.version to 0", "kraft.version 0 cannot"),
    "no-directory-id": ({}, ["-I", "1@localhost:9093"], "No colon following port", "no ':' after the port"),
}  # fmt: skip


def dynamic_config(directory, settings) -> str:
    props = {"process.roles": "controller", "node.id": "1", "controller.listener.names": "CONTROLLER",
             "listener.security.protocol.map": "CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT",
             "listeners": "CONTROLLER://localhost:9093", "controller.quorum.bootstrap.servers": "localhost:9093",
             "log.dirs": f"{directory}/a,{directory}/b", **settings}  # fmt: skip
    directory.mkdir(parents=True)
    path = directory / "server.properties"
    path.write_text("".join(f"{k}={v}\n" for k, v in props.items() if v is not None))
    return str(path)


def run_both(directory, settings, options) -> dict[str, tuple[int, str]]:
    """(exit status, standard error) of Kafka's tool and of ours, each in a directory of its own."""
    cluster_id = "MkU3OEVBNTcwNTJENDM2Qg"
    kafka = subprocess.run(["java", *kafka_cluster.JAVA_OPTIONS, "-cp", os.pathsep.join(map(str, kafka_oracle.jars(NEWEST))),
                            "kafka.tools.StorageTool", "format", "-t", cluster_id,
                            "-c", dynamic_config(directory / "kafka", settings), *options],
                           capture_output=True, text=True, timeout=120)  # fmt: skip
    ours = subprocess.run([sys.executable, "-m", "kafka_meta_proto.cli", "format", "-t", cluster_id,
                           "-c", dynamic_config(directory / "ours", settings), *options],
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    return {"kafka": (kafka.returncode, kafka.stderr), "ours": (ours.returncode, ours.stderr)}


@pytest.fixture(scope="module")
def quorum_runs(tmp_path_factory):
    need_kafka(NEWEST)
    base = tmp_path_factory.mktemp("format-quorum")
    return base, {name: run_both(base / name, *case[:2]) for name, case in {**ACCEPTED, **REFUSED}.items()}


def quorum_records(path, own) -> list[tuple]:
    """A snapshot's records with their offsets; the header's timestamp and this node's own (random)
    directory id left out."""
    found = []
    for r in dump.iter_json_records(str(path)):
        data = r["data"]
        if r["type"] == "SNAPSHOT_HEADER":
            data = {"version": data["version"]}
        elif r["type"] == "KRAFT_VOTERS":
            data = {**data, "voters": [{**v, "voterDirectoryId": "own" if v["voterDirectoryId"] == own else v["voterDirectoryId"]}
                                       for v in data["voters"]]}  # fmt: skip
        found.append((r["offset"], r["batchBaseOffset"], r["control"], r["type"], r["version"], data))
    return found


def own_records(directory, path="a/" + BOOTSTRAP_SNAPSHOT) -> list[tuple]:
    return quorum_records(directory / path, str(read_meta_properties(directory / "a").directory_id))


@pytest.mark.parametrize("name", ["standalone", "initial", "none"])
def test_quorum_options_write_kafkas_records(quorum_runs, name):
    base, runs = quorum_runs
    assert runs[name]["kafka"][0] == runs[name]["ours"][0] == 0, runs[name]
    kafka, ours = base / name / "kafka", base / name / "ours"
    assert files(ours) == files(kafka)
    assert own_records(ours) == own_records(kafka)
    types = [r[3] for r in own_records(ours)]
    assert types[:3] == ["SNAPSHOT_HEADER", "KRAFT_VERSION", "KRAFT_VOTERS" if name != "none" else "FEATURE_LEVEL_RECORD"]
    if name == "initial":  # the metadata log directory's id is this node's voter's
        assert str(read_meta_properties(ours / "a").directory_id) == str(read_meta_properties(kafka / "a").directory_id) == DIR_1
    if name == "standalone":  # Kafka's DumpLogSegments reads ours as our dump-log does
        assert our_dump_log(ours / "a" / BOOTSTRAP_SNAPSHOT) == kafka_dump_log(ours / "a" / BOOTSTRAP_SNAPSHOT)


def test_standalone_for_4_3_splits_the_records_as_older_tools_did(quorum_runs):
    """Kafka NEWEST writes one snapshot whatever -r says; ours, for 4.3, the feature levels in
    bootstrap.checkpoint and the quorum's records in a snapshot (0, 0) of their own."""
    base, runs = quorum_runs
    kafka, ours = base / "standalone-4.3" / "kafka", base / "standalone-4.3" / "ours"
    assert runs["standalone-4.3"]["kafka"][0] == runs["standalone-4.3"]["ours"][0] == 0
    theirs = own_records(kafka)
    assert own_records(ours)[:3] == theirs[:3]  # header, KRaftVersion, Voters
    features = [r[3:] for r in theirs if not r[2]]
    assert [r[3:] for r in own_records(ours, "a/bootstrap.checkpoint") if not r[2]] == features
    assert ("FEATURE_LEVEL_RECORD", 0, {"name": "metadata.version", "featureLevel": 30}) == features[0]


@pytest.mark.parametrize("name", REFUSED)
def test_quorum_refusals_as_kafkas(quorum_runs, name):
    base, runs = quorum_runs
    _, _, kafka_says, we_say = REFUSED[name]
    (kafka_status, kafka_err), (our_status, our_err) = runs[name]["kafka"], runs[name]["ours"]
    assert kafka_status == our_status == 1
    assert kafka_says in " ".join(kafka_err.split()) and we_say in our_err  # argparse4j wraps its lines
    assert not (base / name / "kafka" / "a").exists() and not (base / name / "ours" / "a").exists()


@pytest.mark.slow
def test_kafka_starts_on_our_standalone_controller(tmp_path):
    """One node, controller and broker, of a dynamic quorum formatted by ours with --standalone:
    Kafka NEWEST starts on it, the node is the quorum's only voter and serves."""
    need_kafka(NEWEST)
    cluster = kafka_cluster.KafkaCluster(NEWEST, tmp_path, combined=True, formatter="ours", format_options=["--standalone"])
    host, port = cluster.controller_address
    cluster.settings.update({"controller.quorum.voters": None, "controller.quorum.bootstrap.servers": f"{host}:{port}"})
    with cluster:
        with connect(*cluster.bootstrap[0]) as conn:
            request = message_class("DescribeQuorumRequest")
            topic = request.TopicData(topic_name="__cluster_metadata", partitions=[request.PartitionData(partition_index=0)])
            answer = send(conn, request(topics=[topic]), 2).body
        node = cluster.controller
        own = read_meta_properties(cluster.data_dir(node)).directory_id
        partition = answer.topics[0].partitions[0]
        assert (partition.error_code, partition.leader_id) == (0, node.node_id)
        assert [(v.replica_id, v.replica_directory_id) for v in partition.current_voters] == [(node.node_id, own)]
        log = records(cluster.metadata_dir() / "00000000000000000000.log")
        assert ("FEATURE_LEVEL_RECORD", 0, {"name": "metadata.version", "featureLevel": 33}) in log
