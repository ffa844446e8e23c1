"""The names of KRaft metadata log files and directories, read and written in one place.

- ``<20-digit base offset>.log``: a segment, named after the first offset it holds;
- ``<20-digit end offset>-<10-digit epoch>.checkpoint``: a snapshot of the state up to the end
  offset (exclusive), taken in that leader epoch;
- ``bootstrap.checkpoint``: the snapshot ``kafka-storage format`` writes up to Kafka 4.3, in the
  metadata log directory beside ``__cluster_metadata-0``, Kafka's id ``(0, 0)``; from 4.4
  (KIP-1170) the same records are the snapshot ``00000000000000000000-0000000000.checkpoint``
  inside ``__cluster_metadata-0``, an ordinary snapshot name;
- ``__cluster_metadata-<n>``: the directory of the metadata log (partition 0 in practice).

Files Kafka is about to delete or swap in (``.log.deleted``, ``.checkpoint.part``...) match none
of these.
"""

from __future__ import annotations

import re

from .._strenum import StrEnum

METADATA_TOPIC = "__cluster_metadata"
METADATA_LOG_DIR = f"{METADATA_TOPIC}-0"
BOOTSTRAP_CHECKPOINT = "bootstrap.checkpoint"
BOOTSTRAP_SNAPSHOT_ID = (0, 0)
SEGMENT_SUFFIX = ".log"
SNAPSHOT_SUFFIX = ".checkpoint"
SEGMENT_NAME_REGEX = r"(\d{20})\.log"  # also given to Spark, which reads the same names

_LOG_DIR = re.compile(rf"^{METADATA_TOPIC}-\d+$")
_SEGMENT_NAME = re.compile(rf"^{SEGMENT_NAME_REGEX}$")
_SNAPSHOT_NAME = re.compile(r"^(\d{20})-(\d{10})\.checkpoint$")


class FileKind(StrEnum):
    """What a metadata file holds."""

    SEGMENT = "segment"
    SNAPSHOT = "snapshot"
    BOOTSTRAP = "bootstrap"


def segment_name(base_offset: int) -> str:
    return f"{base_offset:020d}{SEGMENT_SUFFIX}"


def snapshot_name(end_offset: int, epoch: int) -> str:
    return f"{end_offset:020d}-{epoch:010d}{SNAPSHOT_SUFFIX}"


def parse_segment_name(name: str) -> int | None:
    """The base offset from ``<20-digit offset>.log``, else None."""
    match = _SEGMENT_NAME.match(name)
    return int(match[1]) if match else None


def parse_snapshot_name(name: str) -> tuple[int, int] | None:
    """``(end_offset, epoch)`` from ``<20-digit offset>-<10-digit epoch>.checkpoint``, else None."""
    match = _SNAPSHOT_NAME.match(name)
    return (int(match[1]), int(match[2])) if match else None


def snapshot_id(name: str) -> tuple[int, int] | None:
    """A snapshot's ``(end_offset, epoch)`` by its name, ``bootstrap.checkpoint`` included."""
    if name == BOOTSTRAP_CHECKPOINT:
        return BOOTSTRAP_SNAPSHOT_ID
    return parse_snapshot_name(name)


def is_metadata_log_dir(name: str) -> bool:
    return bool(_LOG_DIR.match(name))


def file_kind(name: str, in_metadata_log_dir: bool) -> tuple[FileKind, dict[str, int]] | None:
    """``(kind, facts from the name)`` for a metadata file, else None. Segments and snapshots
    count only inside a metadata log directory; ``bootstrap.checkpoint`` only outside one."""
    if in_metadata_log_dir:
        base_offset = parse_segment_name(name)
        if base_offset is not None:
            return FileKind.SEGMENT, {"base_offset": base_offset}
        found = parse_snapshot_name(name)
        if found is not None:
            return FileKind.SNAPSHOT, {"end_offset": found[0], "epoch": found[1]}
        return None
    if name == BOOTSTRAP_CHECKPOINT:
        return FileKind.BOOTSTRAP, {}
    return None


def suffix_kind(name: str) -> str | None:
    """``log`` or ``checkpoint`` by the suffix after the last dot (as Kafka's dump tool picks a
    reader), else None."""
    suffix = name[name.rfind(".") :] if "." in name else ""
    return {SEGMENT_SUFFIX: "log", SNAPSHOT_SUFFIX: "checkpoint"}.get(suffix)


def leading_offset(name: str) -> int | None:
    """The offset Kafka's dump tool reads from a segment's name: the digits before the first
    dot, however many (None when they are not all digits)."""
    start = name.split(".")[0]
    return int(start) if start.isdigit() else None
