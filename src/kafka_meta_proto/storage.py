"""The KRaft storage tool's ``format``: prepare a node's log directories so Kafka starts on them.

Each log directory gets ``meta.properties`` (version 1: node.id, a new directory.id, cluster.id);
the metadata log directory also gets ``bootstrap.checkpoint``, the snapshot a new cluster's first
controller replays: a FeatureLevelRecord for metadata.version and one for every other feature
whose level is above 0, as ``kafka-storage format`` writes them.
"""

from __future__ import annotations

import time
from pathlib import Path

from . import kraft, message_class
from .localfiles import MetaProperties, parse_properties, write_meta_properties
from .log.names import BOOTSTRAP_CHECKPOINT
from .log.snapshot_writer import write_snapshot
from .uuid import Uuid

# What ``kafka-storage version-mapping --release-version R`` gives for each release (Kafka 4.3.1's
# tool); kraft.version is not a FeatureLevelRecord, so it is not listed.
RELEASE_FEATURES: dict[str, dict[str, int]] = {
    "3.9": {"metadata.version": 21, "transaction.version": 0, "group.version": 0,
            "eligible.leader.replicas.version": 0, "share.version": 0, "streams.version": 0},
    "4.0": {"metadata.version": 25, "transaction.version": 2, "group.version": 1,
            "eligible.leader.replicas.version": 0, "share.version": 0, "streams.version": 0},
    "4.1": {"metadata.version": 27, "transaction.version": 2, "group.version": 1,
            "eligible.leader.replicas.version": 1, "share.version": 0, "streams.version": 0},
    "4.2": {"metadata.version": 29, "transaction.version": 2, "group.version": 1,
            "eligible.leader.replicas.version": 1, "share.version": 1, "streams.version": 1},
    "4.3": {"metadata.version": 30, "transaction.version": 2, "group.version": 1,
            "eligible.leader.replicas.version": 1, "share.version": 1, "streams.version": 1},
}  # fmt: skip
LATEST_RELEASE = "4.3"


class FormatError(ValueError):
    """The configuration cannot be formatted (a missing key, a directory already formatted)."""


def feature_levels(
    release: str = LATEST_RELEASE, overrides: dict[str, int] | None = None
) -> dict[str, int]:
    if release not in RELEASE_FEATURES:
        raise FormatError(
            f"unknown release version {release!r} (known: {', '.join(RELEASE_FEATURES)})"
        )
    return {**RELEASE_FEATURES[release], **(overrides or {})}


def bootstrap_values(features: dict[str, int]) -> list[bytes]:
    """The bootstrap records: metadata.version first, then the other features above level 0 by
    name, each a FeatureLevelRecord v0 in its KRaft frame."""
    FeatureLevelRecord = message_class("FeatureLevelRecord")
    names = ["metadata.version"] + sorted(
        n for n, level in features.items() if n != "metadata.version" and level > 0
    )
    return [
        kraft.encode_record_value(FeatureLevelRecord(name=n, feature_level=features[n]), 0)
        for n in names
    ]


def write_bootstrap_checkpoint(
    directory: Path, features: dict[str, int], now_ms: int | None = None
) -> Path:
    now_ms = int(time.time() * 1000) if now_ms is None else now_ms
    header = message_class("SnapshotHeaderRecord")(
        version=0, last_contained_log_timestamp=0
    ).encode(0)
    footer = message_class("SnapshotFooterRecord")(version=0).encode(0)
    path = Path(directory) / BOOTSTRAP_CHECKPOINT
    with open(path, "wb") as out:
        write_snapshot(out, header, bootstrap_values(features), footer, epoch=0, timestamp=now_ms)
    return path


def log_directories(config: dict[str, str]) -> tuple[list[Path], Path]:
    """The node's log directories and its metadata log directory, from its server properties."""
    dirs = config.get("log.dirs") or config.get("log.dir")
    if not dirs:
        raise FormatError("the configuration names no log.dirs (or log.dir)")
    paths = [Path(d.strip()) for d in dirs.split(",") if d.strip()]
    metadata = Path(config["metadata.log.dir"]) if config.get("metadata.log.dir") else paths[0]
    if metadata not in paths:
        paths.append(metadata)
    return paths, metadata


def format_node(
    config_path: Path, cluster_id: str, features: dict[str, int], ignore_formatted: bool = False
) -> list[Path]:
    """Format every log directory of the node configured in ``config_path``; returns the files
    written. A directory that already holds meta.properties is an error unless ignored."""
    config = parse_properties(Path(config_path).read_text(encoding="utf-8"), config_path)
    if "node.id" not in config:
        raise FormatError(f"{config_path}: node.id is missing")
    node_id = int(config["node.id"])
    Uuid.from_string(cluster_id)  # a cluster id is a Uuid in Kafka's text form
    dirs, metadata_dir = log_directories(config)
    written = []
    for directory in dirs:
        if (directory / "meta.properties").exists():
            if ignore_formatted:
                continue
            raise FormatError(f"{directory} is already formatted")
        directory.mkdir(parents=True, exist_ok=True)
        meta = MetaProperties(
            version=1, cluster_id=cluster_id, node_id=node_id, directory_id=Uuid.random()
        )
        written.append(write_meta_properties(directory, meta))
        if directory == metadata_dir:
            written.append(write_bootstrap_checkpoint(directory, features))
    return written
