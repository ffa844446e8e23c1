"""Topics, configs and producer-id blocks through a broker's lifecycle: each answer as Kafka's
controller gives it, each outcome visible in the broker's replayed image."""

from __future__ import annotations

from kafka_meta_proto import message_class
from kafka_meta_proto.error_codes import ErrorCode
from kafka_meta_proto.kraft.rules import CONFIG_BROKER, CONFIG_TOPIC
from kafka_meta_proto.testing.broker.lifecycle import LifecycleError
from kafka_meta_proto.uuid import Uuid

from testing.controller.scene import TIMEOUT_MS, CreatableTopic, CreateTopicsRequest, run, scene, topic

DeleteTopicsRequest = message_class("DeleteTopicsRequest")
CreatePartitionsRequest = message_class("CreatePartitionsRequest")
IncrementalAlterConfigsRequest = message_class("IncrementalAlterConfigsRequest")
AllocateProducerIdsRequest = message_class("AllocateProducerIdsRequest")
AllocateProducerIdsResponse = message_class("AllocateProducerIdsResponse")
Resource = IncrementalAlterConfigsRequest.AlterConfigsResource
Alterable = IncrementalAlterConfigsRequest.AlterableConfig


def test_topics_are_created_with_ids_placement_and_configs(tmp_path):
    async def scenario():
        async with scene(tmp_path) as s:
            b0, _, _ = await s.unfenced(0, 1, 2)
            config = CreateTopicsRequest.CreatableTopicConfig(name="cleanup.policy", value="compact")
            answer = (await b0.forward(topic("orders", 3, 2, configs=[config]))).topics[0]
            assert (answer.error_code, answer.num_partitions, answer.replication_factor) == (0, 3, 2)
            created = b0.image.topic("orders")
            assert created.id == answer.topic_id and created.id != Uuid.ZERO_UUID
            assert b0.image.configs[(CONFIG_TOPIC, "orders")] == {"cleanup.policy": "compact"}
            leaders = sorted(p.leader for p in created.partitions.values())
            assert leaders == [0, 1, 2]  # one leader per broker: the stripe goes round
            for p in created.partitions.values():
                assert len(set(p.replicas)) == 2 and p.isr == p.replicas and p.leader == p.replicas[0]
                assert (p.leader_epoch, p.partition_epoch) == (0, 0)
            defaulted = (await b0.forward(topic("plain"))).topics[0]
            assert (defaulted.num_partitions, defaulted.replication_factor) == (1, 1)

    run(scenario())


def test_topic_creation_refusals_are_kafkas(tmp_path):
    async def scenario():
        async with scene(tmp_path) as s:
            (b0,) = await s.unfenced(0)
            await b0.forward(topic("a.b"))
            cases = {
                "a.b": ErrorCode.TOPIC_ALREADY_EXISTS,
                "a_b": ErrorCode.INVALID_TOPIC_EXCEPTION,  # collides with a.b
                "bad name": ErrorCode.INVALID_TOPIC_EXCEPTION,
                "..": ErrorCode.INVALID_TOPIC_EXCEPTION,
            }
            for name, error in cases.items():
                answer = (await b0.forward(topic(name))).topics[0]
                assert answer.error_code == error, (name, answer)
            too_many = (await b0.forward(topic("wide", 1, 3))).topics[0]
            assert too_many.error_code == ErrorCode.INVALID_REPLICATION_FACTOR
            assert "only 1 broker(s) are registered" in too_many.error_message
            assert (await b0.forward(topic("none", 0))).topics[0].error_code == ErrorCode.INVALID_PARTITIONS
            twice = CreateTopicsRequest(topics=[CreatableTopic(name="x", num_partitions=1, replication_factor=1)] * 2,
                                        timeout_ms=TIMEOUT_MS)  # fmt: skip
            assert [t.error_code for t in (await b0.forward(twice)).topics] == [ErrorCode.INVALID_REQUEST] * 2
            assign = CreateTopicsRequest.CreatableReplicaAssignment
            on_9 = CreatableTopic(name="m", num_partitions=-1, replication_factor=-1,
                                  assignments=[assign(partition_index=0, broker_ids=[9])])  # fmt: skip
            answer = (await b0.forward(CreateTopicsRequest(topics=[on_9], timeout_ms=TIMEOUT_MS))).topics[0]
            assert answer.error_code == ErrorCode.INVALID_REPLICA_ASSIGNMENT
            only = CreateTopicsRequest(topics=[CreatableTopic(name="v", num_partitions=1, replication_factor=1)],
                                       validate_only=True, timeout_ms=TIMEOUT_MS)  # fmt: skip
            assert (await b0.forward(only)).topics[0].error_code == 0
            at_once = (await b0.forward(topic("y", 1, 1))).topics[0]
            assert at_once.error_code == 0
            expired = CreateTopicsRequest(topics=[CreatableTopic(name="z", num_partitions=1, replication_factor=1)],
                                          timeout_ms=0)
            answer = (await b0.forward(expired)).topics[0]  # TimeoutMs 0: timed out, nothing written
            assert (answer.error_code, answer.error_message) == (ErrorCode.REQUEST_TIMED_OUT, None)
            assert set(b0.image.topics_by_name) == {"a.b", "y"}

    run(scenario())


def test_topics_are_deleted_by_name_and_by_id_and_partitions_added(tmp_path):
    async def scenario():
        async with scene(tmp_path) as s:
            (b0,) = await s.unfenced(0)
            await b0.forward(topic("one", 1, 1))
            await b0.forward(topic("two", 1, 1))
            grown = await b0.forward(CreatePartitionsRequest(
                topics=[CreatePartitionsRequest.CreatePartitionsTopic(name="one", count=3)], timeout_ms=1000))  # fmt: skip
            assert grown.results[0].error_code == 0 and len(b0.image.topic("one").partitions) == 3
            shrink = await b0.forward(CreatePartitionsRequest(
                topics=[CreatePartitionsRequest.CreatePartitionsTopic(name="one", count=2)], timeout_ms=1000))  # fmt: skip
            assert shrink.results[0].error_code == ErrorCode.INVALID_PARTITIONS
            state = DeleteTopicsRequest.DeleteTopicState
            by_name = await b0.forward(DeleteTopicsRequest(topics=[state(name="one"), state(name="nope")],
                                                           timeout_ms=TIMEOUT_MS))  # fmt: skip
            assert [r.error_code for r in by_name.responses] == [0, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION]
            async with await s.connection() as conn:  # before v6: names only
                old = await conn.send(DeleteTopicsRequest(topic_names=["nope"], timeout_ms=TIMEOUT_MS), 5)
                assert [r.error_code for r in old.responses] == [ErrorCode.UNKNOWN_TOPIC_OR_PARTITION]
            two = b0.image.topic("two").id
            by_id = await b0.forward(DeleteTopicsRequest(topics=[state(name=None, topic_id=two),
                                                                state(name=None, topic_id=Uuid.random())],
                                                         timeout_ms=TIMEOUT_MS))  # fmt: skip
            assert [r.error_code for r in by_id.responses] == [0, ErrorCode.UNKNOWN_TOPIC_ID]
            assert by_id.responses[0].name == "two"
            assert b0.image.topics == {}

    run(scenario())


def test_more_than_ten_thousand_new_partitions_in_one_request_are_refused_whole(tmp_path):
    """Kafka's controller caps the partitions one CreateTopics or CreatePartitions adds at 10,000
    (POLICY_VIOLATION for every topic of the request, nothing written); a count of 2**31 - 1 is
    answered at once, nothing allocated for it."""

    async def scenario():
        async with scene(tmp_path) as s:
            (b0,) = await s.unfenced(0)
            huge = (await b0.forward(topic("huge", 2**31 - 1, 1))).topics[0]
            assert (huge.error_code, huge.error_message, huge.num_partitions) == (
                ErrorCode.POLICY_VIOLATION, "Excessively large number of partitions per request.", -1)  # fmt: skip
            pair = CreateTopicsRequest(topics=[CreatableTopic(name="a", num_partitions=6000, replication_factor=1),
                                               CreatableTopic(name="b", num_partitions=4001, replication_factor=1)],
                                       timeout_ms=TIMEOUT_MS)  # fmt: skip
            together = (await b0.forward(pair)).topics
            assert [t.error_code for t in together] == [ErrorCode.POLICY_VIOLATION] * 2
            assert b0.image.topics == {}
            assert (await b0.forward(topic("one", 1, 1))).topics[0].error_code == 0
            more = CreatePartitionsRequest.CreatePartitionsTopic
            grown = await b0.forward(CreatePartitionsRequest(topics=[more(name="one", count=10_002)], timeout_ms=1000))
            assert (grown.results[0].error_code, grown.results[0].error_message) == (
                ErrorCode.POLICY_VIOLATION, "Excessively large number of additional partitions per request.")  # fmt: skip
            grown = await b0.forward(CreatePartitionsRequest(topics=[more(name="one", count=10_001)], timeout_ms=1000))
            assert grown.results[0].error_code == 0 and len(b0.image.topic("one").partitions) == 10_001

    run(scenario())


def test_configs_are_altered_for_topics_and_brokers(tmp_path):
    async def scenario():
        async with scene(tmp_path) as s:
            (b0,) = await s.unfenced(0)
            await b0.forward(topic("t", 1, 1))
            request = IncrementalAlterConfigsRequest(resources=[
                Resource(resource_type=CONFIG_TOPIC, resource_name="t",
                         configs=[Alterable(name="retention.ms", config_operation=0, value="1000")]),
                Resource(resource_type=CONFIG_BROKER, resource_name="0",
                         configs=[Alterable(name="log.cleaner.threads", config_operation=0, value="2")]),
                Resource(resource_type=CONFIG_TOPIC, resource_name="missing",
                         configs=[Alterable(name="retention.ms", config_operation=0, value="1")]),
            ])  # fmt: skip
            answer = await b0.forward(request)
            assert [r.error_code for r in answer.responses] == [0, 0, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION]
            assert b0.image.configs[(CONFIG_TOPIC, "t")] == {"retention.ms": "1000"}
            assert b0.image.configs[(CONFIG_BROKER, "0")] == {"log.cleaner.threads": "2"}
            delete = IncrementalAlterConfigsRequest(resources=[Resource(resource_type=CONFIG_TOPIC, resource_name="t",
                configs=[Alterable(name="retention.ms", config_operation=1, value=None)])])  # fmt: skip
            await b0.forward(delete)
            assert b0.image.configs.get((CONFIG_TOPIC, "t"), {}) == {}

    run(scenario())


def test_producer_id_blocks_follow_each_other_and_check_the_epoch(tmp_path):
    async def scenario():
        async with scene(tmp_path) as s:
            b0, b1 = await s.unfenced(0, 1)
            assert await b0.allocate_producer_ids() == (0, 1000)
            assert await b1.allocate_producer_ids() == (1000, 1000)
            assert await b0.allocate_producer_ids() == (2000, 1000)
            image = await b1.caught_up()
            ids = image.producer_ids
            assert (ids.next_producer_id, ids.broker_id, ids.broker_epoch) == (3000, 0, b0.broker_epoch)
            async with await s.connection() as conn:
                stale = AllocateProducerIdsRequest(broker_id=0, broker_epoch=b0.broker_epoch + 1)
                answer = await conn.send(stale, expect=AllocateProducerIdsResponse)
                assert answer.error_code == ErrorCode.STALE_BROKER_EPOCH
            assert s.controller.image.producer_ids.next_producer_id == 3000  # nothing written
            await s.controller.unregister(1)
            try:
                await b1.allocate_producer_ids()
            except LifecycleError as e:
                assert e.error == ErrorCode.STALE_BROKER_EPOCH
            else:
                raise AssertionError("an unregistered broker got producer ids")

    run(scenario())


def test_a_leader_shrinks_and_expands_its_isr(tmp_path):
    async def scenario():
        async with scene(tmp_path, session_timeout_ms=5000) as s:
            b0, b1 = await s.unfenced(0, 1)
            await b0.forward(topic("t", 1, 2))
            p = b0.image.topic("t").partitions[0]
            leader = b0 if p.leader == 0 else b1
            follower = 1 - p.leader
            shrunk = await leader.alter_isr("t", 0, [p.leader])
            assert (shrunk.error_code, shrunk.isr, shrunk.partition_epoch) == (0, [p.leader], 1)
            assert shrunk.leader_epoch == p.leader_epoch  # no new leader epoch for a shrink
            grown = await leader.alter_isr("t", 0, [p.leader, follower])
            assert (grown.isr, grown.partition_epoch) == ([p.leader, follower], 2)
            assert leader.image.topic("t").partitions[0].isr == [p.leader, follower]
            other = b1 if leader is b0 else b0
            refused = await other.alter_isr("t", 0, [follower])
            assert refused.error_code == ErrorCode.NOT_LEADER_OR_FOLLOWER
            without_leader = await leader.alter_isr("t", 0, [follower])
            assert without_leader.error_code == ErrorCode.INVALID_REQUEST
            await s.controller.fence(follower)
            await leader.caught_up()
            fenced_back = await leader.alter_isr("t", 0, [p.leader, follower])
            assert fenced_back.error_code == ErrorCode.INELIGIBLE_REPLICA

    run(scenario())
