"""KRaft record values: metadata records and control records.

A metadata record value is ``uvarint frame version, uvarint record type, uvarint record version,
body``. Kafka writes frame version 1 and refuses any other (version 0 was the 2.8 preview format,
which had no frame varint). Control records (in control batches) have a 4-byte key, int16 version
and int16 type, and a value that is the body alone, read at schema version 0 as Kafka does.
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import DecodeError, EncodeError
from .message import Message
from .messages import REGISTRY
from .wire import read_uvarint, uvarint

FRAME_VERSION = 1

# Kafka's ControlRecordType codes.
ABORT, COMMIT, LEADER_CHANGE, SNAPSHOT_HEADER, SNAPSHOT_FOOTER, KRAFT_VERSION, KRAFT_VOTERS = range(7)
CONTROL_RECORDS = {
    LEADER_CHANGE: "LeaderChangeMessage",
    SNAPSHOT_HEADER: "SnapshotHeaderRecord",
    SNAPSHOT_FOOTER: "SnapshotFooterRecord",
    KRAFT_VERSION: "KRaftVersionRecord",
    KRAFT_VOTERS: "VotersRecord",
}
CONTROL_TYPE_NAMES = {ABORT: "ABORT", COMMIT: "COMMIT", **{k: v for k, v in {
    LEADER_CHANGE: "LEADER_CHANGE", SNAPSHOT_HEADER: "SNAPSHOT_HEADER", SNAPSHOT_FOOTER: "SNAPSHOT_FOOTER",
    KRAFT_VERSION: "KRAFT_VERSION", KRAFT_VOTERS: "KRAFT_VOTERS"}.items()}}  # fmt: skip


@dataclass
class MetadataRecord:
    """A decoded metadata record value."""

    record_type: int
    version: int
    message: Message
    frame_version: int = FRAME_VERSION

    @property
    def type_name(self) -> str:
        """Kafka's name for the type in dump output: ``TopicRecord`` -> ``TOPIC_RECORD``."""
        return record_type_name(self.message.NAME)

    def encode(self) -> bytes:
        return encode_record_value(self.message, self.version, self.frame_version)


def record_type_name(name: str) -> str:
    out = []
    for i, c in enumerate(name):
        if c.isupper() and i and (not name[i - 1].isupper() or (i + 1 < len(name) and name[i + 1].islower())):
            out.append("_")
        out.append(c.upper())
    return "".join(out)


def decode_record_value(value, registry=REGISTRY) -> MetadataRecord:
    """Decode a metadata record value (frame, type, version, body)."""
    data = bytes(value)
    frame_version, pos = _header_varint(data, 0, "frame_version")
    if frame_version != FRAME_VERSION:
        raise DecodeError(f"unknown metadata frame version {frame_version} (Kafka writes {FRAME_VERSION})", 0, "frame_version")
    start = pos
    record_type, pos = _header_varint(data, pos, "record_type")
    try:
        cls = registry.record_class(record_type)
    except KeyError:
        raise DecodeError(f"unknown metadata record type {record_type}", start, "record_type") from None
    start = pos
    version, pos = _header_varint(data, pos, "record_version")
    if version not in cls.versions():
        raise DecodeError(f"{cls.NAME} has no version {version}", start, "record_version")
    message, end = cls.decode_from(data, version, pos)  # offsets stay relative to the whole value
    if end != len(data):
        raise DecodeError(f"{len(data) - end} bytes after the record body", end, context=f"{cls.NAME} v{version}")
    return MetadataRecord(record_type, version, message, frame_version)


def _header_varint(data: bytes, pos: int, field: str) -> tuple[int, int]:
    try:
        return read_uvarint(data, pos)
    except DecodeError as e:
        raise e.within(field) from None


def encode_record_value(message: Message, version: int, frame_version: int = FRAME_VERSION) -> bytes:
    """The record value for a metadata record message at ``version``."""
    if getattr(message, "MESSAGE_TYPE", None) != "metadata":
        what = type(message).__name__ if isinstance(message, Message) else repr(message)[:60]
        raise EncodeError(f"{what} is not a KRaft metadata record; only those make a record value")
    out = bytearray(uvarint(frame_version) + uvarint(message.API_KEY) + uvarint(version))
    message.encode_into(out, version)
    return bytes(out)


@dataclass
class ControlRecord:
    """A decoded control record: its type and, for the KRaft types, the message."""

    control_type: int
    key_version: int
    message: Message | None  # None for ABORT/COMMIT markers
    coordinator_epoch: int | None = None  # for ABORT/COMMIT markers

    @property
    def type_name(self) -> str:
        return CONTROL_TYPE_NAMES.get(self.control_type, "UNKNOWN")


def decode_control_key(key) -> tuple[int, int]:
    """(key version, control type) from a control record key."""
    if key is None or len(key) < 4:
        raise DecodeError("control record key shorter than 4 bytes", 0, "key")
    version = int.from_bytes(key[0:2], "big", signed=True)
    if version < 0:
        raise DecodeError(f"negative control record key version {version}", 0, "key.version")
    return version, int.from_bytes(key[2:4], "big", signed=True)


def decode_control_record(key, value, registry=REGISTRY) -> ControlRecord:
    key_version, ctype = decode_control_key(key)
    if ctype in (ABORT, COMMIT):
        if value is None or len(value) < 6:
            raise DecodeError("transaction marker value shorter than 6 bytes", 0, "value")
        return ControlRecord(ctype, key_version, None, int.from_bytes(value[2:6], "big", signed=True))
    name = CONTROL_RECORDS.get(ctype)
    if name is None:
        raise DecodeError(f"unknown control record type {ctype}", 2, "key.type")
    return ControlRecord(ctype, key_version, registry.message_class(name).decode(bytes(value or b""), 0))


def encode_control_key(control_type: int, key_version: int = 0) -> bytes:
    return key_version.to_bytes(2, "big", signed=True) + control_type.to_bytes(2, "big", signed=True)
