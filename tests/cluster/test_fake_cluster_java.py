"""Kafka's own Java clients (kafka-clients of the newest release, through tools/java/ClientJudge.java)
against the in-process cluster: the admin client creates, describes, reads the configs of and
deletes a topic; the idempotent producer writes with each compression codec and a consumer with
``assign`` reads back exactly what was acknowledged, in order; three consumers of one group share
a topic through rebalances as they come and go, commit, and a later member resumes from the
commits; and records acknowledged before a broker is lost are all read after it."""

from __future__ import annotations

import os
import subprocess
import time

import kafka_oracle  # tools/, on the path through this folder's conftest
import pytest

from conftest import ROOT, need_kafka
from kafka_meta_proto.testing.threaded import RunningCluster

pytestmark = [pytest.mark.cluster, pytest.mark.slow]  # JVMs: tens of seconds

NEWEST = kafka_oracle.releases()[-1]
JUDGE = ROOT / "tools" / "java" / "ClientJudge.java"
CODECS = ["none", "gzip", "snappy", "lz4", "zstd"]


@pytest.fixture(scope="module")
def compiled(tmp_path_factory) -> str:
    """The judge compiled once (Java's source-file mode would compile it at every start)."""
    need_kafka(NEWEST)
    into = tmp_path_factory.mktemp("judge")
    jars = os.pathsep.join(str(jar) for jar in kafka_oracle.jars(NEWEST))
    subprocess.run(["javac", "-cp", jars, "-d", str(into), str(JUDGE)], check=True, timeout=300)
    return os.pathsep.join([str(into), jars])


CLASSPATH: list[str] = []  # the compiled judge's classpath, set by the cluster fixture


def judge_command(*args: object) -> list[str]:
    return ["java", *kafka_oracle.JAVA_OPTIONS, "-XX:TieredStopAtLevel=1", "-cp", CLASSPATH[0],
            "ClientJudge", *map(str, args)]  # fmt: skip


def judge(*args: object, timeout: float = 180) -> list[list[str]]:
    """Run one judge command to its end; its lines, split at tabs."""
    done = subprocess.run(judge_command(*args), capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, done.stderr[-3000:]
    return [line.split("\t") for line in done.stdout.splitlines() if line]


def facts(lines: list[list[str]], kind: str) -> list[tuple[int, int, str]]:
    return [(int(p), int(o), v) for k, p, o, v in (l for l in lines if l[0] == kind)]


@pytest.fixture
def cluster(tmp_path, compiled):
    CLASSPATH[:] = [compiled]
    with RunningCluster(brokers=3, data_dir=tmp_path / "fake", session_timeout_ms=1500,
                        heartbeat_interval_ms=100) as running:  # fmt: skip
        yield running


def test_the_admin_client_creates_describes_reads_configs_and_deletes(cluster):
    lines = judge("admin", cluster.bootstrap, "administered", 3, 2)
    assert lines[0] == ["created", "administered"] and lines[-1] == ["deleted", "administered"]
    partitions = [l for l in lines if l[0] == "partition"]
    assert [int(l[1]) for l in partitions] == [0, 1, 2]
    assert all(l[3:] == ["2", "2"] for l in partitions)  # two replicas, both in sync
    assert {l[1]: l[2] for l in lines if l[0] == "config"} == {
        "cleanup.policy": "delete", "retention.ms": "604800000", "compression.type": "producer"}
    assert cluster.image.topic("administered") is None


def test_the_idempotent_producer_with_each_codec_and_an_assigned_consumer(cluster):
    cluster.create_topic("codecs", partitions=3, replication_factor=2)
    acked = facts(judge("produce", cluster.bootstrap, "codecs", 40, ",".join(CODECS)), "acked")
    read = facts(judge("assign", cluster.bootstrap, "codecs", len(acked)), "record")
    assert len(acked) == 40 * len(CODECS)
    assert sorted(read) == sorted(acked)  # each acknowledged record once, where it was acked
    by_partition = {}
    for partition, offset, _ in read:
        by_partition.setdefault(partition, []).append(offset)
    assert all(offsets == sorted(offsets) for offsets in by_partition.values())


def confluent_produce(bootstrap: str, topic: str, prefix: str, count: int) -> list[tuple[int, int, str]]:
    """Records produced by librdkafka while the Java consumers read: (partition, offset, value)."""
    confluent = pytest.importorskip("confluent_kafka", reason="confluent-kafka is not installed")
    producer = confluent.Producer({"bootstrap.servers": bootstrap, "enable.idempotence": True})
    acked: list[tuple[int, int, str]] = []
    for i in range(count):
        producer.produce(topic, value=f"{prefix} {i}".encode(), on_delivery=lambda e, m: acked.append(
            (m.partition(), m.offset(), m.value().decode())) if e is None else None)  # fmt: skip
    assert producer.flush(60) == 0 and len(acked) == count
    return acked


def start_member(cluster, group: str, count: int, idle_seconds: int) -> subprocess.Popen:
    return subprocess.Popen(judge_command("group", cluster.bootstrap, "shared", group, count, idle_seconds),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip


def member_lines(process: subprocess.Popen) -> list[list[str]]:
    out, err = process.communicate(timeout=240)
    assert process.returncode == 0, err[-3000:]
    return [line.split("\t") for line in out.splitlines() if line]


def test_three_consumers_of_a_group_share_a_topic_through_rebalances_and_resume(cluster):
    cluster.create_topic("shared", partitions=6, replication_factor=2)
    first = confluent_produce(cluster.bootstrap, "shared", "first", 300)
    # Members join one after another and leave after different idle times: each arrival and
    # departure is a rebalance; records produced while all three are in share the partitions.
    members = []
    for idle in (20, 16, 12):
        members.append(start_member(cluster, "sharers", 10_000, idle))
        time.sleep(4)
    second = confluent_produce(cluster.bootstrap, "shared", "second", 300)
    outputs = [member_lines(member) for member in members]
    consumed = [fact for lines in outputs for fact in facts(lines, "record")]
    assert {v for _, _, v in consumed} == {v for _, _, v in first + second}
    for lines in outputs:  # between two assignments, each member reads its partitions forward
        last: dict[int, int] = {}
        for line in lines:
            if line[0] == "assigned":
                last = {}
            elif line[0] == "record":
                partition, offset = int(line[1]), int(line[2])
                assert offset > last.get(partition, -1), line
                last[partition] = offset
    assignments = [l for lines in outputs for l in lines if l[0] == "assigned"]
    assert len(assignments) >= 4  # the first member alone, then two and three, then fewer
    # A member after them all resumes from the commits: only what is produced now reaches it.
    late = start_member(cluster, "sharers", 10, 60)  # it ends once it has read 10
    time.sleep(6)
    third = confluent_produce(cluster.bootstrap, "shared", "third", 10)
    assert sorted(facts(member_lines(late), "record")) == sorted(third)


def test_records_acknowledged_before_a_broker_is_lost_are_all_read_after(cluster):
    cluster.create_topic("survivor", partitions=3, replication_factor=3)
    before = facts(judge("produce", cluster.bootstrap, "survivor", 200, "gzip"), "acked")
    lost = cluster.image.topic("survivor").partitions[0].leader
    cluster.stop_broker(lost)
    after = facts(judge("produce", cluster.bootstrap, "survivor", 200, "snappy"), "acked")
    read = facts(judge("assign", cluster.bootstrap, "survivor", 400), "record")
    assert sorted(read) == sorted(before + after)
    assert all(p.leader != lost for p in cluster.image.topic("survivor").partitions.values())
