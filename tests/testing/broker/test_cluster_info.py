"""Metadata, DescribeCluster, DescribeConfigs, InitProducerId and the admin requests forwarded to
the controller, each answered from the metadata image."""

from __future__ import annotations

import pytest

from kafka_meta_proto.error_codes import ErrorCode
from kafka_meta_proto.messages import (
    CreatePartitionsRequest,
    CreatePartitionsResponse,
    CreateTopicsRequest,
    CreateTopicsResponse,
    DeleteTopicsRequest,
    DeleteTopicsResponse,
    DescribeClusterRequest,
    DescribeConfigsRequest,
    FenceBrokerRecord,
    IncrementalAlterConfigsRequest,
    IncrementalAlterConfigsResponse,
    InitProducerIdRequest,
    MetadataRequest,
    UnregisterBrokerRecord,
)
from kafka_meta_proto.uuid import Uuid

from .helpers import one_broker, run


def metadata_request(*names, ids=()):
    topics = [MetadataRequest.MetadataRequestTopic(name=n) for n in names]
    topics += [MetadataRequest.MetadataRequestTopic(name=None, topic_id=i) for i in ids]
    return MetadataRequest(topics=topics, allow_auto_topic_creation=True)


def test_metadata_by_name_by_id_all_and_unknown(tmp_path):
    async def main():
        async with one_broker(tmp_path, {"events": 2, "other": 1}) as setup:
            everything = await setup.conn.send(MetadataRequest(topics=None))
            assert everything.cluster_id == setup.metadata.cluster_id
            assert everything.controller_id == 0
            assert [(b.node_id, b.port) for b in everything.brokers] == [(0, setup.broker.address[1])]
            assert [t.name for t in everything.topics] == ["events", "other"]
            events = everything.topics[0]
            assert events.topic_id == setup.topic_id("events")
            assert [(p.partition_index, p.leader_id, p.leader_epoch, p.replica_nodes, p.isr_nodes)
                    for p in events.partitions] == [(0, 0, 0, [0], [0]), (1, 0, 0, [0], [0])]  # fmt: skip
            missing = Uuid.random()
            named = await setup.conn.send(metadata_request("other", "nothing", ids=[setup.topic_id("events"), missing]))
            found = [(t.error_code, t.name, t.topic_id) for t in named.topics]
            assert found == [(0, "other", setup.topic_id("other")),
                             (ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, "nothing", Uuid.ZERO_UUID),
                             (0, "events", setup.topic_id("events")),
                             (ErrorCode.UNKNOWN_TOPIC_ID, None, missing)]  # fmt: skip
            assert setup.metadata.image.topic("nothing") is None  # never created on demand
            none = await setup.conn.send(MetadataRequest(topics=[]))
            assert none.topics == []
            assert [t.name for t in (await setup.conn.send(MetadataRequest(topics=[]), 0)).topics] == ["events", "other"]

    run(main())


def test_metadata_v10_and_v11_refuse_topic_ids_and_null_names_as_kafka_does(tmp_path):
    """Kafka looks topic ids up from v12; at v10-11 an id or a null name makes the request
    INVALID_REQUEST for every topic, a null name answered as "" (v11 cannot carry a null)."""

    async def main():
        async with one_broker(tmp_path, {"events": 2}) as setup:
            events = setup.topic_id("events")
            for version in (10, 11):
                for request in (metadata_request("events", ids=[events]), metadata_request("events", ids=[Uuid.ZERO_UUID])):
                    answer = await setup.conn.send(request, version)
                    assert [(t.error_code, t.name, t.topic_id, t.partitions) for t in answer.topics] == [
                        (ErrorCode.INVALID_REQUEST, "events", Uuid.ZERO_UUID, []),
                        (ErrorCode.INVALID_REQUEST, "", request.topics[1].topic_id, [])]  # fmt: skip
                    assert answer.brokers == []
                named = await setup.conn.send(metadata_request("events"), version)
                assert (named.topics[0].error_code, named.topics[0].topic_id) == (0, events)
            by_id = await setup.conn.send(metadata_request(ids=[events]), 12)
            assert (by_id.topics[0].error_code, by_id.topics[0].name) == (0, "events")

    run(main())


def test_a_partition_whose_leader_is_gone_has_no_leader(tmp_path):
    async def main():
        async with one_broker(tmp_path) as setup:
            setup.metadata.register_broker(1, "127.0.0.1", 1)
            setup.metadata.create_topic("theirs", 1, replicas=[[1, 0]])
            setup.metadata.apply(FenceBrokerRecord(id=1, epoch=setup.metadata.broker_epoch))
            fenced = (await setup.conn.send(metadata_request("theirs"))).topics[0].partitions[0]
            assert (fenced.error_code, fenced.leader_id, fenced.offline_replicas) == (0, 1, [1])
            cluster = await setup.conn.send(DescribeClusterRequest(include_fenced_brokers=True))
            assert [(b.broker_id, b.is_fenced) for b in cluster.brokers] == [(0, False), (1, True)]
            live = await setup.conn.send(DescribeClusterRequest())
            assert [b.broker_id for b in live.brokers] == [0] and live.cluster_id == setup.metadata.cluster_id
            controllers = await setup.conn.send(DescribeClusterRequest(endpoint_type=2))
            assert controllers.error_code == ErrorCode.UNSUPPORTED_ENDPOINT_TYPE
            setup.metadata.apply(UnregisterBrokerRecord(broker_id=1, broker_epoch=setup.metadata.broker_epoch))
            gone = (await setup.conn.send(metadata_request("theirs"))).topics[0].partitions[0]
            assert (gone.error_code, gone.leader_id, gone.offline_replicas) == (ErrorCode.LEADER_NOT_AVAILABLE, -1, [1])

    run(main())


def describe(kind, name, keys=None):
    return DescribeConfigsRequest(include_synonyms=True, resources=[
        DescribeConfigsRequest.DescribeConfigsResource(resource_type=kind, resource_name=name,
                                                       configuration_keys=keys)])  # fmt: skip


def test_describe_configs_of_topics_and_brokers(tmp_path):
    async def main():
        async with one_broker(tmp_path, configs={"events": {"retention.ms": "1000"}}) as setup:
            result = (await setup.conn.send(describe(2, "events"))).results[0]
            entries = {c.name: (c.value, c.config_source, c.read_only) for c in result.configs}
            assert entries["retention.ms"] == ("1000", 1, False)
            assert entries["cleanup.policy"] == ("delete", 5, False)
            assert entries["min.insync.replicas"] == ("1", 5, False)
            narrowed = (await setup.conn.send(describe(2, "events", ["segment.bytes"]))).results[0]
            assert [c.name for c in narrowed.configs] == ["segment.bytes"]
            assert narrowed.configs[0].synonyms[0].source == 5
            setup.metadata.set_config(4, "", "log.retention.hours", "24")
            setup.metadata.set_config(4, "0", "num.partitions", "3")
            brokers = (await setup.conn.send(describe(4, "0"))).results[0]
            entries = {c.name: (c.value, c.config_source) for c in brokers.configs}
            assert entries["log.retention.hours"] == ("24", 3)
            assert entries["num.partitions"] == ("3", 2)
            assert entries["auto.create.topics.enable"] == ("false", 4)
            missing = (await setup.conn.send(describe(2, "nothing"))).results[0]
            assert missing.error_code == ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
            other = (await setup.conn.send(describe(4, "7"))).results[0]
            assert other.error_code == ErrorCode.INVALID_REQUEST

    run(main())


def test_init_producer_id_takes_ids_from_blocks(tmp_path):
    async def main():
        async with one_broker(tmp_path) as setup:
            ids = [(await setup.conn.send(InitProducerIdRequest(transactional_id=None))).producer_id
                   for _ in range(3)]  # fmt: skip
            assert ids == [0, 1, 2]
            setup.broker._producer_ids[0] = 1000  # the block is used up: the next comes
            answer = await setup.conn.send(InitProducerIdRequest(transactional_id=None))
            assert (answer.producer_id, answer.producer_epoch) == (1000, 0)
            transactional = await setup.conn.send(InitProducerIdRequest(transactional_id="tx"))
            assert transactional.error_code == ErrorCode.NOT_COORDINATOR

    run(main())


def test_admin_requests_are_forwarded_and_their_result_is_seen(tmp_path):
    async def main():
        async with one_broker(tmp_path) as setup:

            async def controller(request):
                for topic in request.topics:
                    setup.metadata.create_topic(topic.name, topic.num_partitions)
                return CreateTopicsResponse(topics=[CreateTopicsResponse.CreatableTopicResult(
                    name=t.name, topic_id=setup.topic_id(t.name), num_partitions=t.num_partitions)
                    for t in request.topics])  # fmt: skip

            setup.metadata.forwarder = controller
            created = await setup.conn.send(CreateTopicsRequest(timeout_ms=1000, topics=[
                CreateTopicsRequest.CreatableTopic(name="made", num_partitions=3, replication_factor=1)]))  # fmt: skip
            assert created.topics[0].topic_id == setup.topic_id("made")
            assert [type(r).__name__ for r in setup.metadata.forwarded] == ["CreateTopicsRequest"]
            answer = await setup.conn.send(metadata_request("made"))
            assert len(answer.topics[0].partitions) == 3
            assert sorted(setup.broker.replicas.partitions) == [("events", 0)] + [("made", i) for i in range(3)]

    run(main())


@pytest.mark.parametrize("request_class, response_class", [
    (DeleteTopicsRequest, DeleteTopicsResponse),
    (CreatePartitionsRequest, CreatePartitionsResponse),
    (IncrementalAlterConfigsRequest, IncrementalAlterConfigsResponse),
])  # fmt: skip
def test_the_other_admin_requests_go_to_the_controller_as_sent(tmp_path, request_class, response_class):
    async def main():
        async with one_broker(tmp_path) as setup:
            answer = response_class(throttle_time_ms=7)

            async def controller(request):
                return answer

            setup.metadata.forwarder = controller
            sent = request_class(timeout_ms=1000) if hasattr(request_class(), "timeout_ms") else request_class()
            assert (await setup.conn.send(sent)).throttle_time_ms == 7
            assert setup.metadata.forwarded == [sent]

    run(main())
