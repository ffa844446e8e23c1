"""Topics: CreateTopics, DeleteTopics and CreatePartitions as Kafka's ReplicationControlManager
answers them, each topic's records committed as one batch.

CreateTopics checks, per topic and in Kafka's order: the name appears once in the request
(INVALID_REQUEST), is legal (INVALID_TOPIC_EXCEPTION: empty, ``.``/``..``, over 249 characters,
a character outside ``[a-zA-Z0-9._-]``), is free (TOPIC_ALREADY_EXISTS) and does not collide
with a live topic once ``.`` and ``_`` are taken as one (INVALID_TOPIC_EXCEPTION); then the
counts: -1 takes the default (1 partition, replication factor 1), 0 or below is
INVALID_PARTITIONS / INVALID_REPLICATION_FACTOR, a manual assignment with counts is
INVALID_REQUEST, an assignment naming a broker that is not registered and unfenced is
INVALID_REPLICA_ASSIGNMENT. A new topic's records are a TopicRecord with a random topic id, its
ConfigRecords, then its PartitionRecords. ``validate_only`` writes nothing.

A request whose TimeoutMs is 0 or less has timed out before the controller looks at it, as in
Kafka: every topic is answered REQUEST_TIMED_OUT and nothing is written (the three requests alike).
A CreateTopics or CreatePartitions adding more than 10,000 partitions in all is refused whole, as
Kafka's controller refuses it: POLICY_VIOLATION for every topic, nothing written or allocated.

DeleteTopics (by name, or by id from v6) writes a RemoveTopicRecord per topic (its partitions and
configs go with it); an unknown name is UNKNOWN_TOPIC_OR_PARTITION, an unknown id UNKNOWN_TOPIC_ID.
CreatePartitions adds PartitionRecords up to the new count with the replication factor of
partition 0; a count not above the current one is INVALID_PARTITIONS.

Where this differs from Kafka's controller: config names and values are not checked against
Kafka's topic config definitions (Kafka answers INVALID_CONFIG for an unknown name), and the
configs a CreateTopics v5+ answer describes are the ones the request set (Kafka lists every topic
config with its default); placement is ``partitions.place``.
"""

from __future__ import annotations

import re
from typing import Any, Callable

from ...error_codes import ErrorCode
from ...kraft.image import MetadataImage, Topic
from ...kraft.rules import CONFIG_TOPIC, MAX_PARTITIONS_PER_REQUEST
from ...messages.config_record import ConfigRecord
from ...messages.create_partitions_response import CreatePartitionsResponse
from ...messages.create_topics_response import CreateTopicsResponse
from ...messages.delete_topics_response import DeleteTopicsResponse
from ...messages.remove_topic_record import RemoveTopicRecord
from ...messages.topic_record import TopicRecord
from ...uuid import Uuid
from .brokers import ControllerError
from .metadata_log import Entries
from .partitions import V_PARTITION, PlacementError, is_active, partition_record, place

DEFAULT_PARTITIONS = 1  # num.partitions
DEFAULT_REPLICATION = 1  # default.replication.factor
MAX_NAME_LENGTH = 249
_LEGAL = re.compile(r"^[a-zA-Z0-9._-]+$")
CONFIG_SOURCE_TOPIC = 1  # DescribeConfigs' DYNAMIC_TOPIC_CONFIG
Commit = Callable[[Entries], int]


def name_problem(name: str) -> str | None:
    """Why Kafka's Topic.validate refuses a topic name, or None."""
    if not name:
        return "Topic name is illegal, it can't be empty"
    if name in (".", ".."):
        return "Topic name cannot be \".\" or \"..\""
    if len(name) > MAX_NAME_LENGTH:
        return f"Topic name is illegal, it can't be longer than {MAX_NAME_LENGTH} characters, topic name: {name}"
    if not _LEGAL.match(name):
        return (f"Topic name \"{name}\" is illegal, it contains a character other than ASCII "
                "alphanumerics, '.', '_' and '-'")  # fmt: skip
    return None


def _partitions_asked(topic: Any) -> int:
    """The partitions a CreateTopics entry asks for, counted as Kafka counts them for its limit."""
    if topic.assignments:
        return len(topic.assignments)
    if topic.num_partitions == -1:
        return DEFAULT_PARTITIONS
    return max(int(topic.num_partitions), 0)


def _collision(image: MetadataImage, name: str) -> str | None:
    folded = name.replace(".", "_")
    for other in image.topics_by_name:
        if other != name and other.replace(".", "_") == folded:
            return other
    return None


class TopicControl:
    """The topic requests, over the controller's image and log."""

    def __init__(self, image: MetadataImage, commit: Commit):
        self.image = image
        self.commit = commit
        self.topics_created = 0  # where the next topic's placement stripe starts

    # --- CreateTopics ------------------------------------------------------------------------

    def create_topics(self, request: Any) -> CreateTopicsResponse:
        names = [t.name for t in request.topics]
        too_many = sum(map(_partitions_asked, request.topics)) > MAX_PARTITIONS_PER_REQUEST
        results = []
        for topic in request.topics:
            result = CreateTopicsResponse.CreatableTopicResult(name=topic.name, topic_id=Uuid.ZERO_UUID,
                                                               error_message=None)  # fmt: skip
            try:
                if request.timeout_ms <= 0:
                    raise ControllerError(ErrorCode.REQUEST_TIMED_OUT, "")
                if too_many:
                    raise ControllerError(ErrorCode.POLICY_VIOLATION,
                                          "Excessively large number of partitions per request.")  # fmt: skip
                if names.count(topic.name) > 1:
                    raise ControllerError(ErrorCode.INVALID_REQUEST, "Duplicate topic name.")
                self._create(topic, result, bool(getattr(request, "validate_only", False)))
            except ControllerError as e:
                result.error_code, result.error_message = int(e.error), str(e) or None
                result.num_partitions, result.replication_factor = -1, -1
            results.append(result)
        return CreateTopicsResponse(topics=results)

    def _create(self, topic: Any, result: Any, validate_only: bool) -> None:
        problem = name_problem(topic.name)
        if problem:
            raise ControllerError(ErrorCode.INVALID_TOPIC_EXCEPTION, problem)
        if self.image.topic(topic.name) is not None:
            raise ControllerError(ErrorCode.TOPIC_ALREADY_EXISTS, f"Topic '{topic.name}' already exists.")
        other = _collision(self.image, topic.name)
        if other is not None:
            raise ControllerError(ErrorCode.INVALID_TOPIC_EXCEPTION,
                                  f"Topic '{topic.name}' collides with existing topic: {other}")  # fmt: skip
        replicas = self._replicas(topic)
        topic_id = Uuid.random()
        configs = [(c.name, c.value) for c in topic.configs]
        entries: Entries = [(TopicRecord(name=topic.name, topic_id=topic_id), 0)]
        entries += [(ConfigRecord(resource_type=CONFIG_TOPIC, resource_name=topic.name, name=k, value=v), 0)
                    for k, v in configs]  # fmt: skip
        entries += [(partition_record(self.image, topic_id, i, r), V_PARTITION) for i, r in enumerate(replicas)]
        result.topic_id = topic_id
        result.num_partitions, result.replication_factor = len(replicas), len(replicas[0])
        result.configs = [CreateTopicsResponse.CreatableTopicConfigs(
            name=k, value=v, read_only=False, config_source=CONFIG_SOURCE_TOPIC, is_sensitive=False)
            for k, v in sorted(configs)]  # fmt: skip
        if not validate_only:
            self.commit(entries)
            self.topics_created += 1

    def _replicas(self, topic: Any) -> list[list[int]]:
        """The replica lists of a new topic: its manual assignment, or placed."""
        if topic.assignments:
            if topic.num_partitions != -1 or topic.replication_factor != -1:
                raise ControllerError(ErrorCode.INVALID_REQUEST, "Both numPartitions or "
                                      "replicationFactor and replicasAssignments were set. Both cannot be used at the same time.")  # fmt: skip
            ordered = sorted(topic.assignments, key=lambda a: a.partition_index)
            if [a.partition_index for a in ordered] != list(range(len(ordered))):
                raise ControllerError(ErrorCode.INVALID_REPLICA_ASSIGNMENT,
                                      "Partitions should be numbered from 0 without gaps.")  # fmt: skip
            return [self._checked(list(a.broker_ids)) for a in ordered]
        partitions = DEFAULT_PARTITIONS if topic.num_partitions == -1 else topic.num_partitions
        replication = DEFAULT_REPLICATION if topic.replication_factor == -1 else topic.replication_factor
        if partitions <= 0:
            raise ControllerError(ErrorCode.INVALID_PARTITIONS,
                                  "Number of partitions was set to an invalid non-positive value.")  # fmt: skip
        if replication <= 0:
            raise ControllerError(ErrorCode.INVALID_REPLICATION_FACTOR, "Replication factor must "
                                  "be larger than 0, or -1 to use the default value.")  # fmt: skip
        return self._placed(partitions, replication, self.topics_created)

    def _placed(self, partitions: int, replication: int, start: int) -> list[list[int]]:
        try:
            return place(self.image, partitions, replication, start)
        except PlacementError as e:
            raise ControllerError(e.error, str(e)) from None

    def _checked(self, replicas: list[int]) -> list[int]:
        """A manual assignment: a non-empty list of distinct, registered, unfenced brokers."""
        if not replicas:
            raise ControllerError(ErrorCode.INVALID_REPLICA_ASSIGNMENT, "The manual partition "
                                  "assignment includes an empty replica list.")  # fmt: skip
        if len(set(replicas)) != len(replicas):
            raise ControllerError(ErrorCode.INVALID_REPLICA_ASSIGNMENT, "The manual partition "
                                  f"assignment includes duplicate replicas: {replicas}")  # fmt: skip
        for broker in replicas:
            if not is_active(self.image, broker):
                raise ControllerError(ErrorCode.INVALID_REPLICA_ASSIGNMENT, "The manual partition "
                                      f"assignment includes broker {broker}, but no such broker is registered.")  # fmt: skip
        return replicas

    # --- DeleteTopics ------------------------------------------------------------------------

    def delete_topics(self, request: Any, version: int) -> DeleteTopicsResponse:
        wanted = ([(t.name, t.topic_id) for t in request.topics] if version >= 6
                  else [(name, Uuid.ZERO_UUID) for name in request.topic_names])  # fmt: skip
        results = []
        for name, topic_id in wanted:
            result = DeleteTopicsResponse.DeletableTopicResult(name=name, topic_id=topic_id, error_message=None)
            if request.timeout_ms <= 0:
                result.error_code = int(ErrorCode.REQUEST_TIMED_OUT)
                results.append(result)
                continue
            found = self._topic_to_delete(name, topic_id, result)
            if found is not None:
                result.name, result.topic_id = found.name, found.id
                self.commit([(RemoveTopicRecord(topic_id=found.id), 0)])
            results.append(result)
        return DeleteTopicsResponse(responses=results)

    def _topic_to_delete(self, name: str | None, topic_id: Uuid, result: Any) -> Topic | None:
        if name is None or (topic_id != Uuid.ZERO_UUID and not name):
            found = self.image.topics.get(topic_id)
            if found is None:
                result.error_code, result.error_message = int(ErrorCode.UNKNOWN_TOPIC_ID), "Unknown topic id."
            return found
        found = self.image.topic(name)
        if found is None:
            result.error_code = int(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION)
            result.error_message = "This server does not host this topic-partition."
        return found

    # --- CreatePartitions --------------------------------------------------------------------

    def create_partitions(self, request: Any) -> CreatePartitionsResponse:
        too_many = sum(map(self._partitions_added, request.topics)) > MAX_PARTITIONS_PER_REQUEST
        results = []
        for wanted in request.topics:
            result = CreatePartitionsResponse.CreatePartitionsTopicResult(name=wanted.name, error_message=None)
            try:
                if request.timeout_ms <= 0:
                    raise ControllerError(ErrorCode.REQUEST_TIMED_OUT, "")
                if too_many:
                    raise ControllerError(ErrorCode.POLICY_VIOLATION,
                                          "Excessively large number of additional partitions per request.")  # fmt: skip
                entries = self._more_partitions(wanted)
                if not request.validate_only:
                    self.commit(entries)
            except ControllerError as e:
                result.error_code, result.error_message = int(e.error), str(e) or None
            results.append(result)
        return CreatePartitionsResponse(results=results)

    def _partitions_added(self, wanted: Any) -> int:
        """How many partitions a CreatePartitions entry adds to a known topic (0 otherwise)."""
        topic = self.image.topic(wanted.name)
        return max(wanted.count - len(topic.partitions), 0) if topic is not None else 0

    def _more_partitions(self, wanted: Any) -> Entries:
        topic = self.image.topic(wanted.name)
        if topic is None:
            raise ControllerError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
                                  "This server does not host this topic-partition.")  # fmt: skip
        current = len(topic.partitions)
        if wanted.count < current:
            raise ControllerError(ErrorCode.INVALID_PARTITIONS, f"The topic {topic.name} currently "
                                  f"has {current} partition(s); {wanted.count} would not be an increase.")  # fmt: skip
        if wanted.count == current:
            raise ControllerError(ErrorCode.INVALID_PARTITIONS,
                                  f"Topic already has {current} partition(s).")  # fmt: skip
        added = wanted.count - current
        if wanted.assignments:
            if len(wanted.assignments) != added:
                raise ControllerError(ErrorCode.INVALID_REPLICA_ASSIGNMENT, f"Attempted to add "
                                      f"{added} additional partition(s), but only {len(wanted.assignments)} assignment(s) were specified.")  # fmt: skip
            replicas = [self._checked(list(a.broker_ids)) for a in wanted.assignments]
        else:
            replication = len(topic.partitions[0].replicas) if topic.partitions else 1
            replicas = self._placed(added, replication, current)
        return [(partition_record(self.image, topic.id, current + i, r), V_PARTITION)
                for i, r in enumerate(replicas)]  # fmt: skip

