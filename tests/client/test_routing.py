"""Where requests go, read from the requests themselves, and which answers mean a stale route."""

from __future__ import annotations

import pytest

from kafka_meta_proto import Uuid, message_class
from kafka_meta_proto.client.routing import (
    TRANSACTION,
    AnyBroker,
    Coordinator,
    Leader,
    is_stale_route,
    route,
)

m = message_class
TOPIC_ID = Uuid("MvDxzVmcRsaTz33bUuRU6A")


def produce(*partitions, name="t"):
    P = m("ProduceRequest")
    data = [P.PartitionProduceData(index=p) for p in partitions]
    return P(acks=1, topic_data=[P.TopicProduceData(name=name, partition_data=data)])


@pytest.mark.parametrize(
    "request_, target",
    [
        (m("JoinGroupRequest")(group_id="g"), Coordinator("g")),
        (m("OffsetCommitRequest")(group_id="g"), Coordinator("g")),
        (
            m("AddOffsetsToTxnRequest")(transactional_id="tx", group_id="g"),
            Coordinator("tx", TRANSACTION),
        ),
        (m("EndTxnRequest")(transactional_id="tx"), Coordinator("tx", TRANSACTION)),
        (
            m("InitProducerIdRequest")(transactional_id=None),
            AnyBroker(),
        ),  # idempotent only: any broker
        (produce(3), Leader("t", 3)),
        (m("ProduceRequest")(topic_data=[]), AnyBroker()),
        (
            m("FetchRequest")(
                topics=[
                    m("FetchRequest").FetchTopic(
                        topic_id=TOPIC_ID,
                        partitions=[m("FetchRequest").FetchPartition(partition=1)],
                    )
                ]
            ),
            Leader(TOPIC_ID, 1),
        ),
        (
            m("ListOffsetsRequest")(
                topics=[
                    m("ListOffsetsRequest").ListOffsetsTopic(
                        name="t",
                        partitions=[
                            m("ListOffsetsRequest").ListOffsetsPartition(partition_index=2)
                        ],
                    )
                ]
            ),
            Leader("t", 2),
        ),
        (
            m("OffsetFetchRequest")(
                groups=[m("OffsetFetchRequest").OffsetFetchRequestGroup(group_id="g")]
            ),
            Coordinator("g"),
        ),
        (
            m("OffsetFetchRequest")(
                groups=[m("OffsetFetchRequest").OffsetFetchRequestGroup(group_id=g) for g in "ab"]
            ),
            AnyBroker(),
        ),
        (m("MetadataRequest")(topics=None), AnyBroker()),
        (m("CreateTopicsRequest")(topics=[]), AnyBroker()),
    ],
)
def test_route(request_, target):
    assert route(request_) == target


def test_a_request_over_several_partitions_needs_a_target():
    with pytest.raises(ValueError, match="names 2 partitions: .* name the target"):
        route(produce(0, 1))


def test_stale_route_errors_are_found_at_any_depth():
    R = m("ProduceResponse")
    answer = lambda code: R(
        responses=[
            R.TopicProduceResponse(
                name="t", partition_responses=[R.PartitionProduceResponse(index=0, error_code=code)]
            )
        ]
    )  # noqa: E731
    assert (
        is_stale_route(answer(6))
        and not is_stale_route(answer(0))
        and not is_stale_route(answer(87))
    )
    F = m("FindCoordinatorResponse")
    assert is_stale_route(F(coordinators=[F.Coordinator(error_code=15)]))
    assert not is_stale_route(m("MetadataResponse")(topics=[]))
