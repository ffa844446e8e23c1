"""ListOffsets (v1-11), OffsetForLeaderEpoch (v2-4) and DeleteRecords (v0-2).

All three need the leader (``leadership``; ListOffsets with replica id -2, Kafka's debugging
replica, may be answered by a follower, as Kafka allows). ListOffsets answers
``Partition.offset_for_timestamp`` (its special timestamps are listed there);
OffsetForLeaderEpoch the leader-epoch cache's end offset for the epoch asked
(``Partition.end_offset_for_epoch``). DeleteRecords moves the log start offset up to the offset
asked (-1: the high watermark), on the leader and its running followers; an offset past the high
watermark, or below 0 other than -1, is OFFSET_OUT_OF_RANGE. The low watermark answered is the
new log start offset.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ...error_codes import ErrorCode
from ...message import Message
from ...messages.delete_records_request import DeleteRecordsRequest
from ...messages.delete_records_response import DeleteRecordsResponse
from ...messages.list_offsets_request import ListOffsetsRequest
from ...messages.list_offsets_response import ListOffsetsResponse
from ...messages.offset_for_leader_epoch_request import OffsetForLeaderEpochRequest
from ...messages.offset_for_leader_epoch_response import OffsetForLeaderEpochResponse
from ...server import RequestContext
from . import versioned
from .leadership import serve

if TYPE_CHECKING:
    from .broker import Broker

DEBUGGING_REPLICA = -2
HIGH_WATERMARK = -1


def register(broker: Broker) -> None:
    versioned.serve(broker, ListOffsetsRequest, handle_list_offsets, (1, 11))
    versioned.serve(broker, OffsetForLeaderEpochRequest, handle_offset_for_leader_epoch, (2, 4))
    versioned.serve(broker, DeleteRecordsRequest, handle_delete_records)


def each_partition(broker: Broker, topics: list[Any], name: str,
                   answer: Callable[[Any, Any], Any], result: Callable[[str, list[Any]], Any]) -> list[Any]:  # fmt: skip
    """``result(topic name, [answer(topic, partition asked) ...])`` for each topic asked (its
    name in the request's field ``name``)."""
    found = []
    for wanted in topics:
        topic_name = getattr(wanted, name)
        topic = broker.topic(topic_name)
        found.append(result(topic_name, [answer(topic, p) for p in wanted.partitions]))
    return found


async def handle_list_offsets(broker: Broker, request: RequestContext) -> Message:
    body: Any = request.body
    leader_only = body.replica_id != DEBUGGING_REPLICA

    def answer(topic: Any, p: Any) -> Any:
        served = serve(broker, topic, p.partition_index, p.current_leader_epoch, leader_only=leader_only)
        if served.error:
            return ListOffsetsResponse.ListOffsetsPartitionResponse(partition_index=p.partition_index,
                                                                    error_code=served.error)  # fmt: skip
        assert served.partition is not None and served.registration is not None
        found = served.partition.offset_for_timestamp(p.timestamp, served.registration.leader_epoch)
        return ListOffsetsResponse.ListOffsetsPartitionResponse(
            partition_index=p.partition_index, timestamp=found.timestamp, offset=found.offset,
            leader_epoch=found.leader_epoch)  # fmt: skip

    def result(name: str, answers: list[Any]) -> Any:
        return ListOffsetsResponse.ListOffsetsTopicResponse(name=name, partitions=answers)

    return ListOffsetsResponse(topics=each_partition(broker, body.topics, "name", answer, result))


async def handle_offset_for_leader_epoch(broker: Broker, request: RequestContext) -> Message:
    def answer(topic: Any, p: Any) -> Any:
        served = serve(broker, topic, p.partition, p.current_leader_epoch)
        entry = OffsetForLeaderEpochResponse.EpochEndOffset(partition=p.partition, error_code=served.error)
        if served.partition is not None:
            entry.leader_epoch, entry.end_offset = served.partition.end_offset_for_epoch(p.leader_epoch)
        return entry

    def result(name: str, answers: list[Any]) -> Any:
        return OffsetForLeaderEpochResponse.OffsetForLeaderTopicResult(topic=name, partitions=answers)

    topics: Any = getattr(request.body, "topics")
    return OffsetForLeaderEpochResponse(topics=each_partition(broker, topics, "topic", answer, result))


async def handle_delete_records(broker: Broker, request: RequestContext) -> Message:
    def answer(topic: Any, p: Any) -> Any:
        code, low = delete_records(broker, topic, p.partition_index, p.offset)
        return DeleteRecordsResponse.DeleteRecordsPartitionResult(
            partition_index=p.partition_index, low_watermark=low, error_code=code)  # fmt: skip

    def result(name: str, answers: list[Any]) -> Any:
        return DeleteRecordsResponse.DeleteRecordsTopicResult(name=name, partitions=answers)

    topics: Any = getattr(request.body, "topics")
    return DeleteRecordsResponse(topics=each_partition(broker, topics, "name", answer, result))


def delete_records(broker: Broker, topic: Any, index: int, offset: int) -> tuple[int, int]:
    """(error code, low watermark) of deleting the records before ``offset``."""
    served = serve(broker, topic, index)
    if served.error:
        return served.error, -1
    leader, registration = served.partition, served.registration
    assert leader is not None and registration is not None
    target = leader.high_watermark if offset == HIGH_WATERMARK else offset
    if target < 0 or target > leader.high_watermark:
        return ErrorCode.OFFSET_OUT_OF_RANGE, -1
    leader.delete_records(target)
    for node in registration.isr:
        replicas = broker.peer_replicas(node) if node != broker.node_id else None
        follower = replicas.get(topic.name, index) if replicas is not None else None
        if follower is not None:
            follower.delete_records(min(target, follower.high_watermark))
    return ErrorCode.NONE, leader.log_start_offset
