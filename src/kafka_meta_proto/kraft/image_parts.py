"""The parts of a metadata image: the registrations, partitions, topics and the rest it holds,
plain data, with the reserved values their fields use. ``image`` builds them by replaying records.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..uuid import Uuid
from .rules import CONFIG_TOPIC, NO_LEADER, leadership_after_change

if TYPE_CHECKING:
    from ..messages.partition_change_record import PartitionChangeRecord
    from ..messages.partition_record import PartitionRecord

LEADER_RECOVERY_NO_CHANGE = -1  # PartitionChangeRecord.LeaderRecoveryState: leave it

# DirectoryId's reserved values.
DIRECTORY_UNASSIGNED = Uuid.ZERO_UUID  # a replica not yet placed in a log directory
DIRECTORY_LOST = Uuid.ONE_UUID  # an unspecified offline directory
DIRECTORY_MIGRATING = Uuid(bytes(15) + b"\x02")  # placed before directories were tracked

# ConfigResource.Type codes as ConfigRecord.ResourceType carries them.
CONFIG_RESOURCE_TYPES = {
    0: "unknown",
    2: "topic",
    4: "broker",
    8: "broker_logger",
    16: "client_metrics",
    32: "group",
}
TOPIC_RESOURCE = CONFIG_TOPIC

# ZkMigrationState codes (Kafka 3.5 and later).
ZK_MIGRATION_STATES = {0: "NONE", 1: "MIGRATION", 2: "PRE_MIGRATION", 3: "POST_MIGRATION"}

METADATA_VERSION = "metadata.version"


def _replaced(current: list[int], change: Any) -> list[int]:
    """A replica list after a PartitionChangeRecord: null in the record keeps the current one."""
    return current if change is None else list(change)


class ReplayError(ValueError):
    """A record that cannot be applied to the image (Kafka would refuse it too)."""

    def __init__(self, message: str, offset: int | None = None, record: str | None = None):
        self.offset = offset
        self.record = record
        where = f" (offset {offset}{', ' + record if record else ''})" if offset is not None else ""
        super().__init__(f"{message}{where}")


# --- the parts of the image ---------------------------------------------------------------


@dataclass
class Endpoint:
    """A listener of a broker or controller."""

    name: str
    host: str
    port: int
    security_protocol: int


@dataclass
class FeatureRange:
    """The levels of a feature a node can run."""

    min_supported: int
    max_supported: int


@dataclass
class BrokerRegistration:
    id: int
    epoch: int
    incarnation_id: Uuid
    listeners: dict[str, Endpoint] = field(default_factory=dict)
    supported_features: dict[str, FeatureRange] = field(default_factory=dict)
    rack: str | None = None
    fenced: bool = True
    in_controlled_shutdown: bool = False
    is_migrating_zk_broker: bool = False
    directories: list[Uuid] = field(default_factory=list)
    # No new partitions are placed there; None when the registration predates cordoning.
    cordoned_directories: list[Uuid] | None = None


@dataclass
class ControllerRegistration:
    id: int
    incarnation_id: Uuid
    zk_migration_ready: bool = False
    listeners: dict[str, Endpoint] = field(default_factory=dict)
    supported_features: dict[str, FeatureRange] = field(default_factory=dict)


@dataclass
class PartitionRegistration:
    """A partition's replicas, ISR and leadership (Kafka's PartitionRegistration)."""

    replicas: list[int]
    isr: list[int]
    leader: int = NO_LEADER
    leader_epoch: int = 0
    partition_epoch: int = 0
    leader_recovery_state: int = 0  # 0 recovered, 1 recovering (after an unclean election)
    removing_replicas: list[int] = field(default_factory=list)
    adding_replicas: list[int] = field(default_factory=list)
    directories: list[Uuid] = field(default_factory=list)
    elr: list[int] = field(default_factory=list)
    last_known_elr: list[int] = field(default_factory=list)

    @classmethod
    def from_record(cls, record: PartitionRecord) -> PartitionRegistration:
        directories = list(record.directories or [])
        if directories and len(directories) != len(record.replicas):
            raise ValueError(f"{len(directories)} directories for {len(record.replicas)} replicas")
        return cls(
            replicas=list(record.replicas),
            isr=list(record.isr),
            leader=record.leader,
            leader_epoch=record.leader_epoch,
            partition_epoch=record.partition_epoch,
            leader_recovery_state=record.leader_recovery_state,
            removing_replicas=list(record.removing_replicas),
            adding_replicas=list(record.adding_replicas),
            directories=directories or [DIRECTORY_MIGRATING] * len(record.replicas),
            elr=list(record.eligible_leader_replicas or []),
            last_known_elr=list(record.last_known_elr or []),
        )

    def merge(self, change: PartitionChangeRecord) -> PartitionRegistration:
        """The partition after a PartitionChangeRecord: only the fields it carries change.

        Null lists, Leader -2 and LeaderRecoveryState -1 mean "no change". Naming a leader
        (even the same one, or -1 for none) starts a new leader epoch; every change starts a
        new partition epoch. New replicas without directories keep the directories of the
        replicas they already had and get UNASSIGNED for the others.
        """
        replicas = self.replicas if change.replicas is None else list(change.replicas)
        if change.directories:
            if change.replicas is not None and len(change.directories) != len(change.replicas):
                raise ValueError(
                    f"{len(change.directories)} directories for {len(change.replicas)} replicas"
                )
            directories = list(change.directories)
        elif change.replicas is not None:
            old = dict(zip(self.replicas, self.directories))
            directories = [old.get(replica, DIRECTORY_UNASSIGNED) for replica in replicas]
        else:
            directories = list(self.directories)
        if not directories:
            directories = [DIRECTORY_MIGRATING] * len(replicas)
        leader, leader_epoch, partition_epoch = leadership_after_change(
            self.leader, self.leader_epoch, self.partition_epoch, change.leader
        )
        recovery = change.leader_recovery_state
        return PartitionRegistration(
            replicas=list(replicas),
            isr=self.isr if change.isr is None else list(change.isr),
            leader=leader,
            leader_epoch=leader_epoch,
            partition_epoch=partition_epoch,
            leader_recovery_state=(
                self.leader_recovery_state if recovery == LEADER_RECOVERY_NO_CHANGE else recovery
            ),
            removing_replicas=_replaced(self.removing_replicas, change.removing_replicas),
            adding_replicas=_replaced(self.adding_replicas, change.adding_replicas),
            directories=directories,
            elr=_replaced(self.elr, change.eligible_leader_replicas),
            last_known_elr=_replaced(self.last_known_elr, change.last_known_elr),
        )


@dataclass
class Topic:
    name: str
    id: Uuid
    partitions: dict[int, PartitionRegistration] = field(default_factory=dict)


@dataclass
class ProducerIds:
    """The last block of producer ids handed out: where the next one starts, and to whom."""

    next_producer_id: int
    broker_id: int
    broker_epoch: int


@dataclass
class Acl:
    id: Uuid
    resource_type: int
    resource_name: str
    pattern_type: int
    principal: str
    host: str
    operation: int
    permission_type: int


@dataclass
class ScramCredential:
    name: str
    mechanism: int
    salt: bytes
    stored_key: bytes
    server_key: bytes
    iterations: int


@dataclass
class DelegationToken:
    token_id: str
    owner: str
    requester: str
    renewers: list[str]
    issue_timestamp: int
    max_timestamp: int
    expiration_timestamp: int


# A client quota entity: its (entity type, entity name) parts sorted by type; a None name is the
# default entity of that type.
QuotaEntity = tuple[tuple[str, "str | None"], ...]
