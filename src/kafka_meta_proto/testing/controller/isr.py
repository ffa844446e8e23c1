"""AlterPartition: a partition leader proposing a new ISR, Kafka's ReplicationControlManager
.alterPartition.

The request's broker epoch is checked first (STALE_BROKER_EPOCH for the whole answer). Then each
partition, in Kafka's order: an unknown topic is UNKNOWN_TOPIC_OR_PARTITION (UNKNOWN_TOPIC_ID
from v2, which names topics by id), an unknown partition UNKNOWN_TOPIC_OR_PARTITION; a sender
that is not the leader NOT_LEADER_OR_FOLLOWER; an older leader epoch FENCED_LEADER_EPOCH, a newer
one NOT_CONTROLLER (this controller would be behind); an older partition epoch
INVALID_UPDATE_VERSION, a newer one NOT_CONTROLLER; an ISR holding a non-replica, a duplicate or
not the leader INVALID_REQUEST; a new member that is fenced, shutting down, or (v3) named with
another broker epoch INELIGIBLE_REPLICA (OPERATION_NOT_ATTEMPTED before v1). An accepted ISR
is a PartitionChangeRecord (none when it is the ISR already); the answer carries the partition
as it then stands.
"""

from __future__ import annotations

from typing import Any, Callable

from ...error_codes import ErrorCode
from ...kraft.image import MetadataImage, PartitionRegistration
from ...message import Message
from ...messages.alter_partition_response import AlterPartitionResponse
from ...messages.partition_change_record import PartitionChangeRecord
from .metadata_log import Entries
from .partitions import V_PARTITION_CHANGE, is_active

Commit = Callable[[Entries], int]


def _proposed(data: Any, version: int) -> tuple[list[int], dict[int, int]]:
    """The proposed ISR and, from v3, the broker epoch each member is named with."""
    if version >= 3:
        members = list(data.new_isr_with_epochs)
        return [m.broker_id for m in members], {m.broker_id: m.broker_epoch for m in members}
    return list(data.new_isr), {}


def _problem(image: MetadataImage, broker_id: int, p: PartitionRegistration, data: Any, version: int) -> ErrorCode | None:  # fmt: skip
    if p.leader != broker_id:
        return ErrorCode.NOT_LEADER_OR_FOLLOWER
    if data.leader_epoch != p.leader_epoch:
        return ErrorCode.FENCED_LEADER_EPOCH if data.leader_epoch < p.leader_epoch else ErrorCode.NOT_CONTROLLER
    if data.partition_epoch != p.partition_epoch:
        return ErrorCode.INVALID_UPDATE_VERSION if data.partition_epoch < p.partition_epoch else ErrorCode.NOT_CONTROLLER
    isr, epochs = _proposed(data, version)
    if len(set(isr)) != len(isr) or not set(isr) <= set(p.replicas) or broker_id not in isr:
        return ErrorCode.INVALID_REQUEST
    for member in isr:
        if member in p.isr:
            continue
        broker = image.brokers.get(member)
        stale = member in epochs and (broker is None or epochs[member] not in (-1, broker.epoch))
        if not is_active(image, member) or stale:
            return ErrorCode.INELIGIBLE_REPLICA if version >= 1 else ErrorCode.OPERATION_NOT_ATTEMPTED
    return None


def _answer(index: int, p: PartitionRegistration, error: int = 0) -> Any:
    return AlterPartitionResponse.PartitionData(
        partition_index=index, error_code=error, leader_id=p.leader, leader_epoch=p.leader_epoch,
        isr=list(p.isr), leader_recovery_state=p.leader_recovery_state, partition_epoch=p.partition_epoch,
    )  # fmt: skip


def alter_partition(image: MetadataImage, commit: Commit, request: Any, version: int) -> Message:
    """The answer to an AlterPartition request whose broker epoch was checked."""
    topics = []
    for topic_data in request.topics:
        topic = image.topics.get(topic_data.topic_id) if version >= 2 else image.topic(topic_data.topic_name)
        answered = AlterPartitionResponse.TopicData(topic_name=topic_data.topic_name, topic_id=topic_data.topic_id)
        unknown = ErrorCode.UNKNOWN_TOPIC_ID if version >= 2 else ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
        for data in topic_data.partitions:
            p = topic.partitions.get(data.partition_index) if topic is not None else None
            if p is None:
                error = unknown if topic is None else ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
                answered.partitions.append(AlterPartitionResponse.PartitionData(partition_index=data.partition_index,
                                                                                error_code=int(error)))  # fmt: skip
                continue
            problem = _problem(image, request.broker_id, p, data, version)
            isr, _ = _proposed(data, version)
            if problem is None and topic is not None and isr != p.isr:
                change = PartitionChangeRecord(partition_id=data.partition_index, topic_id=topic.id, isr=isr)
                commit([(change, V_PARTITION_CHANGE)])
                p = topic.partitions[data.partition_index]
            answered.partitions.append(_answer(data.partition_index, p, int(problem or 0)))
        topics.append(answered)
    return AlterPartitionResponse(topics=topics)

