"""The public asyncio client against real Kafka (the newest 4.x and the 3.9 line): the
negotiation, then the APIs the interop tests exercise, through ``kafka_meta_proto.client``."""

from __future__ import annotations

import asyncio

import pytest

from kafka_meta_proto import message_class
from kafka_meta_proto.client import Cluster, connect, sync
from kafka_meta_proto.error_codes import ErrorCode
from kafka_meta_proto.net.versions import newest_api_versions_version
from kafka_meta_proto.log.batch import Record, RecordBatch, decode_batch

ApiVersionsRequest = message_class("ApiVersionsRequest")
CreateTopicsRequest = message_class("CreateTopicsRequest")
FetchRequest = message_class("FetchRequest")
FindCoordinatorRequest = message_class("FindCoordinatorRequest")
ListOffsetsRequest = message_class("ListOffsetsRequest")
MetadataRequest = message_class("MetadataRequest")
OffsetCommitRequest = message_class("OffsetCommitRequest")
OffsetFetchRequest = message_class("OffsetFetchRequest")
ProduceRequest = message_class("ProduceRequest")

pytestmark = [pytest.mark.cluster, pytest.mark.slow]  # real Kafka clusters: minutes


@pytest.fixture(params=["cluster", "old_cluster"])
def kafka(request):
    return request.getfixturevalue(request.param)


def run(coroutine):
    return asyncio.run(asyncio.wait_for(coroutine, 120))


async def settled(ask, error_of, timeout: float = 30):
    """``ask()`` again while the answer's error is retriable (metadata still propagating)."""
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        answer = await ask()
        code = ErrorCode.for_code(error_of(answer))
        if (
            not (code.retriable or code == ErrorCode.UNKNOWN_TOPIC_ID)
            or asyncio.get_running_loop().time() > deadline
        ):
            return answer
        await asyncio.sleep(0.2)


def test_negotiation_matches_the_broker_s_own_answer(kafka):
    async def scenario():
        async with await connect(*kafka.bootstrap[0]) as conn:
            ours = dict(conn.api_versions)
            # the broker's list once more, at the version the negotiation settled on
            body = await conn.send(
                ApiVersionsRequest(client_software_name="kmp", client_software_version="1")
            )
        return ours, body

    ours, body = run(scenario())
    assert body.error_code == 0
    if kafka.release.startswith("3."):  # it refuses our newest ApiVersions: the retry worked
        assert ours[18][1] < newest_api_versions_version()
    assert ours == {api.api_key: (api.min_version, api.max_version) for api in body.api_keys}
    assert ours[3][1] >= 12  # Metadata by topic id: every release tested here speaks it


def test_create_produce_fetch_list_offsets_and_find_coordinator(kafka):
    topic = f"client-{kafka.release}"

    async def scenario():
        async with await connect(*kafka.bootstrap[0]) as conn:
            creatable = CreateTopicsRequest.CreatableTopic(
                name=topic, num_partitions=1, replication_factor=1
            )
            created = (
                await conn.send(CreateTopicsRequest(topics=[creatable], timeout_ms=30000))
            ).topics[0]
            assert created.error_code == 0, created
            by_name = MetadataRequest(topics=[MetadataRequest.MetadataRequestTopic(name=topic)])
            metadata = await settled(lambda: conn.send(by_name), lambda m: m.topics[0].error_code)
            leader = metadata.topics[0].partitions[0].leader_id
            address = next((b.host, b.port) for b in metadata.brokers if b.node_id == leader)
            coordinator = await settled(
                lambda: conn.send(
                    FindCoordinatorRequest(key_type=0, coordinator_keys=["client-group"])
                ),
                lambda f: f.coordinators[0].error_code,
            )
        async with await connect(*address) as leader_conn:
            return (
                await produce_and_read_back(leader_conn, topic, created.topic_id),
                coordinator,
                leader_conn.api_versions,
            )

    (produced, fetched, listed), coordinator, versions = run(scenario())
    assert (produced.error_code, produced.base_offset) == (0, 0), produced
    assert [r.value for r in fetched.records] == [b"a", b"b", b"c"]
    assert (listed.error_code, listed.offset) == (0, 3)
    assert coordinator.coordinators[0].error_code == 0 and coordinator.coordinators[0].port > 0


async def produce_and_read_back(conn, topic: str, topic_id):
    """Produce three records to partition 0, fetch them back and list the end offset; each
    request at the newest version both sides speak (by topic id where that version has it)."""
    batch = RecordBatch.create(
        [Record(offset_delta=i, value=v) for i, v in enumerate([b"a", b"b", b"c"])],
        base_timestamp=1000,
    )
    partition = ProduceRequest.PartitionProduceData(index=0, records=batch.encode())
    produce = ProduceRequest(acks=-1, timeout_ms=30000, transactional_id=None,
                             topic_data=[ProduceRequest.TopicProduceData(name=topic, topic_id=topic_id, partition_data=[partition])])  # fmt: skip
    produced = await settled(
        lambda: conn.send(produce), lambda p: p.responses[0].partition_responses[0].error_code
    )
    fetch = FetchRequest(
        max_wait_ms=100, min_bytes=1, max_bytes=1 << 20, session_epoch=-1,
        topics=[FetchRequest.FetchTopic(topic=topic, topic_id=topic_id, partitions=[
            FetchRequest.FetchPartition(partition=0, fetch_offset=0, partition_max_bytes=1 << 20)])],
    )  # fmt: skip
    records = bytes((await conn.send(fetch)).responses[0].partitions[0].records)
    latest = ListOffsetsRequest.ListOffsetsPartition(partition_index=0, timestamp=-1)
    list_offsets = ListOffsetsRequest(
        replica_id=-1, topics=[ListOffsetsRequest.ListOffsetsTopic(name=topic, partitions=[latest])]
    )
    listed = (await conn.send(list_offsets)).topics[0].partitions[0]
    return produced.responses[0].partition_responses[0], decode_batch(records, 0)[0], listed


def test_cluster_routes_to_leaders_and_the_group_coordinator(kafka):
    """Produce to each partition of a topic whose leaders are spread over the brokers, then
    commit and fetch a group's offset, every request routed from its own fields."""
    topic = f"routed-{kafka.release}"

    async def scenario():
        async with Cluster(kafka.bootstrap) as cluster:
            creatable = CreateTopicsRequest.CreatableTopic(
                name=topic, num_partitions=4, replication_factor=1
            )
            created = (
                await cluster.send(CreateTopicsRequest(topics=[creatable], timeout_ms=30000))
            ).topics[0]
            assert created.error_code == 0, created
            await settled(lambda: cluster.refresh([topic]), lambda m: m.topics[0].error_code)
            leaders = {cluster.leaders[(topic, p)] for p in range(4)}
            answers = []
            for p in range(4):
                batch = RecordBatch.create(
                    [Record(offset_delta=0, value=b"x")], base_timestamp=1000
                )
                data = ProduceRequest.TopicProduceData(name=topic, topic_id=created.topic_id,
                                                       partition_data=[ProduceRequest.PartitionProduceData(index=p, records=batch.encode())])  # fmt: skip
                produce = ProduceRequest(
                    acks=-1, timeout_ms=30000, transactional_id=None, topic_data=[data]
                )
                # a new partition's leader may take a moment to serve it (NOT_LEADER_OR_FOLLOWER
                # even after the cluster's one refresh): ask again, as a producer does
                body = await settled(
                    lambda: cluster.send(produce),
                    lambda b: b.responses[0].partition_responses[0].error_code,
                )
                answers.append(body.responses[0].partition_responses[0].error_code)
            partition = OffsetCommitRequest.OffsetCommitRequestPartition(
                partition_index=1, committed_offset=1
            )
            commit = OffsetCommitRequest(group_id="routed-group", generation_id_or_member_epoch=-1, member_id="",
                                         topics=[OffsetCommitRequest.OffsetCommitRequestTopic(name=topic, topic_id=created.topic_id, partitions=[partition])])  # fmt: skip
            committed = await settled(
                lambda: cluster.send(commit), lambda c: c.topics[0].partitions[0].error_code
            )
            group = OffsetFetchRequest.OffsetFetchRequestGroup(group_id="routed-group", topics=None)
            fetched = await cluster.send(OffsetFetchRequest(groups=[group]), 8)
            return leaders, answers, committed, fetched, cluster.coordinators

    leaders, answers, committed, fetched, coordinators = run(scenario())
    if len(kafka.nodes) > 2:  # the 4.x cluster's two brokers share the partitions
        assert len(leaders) == 2
    assert answers == [0, 0, 0, 0]
    assert committed.topics[0].partitions[0].error_code == 0
    offsets = {
        (t.name, p.partition_index): p.committed_offset
        for t in fetched.groups[0].topics
        for p in t.partitions
    }
    assert offsets == {(topic, 1): 1}
    assert list(coordinators) == [(0, "routed-group")]


def test_the_sync_facade_against_kafka(kafka):
    with sync.connect(*kafka.bootstrap[0]) as conn:
        assert conn.send(MetadataRequest(topics=None)).brokers
    with sync.Cluster(kafka.bootstrap) as cluster:
        assert cluster.brokers and cluster.send(MetadataRequest(topics=[])).cluster_id
