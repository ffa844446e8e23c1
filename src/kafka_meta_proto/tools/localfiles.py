"""The small text files a Kafka broker keeps in its log directories.

``partition.metadata`` (in each ``<topic>-<partition>`` directory) records the topic ID the
partition's log belongs to. Kafka writes exactly ``"version: 0\\ntopic_id: <uuid>"`` (no final
newline) and reads two lines ``<key>:<whitespace><value>``: ``version`` (an int, at least 0) then
``topic_id`` (a Kafka uuid, not the zero uuid); anything after them is ignored.

``meta.properties`` (at the top of each log directory) is a Java properties file:

- version 0 (ZooKeeper-era brokers; also the default when ``version`` is absent): ``broker.id``
  and ``cluster.id``, neither of them required;
- version 1 (KRaft): ``node.id`` and ``cluster.id`` required, ``directory.id`` optional;
- version 2 (newer KRaft): ``node.id`` and ``directory.id`` required, ``cluster.id`` optional.

Kafka writes it with ``Properties.store``: a ``#`` line, a ``#<date>`` line, then ``key=value``
lines. Problems raise ``LocalFileError`` naming the file and what is wrong with it.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Union

from ..uuid import Uuid

# A file's path as the functions here take it.
StrPath = Union[str, "os.PathLike[str]"]

PARTITION_METADATA = "partition.metadata"
META_PROPERTIES = "meta.properties"
PARTITION_METADATA_VERSION = 0


class LocalFileError(ValueError):
    """A local metadata file that is missing, malformed or inconsistent."""

    def __init__(self, path: StrPath, problem: str):
        self.path = str(path)
        self.problem = problem
        super().__init__(f"{self.path}: {problem}")


def _file(path: StrPath, name: str) -> Path:
    path = Path(path)
    return path / name if path.is_dir() else path


def _read_text(path: Path) -> str:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise LocalFileError(path, "no such file") from None
    except OSError as exc:
        raise LocalFileError(path, f"cannot read: {exc.strerror or exc}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("latin-1")  # Java's Properties.load(InputStream) reads ISO-8859-1


def _write_atomically(path: Path, text: str) -> None:
    """Write to ``<path>.tmp``, fsync, rename over ``path`` (as Kafka does)."""
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w", encoding="utf-8", newline="") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def _parse_uuid(path: StrPath, key: str, value: str) -> Uuid:
    try:
        return Uuid.from_string(value)
    except ValueError:
        raise LocalFileError(
            path, f"{key} {value!r} is not a Kafka uuid (22 URL-safe base64 characters)"
        ) from None


# --- partition.metadata -------------------------------------------------------------------------


@dataclass(frozen=True)
class PartitionMetadata:
    topic_id: Uuid
    version: int = PARTITION_METADATA_VERSION

    def encode(self) -> str:
        """The file's text, byte for byte as Kafka writes it."""
        return f"version: {self.version}\ntopic_id: {self.topic_id}"


_KEY_VALUE = re.compile(r":[ \t\n\x0b\f\r]+")  # Java's ":\\s+"
_INT = re.compile(r"[+-]?[0-9]+")  # what Java's Integer.parseInt takes (range aside)


def parse_partition_metadata(text: str, path: StrPath = "partition.metadata") -> PartitionMetadata:
    lines = re.split(r"\r\n|\r|\n", text)

    def field(index: int, key: str) -> str:
        line = lines[index] if index < len(lines) else None
        if line is None or (index == len(lines) - 1 and line == ""):
            raise LocalFileError(path, f"line {index + 1} is missing (expected '{key}: ...')")
        parts = _KEY_VALUE.split(line, maxsplit=1)
        if len(parts) != 2 or parts[0] != key:
            raise LocalFileError(
                path, f"malformed line {index + 1} {line!r} (expected '{key}: ...')"
            )
        return parts[1]

    raw_version = field(0, "version")
    if not _INT.fullmatch(raw_version):
        raise LocalFileError(path, f"version {raw_version!r} is not a number")
    version = int(raw_version)
    if version < PARTITION_METADATA_VERSION:
        raise LocalFileError(path, f"unknown version {version}")
    topic_id = _parse_uuid(path, "topic_id", field(1, "topic_id"))
    if topic_id == Uuid.ZERO_UUID:
        raise LocalFileError(path, "topic_id is the zero uuid, which no topic has")
    return PartitionMetadata(topic_id, version)


def read_partition_metadata(path: StrPath) -> PartitionMetadata:
    """Read ``partition.metadata``; ``path`` is the file or the partition directory."""
    path = _file(path, PARTITION_METADATA)
    return parse_partition_metadata(_read_text(path), path)


def write_partition_metadata(path: StrPath, topic_id: Uuid) -> Path:
    """Write ``partition.metadata`` (``path``: the file or the partition directory); returns the file."""
    path = _file(path, PARTITION_METADATA)
    _write_atomically(path, PartitionMetadata(topic_id).encode())
    return path


# --- Java properties ----------------------------------------------------------------------------

_ESCAPES = {"t": "\t", "n": "\n", "r": "\r", "f": "\f"}
_DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")


def _logical_lines(text: str) -> Iterator[str]:
    """Java's LineReader: skip blank and comment lines, join lines ending in an odd number of ``\\``."""
    pending: str | None = None
    for line in re.split(r"\r\n|\r|\n", text):
        stripped = line.lstrip(" \t\f")
        if pending is None and (not stripped or stripped[0] in "#!"):
            continue
        line = stripped if pending is None else pending + stripped
        trailing = len(line) - len(line.rstrip("\\"))
        if trailing % 2:
            pending = line[:-1]
            continue
        pending = None
        yield line
    if pending is not None:
        yield pending


def _unescape(text: str, path: StrPath) -> str:
    out, i = [], 0
    while i < len(text):
        c = text[i]
        if c != "\\" or i + 1 == len(text):
            out.append(c)
            i += 1
            continue
        c = text[i + 1]
        if c == "u":
            digits = text[i + 2 : i + 6]
            if len(digits) != 4 or not all(d in "0123456789abcdefABCDEF" for d in digits):
                raise LocalFileError(path, f"malformed \\uXXXX escape in {text!r}")
            out.append(chr(int(digits, 16)))
            i += 6
        else:
            out.append(_ESCAPES.get(c, c))
            i += 2
    return "".join(out)


def parse_properties(text: str, path: StrPath = "<properties>") -> dict[str, str]:
    """The key/value pairs of a Java properties text (``Properties.load`` rules)."""
    props = {}
    for line in _logical_lines(text):
        i, n = 0, len(line)
        while i < n:  # the key ends at an unescaped =, : or whitespace
            c = line[i]
            if c == "\\":
                i += 2
                continue
            if c in "=: \t\f":
                break
            i += 1
        key, j = line[:i], i
        while j < n and line[j] in " \t\f":
            j += 1
        if j < n and line[j] in "=:":
            j += 1
            while j < n and line[j] in " \t\f":
                j += 1
        props[_unescape(key, path)] = _unescape(line[j:], path)
    return props


def _escape(text: str, is_key: bool) -> str:
    out = []
    for i, c in enumerate(text):
        if c == " ":
            out.append("\\ " if is_key or i == 0 else " ")
        elif c in "\t\n\r\f":
            out.append("\\" + {"\t": "t", "\n": "n", "\r": "r", "\f": "f"}[c])
        elif c in "=:#!\\":
            out.append("\\" + c)
        else:
            out.append(c)
    return "".join(out)


def java_date(moment: datetime | None = None) -> str:
    """``java.util.Date.toString()`` of ``moment`` (default now), in UTC: ``Thu Jun 13 13:06:08 UTC 2024``."""
    m = (moment or datetime.now(timezone.utc)).astimezone(timezone.utc)
    return f"{_DAYS[m.weekday()]} {_MONTHS[m.month - 1]} {m.day:02d} {m:%H:%M:%S} UTC {m.year}"


def format_properties(
    props: dict[str, str], comment: str = "", moment: datetime | None = None
) -> str:
    """Properties text as ``Properties.store(writer, comment)`` writes it: comment, date, entries."""
    lines = [f"#{comment}", f"#{java_date(moment)}"]
    lines += [f"{_escape(k, True)}={_escape(v, False)}" for k, v in props.items()]
    return "\n".join(lines) + "\n"


# --- meta.properties ---------------------------------------------------------------------------


@dataclass(frozen=True)
class MetaProperties:
    version: int
    cluster_id: str | None = None
    node_id: int | None = None  # broker.id in version 0, node.id from version 1
    directory_id: Uuid | None = None

    def to_properties(self) -> dict[str, str]:
        """The keys, in the order Kafka's files show them."""
        props = {}
        if self.node_id is not None:
            props["broker.id" if self.version == 0 else "node.id"] = str(self.node_id)
        if self.directory_id is not None:
            props["directory.id"] = str(self.directory_id)
        props["version"] = str(self.version)
        if self.cluster_id is not None:
            props["cluster.id"] = self.cluster_id
        return props


def _int_prop(props: dict[str, str], key: str, path: StrPath, required: bool) -> int | None:
    value = props.get(key)
    if value is None:
        if required:
            raise LocalFileError(path, f"{key} is missing")
        return None
    if not _INT.fullmatch(value):
        raise LocalFileError(path, f"{key} {value!r} is not a base-10 number")
    number = int(value)
    if not -(2**31) <= number < 2**31:
        raise LocalFileError(path, f"{key} {value!r} does not fit in an int32")
    return number


def parse_meta_properties(text: str, path: StrPath = "meta.properties") -> MetaProperties:
    props = parse_properties(text, path)
    raw_version = props.get("version", "0")
    if not _INT.fullmatch(raw_version.strip()):
        raise LocalFileError(path, f"version {raw_version!r} is not a number")
    version = int(raw_version)
    if version not in (0, 1, 2):
        raise LocalFileError(path, f"unknown version {version} (known: 0, 1, 2)")
    if version == 0:
        node_id = _int_prop(props, "broker.id", path, required=False)
    else:
        node_id = _int_prop(props, "node.id", path, required=True)
    cluster_id = props.get("cluster.id")
    if version == 1 and cluster_id is None:
        raise LocalFileError(path, "cluster.id is missing")
    directory_id = None
    if "directory.id" in props:
        directory_id = _parse_uuid(path, "directory.id", props["directory.id"])
    elif version == 2:
        raise LocalFileError(path, "directory.id is missing")
    return MetaProperties(version, cluster_id, node_id, directory_id)


def read_meta_properties(path: StrPath) -> MetaProperties:
    """Read ``meta.properties``; ``path`` is the file or the log directory."""
    path = _file(path, META_PROPERTIES)
    return parse_meta_properties(_read_text(path), path)


def write_meta_properties(
    path: StrPath, meta: MetaProperties, moment: datetime | None = None
) -> Path:
    """Write ``meta.properties`` (``path``: the file or the log directory); returns the file.

    The values are checked the way reading them back would check them.
    """
    path = _file(path, META_PROPERTIES)
    text = format_properties(meta.to_properties(), "", moment)
    parse_meta_properties(text, path)  # refuse to write what could not be read back
    _write_atomically(path, text)
    return path
