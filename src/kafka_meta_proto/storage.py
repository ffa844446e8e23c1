"""The KRaft storage tool's ``format``: prepare a node's log directories so Kafka starts on them.

Each log directory gets ``meta.properties`` (version 1: node.id, a new directory.id, cluster.id).
The metadata log directory also gets the bootstrap snapshot a new cluster's first controller
replays: a FeatureLevelRecord for metadata.version and one for every other feature whose level is
above 0, as ``kafka-storage format`` writes them. Where it goes depends on the release formatted
for: up to 4.3 it is ``bootstrap.checkpoint`` in the metadata log directory (every node); from 4.4
(KIP-1170) it is the snapshot ``00000000000000000000-0000000000.checkpoint`` inside that
directory's ``__cluster_metadata-0``, written for controllers only.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

from . import kraft, message_class
from .image_text import METADATA_VERSIONS
from .localfiles import MetaProperties, parse_properties, write_meta_properties
from .log.names import BOOTSTRAP_CHECKPOINT, BOOTSTRAP_SNAPSHOT_ID, METADATA_LOG_DIR, snapshot_name
from .log.snapshot_writer import write_snapshot
from .uuid import Uuid

# The metadata.version levels Kafka 4.4.0's storage tool formats: 3.3-IV3 to 4.4-IV2, its latest
# production level (4.5-IV0, 34, is not production and is refused without unstable versions).
FIRST_FORMATTABLE, LATEST_PRODUCTION = 7, 33
# The first level whose release writes the bootstrap snapshot into the metadata log (4.4-IV0).
CHECKPOINT_LAYOUT_FROM = 31
# Each feature's default level by metadata.version, as Kafka 4.4.0's version-mapping gives it:
# (level, first metadata.version level with it), in increasing order. kraft.version is not a
# FeatureLevelRecord, so it is not listed.
FEATURE_STEPS: dict[str, tuple[tuple[int, int], ...]] = {
    "transaction.version": ((2, 24),),
    "group.version": ((1, 22),),
    "eligible.leader.replicas.version": ((1, 26),),
    "share.version": ((1, 28), (2, 31)),
    "streams.version": ((1, 29),),
}
LATEST_RELEASE = "4.4"
_RELEASE = re.compile(r"^(\d+)\.(\d+)(?:\.\d+)?$")


class FormatError(ValueError):
    """The configuration cannot be formatted (a missing key, a directory already formatted)."""


def metadata_version_level(release: str) -> int:
    """The metadata.version level ``--release-version`` names, as Kafka 4.4.0's tool reads it:
    ``4.4-IV2`` exactly, ``4.4`` (or ``4.4.0``) as the last level of that release."""
    text = release.strip()
    by_name = {name: level for level, name in METADATA_VERSIONS.items()
               if FIRST_FORMATTABLE <= level <= LATEST_PRODUCTION}  # fmt: skip
    if text in by_name:
        return by_name[text]
    match = _RELEASE.match(text)
    if match:
        prefix = f"{match[1]}.{match[2]}-IV"
        levels = [level for name, level in by_name.items() if name.startswith(prefix)]
        if levels:
            return max(levels)
    raise FormatError(f"unknown release version {release!r} (known: {', '.join(by_name)})")


def feature_levels(
    release: str = LATEST_RELEASE, overrides: dict[str, int] | None = None
) -> dict[str, int]:
    """metadata.version and every other feature's default level for ``release``, then
    ``overrides``."""
    level = metadata_version_level(release)
    levels = {"metadata.version": level}
    for name, steps in FEATURE_STEPS.items():
        levels[name] = max([0] + [lvl for lvl, since in steps if level >= since])
    return {**levels, **(overrides or {})}


def writes_checkpoint_layout(features: dict[str, int]) -> bool:
    """Whether the release formatted for puts the bootstrap snapshot into the metadata log
    (``__cluster_metadata-0/00000000000000000000-0000000000.checkpoint``, 4.4 on) rather than
    into ``bootstrap.checkpoint``."""
    return features["metadata.version"] >= CHECKPOINT_LAYOUT_FROM


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
    """``bootstrap.checkpoint`` in ``directory`` (the layout up to 4.3): its SnapshotHeader
    names no log timestamp (0)."""
    return _write_bootstrap(Path(directory) / BOOTSTRAP_CHECKPOINT, features, now_ms, 0)


def write_bootstrap_snapshot(
    directory: Path, features: dict[str, int], now_ms: int | None = None
) -> Path:
    """The 4.4 layout: snapshot (0, 0) in ``directory``'s ``__cluster_metadata-0``; its
    SnapshotHeader carries the time of formatting as its last contained log timestamp."""
    now_ms = int(time.time() * 1000) if now_ms is None else now_ms
    log_dir = Path(directory) / METADATA_LOG_DIR
    log_dir.mkdir(parents=True, exist_ok=True)
    return _write_bootstrap(log_dir / snapshot_name(*BOOTSTRAP_SNAPSHOT_ID), features, now_ms, now_ms)


def _write_bootstrap(path: Path, features: dict[str, int], now_ms: int | None, log_timestamp: int) -> Path:
    now_ms = int(time.time() * 1000) if now_ms is None else now_ms
    header = message_class("SnapshotHeaderRecord")(
        version=0, last_contained_log_timestamp=log_timestamp
    ).encode(0)
    footer = message_class("SnapshotFooterRecord")(version=0).encode(0)
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
    written. A directory that already holds meta.properties is an error unless ignored. From 4.4
    the bootstrap snapshot is written for a node whose process.roles names the controller (or
    names nothing); up to 4.3 for every node."""
    config = parse_properties(Path(config_path).read_text(encoding="utf-8"), config_path)
    if "node.id" not in config:
        raise FormatError(f"{config_path}: node.id is missing")
    node_id = int(config["node.id"])
    Uuid.from_string(cluster_id)  # a cluster id is a Uuid in Kafka's text form
    dirs, metadata_dir = log_directories(config)
    roles = {r.strip() for r in config.get("process.roles", "").split(",") if r.strip()}
    if not writes_checkpoint_layout(features):
        write_bootstrap = write_bootstrap_checkpoint
    elif not roles or "controller" in roles:
        write_bootstrap = write_bootstrap_snapshot
    else:
        write_bootstrap = None  # a broker's metadata log starts empty
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
        if directory == metadata_dir and write_bootstrap is not None:
            written.append(write_bootstrap(directory, features))
    return written
