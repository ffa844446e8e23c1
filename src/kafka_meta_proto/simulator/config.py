"""What to simulate (SimulationConfig), the faults that can be planted, what a run wrote."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from pathlib import Path

from ..kraft.rules import DISKLESS_TOPIC

FAULTS = {
    "overlapping-producer-ids": "a ProducerIdsRecord whose block overlaps the block allocated before it",
    "reused-topic-id": "a deleted topic re-created under its old topic ID instead of a new one",
    "epoch-regression": "a broker registering again with a lower broker epoch than its previous registration",
    "corrupt-batch": "one byte flipped inside a record batch, so that its CRC no longer matches",
    "truncated-tail": "the last segment cut in the middle of its last batch",
}

METADATA_VERSION = 21  # 3.9-IV0
KRAFT_VERSION_RANGE = (0, 1)
NOOP_INTERVAL_MS = 500  # metadata.max.idle.interval.ms
SESSION_TIMEOUT_MS = 9000  # broker.session.timeout.ms
LEADER_REBALANCE_INTERVAL_MS = 300_000  # leader.imbalance.check.interval.seconds
DEFAULT_SEGMENT_BYTES = 1 << 20
DEFAULT_SEGMENT_MS = 7 * 24 * 3600 * 1000  # metadata.log.segment.ms
MAX_LIVE_TOPICS = 120
CONSUMER_OFFSETS = "__consumer_offsets"
DISKLESS_METADATA = DISKLESS_TOPIC
METADATA_TOPIC_ID = "AAAAAAAAAAAAAAAAAAAAAQ"  # Kafka's fixed id of __cluster_metadata


@dataclass
class SimulationConfig:
    """What to simulate for one cluster."""

    records: int = 10_000
    seed: int = 0
    faults: tuple[str, ...] = ()
    segment_bytes: int = DEFAULT_SEGMENT_BYTES
    segment_ms: int = DEFAULT_SEGMENT_MS
    brokers: int | None = None  # None: 3 to 9, from the seed
    controllers: int = 3
    snapshot_at: float | None = 0.5  # fraction of the records after which the snapshot is taken
    events_per_second: float = 2.0  # metadata changes (not counting NoOps), on average
    # diskless topics: record type 29 of the diskless design, which Kafka 4.4 gives another meaning;
    # the cluster directory is marked so the tools read it with the diskless registry
    diskless: bool = False

    def __post_init__(self) -> None:
        unknown = [f for f in self.faults if f not in FAULTS]
        if unknown:
            raise ValueError(f"unknown fault {unknown[0]!r}; known: {', '.join(FAULTS)}")
        if self.records < 1:
            raise ValueError("records must be at least 1")
        if self.controllers < 1:
            raise ValueError("controllers must be at least 1")
        if self.brokers is not None and self.brokers < 1:
            raise ValueError("brokers must be at least 1")


@dataclass
class ClusterResult:
    """What ``simulate_cluster`` wrote."""

    name: str
    directory: Path
    records: int
    batches: int
    bytes: int
    segments: list[str]
    snapshot: str | None
    faults: list[dict[str, Any]]  # faults.json's entries
    record_types: dict[str, int]
    seconds: float

    @property
    def records_per_second(self) -> float:
        return self.records / self.seconds if self.seconds > 0 else float("inf")


class _Room(Exception):
    """An event does not fit in the records left to write."""
