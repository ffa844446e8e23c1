"""Partition placement and leadership: where a new partition's replicas go, and the
PartitionChangeRecords a broker leaving or coming back makes.

Kafka's rules, as its ReplicationControlManager and PartitionChangeBuilder apply them
(without eligible leader replicas, which the controller's metadata.version predates):

- a new partition's ISR is its replicas that are active (registered, unfenced and not in
  controlled shutdown), its leader the first of them, leader and partition epochs 0, each
  replica's directory the broker's only log directory (UNASSIGNED when it has several,
  MIGRATING when it named none);
- a broker that is fenced, shuts down or is unregistered leaves every ISR it is in; a partition
  it led elects the first replica (in replica order) still in the ISR and active, or no leader
  (-1). An ISR is never emptied: when the leaving broker is its last member, it stays in the ISR
  and the partition is left leaderless, as Kafka keeps it for a later clean election;
- a broker unfenced becomes the leader of the leaderless partitions whose ISR holds it;
- a record is written only for a partition that changes, and an ISR shrink alone does not start
  a new leader epoch (metadata.version 3.6 and later).

Placement differs from Kafka's StripedReplicaPlacer in one way, written down here: Kafka starts
each topic's stripe at a random broker, we start it at the number of topics created before
(deterministic, so tests can name leaders). Both put the unfenced brokers first and spread
leaders and followers round the ring; neither places on a broker in controlled shutdown.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from ...error_codes import ErrorCode
from ...kraft.image import (
    DIRECTORY_MIGRATING,
    DIRECTORY_UNASSIGNED,
    MetadataImage,
    PartitionRegistration,
)
from ...kraft.rules import NO_LEADER
from ...message import Message
from ...messages.partition_change_record import PartitionChangeRecord
from ...messages.partition_record import PartitionRecord
from ...uuid import Uuid
from .metadata_log import Entries

V_PARTITION = 1  # PartitionRecord / PartitionChangeRecord at metadata.version 3.9-IV0
V_PARTITION_CHANGE = 1


class PlacementError(ValueError):
    """Replicas cannot be placed; ``error`` is the Kafka error code to answer with."""

    def __init__(self, error: int, message: str):
        super().__init__(message)
        self.error = error


def is_active(image: MetadataImage, broker_id: int) -> bool:
    """Kafka's ClusterControlManager.isActive: registered, unfenced, not shutting down."""
    broker = image.brokers.get(broker_id)
    return broker is not None and not broker.fenced and not broker.in_controlled_shutdown


def default_directory(image: MetadataImage, broker_id: int) -> Uuid:
    broker = image.brokers.get(broker_id)
    if broker is None:
        return DIRECTORY_UNASSIGNED
    if not broker.directories:
        return DIRECTORY_MIGRATING
    return broker.directories[0] if len(broker.directories) == 1 else DIRECTORY_UNASSIGNED


def place(image: MetadataImage, partitions: int, replication: int, start: int) -> list[list[int]]:
    """Replica lists for ``partitions`` new partitions, striped from ``start`` (see the module)."""
    usable = [b for b in image.brokers.values() if not b.in_controlled_shutdown]
    unfenced = sorted(b.id for b in usable if not b.fenced)
    fenced = sorted(b.id for b in usable if b.fenced)
    if not unfenced:
        raise PlacementError(ErrorCode.INVALID_REPLICATION_FACTOR, "All brokers are currently fenced.")
    if replication > len(usable):
        raise PlacementError(
            ErrorCode.INVALID_REPLICATION_FACTOR,
            f"Unable to replicate the partition {replication} time(s): The target replication "
            f"factor of {replication} cannot be reached because only {len(usable)} broker(s) "
            "are registered.",
        )
    ring = unfenced + fenced
    lead = len(unfenced)
    placed = []
    for p in range(partitions):
        first = (start + p) % lead  # leaders only on unfenced brokers
        rest = [ring[(first + k) % len(ring)] for k in range(1, len(ring))]
        placed.append([ring[first]] + rest[: replication - 1])
    return placed


def partition_record(image: MetadataImage, topic_id: Uuid, index: int, replicas: list[int]) -> Message:
    """The PartitionRecord of a new partition on ``replicas``."""
    isr = [r for r in replicas if is_active(image, r)]
    return PartitionRecord(
        partition_id=index,
        topic_id=topic_id,
        replicas=list(replicas),
        isr=isr,
        removing_replicas=[],
        adding_replicas=[],
        leader=isr[0] if isr else NO_LEADER,
        leader_epoch=0,
        partition_epoch=0,
        directories=[default_directory(image, r) for r in replicas],
    )


def _partitions(image: MetadataImage, wanted: Callable[[PartitionRegistration], bool]) -> Iterator[tuple[Uuid, int, PartitionRegistration]]:  # fmt: skip
    for topic in sorted(image.topics.values(), key=lambda t: t.name):
        for index, partition in sorted(topic.partitions.items()):
            if wanted(partition):
                yield topic.id, index, partition


def leadership_changes(image: MetadataImage, *, remove: int = NO_LEADER, add: int = NO_LEADER) -> Entries:
    """The PartitionChangeRecords for a broker leaving (``remove``: the partitions whose ISR
    holds it) or coming back (``add``: the leaderless partitions), Kafka's
    generateLeaderAndIsrUpdates."""

    def acceptable(replica: int) -> bool:
        return replica != remove and (replica == add or is_active(image, replica))

    def wanted(p: PartitionRegistration) -> bool:
        return remove in p.isr if remove != NO_LEADER else p.leader == NO_LEADER

    entries: Entries = []
    for topic_id, index, partition in _partitions(image, wanted):
        target = [r for r in partition.isr if r != remove]
        change = PartitionChangeRecord(partition_id=index, topic_id=topic_id)
        changed = False
        if partition.leader not in target or not acceptable(partition.leader):
            leader = next((r for r in partition.replicas if r in target and acceptable(r)), NO_LEADER)
            if leader != partition.leader:
                change.leader, changed = leader, True
        if target and target != partition.isr:
            change.isr, changed = target, True
        if changed:
            entries.append((change, V_PARTITION_CHANGE))
    return entries


def has_leaderships(image: MetadataImage, broker_id: int) -> bool:
    return any(True for _ in _partitions(image, lambda p: p.leader == broker_id))


def leader_change(image: MetadataImage, topic_id: Uuid, index: int, leader: int) -> Entries:
    """Make ``leader`` (an active member of the ISR) the partition's leader."""
    partition = image.topics[topic_id].partitions[index]
    if leader not in partition.isr or not is_active(image, leader):
        raise ValueError(f"broker {leader} is not an active member of the ISR {partition.isr}")
    if partition.leader == leader:
        return []
    change = PartitionChangeRecord(partition_id=index, topic_id=topic_id, leader=leader)
    return [(change, V_PARTITION_CHANGE)]
