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

from functools import partial
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
from .leadership import serve

if TYPE_CHECKING:
    from .broker import Broker

DEBUGGING_REPLICA = -2
HIGH_WATERMARK = -1


def register(broker: Broker) -> None:
    server = broker.server
    server.handle(ListOffsetsRequest, partial(handle_list_offsets, broker), versions=(1, 11))
    server.handle(OffsetForLeaderEpochRequest, partial(handle_offset_for_leader_epoch, broker),
                  versions=(2, 4))  # fmt: skip
    server.handle(DeleteRecordsRequest, partial(handle_delete_records, broker))


async def handle_list_offsets(broker: Broker, request: RequestContext) -> Message:
    body: Any = request.body
    topics = []
    for wanted in body.topics:
        topic = broker.topic(wanted.name)
        answers = []
        for p in wanted.partitions:
            served = serve(broker, topic, p.partition_index, p.current_leader_epoch,
                           leader_only=body.replica_id != DEBUGGING_REPLICA)  # fmt: skip
            if served.error:
                answers.append(ListOffsetsResponse.ListOffsetsPartitionResponse(
                    partition_index=p.partition_index, error_code=served.error))  # fmt: skip
                continue
            assert served.partition is not None and served.registration is not None
            found = served.partition.offset_for_timestamp(p.timestamp, served.registration.leader_epoch)
            answers.append(ListOffsetsResponse.ListOffsetsPartitionResponse(
                partition_index=p.partition_index, timestamp=found.timestamp, offset=found.offset,
                leader_epoch=found.leader_epoch))  # fmt: skip
        topics.append(ListOffsetsResponse.ListOffsetsTopicResponse(name=wanted.name, partitions=answers))
    return ListOffsetsResponse(topics=topics)


async def handle_offset_for_leader_epoch(broker: Broker, request: RequestContext) -> Message:
    body: Any = request.body
    topics = []
    for wanted in body.topics:
        topic = broker.topic(wanted.topic)
        answers = []
        for p in wanted.partitions:
            served = serve(broker, topic, p.partition, p.current_leader_epoch)
            entry = OffsetForLeaderEpochResponse.EpochEndOffset(partition=p.partition,
                                                                error_code=served.error)  # fmt: skip
            if served.partition is not None:
                entry.leader_epoch, entry.end_offset = served.partition.end_offset_for_epoch(p.leader_epoch)
            answers.append(entry)
        topics.append(OffsetForLeaderEpochResponse.OffsetForLeaderTopicResult(
            topic=wanted.topic, partitions=answers))  # fmt: skip
    return OffsetForLeaderEpochResponse(topics=topics)


async def handle_delete_records(broker: Broker, request: RequestContext) -> Message:
    body: Any = request.body
    topics = []
    for wanted in body.topics:
        topic = broker.topic(wanted.name)
        answers = []
        for p in wanted.partitions:
            code, low = delete_records(broker, topic, p.partition_index, p.offset)
            answers.append(DeleteRecordsResponse.DeleteRecordsPartitionResult(
                partition_index=p.partition_index, low_watermark=low, error_code=code))  # fmt: skip
        topics.append(DeleteRecordsResponse.DeleteRecordsTopicResult(name=wanted.name, partitions=answers))
    return DeleteRecordsResponse(topics=topics)


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
