"""What the topic and partition records do to a metadata image: topics added and removed (with
their topic configs and diskless mappings), partitions added and changed, ELRs cleared. Whether
Kafka refuses such a record is ``kraft.topics``' rule, shared with the audit."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .image_parts import TOPIC_RESOURCE, PartitionRegistration, ReplayError, Topic
from .topics import (
    ADD_PARTITION,
    CHANGE_PARTITION,
    LIVE,
    NEVER_CREATED,
    REMOVE,
    UNKNOWN_PARTITION,
    topic_problem,
)

if TYPE_CHECKING:
    from ..diskless_messages.topic_partition_to_batch_coordinator_mapping import (
        TopicPartitionToBatchCoordinatorMapping,
    )
    from ..messages.clear_elr_record import ClearElrRecord
    from ..messages.partition_change_record import PartitionChangeRecord
    from ..messages.partition_record import PartitionRecord
    from ..messages.remove_topic_record import RemoveTopicRecord
    from ..messages.topic_record import TopicRecord
    from ..uuid import Uuid
    from .image import Handler, MetadataImage


def _topic_for(
    image: MetadataImage, topic_id: Uuid, op: str, action: str, partition_id: int = -1
) -> Topic:
    """The topic a topic or partition record names (kraft.topics); one Kafka refuses raises."""
    topic = image.topics.get(topic_id)
    has_partition = topic is not None and partition_id in topic.partitions
    problem = topic_problem(NEVER_CREATED if topic is None else LIVE, op, has_partition)
    if problem is not None and topic is None:  # never created, or removed and forgotten
        raise ReplayError(f"cannot {action}: no topic has id {topic_id}")
    assert topic is not None
    if problem == UNKNOWN_PARTITION:
        raise ReplayError(f"cannot {action} of topic {topic.name}: it does not exist")
    return topic


def topic_record(image: MetadataImage, r: TopicRecord) -> None:
    image.topics[r.topic_id] = Topic(r.name, r.topic_id)


def remove_topic_record(image: MetadataImage, r: RemoveTopicRecord) -> None:
    topic = _topic_for(image, r.topic_id, REMOVE, "remove topic")
    del image.topics[r.topic_id]
    image.configs.pop((TOPIC_RESOURCE, topic.name), None)
    image.diskless.pop(r.topic_id, None)


def partition_record(image: MetadataImage, r: PartitionRecord) -> None:
    topic = _topic_for(image, r.topic_id, ADD_PARTITION, f"add partition {r.partition_id}")
    topic.partitions[r.partition_id] = PartitionRegistration.from_record(r)


def partition_change_record(image: MetadataImage, r: PartitionChangeRecord) -> None:
    action = f"change partition {r.partition_id}"
    topic = _topic_for(image, r.topic_id, CHANGE_PARTITION, action, r.partition_id)
    topic.partitions[r.partition_id] = topic.partitions[r.partition_id].merge(r)


def clear_elr_record(image: MetadataImage, r: ClearElrRecord) -> None:
    # Empty the eligible and last-known-eligible leader replicas of one topic's partitions, or
    # of every topic's when TopicName is empty (written when the ELR feature is turned off).
    if r.topic_name:
        topics = [t for t in image.topics.values() if t.name == r.topic_name]
        if not topics:
            raise ReplayError(f"cannot clear the ELRs of topic {r.topic_name}: it does not exist")
    else:
        topics = list(image.topics.values())
    for topic in topics:
        for partition in topic.partitions.values():
            partition.elr = []
            partition.last_known_elr = []


def topic_partition_to_batch_coordinator_mapping(
    image: MetadataImage, r: TopicPartitionToBatchCoordinatorMapping
) -> None:
    image.diskless.setdefault(r.topic_id, {})[
        r.partition_index
    ] = r.batch_coordinator_partition_index


HANDLERS: dict[str, Handler] = {
    "TopicRecord": topic_record,
    "RemoveTopicRecord": remove_topic_record,
    "PartitionRecord": partition_record,
    "PartitionChangeRecord": partition_change_record,
    "ClearElrRecord": clear_elr_record,
    "TopicPartitionToBatchCoordinatorMapping": topic_partition_to_batch_coordinator_mapping,
}
