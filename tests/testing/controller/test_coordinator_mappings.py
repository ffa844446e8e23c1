"""AssignPartitionToBatchCoordinator (99) at a diskless controller: the mapping records in the
metadata log, in the controller's and a broker's image and in a snapshot; each refusal's code;
and a controller on Kafka's registry, which does not serve 99 at all."""

from __future__ import annotations

import pytest

from kafka_meta_proto import DISKLESS_REGISTRY
from kafka_meta_proto.client import connect
from kafka_meta_proto.error_codes import ErrorCode as E
from kafka_meta_proto.kraft.image import MetadataImage
from kafka_meta_proto.net.errors import NoCommonVersion
from kafka_meta_proto.testing.broker.lifecycle import BrokerLifecycle
from kafka_meta_proto.uuid import Uuid

from kafka_meta_proto import message_class
from testing.controller.scene import HEARTBEAT_MS, run, scene, topic

M = DISKLESS_REGISTRY.message_class
CreatableTopicConfig = message_class("CreateTopicsRequest").CreatableTopicConfig
DISKLESS = [CreatableTopicConfig(name="diskless.enable", value="true")]


def assignment(*entries: tuple[Uuid, int, int]):
    """(topic id, partition, coordinator) entries, one topic entry each."""
    return M("AssignPartitionToBatchCoordinatorRequest").from_json({"topics": [
        {"topicId": str(t), "partitions": [{"partitionIndex": p, "batchCoordinatorPartitionIndex": c}]}
        for t, p, c in entries]}, 0)  # fmt: skip


async def assign(conn, *entries: tuple[Uuid, int, int]) -> list[int]:
    answer = await conn.send(assignment(*entries))
    return [p.error_code for t in answer.responses for p in t.partitions]


async def created(conn, name: str, partitions: int, configs=()) -> Uuid:
    answer = await conn.send(topic(name, partitions, configs=list(configs)))
    assert answer.topics[0].error_code == 0
    return answer.topics[0].topic_id


def test_mappings_are_written_seen_by_brokers_and_snapshotted(tmp_path):
    async def scenario():
        async with scene(tmp_path, diskless=True) as s:
            broker = BrokerLifecycle(0, s.controller.address, cluster_id=s.cluster_id,
                                     listeners=[("PLAINTEXT", "127.0.0.1", 9092)], heartbeat_interval_ms=HEARTBEAT_MS)  # fmt: skip
            broker.image.registry = DISKLESS_REGISTRY
            await broker.start()
            s.lifecycles.append(broker)
            await broker.wait_until(
                lambda image: 0 in image.brokers and not image.brokers[0].fenced
            )
            async with await connect(*s.controller.address, registry=DISKLESS_REGISTRY) as conn:
                events = await created(conn, "events", 3, DISKLESS)
                assert await assign(conn, (events, 0, 0)) == [E.COORDINATOR_NOT_AVAILABLE]
                await created(conn, "__diskless-metadata", 2)
                assert await assign(conn, (events, 0, 0), (events, 1, 1), (events, 2, 1)) == [
                    0,
                    0,
                    0,
                ]
                assert s.controller.image.diskless == {events: {0: 0, 1: 1, 2: 1}}
                await broker.caught_up()
                assert broker.image.diskless == {events: {0: 0, 1: 1, 2: 1}}

                end = s.controller.log.end_offset
                assert await assign(conn, (events, 2, 1)) == [0]  # already so: nothing written
                assert s.controller.log.end_offset == end
                assert await assign(conn, (events, 2, 0)) == [0]  # a move is one more record
                assert s.controller.log.end_offset == end + 1

                snapshot = s.controller.snapshot()
                assert MetadataImage.from_snapshot(snapshot, registry="diskless").diskless == {
                    events: {0: 0, 1: 1, 2: 0}
                }
            # the log carries the registry marker: read without naming a registry, type 29 is the mapping
            logged = MetadataImage.from_log_dir(tmp_path / "__cluster_metadata-0")
            assert logged.diskless == {events: {0: 0, 1: 1, 2: 0}}

    run(scenario())


def test_refusals_name_the_fault(tmp_path):
    async def scenario():
        async with scene(tmp_path, diskless=True) as s:
            await s.unfenced(0)
            async with await connect(*s.controller.address, registry=DISKLESS_REGISTRY) as conn:
                events = await created(conn, "events", 2, DISKLESS)
                plain = await created(conn, "plain", 1)
                await created(conn, "__diskless-metadata", 2)
                end = s.controller.log.end_offset
                answers = await assign(conn, (Uuid.random(), 0, 0), (events, 5, 0), (events, -1, 0), (plain, 0, 0),
                                       (events, 0, 2), (events, 0, -1), (events, 1, 0), (events, 1, 1))  # fmt: skip
                assert answers == [E.UNKNOWN_TOPIC_ID, E.UNKNOWN_TOPIC_OR_PARTITION, E.UNKNOWN_TOPIC_OR_PARTITION,
                                   E.INVALID_TOPIC_EXCEPTION, E.INVALID_REQUEST, E.INVALID_REQUEST,
                                   E.INVALID_REQUEST, E.INVALID_REQUEST]  # fmt: skip
                assert s.controller.log.end_offset == end and s.controller.image.diskless == {}
                assert await assign(conn, (events, 0, 1)) == [0]
                await conn.send(
                    message_class("DeleteTopicsRequest")(topic_names=["events"], timeout_ms=30_000),
                    5,
                )
                assert s.controller.image.diskless == {}  # gone with the topic

    run(scenario())


def test_kafkas_controller_does_not_serve_99(tmp_path):
    async def scenario():
        async with scene(tmp_path) as s:
            assert not (tmp_path / "kafka-meta-proto.registry").exists()
            async with await connect(*s.controller.address, registry=DISKLESS_REGISTRY) as conn:
                assert 99 not in conn.api_versions
                with pytest.raises(NoCommonVersion):
                    await conn.send(assignment((Uuid.random(), 0, 0)))

    run(scenario())
