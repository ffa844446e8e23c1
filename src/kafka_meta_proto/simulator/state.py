"""What the parts of a ClusterSimulation (its mixins: brokers, controllers, partitions, topics,
the log output...) read and call on one another through ``self``, for the type checker: each
part's methods take ``self`` as a ``Cluster``, which ClusterSimulation is."""

from __future__ import annotations

import random
from collections import Counter, deque
from collections.abc import Callable, Iterator, Sequence
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
    """A ClusterSimulation as its parts see it."""

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

    # ClusterSimulation
    def room(self) -> int: ...
    def _schedule(self, delay_ms: int, action: Callable[[], None]) -> None: ...

    # LogOutput
    def write_batch(
        self, messages: Sequence[Entry], *, control_keys: list[bytes] | None = None
    ) -> tuple[int, str, int]: ...
    def noop(self) -> None: ...
    def pcr(
        self, topic: Topic, index: int, isr: list[int] | None = None, leader: int | None = None
    ) -> tuple[str, bytes]: ...
    def write_snapshot(self) -> None: ...

    # FaultPlanting
    def _due(self, fault: str) -> bool: ...
    def _corrupt(self, data: bytes, last_value: bytes) -> tuple[bytes, FaultEntry]: ...
    def _fault_entry(
        self, fault: str, base_offset: int, name: str, position: int, **details: Any
    ) -> None: ...
    def _truncate_tail(self) -> None: ...

    # ImageRecords
    def _endpoints_broker(self, broker: Broker) -> list[Any]: ...
    def image_records(self) -> Iterator[tuple[Message, int]]: ...
    def _partition_record(self, topic: Topic, index: int, p: Partition) -> Message: ...
    def _register_broker_record(self, broker: Broker) -> Message: ...
    def _register_controller_record(self, controller: int) -> Message: ...

    # ControllerEvents
    def elect_leader(self, first: bool = False) -> None: ...
    def register_controller(self, controller: int) -> None: ...
    def restart_controller(self, controller: int, elect: bool = True) -> None: ...

    # BrokerEvents
    def up_brokers(self) -> list[Broker]: ...
    def _eligible(self, broker_id: int) -> bool: ...
    def register_broker(self, broker: Broker) -> None: ...
    def unfence(self, broker: Broker) -> None: ...
    def expand_isrs(self, broker: Broker) -> None: ...

    # PartitionEvents
    def _leave_partitions(
        self, broker: Broker
    ) -> tuple[list[Entry], list[tuple[Partition, Change]]]: ...
    @staticmethod
    def _apply(updates: list[tuple[Partition, Change]]) -> None: ...
    def _random_partitions(self, k: int) -> list[PartitionRef]: ...

    # TopicEvents
    def _topic_name(self) -> str: ...
    def _place(self, partitions: int, replication: int) -> list[list[int]] | None: ...
    def create_topic(
        self,
        name: str | None = None,
        *,
        topic_id: Uuid | None = None,
        partitions: int | None = None,
        configs: dict[str, str] | None = None,
        internal: bool = False,
        diskless: bool | None = None,
    ) -> Topic | None: ...
    def create_internal_topic(self, name: str) -> None: ...
    def map_to_coordinators(
        self, topic: Topic, partitions: Sequence[int] | None = None
    ) -> None: ...

    # SideFiles
    def _write_bootstrap(self, format_time: int) -> None: ...
    def _write_kafka_files(self, format_time: int) -> None: ...
    def _summary(self, faults: list[FaultEntry]) -> dict[str, Any]: ...
