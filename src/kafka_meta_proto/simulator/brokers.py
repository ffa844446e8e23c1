"""Brokers: registering (a new incarnation and epoch), unfencing once caught up, rejoining ISRs,
controlled shutdowns, crashes, and the producer-ID blocks they are handed."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..kraft.rules import (
    NO_LEADER,
    FENCE,
    PRODUCER_ID_BLOCK_SIZE,
    UNFENCE,
    producer_id_block,
)
from .config import SESSION_TIMEOUT_MS
from .config import _Room
from .model import (
    V_REGISTER_BROKER,
    Broker,
    BrokerRegistrationChangeRecord,
    ProducerIdsRecord,
    _uuid,
)
from .faults import due, fault_entry
from .image_records import register_broker_record
from .log_output import pcr, write_batch
from .partitions import apply_change, apply_changes, leave_partitions
from .state import up_brokers

if TYPE_CHECKING:
    from .state import Cluster, Entry, PartitionRef


def register_broker(sim: Cluster, broker: Broker) -> None:
    """RegisterBrokerRecord, fenced; the epoch is the record's offset, as Kafka assigns it."""
    previous = broker.epoch
    broker.incarnation = _uuid(sim.rng)
    epoch = sim.writer.next_offset
    regression = previous >= 0 and due(sim, "epoch-regression")
    if regression:
        epoch = max(0, previous - sim.rng.randint(1, min(previous, 50) or 1))
        if epoch >= previous:
            regression = False
            epoch = sim.writer.next_offset
    broker.epoch = epoch
    broker.fenced = True
    broker.in_controlled_shutdown = False
    base, name, position = write_batch(
        sim, [(register_broker_record(sim, broker), V_REGISTER_BROKER)]
    )
    broker.up = True
    if regression:
        del sim.pending_faults["epoch-regression"]
        fault_entry(sim, "epoch-regression", base, name, position, brokerId=broker.id, brokerEpoch=epoch,
                          previousBrokerEpoch=previous)  # fmt: skip
    # caught up with the metadata log a little later: unfenced, leaderless partitions come back
    sim.schedule(sim.rng.randint(150, 600), lambda: unfence(sim, broker))


def unfence(sim: Cluster, broker: Broker) -> None:
    if not broker.up or not broker.fenced:
        return
    messages: list[Entry] = [
        (
            BrokerRegistrationChangeRecord(
                broker_id=broker.id, broker_epoch=broker.epoch, fenced=UNFENCE
            ),
            0,
        )
    ]
    changes: list[PartitionRef] = []
    for topic in sim.topics.values():
        for index, p in enumerate(topic.partitions):
            if p.leader == NO_LEADER and broker.id in p.isr:
                changes.append((topic, index, p))
    for topic, index, p in changes:
        messages.append(pcr(sim, topic, index, leader=broker.id))
    if len(messages) > sim.room():
        return
    write_batch(sim, messages)
    broker.fenced = False
    for topic, index, p in changes:
        apply_change(p, None, broker.id)
    # the leaders of its partitions add it back to their ISRs once it has caught up
    sim.schedule(sim.rng.randint(1000, 8000), lambda: expand_isrs(sim, broker))


def expand_isrs(sim: Cluster, broker: Broker) -> None:
    """AlterPartition from each leader: one batch per leader adding ``broker`` back to the ISR."""
    if not broker.up or broker.fenced:
        return
    by_leader: dict[int, list[PartitionRef]] = {}
    for topic in sim.topics.values():
        for index, p in enumerate(topic.partitions):
            if broker.id in p.replicas and broker.id not in p.isr and p.leader >= 0:
                by_leader.setdefault(p.leader, []).append((topic, index, p))
    for leader in sorted(by_leader):
        items = by_leader[leader]
        if len(items) > sim.room():
            return
        write_batch(sim, [pcr(sim, topic, index, isr=[r for r in p.replicas if r in p.isr or r == broker.id])
                          for topic, index, p in items])  # fmt: skip
        for topic, index, p in items:
            apply_change(p, [r for r in p.replicas if r in p.isr or r == broker.id])
        sim.now += sim.rng.randint(1, 40)


def controlled_shutdown(sim: Cluster, broker: Broker) -> None:
    """A broker restart: controlled shutdown, fenced, back with a new incarnation later."""
    shutdown = BrokerRegistrationChangeRecord(
        broker_id=broker.id, broker_epoch=broker.epoch, in_controlled_shutdown=1
    )
    broker.in_controlled_shutdown = True
    messages, updates = leave_partitions(sim, broker)
    if 1 + len(messages) > sim.room():
        broker.in_controlled_shutdown = False
        raise _Room
    write_batch(sim, [(shutdown, 1)] + messages)
    apply_changes(updates)

    def fenced() -> None:
        write_batch(
            sim,
            [
                (
                    BrokerRegistrationChangeRecord(
                        broker_id=broker.id, broker_epoch=broker.epoch, fenced=FENCE
                    ),
                    0,
                )
            ],
        )
        broker.fenced = True
        broker.up = False
        sim.schedule(sim.rng.randint(5_000, 120_000), lambda: register_broker(sim, broker))

    sim.schedule(sim.rng.randint(40, 200), fenced)


def crash(sim: Cluster, broker: Broker) -> None:
    """A broker stops heartbeating: fenced when its session times out, back later."""
    broker.up = False  # no heartbeats from now on

    def fence() -> None:
        messages, updates = leave_partitions(sim, broker)
        fence_record = (
            BrokerRegistrationChangeRecord(
                broker_id=broker.id, broker_epoch=broker.epoch, fenced=FENCE
            ),
            0,
        )
        if len(messages) + 1 > sim.room():
            return
        write_batch(sim, messages + [fence_record])
        apply_changes(updates)
        broker.fenced = True
        sim.schedule(sim.rng.randint(20_000, 300_000), lambda: register_broker(sim, broker))

    sim.schedule(SESSION_TIMEOUT_MS + sim.rng.randint(0, 500), fence)


def allocate_producer_ids(sim: Cluster) -> None:
    brokers = up_brokers(sim)
    if not brokers:
        return
    broker = sim.rng.choice(brokers)
    previous = sim.next_producer_id
    overlap = previous >= PRODUCER_ID_BLOCK_SIZE and due(sim, "overlapping-producer-ids")
    step = PRODUCER_ID_BLOCK_SIZE // 2 if overlap else PRODUCER_ID_BLOCK_SIZE
    record = ProducerIdsRecord(
        broker_id=broker.id, broker_epoch=broker.epoch, next_producer_id=previous + step
    )
    base, name, position = write_batch(sim, [(record, 0)])
    sim.next_producer_id = previous + step
    if overlap:
        del sim.pending_faults["overlapping-producer-ids"]
        fault_entry(sim, "overlapping-producer-ids", base, name, position, brokerId=broker.id,
                          nextProducerId=previous + step, previousNextProducerId=previous,
                          block=list(producer_id_block(previous + step)),
                          previousBlock=list(producer_id_block(previous)))  # fmt: skip
