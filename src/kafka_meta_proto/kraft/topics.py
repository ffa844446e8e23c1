"""A topic id's life as the KRaft rules see it, and what the topic and partition records do to it.

Written once for everything that replays a metadata log: a PartitionRecord, a
PartitionChangeRecord or a RemoveTopicRecord must name a topic id a TopicRecord created and no
RemoveTopicRecord removed since, and a change (or a diskless coordinator mapping) must name a
partition the topic has. The image raises for those (Kafka's controller refuses them), the audit
reports them. ``apply_topic`` gives the new life and the problem found; what is done about the
problem is the caller's choice, as for ``kraft.brokers``.

The image forgets a removed topic, so to it every id it does not hold is NEVER_CREATED; the audit
keeps the ids it has seen and tells the two apart.
"""

from __future__ import annotations

# What a record does to a topic id.
CREATE = "create"  # TopicRecord
REMOVE = "remove"  # RemoveTopicRecord
ADD_PARTITION = "add partition"  # PartitionRecord
CHANGE_PARTITION = "change partition"  # PartitionChangeRecord
MAP_PARTITION = "map partition"  # TopicPartitionToBatchCoordinatorMapping (diskless)

# A topic id's life.
NEVER_CREATED: str | None = None  # no TopicRecord named it
LIVE = "live"
REMOVED = "removed"  # its last record was a RemoveTopicRecord

# The problems apply_topic finds.
UNKNOWN_TOPIC = "unknown topic"  # the id was never created
REMOVED_TOPIC = "removed topic"  # the id was removed
UNKNOWN_PARTITION = "unknown partition"  # the live topic has no such partition
# Operations that need the partition to exist already.
_ON_A_PARTITION = (CHANGE_PARTITION, MAP_PARTITION)


def topic_problem(life: str | None, op: str, has_partition: bool = True) -> str | None:
    """The problem with applying ``op`` to a topic id in ``life`` (None if none);
    ``has_partition``: whether the topic has the partition a change or mapping names."""
    if op == CREATE:
        return None
    if life is NEVER_CREATED:
        return UNKNOWN_TOPIC
    if life == REMOVED:
        return REMOVED_TOPIC
    if op in _ON_A_PARTITION and not has_partition:
        return UNKNOWN_PARTITION
    return None


def apply_topic(
    life: str | None, op: str, has_partition: bool = True
) -> tuple[str | None, str | None]:
    """The topic id's life after ``op`` and the problem found (None if none). As for brokers, the
    life follows the record even when the record was a problem: a TopicRecord makes the id live
    (also when it already was), a RemoveTopicRecord removed."""
    problem = topic_problem(life, op, has_partition)
    if op == CREATE:
        return LIVE, problem
    if op == REMOVE:
        return REMOVED, problem
    return life, problem
