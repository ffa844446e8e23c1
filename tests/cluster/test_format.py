"""``kafka-meta-proto format`` against Kafka's storage tool: the same files in the same places, the
bootstrap records equal Kafka's, Kafka's DumpLogSegments reads them as our dump-log does, and
Kafka's controller and brokers start and serve on directories we formatted."""

from __future__ import annotations

import io
import re
import subprocess

import pytest

import kafka_cluster
import kafka_oracle
from cluster.conftest import NEWEST
from cluster.helpers import send
from conftest import need_kafka
from kafka_client import KafkaConnection
from kafka_meta_proto import dump, message_class
from kafka_meta_proto.image import MetadataImage
from kafka_meta_proto.localfiles import read_meta_properties
from kafka_meta_proto.storage import feature_levels

pytestmark = pytest.mark.cluster

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
        with KafkaConnection(*cluster.bootstrap[0]) as conn:
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
