"""KRaft record values: metadata records and control records.

A metadata record value is ``uvarint frame version, uvarint record type, uvarint record version,
body``. Kafka writes frame version 1 and refuses any other (version 0 was the 2.8 preview format,
which had no frame varint). Control records (in control batches) are read by ``log.control``; its
names are re-exported here.
"""

from __future__ import annotations

from dataclasses import dataclass

from .. import registries
from ..codec import compiled_record_value_reader
from ..errors import DecodeError, EncodeError
from ..log.control import (
    ABORT,
    COMMIT,
    CONTROL_MESSAGES,
    CONTROL_TYPE_NAMES,
    KRAFT_VERSION,
    KRAFT_VOTERS,
    LEADER_CHANGE,
    SNAPSHOT_FOOTER,
    SNAPSHOT_HEADER,
    ControlRecord,
    control_key,
    parse_control_key,
)
from ..log import control
from ..message import BytesLike, Message
from ..messages import REGISTRY
from ..registries import RegistryLike
from ..wire import read_uvarint, uvarint

FRAME_VERSION = 1

# Control records live in log/control.py; these names stay for the code that imports them here.
CONTROL_RECORDS = CONTROL_MESSAGES
decode_control_key = parse_control_key
encode_control_key = control_key


def decode_control_record(key: BytesLike | None, value: BytesLike | None, registry: RegistryLike = None) -> ControlRecord:
    """Decode a control record, its KRaft messages from ``registry`` (Kafka's by default)."""
    return control.decode_control_record(key, value, registries.resolve(registry).message_class)


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


# The compiled codec's reader of whole record values (None under pure Python), with the classes
# of the record types met so far; anything it declines is read below, which names the problem.
_read_record_value = compiled_record_value_reader()
_RECORD_CLASSES: dict[int, type] = {}


def decode_record_value(value: BytesLike, registry: RegistryLike = REGISTRY) -> MetadataRecord:
    """Decode a metadata record value (frame, type, version, body) with Kafka's registry or the
    one given (a registry or a shipped registry's name, e.g. "diskless"). Where the record type
    means something else in another shipped registry, the error says so and how to choose."""
    if _read_record_value is not None and registry is REGISTRY and type(value) is bytes:
        read = _read_record_value(value, _RECORD_CLASSES)
        if read is not None:
            return MetadataRecord(*read)
    registry = registries.resolve(registry)
    data = bytes(value)
    frame_version, pos = _header_varint(data, 0, "frame_version")
    if frame_version != FRAME_VERSION:
        raise DecodeError(f"unknown metadata frame version {frame_version} (Kafka writes {FRAME_VERSION})", 0, "frame_version")
    start = pos
    record_type, pos = _header_varint(data, pos, "record_type")
    try:
        cls = registry.record_class(record_type)
    except KeyError:
        error = DecodeError(f"unknown metadata record type {record_type}", start, "record_type")
        raise registries.explain(error, registry, "metadata", record_type) from None
    start = pos
    version, pos = _header_varint(data, pos, "record_version")
    try:
        if version not in cls.versions():
            raise DecodeError(f"{cls.NAME} has no version {version}", start, "record_version")
        message, end = cls.decode_from(data, version, pos)  # offsets stay relative to the whole value
        if end != len(data):
            raise DecodeError(f"{len(data) - end} bytes after the record body", end, context=f"{cls.NAME} v{version}")
    except DecodeError as e:
        raise registries.explain(e, registry, "metadata", record_type) from None
    if registry is REGISTRY:
        _RECORD_CLASSES[record_type] = cls
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
    record_type = message.API_KEY
    assert record_type is not None  # every metadata record has its type
    out = bytearray(uvarint(frame_version) + uvarint(record_type) + uvarint(version))
    message.encode_into(out, version)
    return bytes(out)
