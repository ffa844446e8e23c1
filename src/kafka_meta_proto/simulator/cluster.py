"""One cluster's life, event by event: the main loop, the scheduled actions, the random choice
of the next event. The events themselves are in brokers, controllers, partitions and topics."""

from __future__ import annotations

import heapq
import random
import time
from collections import Counter, deque
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from ..log.names import METADATA_LOG_DIR
from ..log.segment_writer import SegmentWriter
from .brokers import BrokerEvents
from .config import (
    CONSUMER_OFFSETS,
    DISKLESS_METADATA,
    LEADER_REBALANCE_INTERVAL_MS,
    MAX_LIVE_TOPICS,
    METADATA_VERSION,
    NOOP_INTERVAL_MS,
    ClusterResult,
    SimulationConfig,
    _Room,
)
from .controllers import ControllerEvents
from .faults import FaultPlanting
from .image_records import ImageRecords
from .log_output import LogOutput
from .model import (
    _RACKS,
    BeginTransactionRecord,
    Broker,
    EndTransactionRecord,
    FeatureLevelRecord,
    Topic,
    ZkMigrationStateRecord,
    _uuid,
)
from .partitions import PartitionEvents
from .side_files import SideFiles
from .topics import TopicEvents

if TYPE_CHECKING:
    from .state import Deleted, FaultEntry

class ClusterSimulation(LogOutput, FaultPlanting, ImageRecords, ControllerEvents, BrokerEvents,
                        PartitionEvents, TopicEvents, SideFiles):  # fmt: skip
    """One cluster's metadata log, generated event by event. Use ``run()``."""

    def __init__(self, directory: Path, name: str, config: SimulationConfig):
        self.name = name
        self.directory = Path(directory)
        self.config = config
        self.rng = random.Random(f"kafka-meta-proto-simulator:{config.seed}:{name}")
        rng = self.rng
        self.log_dir = self.directory / METADATA_LOG_DIR
        self.writer = SegmentWriter(self.log_dir, config.segment_bytes, config.segment_ms)
        self.target = config.records
        self.written = 0
        self.type_counts: Counter[str] = Counter()
        self.faults: list[FaultEntry] = []
        self.cluster_id = _uuid(rng)

        # time: a deterministic start somewhere in 2024
        self.start_ms = 1_704_067_200_000 + rng.randrange(365 * 24 * 3600) * 1000
        self.now = self.start_ms
        self.last_timestamp = self.now
        self.next_noop = self.now + NOOP_INTERVAL_MS
        self.next_event = self.now + 2000
        self.next_rebalance = self.now + LEADER_REBALANCE_INTERVAL_MS
        self.scheduled: list[tuple[int, int, Callable[[], None]]] = (
            []
        )  # heap of (time, seq, action)
        self._seq = 0

        # controllers (KRaft voters) and brokers
        self.controllers = [3000 + i for i in range(config.controllers)]
        self.controller_incarnations = {c: _uuid(rng) for c in self.controllers}
        self.controller_registered: set[int] = set()
        self.leader = self.controllers[0]
        self.epoch = 0
        broker_count = config.brokers if config.brokers is not None else rng.randint(3, 9)
        self.security_protocol = rng.choice((0, 1, 2, 3))
        self.domain = f"{name}.kafka.internal"
        self.brokers: dict[int, Broker] = {}
        with_racks = rng.random() < 0.8  # most clusters name their brokers' availability zones
        for broker_id in range(1, broker_count + 1):
            dirs = [_uuid(rng) for _ in range(rng.choice((1, 1, 1, 2)))]  # one or two log dirs
            rack = _RACKS[(broker_id - 1) % len(_RACKS)] if with_racks else None
            self.brokers[broker_id] = Broker(broker_id, rack, dirs)

        # topics
        self.topics: dict[str, Topic] = {}
        # recently deleted topics, for re-creation: (name, topic id, removed at, created at)
        self.deleted: deque[Deleted] = deque(maxlen=64)
        self.coordinator_partitions = rng.choice((8, 16, 32))
        self.next_producer_id = 0
        self.broker_configs: dict[str, dict[str, str]] = {}

        # faults: each planted at the first chance after a point in the middle of the log
        self.pending_faults: dict[str, int] = {}
        for fault in config.faults:
            self.pending_faults[fault] = int(self.target * rng.uniform(0.3, 0.7))
        self.snapshot_name: str | None = None
        self._pcr_cache: dict[tuple[bytes, int, tuple[int, ...] | None, int | None], bytes] = {}
        self.snapshot_at = (
            None if config.snapshot_at is None else max(1, int(self.target * config.snapshot_at))
        )

    def room(self) -> int:
        return self.target - self.written

    def _schedule(self, delay_ms: int, action: Callable[[], None]) -> None:
        self._seq += 1
        heapq.heappush(self.scheduled, (self.now + max(1, delay_ms), self._seq, action))

    def bootstrap(self) -> None:
        """What a new cluster writes first: leader election, bootstrap records, registrations."""
        self.elect_leader(first=True)
        self.now += self.rng.randint(30, 80)
        self.write_batch([
            (BeginTransactionRecord(name="Bootstrap records"), 0),
            (FeatureLevelRecord(name="metadata.version", feature_level=METADATA_VERSION), 0),
            (ZkMigrationStateRecord(zk_migration_state=0), 0),
            (EndTransactionRecord(), 0),
        ])  # fmt: skip
        for controller in self.controllers:
            self.now += self.rng.randint(20, 120)
            self.register_controller(controller)
        for broker in self.brokers.values():
            self._schedule(self.rng.randint(200, 4000), partial(self.register_broker, broker))
        self._schedule(
            self.rng.randint(8000, 20000), lambda: self.create_internal_topic(CONSUMER_OFFSETS)
        )
        delay = self.rng.randint(
            5000, 15000
        )  # drawn either way: the rest of the run stays the same
        if self.config.diskless:
            self._schedule(delay, lambda: self.create_internal_topic(DISKLESS_METADATA))

    def random_event(self) -> None:
        rng = self.rng
        live_topics = (
            len(self.topics)
            - (CONSUMER_OFFSETS in self.topics)
            - (DISKLESS_METADATA in self.topics)
        )
        up = self.up_brokers()
        # restarts roll one broker at a time: the next waits until every broker is back
        rolling = len(up) > 1 and len(up) == sum(
            1 for b in self.brokers.values() if b.incarnation is not None
        )
        # Weights per metadata change. At the default two changes a second: a broker restart every
        # ~7 minutes, a broker crash every ~30 minutes, a controller restart every ~20 minutes and
        # a failover of the active controller every ~40 minutes (of simulated time).
        choices: list[tuple[float, Callable[[], object]]] = [
            (40, self.alter_partitions),
            (8 if live_topics < MAX_LIVE_TOPICS else 0, self.create_topic),
            (4 + 8 * (live_topics >= MAX_LIVE_TOPICS) if live_topics > 3 else 0, self.delete_topic),
            (2, self.recreate_topic),
            (6, self.allocate_producer_ids),
            (6, self.change_configs),
            (2, self.remap_diskless),
            (0.08 if rolling else 0, lambda: self.controlled_shutdown(rng.choice(up))),
            (0.02 if len(up) > 1 else 0, lambda: self.crash(rng.choice(up))),
            (0.01, lambda: self.restart_controller(self.leader)),
            (0.02, lambda: self.restart_controller(rng.choice(self.controllers))),
        ]
        # a planted fault takes the first chance it gets once its point in the log is reached
        if self._due("overlapping-producer-ids"):
            choices.append((30, self.allocate_producer_ids))
        if self._due("reused-topic-id"):
            if any(d[0] not in self.topics for d in self.deleted):
                choices = [(1, lambda: self.recreate_topic(reuse_id=True))]
            elif live_topics > 0:
                choices = [(1, self.delete_topic)]
        if (
            self._due("epoch-regression")
            and len(up) > 1
            and not any(b.incarnation is not None and not b.up for b in self.brokers.values())
        ):
            choices = [(1, lambda: self.controlled_shutdown(rng.choice(up)))]
        total = sum(w for w, _ in choices)
        pick = rng.random() * total
        for weight, action in choices:
            pick -= weight
            if pick < 0:
                action()
                return

    def run(self) -> ClusterResult:
        started = time.perf_counter()
        self.log_dir.mkdir(parents=True, exist_ok=True)
        try:
            self._attempt(self.bootstrap)
            rate = self.config.events_per_second / 1000.0
            rng = self.rng
            while self.room() > 0:
                scheduled_at = self.scheduled[0][0] if self.scheduled else None
                t = min(self.next_noop, self.next_event, self.next_rebalance)
                if scheduled_at is not None and scheduled_at <= t:
                    self.now = max(self.now, scheduled_at)
                    _, _, action = heapq.heappop(self.scheduled)
                    self._attempt(action)
                elif t == self.next_noop:
                    self.now = max(self.now, t)
                    self._attempt(self.noop)
                    self.next_noop = self.now + NOOP_INTERVAL_MS + rng.randint(0, 6)
                elif t == self.next_rebalance:
                    self.now = max(self.now, t)
                    self._attempt(self.rebalance_leaders)
                    self.next_rebalance = self.now + LEADER_REBALANCE_INTERVAL_MS
                else:
                    self.now = max(self.now, t)
                    self._attempt(self.random_event)
                    self.next_event = self.now + 1 + int(rng.expovariate(rate))
                    if rng.random() < 0.0005:  # now and then a quiet spell: only NoOps for a while
                        self.next_event += rng.randint(60_000, 600_000)
        finally:
            self.writer.close()
        if "truncated-tail" in self.pending_faults:
            self._truncate_tail()
        self._write_side_files()
        seconds = time.perf_counter() - started
        return ClusterResult(
            name=self.name,
            directory=self.directory,
            records=self.written,
            batches=self.writer.batches,
            bytes=self.writer.bytes,
            segments=list(self.writer.segments),
            snapshot=self.snapshot_name,
            faults=self.faults,
            record_types=dict(sorted(self.type_counts.items())),
            seconds=seconds,
        )

    def _attempt(self, action: Callable[[], None]) -> None:
        try:
            action()
        except _Room:
            pass
        # the snapshot is taken between events, once every change of the last one is applied
        if (
            self.snapshot_at is not None
            and self.snapshot_name is None
            and self.written >= self.snapshot_at
        ):
            self.write_snapshot()
