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
from .brokers import allocate_producer_ids, controlled_shutdown, crash, register_broker
from .controllers import elect_leader, register_controller, restart_controller
from .faults import due, truncate_tail
from .log_output import noop, write_batch, write_snapshot
from .partitions import alter_partitions, rebalance_leaders
from .side_files import write_side_files
from .state import up_brokers
from .topics import (
    change_configs,
    create_internal_topic,
    create_topic,
    delete_topic,
    recreate_topic,
    remap_diskless,
)
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

if TYPE_CHECKING:
    from .state import Deleted, FaultEntry


class ClusterSimulation:
    """One cluster's metadata log, generated event by event. Use ``run()``.

    It holds the cluster's state (``state.Cluster``) and passes itself to the event functions.
    """

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

    def schedule(self, delay_ms: int, action: Callable[[], None]) -> None:
        self._seq += 1
        heapq.heappush(self.scheduled, (self.now + max(1, delay_ms), self._seq, action))

    def bootstrap(self) -> None:
        """What a new cluster writes first: leader election, bootstrap records, registrations."""
        elect_leader(self, first=True)
        self.now += self.rng.randint(30, 80)
        write_batch(self, [
            (BeginTransactionRecord(name="Bootstrap records"), 0),
            (FeatureLevelRecord(name="metadata.version", feature_level=METADATA_VERSION), 0),
            (ZkMigrationStateRecord(zk_migration_state=0), 0),
            (EndTransactionRecord(), 0),
        ])  # fmt: skip
        for controller in self.controllers:
            self.now += self.rng.randint(20, 120)
            register_controller(self, controller)
        for broker in self.brokers.values():
            self.schedule(self.rng.randint(200, 4000), partial(register_broker, self, broker))
        self.schedule(
            self.rng.randint(8000, 20000), lambda: create_internal_topic(self, CONSUMER_OFFSETS)
        )
        delay = self.rng.randint(
            5000, 15000
        )  # drawn either way: the rest of the run stays the same
        if self.config.diskless:
            self.schedule(delay, lambda: create_internal_topic(self, DISKLESS_METADATA))

    def random_event(self) -> None:
        rng = self.rng
        live_topics = (
            len(self.topics)
            - (CONSUMER_OFFSETS in self.topics)
            - (DISKLESS_METADATA in self.topics)
        )
        up = up_brokers(self)
        # restarts roll one broker at a time: the next waits until every broker is back
        rolling = len(up) > 1 and len(up) == sum(
            1 for b in self.brokers.values() if b.incarnation is not None
        )
        # Weights per metadata change. At the default two changes a second: a broker restart every
        # ~7 minutes, a broker crash every ~30 minutes, a controller restart every ~20 minutes and
        # a failover of the active controller every ~40 minutes (of simulated time).
        choices: list[tuple[float, Callable[[], object]]] = [
            (40, partial(alter_partitions, self)),
            (8 if live_topics < MAX_LIVE_TOPICS else 0, partial(create_topic, self)),
            (
                4 + 8 * (live_topics >= MAX_LIVE_TOPICS) if live_topics > 3 else 0,
                partial(delete_topic, self),
            ),
            (2, partial(recreate_topic, self)),
            (6, partial(allocate_producer_ids, self)),
            (6, partial(change_configs, self)),
            (2, partial(remap_diskless, self)),
            (0.08 if rolling else 0, lambda: controlled_shutdown(self, rng.choice(up))),
            (0.02 if len(up) > 1 else 0, lambda: crash(self, rng.choice(up))),
            (0.01, lambda: restart_controller(self, self.leader)),
            (0.02, lambda: restart_controller(self, rng.choice(self.controllers))),
        ]
        # a planted fault takes the first chance it gets once its point in the log is reached
        if due(self, "overlapping-producer-ids"):
            choices.append((30, partial(allocate_producer_ids, self)))
        if due(self, "reused-topic-id"):
            if any(d[0] not in self.topics for d in self.deleted):
                choices = [(1, lambda: recreate_topic(self, reuse_id=True))]
            elif live_topics > 0:
                choices = [(1, partial(delete_topic, self))]
        if (
            due(self, "epoch-regression")
            and len(up) > 1
            and not any(b.incarnation is not None and not b.up for b in self.brokers.values())
        ):
            choices = [(1, lambda: controlled_shutdown(self, rng.choice(up)))]
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
                    self._attempt(partial(noop, self))
                    self.next_noop = self.now + NOOP_INTERVAL_MS + rng.randint(0, 6)
                elif t == self.next_rebalance:
                    self.now = max(self.now, t)
                    self._attempt(partial(rebalance_leaders, self))
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
            truncate_tail(self)
        write_side_files(self)
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
            write_snapshot(self)
