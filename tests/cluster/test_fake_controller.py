"""Our KRaft controller judged by Kafka's: the same request sequence (a broker id the real cluster
does not have registering, heartbeating, fetching producer-id blocks, creating and deleting a topic
it leads, shutting down and leaving) sent to the real controller of the tests and to ours, with
the answers and the records each wrote compared; then our log read by our audit, by Kafka's
DumpLogSegments and by Kafka's metadata shell.

The differences the controller's docstring lists show here as what is not compared: producer-id
blocks start where the cluster's last one ended (the real brokers took some), a broker that was a
partition's last ISR member leaves Kafka 4.x's ISR for its ELR but stays in ours."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import pytest

from cluster.helpers import copy_metadata_log, log_files
from cluster.test_log_tools import kafka_dump_log
from conftest import ROOT
from kafka_meta_proto import message_class
from kafka_meta_proto.client import connect
from kafka_meta_proto.error_codes import ErrorCode
from kafka_meta_proto.testing.controller import Controller
from kafka_meta_proto.tools import dump
from kafka_meta_proto.uuid import Uuid

pytestmark = [pytest.mark.cluster, pytest.mark.slow]  # real Kafka clusters: minutes

BROKER = 7  # an id the real cluster (controller 1, brokers 2 and 3) does not have
BrokerRegistrationRequest = message_class("BrokerRegistrationRequest")
BrokerHeartbeatRequest = message_class("BrokerHeartbeatRequest")
AllocateProducerIdsRequest = message_class("AllocateProducerIdsRequest")
CreateTopicsRequest = message_class("CreateTopicsRequest")
DeleteTopicsRequest = message_class("DeleteTopicsRequest")
UnregisterBrokerRequest = message_class("UnregisterBrokerRequest")
ApiVersionsRequest = message_class("ApiVersionsRequest")


FEATURES: dict[str, tuple[int, int]] = {}  # what the controller being judged supports


def registration(cluster_id: str, incarnation: Uuid):
    """A registration naming every feature the controller supports, at its whole range (Kafka 4
    refuses a broker that does not name a finalized feature: UNSUPPORTED_VERSION)."""
    listener = BrokerRegistrationRequest.Listener(name="PLAINTEXT", host="127.0.0.1", port=1, security_protocol=0)
    ranges = FEATURES or {"metadata.version": (7, 33)}
    features = [BrokerRegistrationRequest.Feature(name=n, min_supported_version=lo, max_supported_version=hi)
                for n, (lo, hi) in sorted(ranges.items())]  # fmt: skip
    return BrokerRegistrationRequest(broker_id=BROKER, cluster_id=cluster_id, incarnation_id=incarnation,
                                     listeners=[listener], features=features, log_dirs=[Uuid.random()])  # fmt: skip


async def supported_features(conn) -> dict[str, tuple[int, int]]:
    """The feature ranges the controller's ApiVersions answer lists (ours lists none)."""
    answer = await conn.send(ApiVersionsRequest(client_software_name="judge", client_software_version="1"))
    return {f.name: (f.min_version, f.max_version) for f in answer.supported_features}


def heartbeat(epoch: int, offset: int, shutdown: bool = False):
    return BrokerHeartbeatRequest(broker_id=BROKER, broker_epoch=epoch, current_metadata_offset=offset,
                                  want_fence=False, want_shut_down=shutdown)  # fmt: skip


def topic(name: str, **fields):
    return CreateTopicsRequest(topics=[CreateTopicsRequest.CreatableTopic(name=name, **fields)], timeout_ms=30000)


async def sequence(address: tuple[str, int], cluster_id: str, name: str) -> dict:
    """The requests, in order; what came back, as the comparison needs it."""
    got: dict = {}
    async with await connect(*address) as conn:
        FEATURES.clear()
        FEATURES.update(await supported_features(conn))
        first = await conn.send(registration(cluster_id, Uuid.random()))
        epoch = first.broker_epoch
        got["register"] = first.error_code
        got["wrong cluster"] = (await conn.send(registration(str(Uuid.random()), Uuid.random()))).error_code
        behind = await conn.send(heartbeat(epoch, epoch - 1))
        got["behind"] = (behind.error_code, behind.is_caught_up, behind.is_fenced)
        caught_up = await conn.send(heartbeat(epoch, epoch))
        got["caught up"] = (caught_up.error_code, caught_up.is_caught_up, caught_up.is_fenced)
        got["duplicate"] = (await conn.send(registration(cluster_id, Uuid.random()))).error_code
        got["stale heartbeat"] = (await conn.send(heartbeat(epoch + 100, epoch))).error_code
        blocks = [await conn.send(AllocateProducerIdsRequest(broker_id=BROKER, broker_epoch=epoch)) for _ in range(2)]
        got["blocks"] = [(b.error_code, b.producer_id_len) for b in blocks]
        got["consecutive"] = blocks[1].producer_id_start - blocks[0].producer_id_start
        stale = await conn.send(AllocateProducerIdsRequest(broker_id=BROKER, broker_epoch=epoch + 1))
        got["stale ids"] = stale.error_code
        assign = [CreateTopicsRequest.CreatableReplicaAssignment(partition_index=0, broker_ids=[BROKER])]
        created = (await conn.send(topic(name, num_partitions=-1, replication_factor=-1, assignments=assign))).topics[0]
        got["create"] = (created.error_code, created.topic_id != Uuid.ZERO_UUID, created.num_partitions)
        got["exists"] = (await conn.send(topic(name, num_partitions=1, replication_factor=1))).topics[0].error_code
        wide = (await conn.send(topic(name + "-wide", num_partitions=1, replication_factor=10))).topics[0]
        got["too wide"] = wide.error_code
        got["shutdown"] = await shut_down(conn, epoch)
        state = DeleteTopicsRequest.DeleteTopicState(name=name)
        got["delete at once"] = (await conn.send(DeleteTopicsRequest(topics=[state], timeout_ms=0))).responses[0].error_code
        deleted = await conn.send(DeleteTopicsRequest(topics=[state], timeout_ms=30000))
        got["delete"] = deleted.responses[0].error_code
        got["unregister"] = (await conn.send(UnregisterBrokerRequest(broker_id=BROKER))).error_code
        got["unregister again"] = (await conn.send(UnregisterBrokerRequest(broker_id=BROKER))).error_code
        got["epoch"] = epoch
    return got


async def shut_down(conn, epoch: int) -> list[tuple[int, bool, bool]]:
    """Heartbeat with WantShutDown until told to shut down: the distinct answers on the way."""
    seen: list[tuple[int, bool, bool]] = []
    for _ in range(300):
        answer = await conn.send(heartbeat(epoch, epoch, shutdown=True))
        state = (answer.error_code, answer.is_fenced, answer.should_shut_down)
        if not seen or seen[-1] != state:
            seen.append(state)
        if answer.should_shut_down or answer.error_code:
            break
        await asyncio.sleep(0.1)
    return seen


def story(log_dir: Path, name: str, since: int) -> tuple[list[tuple], dict[str, int]]:
    """The records about BROKER and topic ``name`` from offset ``since`` on (the registration: a
    cluster shared by other tests may hold older ones), as (type, the fields compared), and the
    offset of each RegisterBrokerRecord of BROKER by its epoch."""
    events: list[tuple] = []
    registered: dict[str, int] = {}
    topic_ids: set[str] = set()
    for path in log_files(log_dir):
        if path.suffix != ".log":
            continue
        for obj in dump.iter_json_records(str(path)):
            kind, data = obj["type"], obj.get("data") or {}
            if kind == "TOPIC_RECORD" and data.get("name") == name:
                topic_ids.add(data["topicId"])
            mine = data.get("brokerId") == BROKER or data.get("topicId") in topic_ids
            if not mine or obj["offset"] < since:
                continue
            if kind == "REGISTER_BROKER_RECORD":
                registered[str(data["brokerEpoch"])] = obj["offset"]
            events.append(_event(kind, data))
    return events, registered


def _event(kind: str, data: dict) -> tuple:
    if kind == "BROKER_REGISTRATION_CHANGE_RECORD":
        return kind, data.get("fenced", 0), data.get("inControlledShutdown", 0)
    if kind == "PARTITION_RECORD":
        return kind, tuple(data["replicas"]), tuple(data["isr"]), data["leader"]
    if kind == "PARTITION_CHANGE_RECORD":
        return kind, data.get("leader", -2)  # the ISR differs with ELR (module docstring)
    if kind == "REGISTER_BROKER_RECORD":
        return kind, data["fenced"]
    return (kind,)


def test_our_controller_answers_and_writes_as_kafkas(cluster, tmp_path):
    name = f"judged-{Uuid.random()}".replace("_", "-")
    theirs = asyncio.run(sequence(cluster.controller_address, cluster.cluster_id, name))

    async def ours_run() -> dict:
        controller = Controller(tmp_path / "ours", cluster_id=cluster.cluster_id)
        await controller.start()
        try:
            return await sequence(controller.address, controller.cluster_id, name)
        finally:
            await controller.close()

    ours = asyncio.run(ours_run())
    their_epoch, our_epoch = theirs.pop("epoch"), ours.pop("epoch")
    assert ours == theirs
    assert theirs["register"] == 0 and theirs["duplicate"] == ErrorCode.DUPLICATE_BROKER_REGISTRATION
    assert theirs["wrong cluster"] == ErrorCode.INCONSISTENT_CLUSTER_ID
    assert theirs["stale ids"] == theirs["stale heartbeat"] == ErrorCode.STALE_BROKER_EPOCH
    assert theirs["consecutive"] == 1000

    their_events, their_offsets = story(copy_metadata_log(cluster, tmp_path / "theirs"), name, their_epoch)
    our_events, our_offsets = story(tmp_path / "ours" / "__cluster_metadata-0", name, our_epoch)
    assert our_events == their_events, (our_events, their_events)
    # A broker epoch is the offset of its RegisterBrokerRecord, on both sides.
    assert their_offsets == {str(their_epoch): their_epoch} and our_offsets == {str(our_epoch): our_epoch}


def test_our_log_passes_our_audit_and_kafkas_tools(cluster, tmp_path):
    from kafka_shell import LOCAL, PROVENANCE, SHELL, compare_shells, reason

    async def run_controller() -> Path:
        controller = Controller(tmp_path, cluster_id=str(Uuid.random()))
        await controller.start()
        try:
            await sequence(controller.address, controller.cluster_id, "audited")
            async with await connect(*controller.address) as conn:  # a topic left in the image
                await conn.send(registration(controller.cluster_id, Uuid.random()))
                epoch = controller.image.brokers[BROKER].epoch
                await conn.send(heartbeat(epoch, epoch))
                await conn.send(topic("kept", num_partitions=3, replication_factor=1))
            return controller.snapshot()
        finally:
            await controller.close()

    snapshot = asyncio.run(run_controller())
    log_dir = tmp_path / "__cluster_metadata-0"
    command = Path(sys.executable).parent / "kafka-meta-proto"
    audit = subprocess.run([str(command), "audit", str(tmp_path), "--fail-on-violations", "--no-progress",
                            "--out", str(tmp_path.parent / "audit-out")],
                           capture_output=True, text=True, timeout=600, cwd=ROOT)  # fmt: skip
    assert audit.returncode == 0, audit.stderr[-2000:]
    assert "0 violation(s)" in audit.stdout, audit.stdout[-2000:]

    segments = [p for p in log_files(log_dir) if p.suffix == ".log"]
    lines = kafka_dump_log(cluster, segments + [snapshot])  # the cluster's Kafka runs the tool
    assert any("REGISTER_BROKER_RECORD" in line for line in lines)
    assert any("SnapshotHeader" in line for line in lines)
    ours = dump.iter_json_records(str(segments[0]))
    assert sum(1 for line in lines if line.startswith("| offset:")) >= sum(1 for _ in ours)
    for path, named in ((snapshot, {PROVENANCE, LOCAL}), (segments[0], {LOCAL})):
        answers = compare_shells(SHELL, path)
        assert not answers.unexplained(SHELL), answers.unexplained(SHELL)[:5]
        assert {reason(SHELL, a, b) for _, _, a, b in answers.differences} <= named
        tree = "\n".join(answers.kafka["tree /"])
        assert "BrokerRegistration(id=7" in tree and "PartitionRegistration(" in tree
