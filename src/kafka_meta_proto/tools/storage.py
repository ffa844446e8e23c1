"""The KRaft storage tool's ``format``: prepare a node's log directories so Kafka starts on them.

Each log directory gets ``meta.properties`` (version 1: node.id, a new directory.id, cluster.id).
The metadata log directory also gets the bootstrap snapshot a new cluster's first controller
replays: a FeatureLevelRecord for metadata.version and one for every other feature whose level is
above 0, as ``kafka-storage format`` writes them. Where it goes depends on the release formatted
for: up to 4.3 it is ``bootstrap.checkpoint`` in the metadata log directory (every node); from 4.4
(KIP-1170) it is the snapshot ``00000000000000000000-0000000000.checkpoint`` inside that
directory's ``__cluster_metadata-0``, written for controllers only.

A controller of a dynamic quorum (KIP-853: ``controller.quorum.bootstrap.servers`` and no
``controller.quorum.voters``) is formatted with ``--standalone``, ``--initial-controllers`` or
``--no-initial-controllers``: its bootstrap snapshot then starts with a KRaftVersionRecord
(kraft.version 1) and, for the first two, a VotersRecord naming the initial voters, both control
records in the header's batch, as Kafka 4.4.0's storage tool writes them.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from .. import kraft
from ..kraft.image_text import METADATA_VERSIONS
from .localfiles import MetaProperties, parse_properties, write_meta_properties
from ..log.batch import RecordBatch
from ..log.control import ControlRecordType, control_key
from ..log.names import BOOTSTRAP_CHECKPOINT, BOOTSTRAP_SNAPSHOT_ID, METADATA_LOG_DIR, snapshot_name
from ..log.records import Record
from ..uuid import Uuid

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
KRAFT_VERSION = "kraft.version"
# The kraft.version levels Kafka 4.4.0 knows, and what a voter says it supports when formatted.
KRAFT_VERSIONS = (0, 1)
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
    from ..messages.feature_level_record import FeatureLevelRecord

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
    now_ms = int(time.time() * 1000) if now_ms is None else now_ms
    return write_bootstrap_file(
        Path(directory) / BOOTSTRAP_CHECKPOINT, bootstrap_values(features), now_ms, 0
    )


def write_bootstrap_snapshot(
    directory: Path,
    features: dict[str, int],
    now_ms: int | None = None,
    quorum: "Quorum | None" = None,
) -> Path:
    """The 4.4 layout: snapshot (0, 0) in ``directory``'s ``__cluster_metadata-0``; its
    SnapshotHeader carries the time of formatting as its last contained log timestamp, and a
    dynamic ``quorum``'s KRaftVersion and Voters records follow it in the header's batch."""
    return write_quorum_snapshot(directory, bootstrap_values(features), now_ms, quorum)


def write_quorum_snapshot(
    directory: Path, values: list[bytes], now_ms: int | None = None, quorum: "Quorum | None" = None
) -> Path:
    """Snapshot (0, 0) in ``directory``'s ``__cluster_metadata-0``, holding ``values`` after the
    header's batch. Up to 4.3 the storage tool wrote it with no values, for the voters alone."""
    now_ms = int(time.time() * 1000) if now_ms is None else now_ms
    log_dir = Path(directory) / METADATA_LOG_DIR
    log_dir.mkdir(parents=True, exist_ok=True)
    controls = quorum.control_records() if quorum is not None else []
    return write_bootstrap_file(
        log_dir / snapshot_name(*BOOTSTRAP_SNAPSHOT_ID), values, now_ms, now_ms, controls
    )


def write_bootstrap_file(
    path: Path, values: list[bytes], now_ms: int, log_timestamp: int,
    controls: Sequence[tuple[int, bytes]] = (),
) -> Path:  # fmt: skip
    """A snapshot file as Kafka's snapshot writer lays it out (``log.snapshot_writer``), with the
    control records ``controls`` (type, value) after the SnapshotHeader in its batch: that batch
    from offset 0, the records in one batch after it, the SnapshotFooter last; leader epoch 0.
    A storage tool's records are few, far below the 8 MiB a batch may hold."""
    from ..messages.snapshot_footer_record import SnapshotFooterRecord
    from ..messages.snapshot_header_record import SnapshotHeaderRecord

    header = SnapshotHeaderRecord(version=0, last_contained_log_timestamp=log_timestamp).encode(0)
    footer = SnapshotFooterRecord(version=0).encode(0)
    head: list[tuple[int, bytes]] = [(ControlRecordType.SNAPSHOT_HEADER, header), *controls]

    def batch(records: list[Record], offset: int, control: bool) -> bytes:
        return RecordBatch.create(records, base_offset=offset, base_timestamp=now_ms, control=control,
                                  partition_leader_epoch=0).encode()  # fmt: skip

    with open(path, "wb") as out:
        out.write(batch([Record(key=control_key(t), value=v) for t, v in head], 0, True))
        if values:
            out.write(batch([Record(value=v) for v in values], len(head), False))
        footer_key = control_key(ControlRecordType.SNAPSHOT_FOOTER)
        out.write(batch([Record(key=footer_key, value=footer)], len(head) + len(values), True))
    return path


@dataclass(frozen=True)
class Voter:
    """One initial controller: ``id@host:port:directoryId``."""

    node_id: int
    host: str
    port: int
    directory_id: Uuid

    @classmethod
    def parse(cls, text: str) -> "Voter":
        """One entry of ``--initial-controllers``, read as Kafka 4.4.0 reads it (a host may be an
        IPv6 address in brackets)."""
        what = f"--initial-controllers entry {text!r}"
        node, at, rest = text.strip().partition("@")
        if not at:
            raise FormatError(f"{what} has no '@' (the form is id@host:port:directoryId)")
        if not re.fullmatch(r"\d+", node):
            raise FormatError(f"{what}: the node id {node!r} is not a non-negative integer")
        if rest.startswith("["):
            host, bracket, rest = rest[1:].partition("]")
            if not bracket or not rest.startswith(":"):
                raise FormatError(f"{what}: the IPv6 host has no closing ']' followed by ':'")
            rest = rest[1:]
        else:
            host, colon, rest = rest.partition(":")
            if not colon:
                raise FormatError(f"{what} has no ':' after the host")
        port, colon, directory = rest.partition(":")
        if not colon:
            raise FormatError(f"{what} has no ':' after the port (the directory id is missing)")
        if not host:
            raise FormatError(f"{what} names no host")
        if not re.fullmatch(r"\d+", port) or int(port) > 65535:
            raise FormatError(f"{what}: {port!r} is not a port")
        try:
            directory_id = Uuid.from_string(directory)
        except ValueError as e:
            raise FormatError(f"{what}: {directory!r} is not a directory id ({e})") from None
        return cls(int(node), host, int(port), directory_id)


def parse_initial_controllers(text: str) -> dict[int, Voter]:
    """``--initial-controllers``: comma-separated voters, each node id at most once."""
    voters: dict[int, Voter] = {}
    for entry in text.split(","):
        voter = Voter.parse(entry)
        if voter.node_id in voters:
            raise FormatError(f"--initial-controllers names node id {voter.node_id} more than once")
        voters[voter.node_id] = voter
    return voters


@dataclass(frozen=True)
class Quorum:
    """What a node's bootstrap snapshot says of the KRaft quorum: kraft.version and, for a dynamic
    quorum formatted with --standalone or --initial-controllers, the initial voters (each with an
    endpoint on the first of controller.listener.names)."""

    kraft_version: int = 0
    voters: tuple[Voter, ...] = ()
    listener: str = ""

    def control_records(self) -> list[tuple[int, bytes]]:
        """The KRaftVersion and Voters control records (type, value), none at kraft.version 0."""
        if self.kraft_version == 0:
            return []
        from ..messages.kraft_version_record import KRaftVersionRecord
        from ..messages.voters_record import VotersRecord as V

        version = KRaftVersionRecord(version=0, kraft_version=self.kraft_version).encode(0)
        records: list[tuple[int, bytes]] = [(ControlRecordType.KRAFT_VERSION, version)]
        if self.voters:
            voters = [V.Voter(voter_id=v.node_id, voter_directory_id=v.directory_id,
                              endpoints=[V.Endpoint(name=self.listener, host=v.host, port=v.port)],
                              kraft_version_feature=V.KRaftVersionFeature(min_supported_version=KRAFT_VERSIONS[0],
                                                                          max_supported_version=KRAFT_VERSIONS[-1]))
                      for v in self.voters]  # fmt: skip
            records.append((ControlRecordType.KRAFT_VOTERS, V(version=0, voters=voters).encode(0)))
        return records

    def directory_id(self, node_id: int) -> Uuid | None:
        """The metadata log directory's id when the node is one of the initial voters."""
        return next((v.directory_id for v in self.voters if v.node_id == node_id), None)


def _listeners(text: str) -> dict[str, tuple[str, int]]:
    """``NAME://host:port`` entries by name (an empty host left empty)."""
    found: dict[str, tuple[str, int]] = {}
    for entry in (e.strip() for e in text.split(",") if e.strip()):
        match = re.fullmatch(r"([^:]+)://(\[[^\]]*\]|[^:]*):(\d+)", entry)
        if not match:
            raise FormatError(f"listener {entry!r} is not NAME://host:port")
        found.setdefault(match[1], (match[2].strip("[]"), int(match[3])))
    return found


def quorum_settings(
    config: dict[str, str], node_id: int, roles: set[str], standalone: bool = False,
    initial_controllers: str | None = None, no_initial_controllers: bool = False,
    kraft_version: int | None = None,
) -> Quorum:  # fmt: skip
    """The quorum a node is formatted for, refusing what Kafka 4.4.0's storage tool refuses. The
    quorum is dynamic when controller.quorum.voters is empty (for a configuration that names no
    process.roles, which Kafka refuses outright, only when one of the three options is given)."""
    if sum(map(bool, (standalone, initial_controllers is not None, no_initial_controllers))) > 1:
        raise FormatError(
            "--standalone, --initial-controllers and --no-initial-controllers exclude one another"
        )
    static = config.get("controller.quorum.voters", "").strip()
    if roles and not static and not config.get("controller.quorum.bootstrap.servers", "").strip():
        raise FormatError("a node with process.roles needs controller.quorum.bootstrap.servers (the "
                          "bootstrap controllers) or controller.quorum.voters (the voters)")  # fmt: skip
    if static and (standalone or initial_controllers is not None):
        raise FormatError("--standalone and --initial-controllers format a dynamic quorum, but "
                          "controller.quorum.voters is set: remove it and set "
                          "controller.quorum.bootstrap.servers to use a dynamic quorum")  # fmt: skip
    voters: tuple[Voter, ...] = ()
    if initial_controllers is not None:
        voters = tuple(parse_initial_controllers(initial_controllers).values())
    controller = not roles or "controller" in roles
    if standalone:
        if not controller:
            raise FormatError("--standalone formats a controller, and this node is not one")
        voters = (_standalone_voter(config, node_id),)
    dynamic = not static and bool(
        roles or standalone or initial_controllers is not None or no_initial_controllers
    )
    if dynamic and "controller" in roles and not voters and not no_initial_controllers:
        raise FormatError("controller.quorum.voters is not set on this controller: give --standalone, "
                          "--initial-controllers or --no-initial-controllers")  # fmt: skip
    if kraft_version is None:
        kraft_version = 1 if dynamic else 0
    elif kraft_version not in KRAFT_VERSIONS:
        raise FormatError(
            f"kraft.version {kraft_version} is not a known level ({KRAFT_VERSIONS[0]} to {KRAFT_VERSIONS[-1]})"
        )
    elif kraft_version == 0 and dynamic:
        raise FormatError("kraft.version 0 cannot be set for a dynamic quorum (controller.quorum.voters "
                          "empty and --standalone, --initial-controllers or --no-initial-controllers "
                          "given): leave --feature kraft.version out")  # fmt: skip
    elif kraft_version > 0 and not dynamic:
        raise FormatError(f"kraft.version {kraft_version} needs a dynamic quorum: controller.quorum.voters "
                          "empty and one of --standalone, --initial-controllers or --no-initial-controllers")  # fmt: skip
    listener = ""
    if voters:
        names = [
            n.strip() for n in config.get("controller.listener.names", "").split(",") if n.strip()
        ]
        if not names:
            raise FormatError(
                "controller.listener.names is not set: the voters' endpoints are named after its first listener"
            )
        listener = names[0]
    return Quorum(kraft_version, voters, listener)


def _standalone_voter(config: dict[str, str], node_id: int) -> Voter:
    """This node as the only voter: its first controller listener's advertised address (else its
    listeners entry; an empty host is localhost) and a new directory id."""
    names = [n.strip() for n in config.get("controller.listener.names", "").split(",") if n.strip()]
    advertised, bound = _listeners(config.get("advertised.listeners", "")), _listeners(
        config.get("listeners", "")
    )
    for name in names:
        if name in advertised or name in bound:
            host, port = advertised.get(name) or bound[name]
            return Voter(node_id, host or "localhost", port, Uuid.random())
    raise FormatError(
        "--standalone: no controller listener found (controller.listener.names in listeners)"
    )


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
    config_path: Path, cluster_id: str, features: dict[str, int], ignore_formatted: bool = False,
    standalone: bool = False, initial_controllers: str | None = None, no_initial_controllers: bool = False,
) -> list[Path]:  # fmt: skip
    """Format every log directory of the node configured in ``config_path``; returns the files
    written. A directory that already holds meta.properties is an error unless ignored. From 4.4
    the bootstrap snapshot is written for a node whose process.roles names the controller (or
    names nothing), with the quorum's records; up to 4.3 ``bootstrap.checkpoint`` is written for
    every node, and the initial voters, when given, into a snapshot (0, 0) of their own. The
    metadata log directory of an initial voter takes its directory id from the voters."""
    config = parse_properties(Path(config_path).read_text(encoding="utf-8"), config_path)
    if "node.id" not in config:
        raise FormatError(f"{config_path}: node.id is missing")
    node_id = int(config["node.id"])
    Uuid.from_string(cluster_id)  # a cluster id is a Uuid in Kafka's text form
    dirs, metadata_dir = log_directories(config)
    roles = {r.strip() for r in config.get("process.roles", "").split(",") if r.strip()}
    features = dict(features)
    quorum = quorum_settings(config, node_id, roles, standalone, initial_controllers, no_initial_controllers,
                             features.pop(KRAFT_VERSION, None))  # fmt: skip
    now_ms = int(time.time() * 1000)
    writers: list[Callable[[Path], Path]] = []
    if not writes_checkpoint_layout(features):
        writers.append(lambda d: write_bootstrap_checkpoint(d, features, now_ms))
        if quorum.voters:
            writers.append(lambda d: write_quorum_snapshot(d, [], now_ms, quorum))
    elif not roles or "controller" in roles:
        writers.append(lambda d: write_bootstrap_snapshot(d, features, now_ms, quorum))
    # (a broker's metadata log starts empty from 4.4)
    written = []
    for directory in dirs:
        if (directory / "meta.properties").exists():
            if ignore_formatted:
                continue
            raise FormatError(f"{directory} is already formatted")
        directory.mkdir(parents=True, exist_ok=True)
        own = quorum.directory_id(node_id) if directory == metadata_dir else None
        meta = MetaProperties(
            version=1, cluster_id=cluster_id, node_id=node_id, directory_id=own or Uuid.random()
        )
        written.append(write_meta_properties(directory, meta))
        if directory == metadata_dir:
            written.extend(write(directory) for write in writers)
    return written
