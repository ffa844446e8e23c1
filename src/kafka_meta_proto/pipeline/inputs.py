"""Finding the input: KRaft metadata files under a directory tree, grouped by cluster, cut into units.

A cluster is a directory holding ``__cluster_metadata-<n>/`` (Kafka's metadata log directory):

- ``<cluster>/__cluster_metadata-0/<20-digit base offset>.log``: log segments;
- ``<cluster>/__cluster_metadata-0/<end offset>-<epoch>.checkpoint``: snapshots;
- ``<cluster>/bootstrap.checkpoint``: the bootstrap records ``kafka-storage format`` writes (up
  to Kafka 4.3; from 4.4 they are the snapshot ``00000000000000000000-0000000000.checkpoint`` in
  ``__cluster_metadata-0``, found as a snapshot with end offset 0 and epoch 0, the one a never
  started node's replay starts from).

A ``bootstrap.checkpoint`` with no ``__cluster_metadata-*`` beside it still makes its directory a
cluster. Everything else (data partitions, index files, ``.deleted`` and ``.swap`` files, side
files) is left out. The cluster's name is its directory's path relative to the PATH argument
(just the directory name when PATH is the fleet directory, or the directory itself), so it is
unique within a run.

Listing works on local paths (plain or ``file://``) with ``os.scandir`` and on any other URI
through the Hadoop FileSystem of the running Spark session (HDFS, S3A, ABFS, GCS...).

Each file becomes one unit of work; a file larger than ``chunk_bytes`` becomes several, each
covering a byte range (the worker finds the first batch of its range by its CRC, see decode.py).
"""

from __future__ import annotations

import os
import posixpath
from dataclasses import asdict, dataclass, field

from .. import registries
from ..log import names
from ..log.names import FileKind
from ..log.source import is_local, local_path

SEGMENT, SNAPSHOT, BOOTSTRAP = FileKind.SEGMENT.value, FileKind.SNAPSHOT.value, FileKind.BOOTSTRAP.value

DEFAULT_CHUNK_BYTES = 64 << 20
SNAPSHOT_SEQ_SHIFT = -(1 << 62)  # replay order of snapshot records: before every log offset


@dataclass(frozen=True)
class InputFile:
    """One metadata file: where it is, whose it is and what it holds."""

    cluster: str
    file: str  # path relative to the cluster directory, e.g. __cluster_metadata-0/000...0.log
    uri: str  # what the workers open: a local path or a URI
    kind: str  # segment, snapshot or bootstrap
    size: int
    base_offset: int | None = None  # segments: from the name
    end_offset: int | None = None  # snapshots: from the name (exclusive)
    epoch: int | None = None  # snapshots: from the name


@dataclass(frozen=True)
class Unit:
    """A byte range of a file, decoded by one worker: [start, end) of ``size`` bytes."""

    unit: int
    cluster: str
    file: str
    uri: str
    kind: str
    start: int
    end: int
    size: int
    registry: str = registries.KAFKA  # the shipped registry its metadata records are read with

    def row(self) -> dict:
        return asdict(self)


@dataclass
class StreamPlan:
    """Which records of a cluster its metadata audits replay, in which order.

    ``snapshot``: the snapshot file replayed first (None when the log starts at offset 0, or
    there is no snapshot to start from); ``log_from``: the first log offset replayed after it
    (None without segments); ``complete``: the replay starts from an empty cluster (the log from
    offset 0, or a snapshot), so references to things never seen are real findings.
    """

    cluster: str
    snapshot: str | None
    log_from: int | None
    complete: bool


@dataclass
class Inventory:
    roots: list[str]
    files: list[InputFile] = field(default_factory=list)
    clusters: dict[str, str] = field(default_factory=dict)  # name -> directory
    # name -> the registry its records are read with, where its marker names one (else Kafka's)
    registries: dict[str, str] = field(default_factory=dict)

    @property
    def total_bytes(self) -> int:
        return sum(f.size for f in self.files)

    def plans(self) -> dict[str, StreamPlan]:
        by_cluster: dict[str, list[InputFile]] = {}
        for f in self.files:
            by_cluster.setdefault(f.cluster, []).append(f)
        return {name: stream_plan(name, files) for name, files in sorted(by_cluster.items())}

    def units(self, chunk_bytes: int = DEFAULT_CHUNK_BYTES) -> list[Unit]:
        units = []
        for f in self.files:
            for start, end in chunk_ranges(f.size, chunk_bytes):
                registry = self.registries.get(f.cluster, registries.KAFKA)
                units.append(Unit(len(units), f.cluster, f.file, f.uri, f.kind, start, end, f.size, registry))
        return units


def stream_plan(cluster: str, files: list[InputFile]) -> StreamPlan:
    """The replay for one cluster: the log from offset 0; else the newest snapshot that reaches
    the log's first offset, then the log after it; else what there is, marked incomplete."""
    segments = sorted((f for f in files if f.kind == SEGMENT), key=lambda f: f.base_offset)
    snapshots = sorted((f for f in files if f.kind == SNAPSHOT), key=lambda f: (f.end_offset, f.epoch))
    if segments and segments[0].base_offset == 0:
        return StreamPlan(cluster, None, 0, True)
    log_start = segments[0].base_offset if segments else None
    usable = [s for s in snapshots if log_start is None or s.end_offset >= log_start]
    if usable:
        snap = usable[-1]
        return StreamPlan(cluster, snap.file, snap.end_offset if segments else None, True)
    return StreamPlan(cluster, None, log_start, False)


def chunk_ranges(size: int, chunk_bytes: int) -> list[tuple[int, int]]:
    """[start, end) ranges of about ``chunk_bytes`` covering a file (one range for a small file)."""
    if chunk_bytes <= 0 or size <= chunk_bytes:
        return [(0, size)]
    count = -(-size // chunk_bytes)
    step = -(-size // count)
    return [(start, min(size, start + step)) for start in range(0, size, step)]


# --- listing ---------------------------------------------------------------------------------


def classify(path: str) -> tuple[str, str, dict] | None:
    """``(kind, cluster directory, name facts)`` for a metadata file path (``/`` separated), or None."""
    parent, name = posixpath.split(path)
    in_log_dir = names.is_metadata_log_dir(posixpath.basename(parent))
    found = names.file_kind(name, in_log_dir)
    if found is None:
        return None
    kind, facts = found
    # plain strings travel to Spark's JVM and back; enum members would not
    return kind.value, posixpath.dirname(parent) if in_log_dir else parent, facts


def list_local(root: str) -> list[tuple[str, int]]:
    """(path, size) of every file under ``root`` (or ``root`` itself if it is a file)."""
    root = local_path(root)
    if os.path.isfile(root):
        return [(os.path.abspath(root), os.path.getsize(root))]
    if not os.path.isdir(root):
        raise FileNotFoundError(f"no such file or directory: {root}")
    found = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for name in sorted(filenames):
            if name.endswith((names.SEGMENT_SUFFIX, names.SNAPSHOT_SUFFIX)) or name == registries.MARKER:
                path = os.path.join(dirpath, name)
                try:
                    found.append((os.path.abspath(path), os.path.getsize(path)))
                except OSError:
                    continue
    return found


def list_hadoop(spark, root: str) -> tuple[str, list[tuple[str, int]]]:
    """``root`` fully qualified, and (URI, size) of every file under it, through the session's
    Hadoop FileSystem."""
    jvm = spark.sparkContext._jvm
    conf = spark.sparkContext._jsc.hadoopConfiguration()
    path = jvm.org.apache.hadoop.fs.Path(root)
    fs = path.getFileSystem(conf)
    qualified = fs.makeQualified(path).toString().rstrip("/")
    status = fs.getFileStatus(path)
    if status.isFile():
        return qualified, [(status.getPath().toString(), status.getLen())]
    found = []
    files = fs.listFiles(path, True)
    while files.hasNext():
        st = files.next()
        uri = st.getPath().toString()
        if uri.endswith((names.SEGMENT_SUFFIX, names.SNAPSHOT_SUFFIX)) or posixpath.basename(uri) == registries.MARKER:
            found.append((uri, st.getLen()))
    return qualified, sorted(found)


def _posix(path: str) -> str:
    return path.replace(os.sep, "/") if os.sep != "/" else path


def _root_dir(root: str, listed_single_file: bool) -> str:
    return posixpath.dirname(root) if listed_single_file else root.rstrip("/")


def discover(paths: list[str], spark=None) -> Inventory:
    """Every metadata file under ``paths``, with cluster names unique across them."""
    inventory = Inventory(roots=list(paths))
    names: dict[str, str] = {}  # cluster directory -> name
    for root in paths:
        if is_local(root):  # workers open local paths directly
            root_dir = _posix(os.path.abspath(local_path(root)))
            entries = [(_posix(p), size) for p, size in list_local(root)]
        else:
            if spark is None:
                raise ValueError(f"{root}: listing a non-local URI needs a Spark session")
            root_dir, entries = list_hadoop(spark, root)
        single = len(entries) == 1 and entries[0][0].rstrip("/") == root_dir
        base = _root_dir(root_dir, single)
        markers = {posixpath.dirname(p): p for p, _ in entries if posixpath.basename(p) == registries.MARKER}
        for path, size in entries:
            facts = classify(path)
            if facts is None:
                continue
            kind, cluster_dir, extra = facts
            name = names.get(cluster_dir)
            if name is None:
                name = cluster_name(cluster_dir, base)
                if name in inventory.clusters and inventory.clusters[name] != cluster_dir:
                    name = cluster_dir  # the same relative name under two PATHs: use the full path
                names[cluster_dir] = name
                inventory.clusters[name] = cluster_dir
                marker = markers.get(cluster_dir) or markers.get(posixpath.dirname(path))
                if marker is not None:
                    inventory.registries[name] = read_marker(marker, spark)
            rel = path[len(cluster_dir) + 1 :] if path.startswith(cluster_dir + "/") else posixpath.basename(path)
            inventory.files.append(InputFile(name, rel, path, kind, size, **extra))
    inventory.files.sort(key=lambda f: (f.cluster, f.kind != BOOTSTRAP, f.file))
    return inventory


def read_marker(uri: str, spark=None) -> str:
    """The registry a cluster's marker file names (read locally, or through Spark for a URI)."""
    if is_local(uri):
        with open(local_path(uri), encoding="utf-8") as f:
            text = f.read(64).strip()
    else:
        text = spark.read.text(uri).first()[0].strip()
    if text not in registries.PACKAGES:
        raise ValueError(f"{uri} names no registry this package ships: {text!r}")
    return text


def cluster_name(cluster_dir: str, root: str) -> str:
    """The cluster directory relative to the root, or its own name when it is the root or above it."""
    if cluster_dir.startswith(root + "/"):
        return cluster_dir[len(root) + 1 :]
    return posixpath.basename(cluster_dir) or cluster_dir
