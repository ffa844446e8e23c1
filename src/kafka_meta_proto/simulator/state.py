"""A simulated cluster's state as the event modules see it: ``Cluster`` names what they read and
change (ClusterSimulation holds it and passes itself as ``sim``), and the queries on it that
several of them ask. The events are functions of that state: controllers, brokers, partitions,
topics, the log output, faults, image_records and side_files."""

from __future__ import annotations

import random
from collections import Counter, deque
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol, Union

from ..log.segment_writer import SegmentWriter
from ..message import Message
from ..uuid import Uuid
from .config import SimulationConfig
from .model import Broker, Partition, Topic

# What a batch holds: a (message, version) pair, or an already encoded (type name, value) one.
Entry = Union[tuple[Message, int], tuple[str, bytes]]
# A partition picked for a change: its topic, index and state.
PartitionRef = tuple[Topic, int, Partition]
# Changes to a partition's ISR ("isr") and leader ("leader"), as pcr() takes them.
Change = dict[str, Any]
# A topic deleted: its name, id, the offset of its removal and that of its creation.
Deleted = tuple[str, Uuid, int, int]
# A fault's entry in faults.json.
FaultEntry = dict[str, Any]


class Cluster(Protocol):
    """The state of one simulated cluster (a ClusterSimulation), as the event functions see it."""

    name: str
    directory: Path
    config: SimulationConfig
    rng: random.Random
    log_dir: Path
    writer: SegmentWriter
    target: int
    written: int
    type_counts: Counter[str]
    faults: list[FaultEntry]
    cluster_id: Uuid
    start_ms: int
    now: int
    last_timestamp: int
    next_noop: int
    next_event: int
    next_rebalance: int
    scheduled: list[tuple[int, int, Callable[[], None]]]
    controllers: list[int]
    controller_incarnations: dict[int, Uuid]
    controller_registered: set[int]
    leader: int
    epoch: int
    security_protocol: int
    domain: str
    brokers: dict[int, Broker]
    topics: dict[str, Topic]
    deleted: deque[Deleted]
    coordinator_partitions: int
    next_producer_id: int
    broker_configs: dict[str, dict[str, str]]
    pending_faults: dict[str, int]
    snapshot_name: str | None
    _pcr_cache: dict[tuple[bytes, int, tuple[int, ...] | None, int | None], bytes]
    snapshot_at: int | None

    def room(self) -> int:
        """Records still to write before the log is complete."""
        ...

    def schedule(self, delay_ms: int, action: Callable[[], None]) -> None:
        """Run ``action`` ``delay_ms`` of simulated time from now."""
        ...


def up_brokers(sim: Cluster) -> list[Broker]:
    """The brokers running, registered, unfenced and not shutting down."""
    return [
        b for b in sim.brokers.values() if b.up and not b.fenced and not b.in_controlled_shutdown
    ]


def eligible(sim: Cluster, broker_id: int) -> bool:
    """Whether the broker can lead a partition now (one of up_brokers)."""
    b = sim.brokers.get(broker_id)
    return b is not None and b.up and not b.fenced and not b.in_controlled_shutdown
