"""AssignPartitionToBatchCoordinator (api key 99 of the diskless registry): the controller maps
partitions of diskless topics to batch coordinators, one ``TopicPartitionToBatchCoordinatorMapping``
record (type 29 of that registry) per partition whose coordinator changes, all in one batch.

A coordinator is named by its partition of ``__diskless-metadata``. The design gives no error
codes for this request; each partition is answered with Kafka's code closest to the fault:

- the topic id is not a live topic: UNKNOWN_TOPIC_ID;
- the topic has no such partition: UNKNOWN_TOPIC_OR_PARTITION;
- the topic is not diskless (its ``diskless.enable`` config is not ``true``):
  INVALID_TOPIC_EXCEPTION (the topic is unusable for this request);
- ``__diskless-metadata`` does not exist: COORDINATOR_NOT_AVAILABLE (no coordinator exists yet);
- the coordinator index is not one of its partitions: INVALID_REQUEST;
- a partition named twice in one request: INVALID_REQUEST for each time (one batch never maps a
  partition twice, which the metadata audit would call conflicting mappings).

A partition already mapped to the coordinator asked for is answered 0 and nothing is written.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, Callable

from ...diskless_messages.assign_partition_to_batch_coordinator_response import (
    AssignPartitionToBatchCoordinatorResponse as Response,
)
from ...diskless_messages.assign_partition_to_batch_coordinator_response import (
    AssignTopicToBatchCoordinatorResult as TopicResult,
)
from ...diskless_messages.assign_partition_to_batch_coordinator_response import (
    ListDisklessOffsetsTopicPartitionResult as PartitionResult,
)
from ...diskless_messages.topic_partition_to_batch_coordinator_mapping import (
    TopicPartitionToBatchCoordinatorMapping as Mapping,
)
from ...error_codes import ErrorCode
from ...kraft.image import MetadataImage
from ...kraft.rules import CONFIG_TOPIC, DISKLESS_CONFIG, DISKLESS_TOPIC
from ...message import Message
from ...uuid import Uuid
from .metadata_log import Entries

API_KEY = 99
Commit = Callable[[Entries], int]


def is_diskless(image: MetadataImage, topic_name: str) -> bool:
    value = image.configs.get((CONFIG_TOPIC, topic_name), {}).get(DISKLESS_CONFIG, "")
    return value.strip().lower() == "true"


def coordinator_count(image: MetadataImage) -> int | None:
    """How many partitions ``__diskless-metadata`` has (None: the topic does not exist)."""
    topic = image.topic(DISKLESS_TOPIC)
    return None if topic is None else len(topic.partitions)


def refusal(
    image: MetadataImage, topic_id: Uuid, partition: int, coordinator: int
) -> int | None:
    """Why one partition cannot be mapped to ``coordinator`` (see the module), or None."""
    topic = image.topics.get(topic_id)
    if topic is None:
        return ErrorCode.UNKNOWN_TOPIC_ID
    if partition not in topic.partitions:
        return ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
    if not is_diskless(image, topic.name):
        return ErrorCode.INVALID_TOPIC_EXCEPTION
    count = coordinator_count(image)
    if count is None:
        return ErrorCode.COORDINATOR_NOT_AVAILABLE
    if not 0 <= coordinator < count:
        return ErrorCode.INVALID_REQUEST
    return None


def assign(image: MetadataImage, commit: Commit, request: Any) -> Message:
    """Answer one request and commit the mappings it changes as one batch."""
    named = Counter((t.topic_id, p.partition_index) for t in request.topics for p in t.partitions)
    entries: Entries = []
    answers = []
    for t in request.topics:
        results = []
        for p in t.partitions:
            index, coordinator = p.partition_index, p.batch_coordinator_partition_index
            error = (int(ErrorCode.INVALID_REQUEST) if named[(t.topic_id, index)] > 1
                     else refusal(image, t.topic_id, index, coordinator))  # fmt: skip
            if error is None and image.diskless.get(t.topic_id, {}).get(index) != coordinator:
                entries.append((Mapping(partition_index=index, topic_id=t.topic_id,
                                        batch_coordinator_partition_index=coordinator), 0))  # fmt: skip
            results.append(PartitionResult(
                partition_index=index, error_code=error or 0))  # fmt: skip
        answers.append(TopicResult(topic_id=t.topic_id, partitions=results))
    commit(entries)
    return Response(responses=answers)
