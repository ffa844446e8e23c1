"""List local partition directories the metadata no longer backs (a broker's topic-ID reconciliation).

When a broker gets a FULL LeaderAndIsr (or loads a metadata image at startup) it compares the
partition directories in its log dirs with the metadata and treats as stale each `<topic>-<partition>`
directory whose topic is gone from the image, whose partition.metadata names another topic ID than the
image's topic of that name (the topic was deleted and re-created), or whose partition the topic no
longer has. With --broker-id, a partition whose replicas do not include that broker is stale too.
One line per stale directory: its path, a tab, the reason. The metadata topic's own directory and
directories already marked -delete, -future or -stray are not looked at. Exit status 0.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from .. import registries
from ..kraft.image import MetadataImage
from ..tools.localfiles import LocalFileError, read_partition_metadata
from ..log.names import METADATA_LOG_DIR
from ..uuid import Uuid
from .shell import load_image

METADATA_PARTITION_DIR = METADATA_LOG_DIR
_PARTITION_DIR = re.compile(r"^(.+)-(0|[1-9][0-9]*)$")


@dataclass(frozen=True)
class StalePartition:
    path: Path
    topic: str
    partition: int
    reason: str  # topic-gone, topic-id-mismatch, partition-gone, not-a-replica
    detail: str


def partition_dirs(log_dir: Path) -> list[tuple[Path, str, int]]:
    """The ``<topic>-<partition>`` directories of a log dir: ``(path, topic, partition)``."""
    found = []
    for entry in sorted(log_dir.iterdir()):
        match = _PARTITION_DIR.match(entry.name)
        if match and entry.is_dir() and entry.name != METADATA_PARTITION_DIR:
            found.append((entry, match[1], int(match[2])))
    return found


def find_stale(
    image: MetadataImage,
    log_dirs: Iterable[str | Path],
    broker_id: int | None = None,
    warn: Callable[[str], object] | None = None,
) -> list[StalePartition]:
    """The stale partition directories of ``log_dirs`` against ``image``.

    ``warn(message)`` hears about unreadable partition.metadata files; such a directory is
    judged by its topic name and partition alone.
    """
    by_name = image.topics_by_name
    stale = []
    for log_dir in log_dirs:
        for path, topic_name, partition in partition_dirs(Path(log_dir)):
            topic = by_name.get(topic_name)
            local_id: Uuid | None = None
            if (path / "partition.metadata").exists():
                try:
                    local_id = read_partition_metadata(path).topic_id
                except LocalFileError as exc:  # judge by name and partition alone
                    if warn:
                        warn(f"{exc}; topic ID not compared")
            if topic is None:
                known = f" (its partition.metadata says topic ID {local_id})" if local_id else ""
                stale.append(StalePartition(path, topic_name, partition, "topic-gone",
                                            f"topic {topic_name} is not in the metadata image{known}"))  # fmt: skip
            elif local_id is not None and local_id != topic.id:
                stale.append(StalePartition(path, topic_name, partition, "topic-id-mismatch",
                                            f"partition.metadata has topic ID {local_id}, the image's {topic_name} is {topic.id}"))  # fmt: skip
            elif partition not in topic.partitions:
                stale.append(StalePartition(path, topic_name, partition, "partition-gone",
                                            f"topic {topic_name} has no partition {partition} (it has {len(topic.partitions)})"))  # fmt: skip
            elif broker_id is not None and broker_id not in topic.partitions[partition].replicas:
                replicas = topic.partitions[partition].replicas
                stale.append(StalePartition(path, topic_name, partition, "not-a-replica",
                                            f"broker {broker_id} is not among the replicas {replicas}"))  # fmt: skip
    return stale


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--log-dirs", nargs="+", required=True, metavar="DIR", help="the broker's log directories"
    )
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--snapshot", metavar="FILE", help="a snapshot file (*.checkpoint)")
    source.add_argument(
        "--log", metavar="DIR", help="a __cluster_metadata-0 directory (or a log dir holding one)"
    )
    registries.add_arguments(parser)
    parser.add_argument(
        "--broker-id",
        type=int,
        metavar="ID",
        help="also flag partitions whose replicas leave out this broker",
    )


def run(args: argparse.Namespace) -> int:
    missing = [d for d in args.log_dirs if not Path(d).is_dir()]
    if missing:
        for d in missing:
            print(f"kafka-meta-proto stale-partitions: {d}: no such directory", file=sys.stderr)
        return 2
    try:
        image = load_image(args)
    except (OSError, ValueError) as exc:
        print(
            f"kafka-meta-proto stale-partitions: cannot load the metadata image: {exc}",
            file=sys.stderr,
        )
        return 2
    for problem in image.problems:
        print(f"warning: skipped {problem}", file=sys.stderr)
    stale = find_stale(
        image, args.log_dirs, args.broker_id, warn=lambda m: print(f"warning: {m}", file=sys.stderr)
    )
    for entry in stale:
        print(f"{entry.path}\t{entry.reason}: {entry.detail}")
    return 0
