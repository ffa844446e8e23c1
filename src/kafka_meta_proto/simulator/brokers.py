"""Brokers: registering (a new incarnation and epoch), unfencing once caught up, rejoining ISRs,
controlled shutdowns, crashes, and the producer-ID blocks they are handed."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..kraft.rules import (
    NO_LEADER,
    FENCE,
    PRODUCER_ID_BLOCK_SIZE,
    UNFENCE,
    epochs_after_change,
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

if TYPE_CHECKING:
    from .state import Cluster, Entry, PartitionRef


class BrokerEvents:
    """What the brokers do (a ClusterSimulation part)."""

    def up_brokers(self: Cluster) -> list[Broker]:
        return [
            b
            for b in self.brokers.values()
            if b.up and not b.fenced and not b.in_controlled_shutdown
        ]

    def _eligible(self: Cluster, broker_id: int) -> bool:
        b = self.brokers.get(broker_id)
        return b is not None and b.up and not b.fenced and not b.in_controlled_shutdown

    def register_broker(self: Cluster, broker: Broker) -> None:
        """RegisterBrokerRecord, fenced; the epoch is the record's offset, as Kafka assigns it."""
        previous = broker.epoch
        broker.incarnation = _uuid(self.rng)
        epoch = self.writer.next_offset
        regression = previous >= 0 and self._due("epoch-regression")
        if regression:
            epoch = max(0, previous - self.rng.randint(1, min(previous, 50) or 1))
            if epoch >= previous:
                regression = False
                epoch = self.writer.next_offset
        broker.epoch = epoch
        broker.fenced = True
        broker.in_controlled_shutdown = False
        base, name, position = self.write_batch(
            [(self._register_broker_record(broker), V_REGISTER_BROKER)]
        )
        broker.up = True
        if regression:
            del self.pending_faults["epoch-regression"]
            self._fault_entry("epoch-regression", base, name, position, brokerId=broker.id, brokerEpoch=epoch,
                              previousBrokerEpoch=previous)  # fmt: skip
        # caught up with the metadata log a little later: unfenced, leaderless partitions come back
        self._schedule(self.rng.randint(150, 600), lambda: self.unfence(broker))

    def unfence(self: Cluster, broker: Broker) -> None:
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
        for topic in self.topics.values():
            for index, p in enumerate(topic.partitions):
                if p.leader == NO_LEADER and broker.id in p.isr:
                    changes.append((topic, index, p))
        for topic, index, p in changes:
            messages.append(self.pcr(topic, index, leader=broker.id))
        if len(messages) > self.room():
            return
        self.write_batch(messages)
        broker.fenced = False
        for topic, index, p in changes:
            p.leader = broker.id
            p.leader_epoch, p.partition_epoch = epochs_after_change(
                p.leader_epoch, p.partition_epoch, broker.id
            )
        # the leaders of its partitions add it back to their ISRs once it has caught up
        self._schedule(self.rng.randint(1000, 8000), lambda: self.expand_isrs(broker))

    def expand_isrs(self: Cluster, broker: Broker) -> None:
        """AlterPartition from each leader: one batch per leader adding ``broker`` back to the ISR."""
        if not broker.up or broker.fenced:
            return
        by_leader: dict[int, list[PartitionRef]] = {}
        for topic in self.topics.values():
            for index, p in enumerate(topic.partitions):
                if broker.id in p.replicas and broker.id not in p.isr and p.leader >= 0:
                    by_leader.setdefault(p.leader, []).append((topic, index, p))
        for leader in sorted(by_leader):
            items = by_leader[leader]
            if len(items) > self.room():
                return
            self.write_batch([self.pcr(topic, index, isr=[r for r in p.replicas if r in p.isr or r == broker.id])
                              for topic, index, p in items])  # fmt: skip
            for topic, index, p in items:
                p.isr = [r for r in p.replicas if r in p.isr or r == broker.id]
                p.partition_epoch += 1
            self.now += self.rng.randint(1, 40)

    def controlled_shutdown(self: Cluster, broker: Broker) -> None:
        """A broker restart: controlled shutdown, fenced, back with a new incarnation later."""
        shutdown = BrokerRegistrationChangeRecord(
            broker_id=broker.id, broker_epoch=broker.epoch, in_controlled_shutdown=1
        )
        broker.in_controlled_shutdown = True
        messages, updates = self._leave_partitions(broker)
        if 1 + len(messages) > self.room():
            broker.in_controlled_shutdown = False
            raise _Room
        self.write_batch([(shutdown, 1)] + messages)
        self._apply(updates)

        def fenced() -> None:
            self.write_batch(
                [
                    (
                        BrokerRegistrationChangeRecord(
                            broker_id=broker.id, broker_epoch=broker.epoch, fenced=FENCE
                        ),
                        0,
                    )
                ]
            )
            broker.fenced = True
            broker.up = False
            self._schedule(self.rng.randint(5_000, 120_000), lambda: self.register_broker(broker))

        self._schedule(self.rng.randint(40, 200), fenced)

    def crash(self: Cluster, broker: Broker) -> None:
        """A broker stops heartbeating: fenced when its session times out, back later."""
        broker.up = False  # no heartbeats from now on

        def fence() -> None:
            messages, updates = self._leave_partitions(broker)
            fence_record = (
                BrokerRegistrationChangeRecord(
                    broker_id=broker.id, broker_epoch=broker.epoch, fenced=FENCE
                ),
                0,
            )
            if len(messages) + 1 > self.room():
                return
            self.write_batch(messages + [fence_record])
            self._apply(updates)
            broker.fenced = True
            self._schedule(self.rng.randint(20_000, 300_000), lambda: self.register_broker(broker))

        self._schedule(SESSION_TIMEOUT_MS + self.rng.randint(0, 500), fence)

    def allocate_producer_ids(self: Cluster) -> None:
        brokers = self.up_brokers()
        if not brokers:
            return
        broker = self.rng.choice(brokers)
        previous = self.next_producer_id
        overlap = previous >= PRODUCER_ID_BLOCK_SIZE and self._due("overlapping-producer-ids")
        step = PRODUCER_ID_BLOCK_SIZE // 2 if overlap else PRODUCER_ID_BLOCK_SIZE
        record = ProducerIdsRecord(
            broker_id=broker.id, broker_epoch=broker.epoch, next_producer_id=previous + step
        )
        base, name, position = self.write_batch([(record, 0)])
        self.next_producer_id = previous + step
        if overlap:
            del self.pending_faults["overlapping-producer-ids"]
            self._fault_entry("overlapping-producer-ids", base, name, position, brokerId=broker.id,
                              nextProducerId=previous + step, previousNextProducerId=previous,
                              block=list(producer_id_block(previous + step)),
                              previousBlock=list(producer_id_block(previous)))  # fmt: skip
