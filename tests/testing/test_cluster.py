"""The in-process cluster as a whole, with the package's own client as its user: brokers that
register with the controller over the wire and serve what it commits, topics created through a
broker, acknowledged records that outlive their leader, a restarted broker, and the faults a
test asks for."""

from __future__ import annotations

import asyncio

import pytest

from kafka_meta_proto.client import Cluster, ConnectionClosed, connect
from kafka_meta_proto.error_codes import ErrorCode
from kafka_meta_proto.log import Record, RecordBatch
from kafka_meta_proto.messages import FetchRequest, MetadataRequest, ProduceRequest
from kafka_meta_proto.testing.cluster import ClusterError, FakeCluster
from testing.broker.helpers import values_of as broker_values

pytestmark = pytest.mark.timeout(120)
QUICK = {"session_timeout_ms": 600, "heartbeat_interval_ms": 50}


def run(coroutine):
    return asyncio.run(asyncio.wait_for(coroutine, 90))


def produce_request(topic: str, partition: int, values: list[bytes]) -> ProduceRequest:
    batch = RecordBatch.create([Record(offset_delta=i, value=v) for i, v in enumerate(values)],
                               base_timestamp=1_000)  # fmt: skip
    data = ProduceRequest.TopicProduceData(name=topic, partition_data=[
        ProduceRequest.PartitionProduceData(index=partition, records=batch.encode())])  # fmt: skip
    return ProduceRequest(acks=-1, timeout_ms=10_000, transactional_id=None, topic_data=[data])


def fetch_request(topic: str, partition: int) -> FetchRequest:
    part = FetchRequest.FetchPartition(partition=partition, fetch_offset=0, partition_max_bytes=1 << 20)
    return FetchRequest(max_wait_ms=0, min_bytes=1, max_bytes=1 << 20,
                        topics=[FetchRequest.FetchTopic(topic=topic, partitions=[part])])  # fmt: skip


def values_of(fetched) -> list[bytes | None]:
    return broker_values(fetched.responses[0].partitions[0].records)


async def produce_and_read(client: Cluster, topic: str, partition: int, values: list[bytes]):
    produced = await client.send(produce_request(topic, partition, values), 9)
    answer = produced.responses[0].partition_responses[0]
    fetched = await client.send(fetch_request(topic, partition), 12)
    return answer, fetched


def test_brokers_register_and_clients_see_every_one_and_the_topics_created():
    async def scenario():
        async with FakeCluster(brokers=3) as cluster:
            await cluster.create_topic("events", partitions=4, replication_factor=3)
            async with await connect(*cluster.addresses[0]) as conn:
                metadata = await conn.send(MetadataRequest(topics=None), 12)
            return cluster, metadata

    cluster, metadata = run(scenario())
    assert sorted(b.node_id for b in metadata.brokers) == [0, 1, 2]
    assert metadata.cluster_id == cluster.cluster_id
    (topic,) = metadata.topics
    assert topic.name == "events" and topic.error_code == 0
    assert sorted(p.partition_index for p in topic.partitions) == [0, 1, 2, 3]
    assert all(sorted(p.replica_nodes) == [0, 1, 2] for p in topic.partitions)
    assert {p.leader_id for p in topic.partitions} == {0, 1, 2}  # leaderships spread


def test_records_acknowledged_by_all_replicas_outlive_their_leader():
    async def scenario():
        async with FakeCluster(brokers=3, **QUICK) as cluster:
            await cluster.create_topic("kept", partitions=1, replication_factor=3)
            async with Cluster(cluster.addresses) as client:
                answer, _ = await produce_and_read(client, "kept", 0, [b"a", b"b", b"c"])
                leader = cluster.image.topic("kept").partitions[0].leader
                await cluster.stop_broker(leader)  # lost: the controller fences it later
                await cluster.wait_until(
                    lambda image: image.topic("kept").partitions[0].leader not in (leader, -1))
                await client.refresh(["kept"])
                fetched = await client.send(fetch_request("kept", 0), 12)
                new_leader = cluster.image.topic("kept").partitions[0].leader
            return answer, leader, new_leader, fetched

    answer, leader, new_leader, fetched = run(scenario())
    assert answer.error_code == 0 and answer.base_offset == 0
    assert new_leader != leader
    assert fetched.responses[0].partitions[0].error_code == 0
    assert values_of(fetched) == [b"a", b"b", b"c"]


def test_a_controlled_stop_moves_leaders_at_once_and_a_restart_registers_anew():
    async def scenario():
        async with FakeCluster(brokers=2, **QUICK) as cluster:
            await cluster.create_topic("moved", partitions=2, replication_factor=2)
            first_epoch = cluster.image.brokers[1].epoch
            await cluster.stop_broker(1, controlled=True)
            leaders_after_stop = {p: r.leader for p, r in cluster.image.topic("moved").partitions.items()}
            await cluster.start_broker(1)
            registration = cluster.image.brokers[1]
            return first_epoch, leaders_after_stop, registration, cluster.bootstrap.count(",")

    first_epoch, leaders, registration, commas = run(scenario())
    assert leaders == {0: 0, 1: 0}
    assert registration.epoch > first_epoch and not registration.fenced
    assert commas == 1  # both brokers listed again


def test_move_leader_and_fence_reach_every_broker():
    async def scenario():
        async with FakeCluster(brokers=3, **QUICK) as cluster:
            await cluster.create_topic("led", partitions=1, replication_factor=3)
            leader = cluster.image.topic("led").partitions[0].leader
            target = (leader + 1) % 3
            await cluster.move_leader("led", 0, target)
            moved = {node: lc.image.topic("led").partitions[0].leader
                     for node, lc in cluster._lifecycles.items()}  # fmt: skip
            await cluster.fence_broker(target)
            await cluster.wait_until(lambda image: image.topic("led").partitions[0].leader != target)
            return target, moved, cluster.image.brokers[target].fenced

    target, moved, fenced = run(scenario())
    assert set(moved.values()) == {target}
    assert fenced


def test_faults_fail_delay_and_drop_the_next_requests_and_the_requests_are_recorded():
    async def scenario():
        async with FakeCluster(brokers=1) as cluster:
            await cluster.create_topic("faulty", partitions=1)
            cluster.faults.fail(ProduceRequest, ErrorCode.NOT_LEADER_OR_FOLLOWER, count=2)
            async with await connect(*cluster.addresses[0], client_id="tester") as conn:
                codes = []
                for _ in range(3):
                    answer = await conn.send(produce_request("faulty", 0, [b"x"]), 9)
                    codes.append(answer.responses[0].partition_responses[0].error_code)
                cluster.faults.delay(MetadataRequest, 0.3)
                started = asyncio.get_running_loop().time()
                await conn.send(MetadataRequest(topics=None), 12)
                waited = asyncio.get_running_loop().time() - started
                cluster.faults.drop(MetadataRequest)
                with pytest.raises(ConnectionClosed):
                    await conn.send(MetadataRequest(topics=None), 12)
            async with await connect(*cluster.addresses[0]) as conn:  # the broker serves on
                fetched = await conn.send(fetch_request("faulty", 0), 12)
            sent = cluster.faults.requests(ProduceRequest, client_id="tester")
            return codes, waited, values_of(fetched), sent, cluster.faults.rules

    codes, waited, values, sent, rules = run(scenario())
    assert codes == [ErrorCode.NOT_LEADER_OR_FOLLOWER] * 2 + [0]
    assert waited >= 0.3
    assert values == [b"x"]  # the failed two were not applied
    assert len(sent) == 3 and all(s.body.topic_data[0].name == "faulty" for s in sent)
    assert rules == []  # every rule used up


def test_creating_a_topic_twice_names_kafkas_error():
    async def scenario():
        async with FakeCluster(brokers=1) as cluster:
            await cluster.create_topic("twice")
            with pytest.raises(ClusterError, match="TOPIC_ALREADY_EXISTS"):
                await cluster.create_topic("twice")
            await cluster.delete_topic("twice")
            return cluster.image.topic("twice")

    assert run(scenario()) is None
