"""The simulated cluster's parts (brokers, partitions, topics), the messages it writes, and the
choices a random cluster is made of."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from .. import kraft
from ..diskless_messages.topic_partition_to_batch_coordinator_mapping import (
    TopicPartitionToBatchCoordinatorMapping,
)
from ..messages.begin_transaction_record import BeginTransactionRecord as BeginTransactionRecord
from ..messages.broker_registration_change_record import (
    BrokerRegistrationChangeRecord as BrokerRegistrationChangeRecord,
)
from ..messages.config_record import ConfigRecord as ConfigRecord
from ..messages.end_transaction_record import EndTransactionRecord as EndTransactionRecord
from ..messages.feature_level_record import FeatureLevelRecord as FeatureLevelRecord
from ..messages.leader_change_message import LeaderChangeMessage as LeaderChangeMessage
from ..messages.no_op_record import NoOpRecord as NoOpRecord
from ..messages.partition_change_record import PartitionChangeRecord as PartitionChangeRecord
from ..messages.partition_record import PartitionRecord as PartitionRecord
from ..messages.producer_ids_record import ProducerIdsRecord as ProducerIdsRecord
from ..messages.register_broker_record import RegisterBrokerRecord as RegisterBrokerRecord
from ..messages.register_controller_record import (
    RegisterControllerRecord as RegisterControllerRecord,
)
from ..messages.remove_topic_record import RemoveTopicRecord as RemoveTopicRecord
from ..messages.snapshot_footer_record import SnapshotFooterRecord as SnapshotFooterRecord
from ..messages.snapshot_header_record import SnapshotHeaderRecord as SnapshotHeaderRecord
from ..messages.topic_record import TopicRecord as TopicRecord
from ..messages.zk_migration_state_record import ZkMigrationStateRecord as ZkMigrationStateRecord
from ..uuid import Uuid
from .config import KRAFT_VERSION_RANGE, METADATA_VERSION

# The diskless design's record type 29 (Kafka 4.4 gives 29 to UnregisterControllerRecord).
MappingRecord = TopicPartitionToBatchCoordinatorMapping

# The record versions a 3.9-IV0 controller writes.
V_REGISTER_BROKER = 3
V_PARTITION = 1
V_PARTITION_CHANGE = 1
NOOP_VALUE = kraft.encode_record_value(NoOpRecord(), 0)

_FEATURES = (("kraft.version", *KRAFT_VERSION_RANGE), ("metadata.version", 1, METADATA_VERSION))

_DOMAINS = ("orders", "payments", "inventory", "clicks", "sessions", "users", "shipments", "invoices",
            "audit", "metrics", "logs", "events", "notifications", "search", "ledger", "pricing",
            "fraud-signals", "cart", "telemetry", "profiles")  # fmt: skip
_PREFIXES = ("", "", "prod.", "staging.", "analytics.", "team-a.", "team-b.")
_SUFFIXES = ("", "", "", "-v2", ".dlq", "-retry", ".changelog", "-compacted", ".cdc")
_RACKS = ("use1-az1", "use1-az2", "use1-az3")
_TOPIC_CONFIGS = (
    ("retention.ms", ("604800000", "86400000", "259200000", "3600000", "-1")),
    ("cleanup.policy", ("delete", "compact", "compact,delete")),
    ("min.insync.replicas", ("1", "2")),
    ("segment.bytes", ("1073741824", "536870912", "104857600")),
    ("max.message.bytes", ("1048588", "5242880")),
    ("compression.type", ("producer", "zstd", "lz4")),
    ("retention.bytes", ("-1", "10737418240")),
)
_BROKER_CONFIGS = (
    ("log.cleaner.threads", ("1", "2", "4")),
    ("max.connections", ("1000", "5000", "2147483647")),
    ("leader.replication.throttled.rate", ("10485760", "52428800")),
    ("follower.replication.throttled.rate", ("10485760", "52428800")),
    ("log.retention.ms", ("604800000", "1209600000")),
    ("num.replica.fetchers", ("1", "2", "4")),
)


@dataclass(slots=True)
class Broker:
    id: int
    rack: str | None
    log_dirs: list[Uuid]
    incarnation: Uuid | None = None
    epoch: int = -1
    fenced: bool = True
    in_controlled_shutdown: bool = False
    up: bool = False  # running and registered (it may still be fenced)


@dataclass(slots=True)
class Partition:
    replicas: list[int]
    isr: list[int]
    leader: int
    directories: list[Uuid]
    leader_epoch: int = 0
    partition_epoch: int = 0


@dataclass(slots=True)
class Topic:
    name: str
    id: Uuid
    partitions: list[Partition]
    configs: dict[str, str] = field(default_factory=dict)
    diskless: bool = False
    coordinators: list[int] | None = None  # __diskless-metadata partition per partition
    internal: bool = False
    created_at: int = 0  # offset of its TopicRecord


def _uuid(rng: random.Random) -> Uuid:
    """A random version-4 Uuid from ``rng``, never a reserved one nor one whose text starts with '-'."""
    while True:
        raw = bytearray(rng.getrandbits(128).to_bytes(16, "big"))
        raw[6] = (raw[6] & 0x0F) | 0x40
        raw[8] = (raw[8] & 0x3F) | 0x80
        uuid = Uuid(bytes(raw))
        if uuid not in Uuid.RESERVED and not str(uuid).startswith("-"):
            return uuid
