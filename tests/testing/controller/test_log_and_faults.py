"""What the controller leaves on disk (a ``__cluster_metadata-0`` directory our readers replay to
the controller's own image, snapshots included) and its fault entry points."""

from __future__ import annotations

import asyncio
import json

import pytest

from kafka_meta_proto.kraft.image import MetadataImage
from kafka_meta_proto.tools import dump

from testing.controller.scene import run, scene, topic


def _same_state(a: MetadataImage, b: MetadataImage) -> None:
    assert a.brokers == b.brokers and a.controllers == b.controllers
    assert a.topics == b.topics and a.configs == b.configs and a.features == b.features
    assert a.producer_ids == b.producer_ids and a.offset == b.offset


def test_the_log_on_disk_replays_to_the_controllers_image(tmp_path):
    async def scenario():
        async with scene(tmp_path) as s:
            b0, b1 = await s.unfenced(0, 1)
            await b0.forward(topic("t", 2, 2))
            await b1.allocate_producer_ids()
            await b0.caught_up()
            _same_state(b0.image, s.controller.image)  # the fetched log, replayed
            return s.controller.image

    image = run(scenario())
    log_dir = tmp_path / "__cluster_metadata-0"
    _same_state(MetadataImage.from_log_dir(log_dir), image)
    assert (tmp_path / "meta.properties").read_text().count("node.id=3000") == 1
    quorum = json.loads((log_dir / "quorum-state").read_text())
    assert (quorum["leaderId"], quorum["leaderEpoch"]) == (3000, 1)
    assert (log_dir / "leader-epoch-checkpoint").read_text() == "0\n1\n1 0\n"
    kinds = [r["type"] for r in dump.iter_json_records(str(log_dir / "00000000000000000000.log"))]
    assert kinds[:4] == ["LEADER_CHANGE", "FEATURE_LEVEL_RECORD", "REGISTER_CONTROLLER_RECORD",
                         "REGISTER_BROKER_RECORD"]  # fmt: skip
    assert {"TOPIC_RECORD", "PARTITION_RECORD", "PRODUCER_IDS_RECORD",
            "BROKER_REGISTRATION_CHANGE_RECORD"} <= set(kinds)  # fmt: skip


def test_snapshots_hold_the_image_and_are_taken_past_a_size(tmp_path):
    async def scenario():
        async with scene(tmp_path, snapshot_bytes=2000) as s:
            (b0,) = await s.unfenced(0)
            for n in range(6):
                await b0.forward(topic(f"t{n}", 3, 1))
            assert s.controller.snapshots  # taken on their own, past 2000 bytes of records
            path = s.controller.snapshot()
            return s.controller.image, path

    image, path = run(scenario())
    end_offset, epoch = int(path.name[:20]), int(path.name[21:31])
    assert (end_offset, epoch) == (image.offset + 1, 1)
    snapshot = MetadataImage.from_snapshot(path)
    assert snapshot.topics == image.topics and snapshot.brokers == image.brokers
    assert snapshot.features == image.features
    _same_state(MetadataImage.from_log_dir(tmp_path / "__cluster_metadata-0"), image)


def test_a_fenced_broker_stays_fenced_until_released(tmp_path):
    async def scenario():
        async with scene(tmp_path) as s:
            b0, b1 = await s.unfenced(0, 1)
            await b0.forward(topic("t", 2, 2))
            await s.controller.fence(1)
            image = await b0.wait_until(lambda im: im.brokers[1].fenced)
            assert all(p.isr == [0] and p.leader == 0 for p in image.topic("t").partitions.values())
            await asyncio.sleep(0.2)  # heartbeats keep coming, and are answered IsFenced
            assert b1.fenced and s.controller.image.brokers[1].fenced
            await s.controller.unfence(1)
            await b1.wait_until(lambda im: not im.brokers[1].fenced)
            with pytest.raises(KeyError):
                await s.controller.fence(7)

    run(scenario())


def test_leaders_move_on_demand_and_unregistered_brokers_leave(tmp_path):
    async def scenario():
        async with scene(tmp_path) as s:
            b0, b1 = await s.unfenced(0, 1)
            await b0.forward(topic("t", 1, 2))
            first = b0.image.topic("t").partitions[0]
            other = 1 - first.leader
            await s.controller.move_leader("t", 0, other)
            moved = (await b0.caught_up()).topic("t").partitions[0]
            assert (moved.leader, moved.leader_epoch) == (other, first.leader_epoch + 1)
            with pytest.raises(ValueError):
                await s.controller.move_leader("t", 0, 5)
            await s.controller.unregister(other)
            image = await b0.caught_up()
            assert other not in image.brokers
            assert image.topic("t").partitions[0].leader == first.leader
            assert image.topic("t").partitions[0].isr == [first.leader]

    run(scenario())


def test_fetch_serves_the_metadata_partition_alone_and_long_polls(tmp_path):
    from kafka_meta_proto import message_class
    from kafka_meta_proto.error_codes import ErrorCode
    from kafka_meta_proto.uuid import Uuid

    FetchRequest = message_class("FetchRequest")

    def fetch(offset: int, topic_id=Uuid.METADATA_TOPIC_ID, wait_ms: int = 0):
        part = FetchRequest.FetchPartition(partition=0, fetch_offset=offset, partition_max_bytes=1 << 20)
        return FetchRequest(max_wait_ms=wait_ms, min_bytes=1, max_bytes=1 << 20,
                            topics=[FetchRequest.FetchTopic(topic_id=topic_id, partitions=[part])])  # fmt: skip

    async def scenario():
        async with scene(tmp_path) as s, await s.connection() as conn:
            end = s.controller.log.end_offset
            whole = (await conn.send(fetch(0))).responses[0].partitions[0]
            assert (whole.error_code, whole.high_watermark) == (0, end)
            assert whole.current_leader.leader_id == 3000 and whole.current_leader.leader_epoch == 1
            assert bytes(whole.records) == s.controller.log.read(0, 1 << 20) and whole.records
            # anything but the one metadata partition, by topic id, is refused whole (Kafka's
            # raft client): another topic, two partitions, a topic by name (before v13)
            other = await conn.send(fetch(0, Uuid.random()))
            assert (other.error_code, other.responses) == (ErrorCode.INVALID_REQUEST, [])
            two = fetch(0)
            two.topics[0].partitions *= 2
            assert (await conn.send(two)).error_code == ErrorCode.INVALID_REQUEST
            by_name = fetch(0)
            by_name.topics[0].topic = "__cluster_metadata"
            assert (await conn.send(by_name, 12)).error_code == ErrorCode.INVALID_REQUEST
            stranger = fetch(0)
            stranger.cluster_id = "another-cluster"
            assert (await conn.send(stranger)).error_code == ErrorCode.INCONSISTENT_CLUSTER_ID
            past = (await conn.send(fetch(end + 5))).responses[0].partitions[0]
            assert past.error_code == ErrorCode.OFFSET_OUT_OF_RANGE
            # At the log end the answer waits for the next batch, and carries it.
            waiting = asyncio.ensure_future(conn.send(fetch(end, wait_ms=5000)))
            await asyncio.sleep(0.05)
            assert not waiting.done()
            await s.unfenced(0)  # its registration is written: the waiting fetch answers
            answer = (await waiting).responses[0].partitions[0]
            assert answer.high_watermark > end and answer.records

    run(scenario())


def test_a_broker_following_the_log_stops_on_a_fetch_refused_whole():
    """A Fetch answer with a top-level error (the controller refused the whole request) ends the
    follower with that error, as a partition's error does, rather than failing on its shape."""
    from kafka_meta_proto import message_class
    from kafka_meta_proto.error_codes import ErrorCode
    from kafka_meta_proto.testing.broker.lifecycle import BrokerLifecycle, LifecycleError

    FetchResponse = message_class("FetchResponse")
    lifecycle = BrokerLifecycle(0, ("127.0.0.1", 1), cluster_id="c", listeners=[])
    with pytest.raises(LifecycleError) as refused:
        asyncio.run(lifecycle._replay(FetchResponse(error_code=ErrorCode.INCONSISTENT_CLUSTER_ID)))
    assert refused.value.error == ErrorCode.INCONSISTENT_CLUSTER_ID
