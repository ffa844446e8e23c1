"""The Cluster against two loopback brokers sharing one picture of a small cluster: it learns
the brokers from the bootstrap address, sends each request to its node, and refreshes its
metadata when a broker says it is not the leader (or not the coordinator) any more."""

from __future__ import annotations

import asyncio
from contextlib import AsyncExitStack, asynccontextmanager

import pytest

from client.loopback import LoopbackBroker
from kafka_meta_proto import message_class
from kafka_meta_proto.client import NetworkError
from kafka_meta_proto.client.cluster import Cluster
from kafka_meta_proto.client.routing import Controller, Coordinator, Leader, Node

MetadataResponse = message_class("MetadataResponse")
FindCoordinatorResponse = message_class("FindCoordinatorResponse")
ProduceRequest = message_class("ProduceRequest")
ProduceResponse = message_class("ProduceResponse")
HeartbeatRequest = message_class("HeartbeatRequest")
HeartbeatResponse = message_class("HeartbeatResponse")
CreateTopicsRequest = message_class("CreateTopicsRequest")
CreateTopicsResponse = message_class("CreateTopicsResponse")


def run(coroutine):
    return asyncio.run(asyncio.wait_for(coroutine, 60))


class Picture:
    """What both brokers say: node ids and ports, the leader of t-0 and the group coordinator."""

    def __init__(self):
        self.ports: dict[int, int] = {}
        self.leader, self.coordinator = 1, 1
        self.metadata_asked = 0
        self.coordinator_errors: list[int] = (
            []
        )  # FindCoordinator's next answers, before the real one

    def metadata(self):
        async def handler(event):
            self.metadata_asked += 1
            brokers = [
                MetadataResponse.MetadataResponseBroker(node_id=n, host="127.0.0.1", port=p)
                for n, p in self.ports.items()
            ]
            partition = MetadataResponse.MetadataResponsePartition(
                partition_index=0, leader_id=self.leader
            )
            topic = MetadataResponse.MetadataResponseTopic(name="t", partitions=[partition])
            return MetadataResponse(brokers=brokers, controller_id=2, topics=[topic])

        return handler

    def find_coordinator(self):
        async def handler(event):
            C = FindCoordinatorResponse.Coordinator
            if self.coordinator_errors:
                return FindCoordinatorResponse(
                    coordinators=[C(error_code=self.coordinator_errors.pop(0))]
                )
            port = self.ports[self.coordinator]
            return FindCoordinatorResponse(
                coordinators=[
                    C(
                        key=event.body.coordinator_keys[0],
                        node_id=self.coordinator,
                        host="127.0.0.1",
                        port=port,
                    )
                ]
            )

        return handler

    def node(self, node_id: int):
        """Produce and Heartbeat answered as node ``node_id`` would: an error when it is not the one."""

        async def produce(event):
            code = 0 if self.leader == node_id else 6  # NOT_LEADER_OR_FOLLOWER
            R = ProduceResponse
            answer = R.PartitionProduceResponse(index=0, error_code=code, base_offset=node_id)
            return R(responses=[R.TopicProduceResponse(name="t", partition_responses=[answer])])

        async def heartbeat(event):
            return HeartbeatResponse(
                error_code=0 if self.coordinator == node_id else 16
            )  # NOT_COORDINATOR

        async def create_topics(event):
            return CreateTopicsResponse(throttle_time_ms=node_id)  # says who answered

        return {
            3: self.metadata(),
            10: self.find_coordinator(),
            0: produce,
            12: heartbeat,
            19: create_topics,
        }


@asynccontextmanager
async def small_cluster(bootstrap_node: int = 1):
    """Two loopback brokers sharing a Picture, and a Cluster bootstrapped from one of them."""
    picture = Picture()
    async with AsyncExitStack() as stack:
        brokers = {}
        for node_id in (1, 2):
            brokers[node_id] = await stack.enter_async_context(
                LoopbackBroker(picture.node(node_id))
            )
            picture.ports[node_id] = brokers[node_id].port
        cluster = await stack.enter_async_context(
            Cluster([("127.0.0.1", brokers[bootstrap_node].port)])
        )
        yield picture, brokers, cluster


def produce_to_t0():
    partition = ProduceRequest.PartitionProduceData(index=0, records=b"")
    return ProduceRequest(
        acks=1,
        timeout_ms=100,
        topic_data=[ProduceRequest.TopicProduceData(name="t", partition_data=[partition])],
    )


def produced_by(body) -> tuple[int, int]:
    answer = body.responses[0].partition_responses[0]
    return answer.error_code, answer.base_offset


def test_bootstrap_learns_the_brokers_and_routes_to_the_leader():
    async def scenario():
        async with small_cluster(2) as (picture, brokers, cluster):
            assert sorted(cluster.brokers) == [1, 2] and cluster.controller_id == 2
            assert cluster.leaders == {("t", 0): 1}
            assert produced_by(await cluster.send(produce_to_t0())) == (0, 1)
            assert [
                key for key, _ in brokers[2].seen if key == 0
            ] == []  # produce went to node 1 only
            assert [key for key, _ in brokers[1].seen if key == 0] == [0]
            assert (
                await cluster.send(CreateTopicsRequest(topics=[]), to=Controller())
            ).throttle_time_ms == 2
            assert (
                await cluster.send(CreateTopicsRequest(topics=[]), to=Node(1))
            ).throttle_time_ms == 1

    run(scenario())


def test_a_moved_leader_is_found_again_after_one_refresh():
    async def scenario():
        async with small_cluster(1) as (picture, brokers, cluster):
            assert produced_by(await cluster.send(produce_to_t0())) == (0, 1)
            asked = picture.metadata_asked
            picture.leader = 2  # node 1 now answers NOT_LEADER_OR_FOLLOWER
            assert produced_by(await cluster.send(produce_to_t0())) == (0, 2)
            assert picture.metadata_asked == asked + 1 and cluster.leaders[("t", 0)] == 2

    run(scenario())


def test_only_one_retry_then_the_answer_as_it_is():
    async def scenario():
        async with small_cluster(1) as (picture, brokers, cluster):
            # node 1 answers as a follower would (node 2's handler), and the metadata still
            # names it leader: after one refresh the second refusal is returned as it is
            brokers[1].handlers[0] = picture.node(2)[0]
            asked = picture.metadata_asked
            assert produced_by(await cluster.send(produce_to_t0(), to=Leader("t", 0))) == (6, 2)
            assert picture.metadata_asked == asked + 1
            assert [seen for seen in brokers[1].seen if seen[0] == 0] == [
                (0, ProduceRequest.versions()[-1])
            ] * 2

    run(scenario())


def test_group_requests_go_to_the_coordinator_found_again_when_it_moves():
    async def scenario():
        async with small_cluster(1) as (picture, brokers, cluster):
            heartbeat = HeartbeatRequest(group_id="g", generation_id=1, member_id="m")
            assert (await cluster.send(heartbeat)).error_code == 0
            assert cluster.coordinators == {(0, "g"): 1}
            picture.coordinator = 2
            assert (await cluster.send(heartbeat)).error_code == 0
            assert cluster.coordinators == {(0, "g"): 2}
            assert (await cluster.connection_for(Coordinator("g"))).address[1] == brokers[2].port

    run(scenario())


def test_find_coordinator_asks_again_while_the_coordinator_is_not_available():
    async def scenario():
        async with small_cluster(1) as (picture, brokers, cluster):
            picture.coordinator_errors = [
                15,
                14,
            ]  # COORDINATOR_NOT_AVAILABLE, then LOAD_IN_PROGRESS
            heartbeat = HeartbeatRequest(group_id="g", generation_id=1, member_id="m")
            assert (await cluster.send(heartbeat)).error_code == 0
            assert picture.coordinator_errors == []
            picture.coordinator_errors = [30]  # GROUP_AUTHORIZATION_FAILED: not retriable
            with pytest.raises(
                NetworkError, match=r"FindCoordinator for 'h' .* GROUP_AUTHORIZATION_FAILED \(30\)"
            ):
                await cluster.send(HeartbeatRequest(group_id="h", generation_id=1, member_id="m"))

    run(scenario())


def test_a_closed_connection_is_opened_again_on_the_next_request():
    async def scenario():
        async with small_cluster(1) as (picture, brokers, cluster):
            first = await cluster.node_connection(1)
            await first.close()
            assert produced_by(await cluster.send(produce_to_t0())) == (0, 1)
            assert (await cluster.node_connection(1)) is not first

    run(scenario())


def test_no_bootstrap_address_answering_is_a_clear_error():
    async def scenario():
        async with LoopbackBroker() as gone:
            port = gone.port
        with pytest.raises(NetworkError, match=f"no bootstrap address answered: 127.0.0.1:{port}"):
            async with Cluster([("127.0.0.1", port)], timeout=5):
                pass

    run(scenario())
