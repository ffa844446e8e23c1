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


class SideFiles:
    """Writing the side files at the end of a run (a ClusterSimulation part)."""

    def _write_side_files(self: Cluster) -> None:
        format_time = self.start_ms - self.rng.randint(60_000, 600_000)
        self._write_bootstrap(format_time)
        self._write_kafka_files(format_time)
        if self.config.diskless:  # record type 29 is the design's here, not Kafka's
            registries.write_marker(self.directory, registries.DISKLESS)
        faults = sorted(self.faults, key=lambda f: (f["offset"], f["fault"]))
        (self.directory / "faults.json").write_text(json.dumps(faults, indent=2) + "\n")
        (self.directory / "summary.json").write_text(
            json.dumps(self._summary(faults), indent=2) + "\n"
        )

    def _write_bootstrap(self: Cluster, format_time: int) -> None:
        """bootstrap.checkpoint as kafka-storage format writes it: metadata.version alone."""
        with open(self.directory / BOOTSTRAP_CHECKPOINT, "wb") as f:
            header = SnapshotHeaderRecord(version=0, last_contained_log_timestamp=0)
            feature = FeatureLevelRecord(name="metadata.version", feature_level=METADATA_VERSION)
            _write_snapshot(f, header, iter([(feature, 0)]), 0, format_time, step_ms=1)

    def _write_kafka_files(self: Cluster, format_time: int) -> None:
        """meta.properties, quorum-state, partition.metadata and leader-epoch-checkpoint."""
        (self.directory / "meta.properties").write_text(
            # as java.util.Properties.store writes it: an empty comment, then the date
            f"#\n#{time.strftime('%a %b %d %H:%M:%S UTC %Y', time.gmtime(format_time // 1000))}\n"
            f"node.id={self.controllers[0]}\ndirectory.id={_uuid(self.rng)}\nversion=1\ncluster.id={self.cluster_id}\n"
        )
        quorum = {"leaderId": self.leader, "leaderEpoch": self.epoch, "votedId": -1, "appliedOffset": 0,
                  "currentVoters": [{"voterId": c} for c in self.controllers], "data_version": 0}  # fmt: skip
        (self.log_dir / "quorum-state").write_text(json.dumps(quorum, separators=(",", ":")))
        (self.log_dir / "partition.metadata").write_text(
            f"version: 0\ntopic_id: {METADATA_TOPIC_ID}\n"
        )
        write_leader_epoch_checkpoint(self.log_dir, self.writer.epochs)

    def _summary(self: Cluster, faults: list[FaultEntry]) -> dict[str, Any]:
        return {
            "cluster": self.name,
            "clusterId": str(self.cluster_id),
            "seed": self.config.seed,
            "records": self.written,
            "batches": self.writer.batches,
            "bytes": self.writer.bytes,
            "firstTimestamp": self.start_ms,
            "lastTimestamp": self.last_timestamp,
            "leaderEpoch": self.epoch,
            "segments": [f"{METADATA_LOG_DIR}/{s}" for s in self.writer.segments],
            "snapshot": f"{METADATA_LOG_DIR}/{self.snapshot_name}" if self.snapshot_name else None,
            "brokers": sorted(self.brokers),
            "controllers": self.controllers,
            "liveTopics": len(self.topics),
            "recordTypes": dict(sorted(self.type_counts.items())),
            "faults": [f["fault"] for f in faults],
        }
