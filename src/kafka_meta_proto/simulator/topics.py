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

if TYPE_CHECKING:
    from .state import Cluster, Entry


class TopicEvents:
    """What happens to topics and configs (a ClusterSimulation part)."""

    def _topic_name(self: Cluster) -> str:
        rng = self.rng
        base = rng.choice(_PREFIXES) + rng.choice(_DOMAINS) + rng.choice(_SUFFIXES)
        name, n = base, 1
        while name in self.topics or any(name == d[0] for d in self.deleted):
            n += 1
            name = f"{base}-{n}"
        return name

    def _place(self: Cluster, partitions: int, replication: int) -> list[list[int]] | None:
        """Replicas for each partition on the running brokers, as Kafka's rack-unaware assignment."""
        live = sorted(b.id for b in self.up_brokers())
        n = len(live)
        if n < replication:
            return None
        start = self.rng.randrange(n)
        shift = self.rng.randrange(n)
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

    def create_topic(self: Cluster, name: str | None = None, *, topic_id: Uuid | None = None, partitions: int | None = None,
                     configs: dict[str, str] | None = None, internal: bool = False, diskless: bool | None = None) -> Topic | None:  # fmt: skip
        rng = self.rng
        name = name or self._topic_name()
        if partitions is None:
            partitions = rng.choice((1, 1, 3, 3, 6, 6, 12, 12, 24, 32, 48))
        replication = min(rng.choice((3, 3, 3, 2)), len(self.brokers))
        placement = self._place(partitions, replication)
        if placement is None:
            return None
        if configs is None:
            configs = dict(
                rng.sample([(k, rng.choice(v)) for k, v in _TOPIC_CONFIGS], rng.randint(0, 3))
            )
        if diskless is None:  # diskless topics need their batch coordinators' topic first
            diskless = not internal and DISKLESS_METADATA in self.topics and rng.random() < 0.2
        if diskless:
            configs = {**configs, DISKLESS_CONFIG: "true"}
        topic = Topic(
            name, topic_id or _uuid(rng), [], dict(configs), diskless=diskless, internal=internal
        )
        for replicas in placement:
            dirs = [self.rng.choice(self.brokers[r].log_dirs) for r in replicas]
            topic.partitions.append(Partition(replicas, list(replicas), replicas[0], dirs))
        messages: list[Entry] = [(TopicRecord(name=name, topic_id=topic.id), 0)]
        messages += [
            (ConfigRecord(resource_type=CONFIG_TOPIC, resource_name=name, name=k, value=v), 0)
            for k, v in topic.configs.items()
        ]
        messages += [
            (self._partition_record(topic, i, p), V_PARTITION)
            for i, p in enumerate(topic.partitions)
        ]
        base, file, position = self.write_batch(messages)
        topic.created_at = base
        self.topics[name] = topic
        if diskless:
            self._schedule(rng.randint(50, 800), lambda: self.map_to_coordinators(topic))
        return topic

    def create_internal_topic(self: Cluster, name: str) -> None:
        if name in self.topics:
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
            partitions = self.coordinator_partitions
        try:
            if (
                self.create_topic(
                    name, partitions=partitions, configs=configs, internal=True, diskless=False
                )
                is None
            ):
                self._schedule(5000, lambda: self.create_internal_topic(name))
        except _Room:
            pass

    def map_to_coordinators(
        self: Cluster, topic: Topic, partitions: Sequence[int] | None = None
    ) -> None:
        """TopicPartitionToBatchCoordinatorMapping records: diskless partitions -> coordinator partitions."""
        if self.topics.get(topic.name) is not topic:
            return  # deleted meanwhile
        if topic.coordinators is None:
            topic.coordinators = [-1] * len(topic.partitions)
        partitions = range(len(topic.partitions)) if partitions is None else partitions
        assignment: dict[int, int] = {}
        for index in partitions:
            current = topic.coordinators[index]
            choice = self.rng.randrange(self.coordinator_partitions)
            if choice == current:
                choice = (choice + 1) % self.coordinator_partitions
            assignment[index] = choice
        if len(assignment) > self.room():
            return
        self.write_batch(
            [
                (
                    MappingRecord(
                        partition_index=i, topic_id=topic.id, batch_coordinator_partition_index=c
                    ),
                    0,
                )
                for i, c in assignment.items()
            ]
        )
        for index, coordinator in assignment.items():
            topic.coordinators[index] = coordinator

    def delete_topic(self: Cluster) -> None:
        candidates = [t for t in self.topics.values() if not t.internal]
        if not candidates:
            return
        topic = self.rng.choice(candidates)
        base, _, _ = self.write_batch([(RemoveTopicRecord(topic_id=topic.id), 0)])
        del self.topics[topic.name]
        self.deleted.append((topic.name, topic.id, base, topic.created_at))

    def recreate_topic(self: Cluster, *, reuse_id: bool = False) -> None:
        """Create a deleted topic again under the same name: with a new ID (or, as a fault, the old one)."""
        available = [d for d in self.deleted if d[0] not in self.topics]
        if not available:
            return
        entry = self.rng.choice(available)
        name, old_id, removed_at, created_at = entry
        topic = self.create_topic(name, topic_id=old_id if reuse_id else None)
        if topic is None:
            return
        self.deleted.remove(entry)
        if reuse_id:
            del self.pending_faults["reused-topic-id"]
            last_batch = self.writer.last_batch
            assert last_batch is not None  # create_topic wrote one
            file, position = last_batch[0], last_batch[1]
            self._fault_entry("reused-topic-id", topic.created_at, file, position, topic=name, topicId=str(old_id),
                              removedAt=removed_at, firstCreatedAt=created_at)  # fmt: skip

    def remap_diskless(self: Cluster) -> None:
        diskless = [t for t in self.topics.values() if t.coordinators is not None]
        if not diskless:
            return
        topic = self.rng.choice(diskless)
        count = self.rng.randint(1, max(1, len(topic.partitions) // 4))
        self.map_to_coordinators(
            topic, sorted(self.rng.sample(range(len(topic.partitions)), count))
        )

    def change_configs(self: Cluster) -> None:
        rng = self.rng
        messages: list[tuple[ConfigRecord, int]] = []
        if rng.random() < 0.7 and self.topics:
            topic = rng.choice(list(self.topics.values()))
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
            self.write_batch(messages)
            for message, _ in messages:
                if message.value is None:
                    topic.configs.pop(message.name, None)
                else:
                    topic.configs[message.name] = message.value
        else:
            resource = rng.choice(
                [""] + [str(b) for b in self.brokers]
            )  # "" is the cluster-wide default
            configs = self.broker_configs.setdefault(resource, {})
            key, values = rng.choice(_BROKER_CONFIGS)
            value = None if key in configs and rng.random() < 0.3 else rng.choice(values)
            self.write_batch(
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
                ]
            )
            if value is None:
                configs.pop(key, None)
            else:
                configs[key] = value
            if not configs:
                del self.broker_configs[resource]
