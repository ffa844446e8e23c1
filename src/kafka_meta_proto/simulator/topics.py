"""Topics: created with their configs and partitions, deleted, re-created under the same name,
diskless ones mapped to batch coordinators, and config changes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..kraft.rules import CONFIG_BROKER, CONFIG_TOPIC, DISKLESS_CONFIG
from ..uuid import Uuid
from .config import CONSUMER_OFFSETS, DISKLESS_METADATA, _Room
from .model import (
    _BROKER_CONFIGS,
    _DOMAINS,
    _PREFIXES,
    _SUFFIXES,
    _TOPIC_CONFIGS,
    V_PARTITION,
    ConfigRecord,
    MappingRecord,
    Partition,
    RemoveTopicRecord,
    Topic,
    TopicRecord,
    _uuid,
)
from .faults import fault_entry
from .image_records import partition_record
from .log_output import write_batch
from .state import up_brokers

if TYPE_CHECKING:
    from .state import Cluster, Entry


def _topic_name(sim: Cluster) -> str:
    rng = sim.rng
    base = rng.choice(_PREFIXES) + rng.choice(_DOMAINS) + rng.choice(_SUFFIXES)
    name, n = base, 1
    while name in sim.topics or any(name == d[0] for d in sim.deleted):
        n += 1
        name = f"{base}-{n}"
    return name


def _place(sim: Cluster, partitions: int, replication: int) -> list[list[int]] | None:
    """Replicas for each partition on the running brokers, as Kafka's rack-unaware assignment."""
    live = sorted(b.id for b in up_brokers(sim))
    n = len(live)
    if n < replication:
        return None
    start = sim.rng.randrange(n)
    shift = sim.rng.randrange(n)
    placement = []
    for p in range(partitions):
        if p > 0 and p % n == 0:
            shift += 1
        first = (p + start) % n
        replicas = [live[first]]
        for j in range(replication - 1):
            replicas.append(live[(first + 1 + (shift + j) % (n - 1)) % n])
        placement.append(replicas)
    return placement


def create_topic(sim: Cluster, name: str | None = None, *, topic_id: Uuid | None = None, partitions: int | None = None,
                 configs: dict[str, str] | None = None, internal: bool = False, diskless: bool | None = None) -> Topic | None:  # fmt: skip
    rng = sim.rng
    name = name or _topic_name(sim)
    if partitions is None:
        partitions = rng.choice((1, 1, 3, 3, 6, 6, 12, 12, 24, 32, 48))
    replication = min(rng.choice((3, 3, 3, 2)), len(sim.brokers))
    placement = _place(sim, partitions, replication)
    if placement is None:
        return None
    if configs is None:
        configs = dict(
            rng.sample([(k, rng.choice(v)) for k, v in _TOPIC_CONFIGS], rng.randint(0, 3))
        )
    if diskless is None:  # diskless topics need their batch coordinators' topic first
        diskless = not internal and DISKLESS_METADATA in sim.topics and rng.random() < 0.2
    if diskless:
        configs = {**configs, DISKLESS_CONFIG: "true"}
    topic = Topic(
        name, topic_id or _uuid(rng), [], dict(configs), diskless=diskless, internal=internal
    )
    for replicas in placement:
        dirs = [sim.rng.choice(sim.brokers[r].log_dirs) for r in replicas]
        topic.partitions.append(Partition(replicas, list(replicas), replicas[0], dirs))
    messages: list[Entry] = [(TopicRecord(name=name, topic_id=topic.id), 0)]
    messages += [
        (ConfigRecord(resource_type=CONFIG_TOPIC, resource_name=name, name=k, value=v), 0)
        for k, v in topic.configs.items()
    ]
    messages += [
        (partition_record(sim, topic, i, p), V_PARTITION) for i, p in enumerate(topic.partitions)
    ]
    base, file, position = write_batch(sim, messages)
    topic.created_at = base
    sim.topics[name] = topic
    if diskless:
        sim.schedule(rng.randint(50, 800), lambda: map_to_coordinators(sim, topic))
    return topic


def create_internal_topic(sim: Cluster, name: str) -> None:
    if name in sim.topics:
        return
    if name == CONSUMER_OFFSETS:
        configs = {
            "compression.type": "producer",
            "cleanup.policy": "compact",
            "segment.bytes": "104857600",
        }
        partitions = 50
    else:
        configs = {"cleanup.policy": "compact", "min.insync.replicas": "2"}
        partitions = sim.coordinator_partitions
    try:
        if (
            create_topic(
                sim, name, partitions=partitions, configs=configs, internal=True, diskless=False
            )
            is None
        ):
            sim.schedule(5000, lambda: create_internal_topic(sim, name))
    except _Room:
        pass


def map_to_coordinators(
    sim: Cluster, topic: Topic, partitions: Sequence[int] | None = None
) -> None:
    """TopicPartitionToBatchCoordinatorMapping records: diskless partitions -> coordinator partitions."""
    if sim.topics.get(topic.name) is not topic:
        return  # deleted meanwhile
    if topic.coordinators is None:
        topic.coordinators = [-1] * len(topic.partitions)
    partitions = range(len(topic.partitions)) if partitions is None else partitions
    assignment: dict[int, int] = {}
    for index in partitions:
        current = topic.coordinators[index]
        choice = sim.rng.randrange(sim.coordinator_partitions)
        if choice == current:
            choice = (choice + 1) % sim.coordinator_partitions
        assignment[index] = choice
    if len(assignment) > sim.room():
        return
    write_batch(
        sim,
        [
            (
                MappingRecord(
                    partition_index=i, topic_id=topic.id, batch_coordinator_partition_index=c
                ),
                0,
            )
            for i, c in assignment.items()
        ],
    )
    for index, coordinator in assignment.items():
        topic.coordinators[index] = coordinator


def delete_topic(sim: Cluster) -> None:
    candidates = [t for t in sim.topics.values() if not t.internal]
    if not candidates:
        return
    topic = sim.rng.choice(candidates)
    base, _, _ = write_batch(sim, [(RemoveTopicRecord(topic_id=topic.id), 0)])
    del sim.topics[topic.name]
    sim.deleted.append((topic.name, topic.id, base, topic.created_at))


def recreate_topic(sim: Cluster, *, reuse_id: bool = False) -> None:
    """Create a deleted topic again under the same name: with a new ID (or, as a fault, the old one)."""
    available = [d for d in sim.deleted if d[0] not in sim.topics]
    if not available:
        return
    entry = sim.rng.choice(available)
    name, old_id, removed_at, created_at = entry
    topic = create_topic(sim, name, topic_id=old_id if reuse_id else None)
    if topic is None:
        return
    sim.deleted.remove(entry)
    if reuse_id:
        del sim.pending_faults["reused-topic-id"]
        last_batch = sim.writer.last_batch
        assert last_batch is not None  # create_topic wrote one
        file, position = last_batch[0], last_batch[1]
        fault_entry(sim, "reused-topic-id", topic.created_at, file, position, topic=name, topicId=str(old_id),
                          removedAt=removed_at, firstCreatedAt=created_at)  # fmt: skip


def remap_diskless(sim: Cluster) -> None:
    diskless = [t for t in sim.topics.values() if t.coordinators is not None]
    if not diskless:
        return
    topic = sim.rng.choice(diskless)
    count = sim.rng.randint(1, max(1, len(topic.partitions) // 4))
    map_to_coordinators(sim, topic, sorted(sim.rng.sample(range(len(topic.partitions)), count)))


def change_configs(sim: Cluster) -> None:
    rng = sim.rng
    messages: list[tuple[ConfigRecord, int]] = []
    if rng.random() < 0.7 and sim.topics:
        topic = rng.choice(list(sim.topics.values()))
        for key, values in rng.sample(_TOPIC_CONFIGS, rng.randint(1, 2)):
            value = None if key in topic.configs and rng.random() < 0.3 else rng.choice(values)
            messages.append(
                (
                    ConfigRecord(
                        resource_type=CONFIG_TOPIC,
                        resource_name=topic.name,
                        name=key,
                        value=value,
                    ),
                    0,
                )
            )
        write_batch(sim, messages)
        for message, _ in messages:
            if message.value is None:
                topic.configs.pop(message.name, None)
            else:
                topic.configs[message.name] = message.value
    else:
        resource = rng.choice(
            [""] + [str(b) for b in sim.brokers]
        )  # "" is the cluster-wide default
        configs = sim.broker_configs.setdefault(resource, {})
        key, values = rng.choice(_BROKER_CONFIGS)
        value = None if key in configs and rng.random() < 0.3 else rng.choice(values)
        write_batch(
            sim,
            [
                (
                    ConfigRecord(
                        resource_type=CONFIG_BROKER,
                        resource_name=resource,
                        name=key,
                        value=value,
                    ),
                    0,
                )
            ],
        )
        if value is None:
            configs.pop(key, None)
        else:
            configs[key] = value
        if not configs:
            del sim.broker_configs[resource]
