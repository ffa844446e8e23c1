"""KRaft rules that the metadata image, the audits and the simulator all apply, stated once.

The image replays records by them, the audits check a log against them, the simulator writes
logs that follow them (and plants faults that break them).
"""

from __future__ import annotations

# --- partitions ----------------------------------------------------------------------------------

NO_LEADER = -1  # PartitionRecord / PartitionChangeRecord.Leader: the partition has none
NO_LEADER_CHANGE = -2  # PartitionChangeRecord.Leader: leave the leader as it is


def epochs_after_change(leader_epoch: int, partition_epoch: int, leader: int) -> tuple[int, int]:
    """A partition's (leader epoch, partition epoch) after a PartitionChangeRecord naming
    ``leader``: naming one (even the same, or NO_LEADER) starts a new leader epoch, as Kafka's
    PartitionRegistration.merge does; every change starts a new partition epoch."""
    if leader != NO_LEADER_CHANGE:
        leader_epoch += 1
    return leader_epoch, partition_epoch + 1


def leadership_after_change(
    leader: int, leader_epoch: int, partition_epoch: int, named_leader: int
) -> tuple[int, int, int]:
    """A partition's (leader, leader epoch, partition epoch) after a PartitionChangeRecord whose
    Leader is ``named_leader``: NO_LEADER_CHANGE keeps the leader, anything else replaces it."""
    new_leader = leader if named_leader == NO_LEADER_CHANGE else named_leader
    return (new_leader, *epochs_after_change(leader_epoch, partition_epoch, named_leader))


# Kafka's ReplicationControlManager.MAX_PARTITIONS_PER_BATCH: a request (CreateTopics,
# CreatePartitions) adding more partitions than this is refused whole with POLICY_VIOLATION
MAX_PARTITIONS_PER_REQUEST = 10_000

# --- brokers -------------------------------------------------------------------------------------

# BrokerRegistrationChangeRecord.Fenced
FENCE = 1
UNFENCE = -1
FENCING_UNCHANGED = 0


def fenced_after(fenced: int, currently_fenced: bool) -> bool:
    """Whether a broker is fenced after a BrokerRegistrationChangeRecord's Fenced value."""
    return currently_fenced if fenced == FENCING_UNCHANGED else fenced == FENCE


# --- producer ids --------------------------------------------------------------------------------

PRODUCER_ID_BLOCK_SIZE = 1000  # Kafka's ProducerIdsBlock.PRODUCER_ID_BLOCK_SIZE


def producer_id_block(next_producer_id: int) -> tuple[int, int]:
    """The first and last id of the block a ProducerIdsRecord hands out: the
    PRODUCER_ID_BLOCK_SIZE ids below its NextProducerId."""
    return next_producer_id - PRODUCER_ID_BLOCK_SIZE, next_producer_id - 1


# --- configs -------------------------------------------------------------------------------------

# ConfigResource.Type codes as ConfigRecord.ResourceType carries them
CONFIG_TOPIC = 2
CONFIG_BROKER = 4

# --- diskless topics -----------------------------------------------------------------------------

DISKLESS_TOPIC = "__diskless-metadata"  # its partitions coordinate the diskless topics' batches
DISKLESS_CONFIG = "diskless.enable"  # the topic config that makes a topic diskless
