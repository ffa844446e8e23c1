"""Partitions: ISR shrinks and expansions, leader elections and rebalances, and leaving every
ISR when a broker goes."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..kraft.rules import NO_LEADER, NO_LEADER_CHANGE, epochs_after_change
from .model import Broker

if TYPE_CHECKING:
    from ..uuid import Uuid
    from .model import Partition
    from .state import Change, Cluster, Entry, PartitionRef


class PartitionEvents:
    """What happens to partitions (a ClusterSimulation part)."""

    def _leave_partitions(
        self: Cluster, broker: Broker
    ) -> tuple[list[Entry], list[tuple[Partition, Change]]]:
        """PartitionChangeRecords taking ``broker`` out of every ISR (and leadership), as Kafka does."""
        messages: list[Entry] = []
        updates: list[tuple[Partition, Change]] = []
        for topic in self.topics.values():
            for index, p in enumerate(topic.partitions):
                if broker.id not in p.isr:
                    continue
                isr = [r for r in p.isr if r != broker.id]
                change: Change = {}
                if (
                    not isr
                ):  # the last in-sync replica stays in the ISR; the partition loses its leader
                    if p.leader == broker.id:
                        change["leader"] = NO_LEADER
                else:
                    change["isr"] = isr
                    if p.leader == broker.id:
                        candidates = [r for r in p.replicas if r in isr and self._eligible(r)]
                        change["leader"] = candidates[0] if candidates else NO_LEADER
                if change:
                    messages.append(self.pcr(topic, index, **change))
                    updates.append((p, change))
        return messages, updates

    @staticmethod
    def _apply(updates: list[tuple[Partition, Change]]) -> None:
        for p, change in updates:
            if "isr" in change:
                p.isr = change["isr"]
            leader = change.get("leader", NO_LEADER_CHANGE)
            if leader != NO_LEADER_CHANGE:
                p.leader = leader
            p.leader_epoch, p.partition_epoch = epochs_after_change(
                p.leader_epoch, p.partition_epoch, leader
            )

    def _random_partitions(self: Cluster, k: int) -> list[PartitionRef]:
        topics = list(self.topics.values())
        if not topics:
            return []
        picks: list[PartitionRef] = []
        for _ in range(k):
            topic = self.rng.choice(topics)
            index = self.rng.randrange(len(topic.partitions))
            picks.append((topic, index, topic.partitions[index]))
        return picks

    def alter_partitions(self: Cluster) -> None:
        """AlterPartition from a leader, or an election: ISR shrinks and expansions, leader changes."""
        rng = self.rng
        messages: list[Entry] = []
        updates: list[tuple[Partition, Change]] = []
        seen: set[tuple[Uuid, int]] = set()
        for topic, index, p in self._random_partitions(rng.choice((1, 1, 1, 1, 2, 3, 5))):
            if (topic.id, index) in seen:
                continue
            seen.add((topic.id, index))
            missing = [r for r in p.replicas if r not in p.isr and self._eligible(r)]
            followers = [r for r in p.isr if r != p.leader]
            change: Change = {}
            roll = rng.random()
            if missing and roll < 0.55:
                change["isr"] = [r for r in p.replicas if r in p.isr or r == missing[0]]
            elif followers and roll < 0.9:
                change["isr"] = [r for r in p.isr if r != rng.choice(followers)]
            elif followers:  # unclean-free election: another in-sync replica takes over
                candidates = [r for r in followers if self._eligible(r)]
                if candidates:
                    change["leader"] = candidates[0]
            if change:
                messages.append(self.pcr(topic, index, **change))
                updates.append((p, change))
        if messages:
            self.write_batch(messages)
            self._apply(updates)

    def rebalance_leaders(self: Cluster) -> None:
        """auto.leader.rebalance: preferred replicas back as leaders, one batch."""
        messages: list[Entry] = []
        updates: list[tuple[Partition, Change]] = []
        for topic in self.topics.values():
            for index, p in enumerate(topic.partitions):
                preferred = p.replicas[0]
                if p.leader != preferred and preferred in p.isr and self._eligible(preferred):
                    change: Change = {"leader": preferred}
                    messages.append(self.pcr(topic, index, **change))
                    updates.append((p, change))
                    if len(messages) >= 1000:
                        break
        if messages and len(messages) <= self.room():
            self.write_batch(messages)
            self._apply(updates)
