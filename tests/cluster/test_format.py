"""``kafka-meta-proto format`` against Kafka's storage tool: the bootstrap records equal Kafka's,
and Kafka's controller and brokers start and serve on directories we formatted."""

from __future__ import annotations

import pytest

import kafka_cluster
from cluster.conftest import NEWEST
from cluster.helpers import send
from conftest import need_kafka
from kafka_client import KafkaConnection
from kafka_meta_proto import dump, message_class
from kafka_meta_proto.localfiles import read_meta_properties

pytestmark = pytest.mark.cluster


def records(path) -> list[tuple]:
    return [(o["type"], o["version"], o["data"]) for o in dump.iter_json_records(str(path))]


def test_bootstrap_records_equal_kafkas(tmp_path):
    need_kafka(NEWEST)
    made = {}
    for formatter in ("kafka", "ours"):
        cluster = kafka_cluster.KafkaCluster(NEWEST, tmp_path / formatter, formatter=formatter)
        cluster.format()
        made[formatter] = cluster
    kafka_dir, our_dir = (made[f].data_dir(made[f].controller) for f in ("kafka", "ours"))
    assert records(our_dir / "bootstrap.checkpoint") == records(kafka_dir / "bootstrap.checkpoint")
    for f, cluster in made.items():
        for node in cluster.nodes:
            meta = read_meta_properties(cluster.data_dir(node))
            assert (meta.version, meta.node_id, meta.cluster_id) == (
                1,
                node.node_id,
                cluster.cluster_id,
            ), f
            assert meta.directory_id is not None


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
