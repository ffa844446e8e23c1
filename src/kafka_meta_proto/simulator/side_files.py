"""The files a cluster directory holds besides the log: bootstrap.checkpoint, meta.properties,
quorum-state, partition.metadata, leader-epoch-checkpoint, and our faults.json, summary.json and,
for a cluster with diskless topics, the registry marker."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import json
import time

from .. import registries
from ..log.names import BOOTSTRAP_CHECKPOINT, METADATA_LOG_DIR
from ..log.segment_writer import write_leader_epoch_checkpoint
from .config import METADATA_TOPIC_ID, METADATA_VERSION
from .log_output import _write_snapshot
from .model import FeatureLevelRecord, SnapshotHeaderRecord, _uuid

SIDE_FILES = {"leader-epoch-checkpoint", "partition.metadata", "quorum-state", "faults.json",
              "summary.json", "meta.properties", registries.MARKER}  # fmt: skip

if TYPE_CHECKING:
    from .state import Cluster, FaultEntry


def write_side_files(sim: Cluster) -> None:
    format_time = sim.start_ms - sim.rng.randint(60_000, 600_000)
    _write_bootstrap(sim, format_time)
    _write_kafka_files(sim, format_time)
    if sim.config.diskless:  # record type 29 is the design's here, not Kafka's
        registries.write_marker(sim.directory, registries.DISKLESS)
    faults = sorted(sim.faults, key=lambda f: (f["offset"], f["fault"]))
    (sim.directory / "faults.json").write_text(json.dumps(faults, indent=2) + "\n")
    (sim.directory / "summary.json").write_text(json.dumps(_summary(sim, faults), indent=2) + "\n")


def _write_bootstrap(sim: Cluster, format_time: int) -> None:
    """bootstrap.checkpoint as kafka-storage format writes it: metadata.version alone."""
    with open(sim.directory / BOOTSTRAP_CHECKPOINT, "wb") as f:
        header = SnapshotHeaderRecord(version=0, last_contained_log_timestamp=0)
        feature = FeatureLevelRecord(name="metadata.version", feature_level=METADATA_VERSION)
        _write_snapshot(f, header, iter([(feature, 0)]), 0, format_time, step_ms=1)


def _write_kafka_files(sim: Cluster, format_time: int) -> None:
    """meta.properties, quorum-state, partition.metadata and leader-epoch-checkpoint."""
    (sim.directory / "meta.properties").write_text(
        # as java.util.Properties.store writes it: an empty comment, then the date
        f"#\n#{time.strftime('%a %b %d %H:%M:%S UTC %Y', time.gmtime(format_time // 1000))}\n"
        f"node.id={sim.controllers[0]}\ndirectory.id={_uuid(sim.rng)}\nversion=1\ncluster.id={sim.cluster_id}\n"
    )
    quorum = {"leaderId": sim.leader, "leaderEpoch": sim.epoch, "votedId": -1, "appliedOffset": 0,
              "currentVoters": [{"voterId": c} for c in sim.controllers], "data_version": 0}  # fmt: skip
    (sim.log_dir / "quorum-state").write_text(json.dumps(quorum, separators=(",", ":")))
    (sim.log_dir / "partition.metadata").write_text(f"version: 0\ntopic_id: {METADATA_TOPIC_ID}\n")
    write_leader_epoch_checkpoint(sim.log_dir, sim.writer.epochs)


def _summary(sim: Cluster, faults: list[FaultEntry]) -> dict[str, Any]:
    return {
        "cluster": sim.name,
        "clusterId": str(sim.cluster_id),
        "seed": sim.config.seed,
        "records": sim.written,
        "batches": sim.writer.batches,
        "bytes": sim.writer.bytes,
        "firstTimestamp": sim.start_ms,
        "lastTimestamp": sim.last_timestamp,
        "leaderEpoch": sim.epoch,
        "segments": [f"{METADATA_LOG_DIR}/{s}" for s in sim.writer.segments],
        "snapshot": f"{METADATA_LOG_DIR}/{sim.snapshot_name}" if sim.snapshot_name else None,
        "brokers": sorted(sim.brokers),
        "controllers": sim.controllers,
        "liveTopics": len(sim.topics),
        "recordTypes": dict(sorted(sim.type_counts.items())),
        "faults": [f["fault"] for f in faults],
    }
