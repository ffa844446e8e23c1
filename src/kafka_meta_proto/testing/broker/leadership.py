"""What the handlers ask of the image about a partition: may this broker serve it, and where
are the brokers a client should go to instead.

The checks run in Kafka's order (ReplicaManager.getPartitionOrError, then
Partition.localLogWithEpochOrThrow): a partition the image does not know is
UNKNOWN_TOPIC_OR_PARTITION; one this broker holds no replica of, or is not the leader of when
the leader is needed, NOT_LEADER_OR_FOLLOWER; a ``current_leader_epoch`` below the partition's
leader epoch FENCED_LEADER_EPOCH, above it UNKNOWN_LEADER_EPOCH (-1 skips the check).

A broker is alive, for Metadata and DescribeCluster, when it is registered and not fenced, as
Kafka's KRaftMetadataCache counts them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ...error_codes import ErrorCode
from ...kraft.image import BrokerRegistration, MetadataImage, PartitionRegistration, Topic
from .partition import Partition

if TYPE_CHECKING:
    from .broker import Broker


@dataclass(frozen=True)
class Served:
    """The outcome of the checks: an error code, or the registration and local replica."""

    error: ErrorCode
    registration: PartitionRegistration | None = None
    partition: Partition | None = None


def serve(broker: Broker, topic: Topic | None, index: int, current_leader_epoch: int = -1,
          *, leader_only: bool = True) -> Served:  # fmt: skip
    registration = topic.partitions.get(index) if topic is not None else None
    if topic is None or registration is None:
        return Served(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION)
    partition = broker.replicas.get(topic.name, index)
    if partition is None or (leader_only and registration.leader != broker.node_id):
        return Served(ErrorCode.NOT_LEADER_OR_FOLLOWER, registration)
    if current_leader_epoch != -1:
        if current_leader_epoch < registration.leader_epoch:
            return Served(ErrorCode.FENCED_LEADER_EPOCH, registration)
        if current_leader_epoch > registration.leader_epoch:
            return Served(ErrorCode.UNKNOWN_LEADER_EPOCH, registration)
    return Served(ErrorCode.NONE, registration, partition)


def alive_brokers(image: MetadataImage) -> list[BrokerRegistration]:
    return [b for _, b in sorted(image.brokers.items()) if not b.fenced]


def endpoint(registration: BrokerRegistration, listener: str) -> tuple[str, int] | None:
    found = registration.listeners.get(listener)
    return (found.host, found.port) if found is not None else None


def node_endpoints(broker: Broker, nodes: set[int], cls: Any) -> list[Any]:
    """``cls`` entries (node_id, host, port, rack) for the live ``nodes`` on this listener."""
    found = []
    for registration in alive_brokers(broker.image):
        where = endpoint(registration, broker.listener_name)
        if registration.id in nodes and where is not None:
            found.append(cls(node_id=registration.id, host=where[0], port=where[1],
                             rack=registration.rack))  # fmt: skip
    return found


def new_leader_nodes(registrations: list[PartitionRegistration | None]) -> set[int]:
    """The leaders a client told NOT_LEADER_OR_FOLLOWER is pointed to."""
    return {r.leader for r in registrations if r is not None and r.leader >= 0}
