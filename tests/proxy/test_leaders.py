"""The proxy without log or hooks decodes a Produce response only when its bytes hold top-level
tagged fields (where NodeEndpoints lives): one naming a new leader is still rewritten to a proxy
address, one naming none passes byte for byte."""

from __future__ import annotations

import asyncio
import uuid

import pytest

from kafka_meta_proto import message_class, protocol
from kafka_meta_proto.proxy import Proxy
from kafka_meta_proto.proxy.leaders import may_name_brokers
from kafka_meta_proto.proxy.passing_relay import PassingRelay
from proxy.helpers import proxied_cluster, run

ProduceRequest = message_class("ProduceRequest")
ProduceResponse = message_class("ProduceResponse")
MetadataResponse = message_class("MetadataResponse")
VERSIONS = [v for v in ProduceResponse.versions() if v >= 10]


def produce_response(version: int, endpoints: bool, leader: bool = True):
    """Two topics of two partitions, with record errors, error messages and a partition-level
    tagged CurrentLeader when ``leader`` (it names no broker; left at its default it is not sent), and NodeEndpoints when ``endpoints``.
    """
    error = ProduceResponse.BatchIndexAndErrorMessage
    partitions = [
        ProduceResponse.PartitionProduceResponse(
            index=i, error_code=6, base_offset=-1, error_message="moved" if i else None,
            record_errors=[error(batch_index=0, batch_index_error_message="bad"), error(batch_index=1)],
            current_leader=ProduceResponse.LeaderIdAndEpoch(**(dict(leader_id=2, leader_epoch=3) if leader else {})),
        )  # fmt: skip
        for i in range(2)
    ]
    topics = [
        ProduceResponse.TopicProduceResponse(
            name=f"t{n}" if version < 13 else "", topic_id=uuid.UUID(int=n + 1) if version >= 13 else None,
            partition_responses=partitions,
        )  # fmt: skip
        for n in range(2)
    ]
    nodes = [ProduceResponse.NodeEndpoint(node_id=2, host="10.0.0.2", port=9092, rack="r")]
    return ProduceResponse(
        responses=topics, throttle_time_ms=1, node_endpoints=nodes if endpoints else []
    )


def payload(body, version: int) -> bytes:
    return protocol.encode_response(body, version, 7)[4:]


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("endpoints", [True, False])
@pytest.mark.parametrize("leader", [True, False])
def test_the_bytes_tell_whether_a_produce_response_names_brokers(version, endpoints, leader):
    data = payload(produce_response(version, endpoints, leader), version)
    decoded = protocol.decode_response(protocol.frame(data), 0, version).body
    assert bool(decoded.node_endpoints) == endpoints
    assert may_name_brokers(0, version, data) == endpoints


def test_bytes_in_doubt_are_decoded():
    data = payload(produce_response(VERSIONS[-1], endpoints=False), VERSIONS[-1])
    assert not may_name_brokers(0, VERSIONS[-1], data)
    assert may_name_brokers(0, VERSIONS[-1], data[:-3])  # cut short
    assert may_name_brokers(0, VERSIONS[-1], data + b"\x00")  # bytes after the end
    assert may_name_brokers(3, 12, b"")  # other APIs: decided by decoding
    assert not may_name_brokers(0, 9, b"")  # no NodeEndpoints before v10


def produce_frame(version: int, correlation_id: int) -> bytes:
    body = ProduceRequest(acks=1, timeout_ms=1000, topic_data=[])
    return protocol.encode_request(body, version, correlation_id, "c")


async def through_the_proxy(answer, version: int) -> bytes:
    """The frame a client gets for a Produce at ``version`` the broker answers with ``answer``,
    through a proxy with neither log nor hooks."""
    async with proxied_cluster() as (picture, brokers, logged_proxy, _):
        brokers[1].handlers[0] = lambda event: asyncio.sleep(0, answer)
        upstream = ("127.0.0.1", brokers[1].port)
        async with Proxy(("127.0.0.1", 0), upstream) as proxy:
            assert proxy.relay_class is PassingRelay
            reader, writer = await asyncio.open_connection(*proxy.address)
            writer.write(produce_frame(version, 7))
            size = int.from_bytes(await reader.readexactly(4), "big")
            received = await reader.readexactly(size)
            writer.close()
            return received, proxy


@pytest.mark.parametrize("version", [VERSIONS[0], VERSIONS[-1]])
def test_a_produce_response_naming_no_broker_passes_byte_for_byte(version):
    answer = produce_response(version, endpoints=False)
    received, _ = run(through_the_proxy(answer, version))
    assert received == payload(answer, version)


@pytest.mark.parametrize("version", [VERSIONS[0], VERSIONS[-1]])
def test_a_produce_response_naming_a_leader_is_rewritten(version):
    answer = produce_response(version, endpoints=True)
    received, proxy = run(through_the_proxy(answer, version))
    decoded = protocol.decode_response(protocol.frame(received), 0, version).body
    listener = proxy.listeners[("10.0.0.2", 9092)]
    assert [(e.host, e.port) for e in decoded.node_endpoints] == [(listener.host, listener.port)]
    sent = protocol.decode_response(protocol.frame(payload(answer, version)), 0, version).body
    assert decoded.responses == sent.responses


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("endpoints", [True, False])
def test_partitions_without_record_errors_walk_the_same(version, endpoints):
    """The usual partition (no record errors, no message, no tagged fields) is stepped over in
    one check; the verdict is the decoder's all the same."""
    body = produce_response(version, endpoints, leader=False)
    for topic in body.responses:
        for partition in topic.partition_responses:
            partition.record_errors, partition.error_message = [], None
    data = payload(body, version)
    assert may_name_brokers(0, version, data) == endpoints
    assert not may_name_brokers(0, version, payload(produce_response(version, False), version))
