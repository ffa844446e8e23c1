"""Our metadata shell against Kafka's (``kafka_oracle.SHELL``: 4.3.1's, the newest kafka-shell jar
published; 4.4.0 has none), on the same files: ``find /``, ``tree /``, ``ls`` of
every directory and ``cat`` of every file print the same lines, but for the named differences
(``kafka_shell.reason``): a snapshot's provenance offset, /local, and directories of partitions
recorded without them. Files: what ``simulate --no-diskless`` writes (snapshot, bootstrap file,
first segment) and a snapshot touching every part of the image."""

from __future__ import annotations

import subprocess

import pytest

from conftest import need_kafka
from kafka_oracle import SHELL
from kafka_meta_proto import cli, message_class
from kafka_meta_proto.kraft import encode_record_value
from kafka_meta_proto.log.snapshot_writer import write_snapshot
from kafka_meta_proto.uuid import Uuid
from kafka_shell import LOCAL, PROVENANCE, KafkaShell, compare_shells, reason

M = message_class


def check(path, expected_reasons: set[str], minimum_lines: int):
    need_kafka(SHELL)
    answers = compare_shells(SHELL, path)
    assert not answers.unexplained(SHELL), "\n".join(
        f"{command} line {i}:\n  Kafka: {a}\n  ours:  {b}"
        for command, i, a, b in answers.unexplained(SHELL)[:5]
    )
    assert {reason(SHELL, a, b) for _, _, a, b in answers.differences} == expected_reasons
    assert answers.lines >= minimum_lines
    return answers


@pytest.fixture(scope="module")
def simulated(tmp_path_factory):
    out = tmp_path_factory.mktemp("simulated-for-kafka")
    argv = ["simulate", "--out", str(out), "--records", "3000", "--seed", "3", "--no-diskless", "--quiet"]
    assert cli.main(argv) == 0
    return out / "cluster-0"


def test_on_the_snapshot_simulate_writes(simulated):
    (snapshot,) = (simulated / "__cluster_metadata-0").glob("*.checkpoint")
    check(snapshot, {PROVENANCE, LOCAL}, minimum_lines=5000)


def test_on_the_bootstrap_file_simulate_writes(simulated):
    check(simulated / "bootstrap.checkpoint", {PROVENANCE, LOCAL}, minimum_lines=50)


def test_on_the_segment_simulate_writes(simulated):
    # A .log file is read like a snapshot by both shells; its offsets are the log's own.
    check(simulated / "__cluster_metadata-0" / f"{0:020d}.log", {LOCAL}, minimum_lines=5000)


def every_part_of_the_image() -> list[bytes]:
    """Record values touching every directory of Kafka's layout."""
    t1, t2 = Uuid.from_string("MvDxzVmcRsaTz33bUuRU6A"), Uuid.from_string("L4_FyI0VQPmo1SQDSQau_g")
    d1 = Uuid.from_string("u4xCnM-dRfid3gtXjfwyxQ")
    RB, RC, Q = M("RegisterBrokerRecord"), M("RegisterControllerRecord"), M("ClientQuotaRecord")
    records = [
        M("FeatureLevelRecord")(name="metadata.version", feature_level=30),  # 4.3-IV0: cordoned log dirs
        M("FeatureLevelRecord")(name="kraft.version", feature_level=1),
        M("FeatureLevelRecord")(name="group.version", feature_level=1),
        RB(broker_id=1, broker_epoch=10, incarnation_id=t1, rack="r1", fenced=False,
           end_points=[RB.BrokerEndpoint(name="SSL", host="h", port=9093, security_protocol=1),
                       RB.BrokerEndpoint(name="PLAINTEXT", host="localhost", port=9092, security_protocol=0)],
           features=[RB.BrokerFeature(name="metadata.version", min_supported_version=7, max_supported_version=27),
                     RB.BrokerFeature(name="kraft.version", min_supported_version=1, max_supported_version=1)],
           log_dirs=[d1, t2], cordoned_log_dirs=[t2]),
        RB(broker_id=2, broker_epoch=12, incarnation_id=t2, fenced=True, rack=None,
           end_points=[RB.BrokerEndpoint(name="PLAINTEXT", host="localhost", port=9094, security_protocol=0)]),
        RC(controller_id=3000, incarnation_id=d1, zk_migration_ready=False,
           end_points=[RC.ControllerEndpoint(name="CONTROLLER", host="localhost", port=9095, security_protocol=0)],
           features=[RC.ControllerFeature(name="metadata.version", min_supported_version=7, max_supported_version=27)]),
        M("TopicRecord")(name="foo", topic_id=t1),
        *[M("PartitionRecord")(partition_id=i, topic_id=t1, replicas=[1, 2], isr=[1], leader=1, leader_epoch=3,
                                partition_epoch=5, directories=[d1, t2], eligible_leader_replicas=[2])
          for i in range(12)],
        M("PartitionRecord")(partition_id=12, topic_id=t1, replicas=[2, 1], isr=[2, 1], leader=2, removing_replicas=[1],
                             leader_recovery_state=1, directories=[t2, d1]),
        M("TopicRecord")(name="bar.baz", topic_id=t2),
        M("PartitionRecord")(partition_id=0, topic_id=t2, replicas=[1], isr=[1], leader=1, directories=[d1]),
        M("ConfigRecord")(resource_type=2, resource_name="foo", name="cleanup.policy", value="compact"),
        M("ConfigRecord")(resource_type=4, resource_name="1", name="log.retention.ms", value="5"),
        M("ConfigRecord")(resource_type=4, resource_name="", name="min.insync.replicas", value="2"),
        M("ProducerIdsRecord")(broker_id=1, broker_epoch=10, next_producer_id=2000),
        M("AccessControlEntryRecord")(id=t2, resource_type=2, resource_name="foo", pattern_type=3,
                                      principal="User:alice", host="*", operation=3, permission_type=3),
        M("AccessControlEntryRecord")(id=t1, resource_type=4, resource_name="kafka-cluster", pattern_type=4,
                                      principal="User:*", host="10.0.0.1", operation=12, permission_type=2),
        Q(entity=[Q.EntityData(entity_type="user", entity_name="alice")], key="producer_byte_rate", value=1024.0),
        Q(entity=[Q.EntityData(entity_type="user", entity_name="alice"),
                  Q.EntityData(entity_type="client-id", entity_name="c(1)\\x")], key="consumer_byte_rate", value=2.5e7),
        Q(entity=[Q.EntityData(entity_type="ip", entity_name="1.2.3.4")], key="connection_creation_rate", value=0.0001),
        M("UserScramCredentialRecord")(name="alice", mechanism=1, salt=b"\x01\x02", stored_key=b"\x03",
                                       server_key=b"\x05", iterations=4096),
        M("DelegationTokenRecord")(owner="User:alice", requester="User:bob", renewers=["User:carol", "User:dave"],
                                   issue_timestamp=100, max_timestamp=200, expiration_timestamp=150, token_id="tok1"),
    ]  # fmt: skip
    return [encode_record_value(r, r.HIGHEST_VERSION) for r in records]


def test_on_a_snapshot_of_every_part_of_the_image(tmp_path):
    directory = tmp_path / "__cluster_metadata-0"
    directory.mkdir()
    path = directory / f"{100:020d}-{5:010d}.checkpoint"
    header = M("SnapshotHeaderRecord")(version=0, last_contained_log_timestamp=1754474509633).encode(0)
    with open(path, "wb") as out:
        write_snapshot(out, header, every_part_of_the_image(), M("SnapshotFooterRecord")(version=0).encode(0),
                       epoch=5, timestamp=1754474509633)  # fmt: skip
    answers = check(path, {PROVENANCE, LOCAL}, minimum_lines=200)
    text = "\n".join(answers.kafka["tree /"])
    # Spot checks that the snapshot reached every form (the comparison above holds them all).
    for expected in ("StandardAcl[resourceType=CLUSTER", "clientId(c\\(1\\)\\\\x)_user(alice)", "2.5E7", "1.0E-4",
                     "rack=Optional.empty", "cordonedDirectories=[L4_FyI0VQPmo1SQDSQau_g]", "RECOVERING",
                     "Optional[4.3-IV0]", "finalized_group.version", "ScramCredentialData(salt=0102",
                     "DelegationTokenDatatokenId=tok1", "time 2025-08-06T10:01:49.633Z[UTC]"):  # fmt: skip
        assert expected in text, expected



@pytest.mark.slow  # over ten seconds: the slow tier (.ci/run)
def test_a_start_that_hangs_is_tried_again_then_reported(tmp_path, monkeypatch):
    # Kafka's shell never gets past "Loading..." on an empty file (nothing is ever applied), the
    # way it sometimes hangs on a small one: each start is abandoned, and the last one reported.
    need_kafka(SHELL)
    empty = tmp_path / f"{0:020d}.log"
    empty.touch()
    monkeypatch.setattr(KafkaShell, "STARTUP_TIMEOUT", 8.0)
    monkeypatch.setattr(KafkaShell, "STARTS", 2)
    started = []
    real_popen = subprocess.Popen
    monkeypatch.setattr(subprocess, "Popen", lambda *a, **k: started.append(real_popen(*a, **k)) or started[-1])
    with pytest.raises(TimeoutError, match="did not answer: b'Loading...\\\\n'"):
        KafkaShell(SHELL, empty)
    assert len(started) == 2
    assert all(process.returncode is not None for process in started)  # none left running
