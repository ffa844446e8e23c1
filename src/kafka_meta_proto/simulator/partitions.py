"""Partitions: ISR shrinks and expansions, leader elections and rebalances, and leaving every
ISR when a broker goes."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..kraft.rules import NO_LEADER, NO_LEADER_CHANGE, leadership_after_change
from .model import Broker
from .log_output import pcr, write_batch
from .state import eligible

if TYPE_CHECKING:
    from ..uuid import Uuid
    from .model import Partition
    from .state import Change, Cluster, Entry, PartitionRef


def leave_partitions(
    sim: Cluster, broker: Broker
) -> tuple[list[Entry], list[tuple[Partition, Change]]]:
    """PartitionChangeRecords taking ``broker`` out of every ISR (and leadership), as Kafka does."""
    messages: list[Entry] = []
    updates: list[tuple[Partition, Change]] = []
    for topic in sim.topics.values():
        for index, p in enumerate(topic.partitions):
            if broker.id not in p.isr:
                continue
            isr = [r for r in p.isr if r != broker.id]
            change: Change = {}
            if not isr:  # the last in-sync replica stays in the ISR; the partition loses its leader
                if p.leader == broker.id:
                    change["leader"] = NO_LEADER
            else:
                change["isr"] = isr
                if p.leader == broker.id:
                    candidates = [r for r in p.replicas if r in isr and eligible(sim, r)]
                    change["leader"] = candidates[0] if candidates else NO_LEADER
            if change:
                messages.append(pcr(sim, topic, index, **change))
                updates.append((p, change))
    return messages, updates


def apply_change(p: Partition, isr: list[int] | None, leader: int = NO_LEADER_CHANGE) -> None:
    """What a PartitionChangeRecord with this ISR (None: unchanged) and Leader does to ``p``, by
    the rule the image applies too (kraft.rules.leadership_after_change)."""
    if isr is not None:
        p.isr = isr
    p.leader, p.leader_epoch, p.partition_epoch = leadership_after_change(
        p.leader, p.leader_epoch, p.partition_epoch, leader
    )


def apply_changes(updates: list[tuple[Partition, Change]]) -> None:
    for p, change in updates:
        apply_change(p, change.get("isr"), change.get("leader", NO_LEADER_CHANGE))


def _random_partitions(sim: Cluster, k: int) -> list[PartitionRef]:
    topics = list(sim.topics.values())
    if not topics:
        return []
    picks: list[PartitionRef] = []
    for _ in range(k):
        topic = sim.rng.choice(topics)
        index = sim.rng.randrange(len(topic.partitions))
        picks.append((topic, index, topic.partitions[index]))
    return picks


def alter_partitions(sim: Cluster) -> None:
    """AlterPartition from a leader, or an election: ISR shrinks and expansions, leader changes."""
    rng = sim.rng
    messages: list[Entry] = []
    updates: list[tuple[Partition, Change]] = []
    seen: set[tuple[Uuid, int]] = set()
    for topic, index, p in _random_partitions(sim, rng.choice((1, 1, 1, 1, 2, 3, 5))):
        if (topic.id, index) in seen:
            continue
        seen.add((topic.id, index))
        missing = [r for r in p.replicas if r not in p.isr and eligible(sim, r)]
        followers = [r for r in p.isr if r != p.leader]
        change: Change = {}
        roll = rng.random()
        if missing and roll < 0.55:
            change["isr"] = [r for r in p.replicas if r in p.isr or r == missing[0]]
        elif followers and roll < 0.9:
            change["isr"] = [r for r in p.isr if r != rng.choice(followers)]
        elif followers:  # unclean-free election: another in-sync replica takes over
            candidates = [r for r in followers if eligible(sim, r)]
            if candidates:
                change["leader"] = candidates[0]
        if change:
            messages.append(pcr(sim, topic, index, **change))
            updates.append((p, change))
    if messages:
        write_batch(sim, messages)
        apply_changes(updates)


def rebalance_leaders(sim: Cluster) -> None:
    """auto.leader.rebalance: preferred replicas back as leaders, one batch."""
    messages: list[Entry] = []
    updates: list[tuple[Partition, Change]] = []
    for topic in sim.topics.values():
        for index, p in enumerate(topic.partitions):
            preferred = p.replicas[0]
            if p.leader != preferred and preferred in p.isr and eligible(sim, preferred):
                change: Change = {"leader": preferred}
                messages.append(pcr(sim, topic, index, **change))
                updates.append((p, change))
                if len(messages) >= 1000:
                    break
    if messages and len(messages) <= sim.room():
        write_batch(sim, messages)
        apply_changes(updates)
