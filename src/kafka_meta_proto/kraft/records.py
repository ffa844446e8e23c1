"""KRaft record values: metadata records and control records.

A metadata record value is ``uvarint frame version, uvarint record type, uvarint record version,
body``. Kafka writes frame version 1 and refuses any other (version 0 was the 2.8 preview format,
which had no frame varint). Control records (in control batches) are read by ``log.control``; its
names are re-exported here.
"""

from __future__ import annotations

from collections.abc import Callable
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
from ..registry import Registry
from ..wire import read_uvarint, uvarint

FRAME_VERSION = 1

# Control records live in log/control.py; these names stay for the code that imports them here.
CONTROL_RECORDS = CONTROL_MESSAGES
decode_control_key = parse_control_key
encode_control_key = control_key


def decode_control_record(
    key: BytesLike | None, value: BytesLike | None, registry: RegistryLike = None
) -> ControlRecord:
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
        if (
            c.isupper()
            and i
            and (not name[i - 1].isupper() or (i + 1 < len(name) and name[i + 1].islower()))
        ):
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
    record_type, version, message = read_record_value(value, registry)
    if registry is REGISTRY:
        _RECORD_CLASSES[record_type] = type(message)
    return MetadataRecord(record_type, version, message)


def read_record_value(value: BytesLike, registry: Registry, record_class: Callable[[int], type[Message]] | None = None) -> tuple[int, int, Message]:  # fmt: skip
    """``(record type, version, message)`` of a metadata record value: the one reader of the frame
    in Python (the compiled codec's value reader is its twin). ``record_class`` gives a type's
    class, a KeyError for a type it does not know (``registry.record_class`` by default; the
    pipeline passes its own, which remembers). A DecodeError names the field and the offset,
    with the registry's note on a type that means something else elsewhere."""
    data = value if type(value) is bytes else bytes(value)
    if len(data) > 2 and data[0] == FRAME_VERSION and data[1] < 0x80 and data[2] < 0x80:
        record_type, version = data[1], data[2]  # nearly every frame: three one-byte varints
        cls = _record_class(record_type, 1, registry, record_class)
        version_at, pos = 2, 3
    else:
        record_type, cls, version, version_at, pos = _frame_by_field(data, registry, record_class)
    try:
        if not cls.LOWEST_VERSION <= version <= cls.HIGHEST_VERSION:
            raise DecodeError(f"{cls.NAME} has no version {version}", version_at, "record_version")
        # offsets in errors stay relative to the whole value
        message, end = cls.decode_from(data, version, pos)
        if end != len(data):
            raise DecodeError(
                f"{len(data) - end} bytes after the record body",
                end,
                context=f"{cls.NAME} v{version}",
            )
    except DecodeError as e:
        raise registries.explain(e, registry, "metadata", record_type) from None
    return record_type, version, message


def _frame_by_field(data: bytes, registry: Registry, record_class: Callable[[int], type[Message]] | None) -> tuple[int, type[Message], int, int, int]:  # fmt: skip
    """The frame read a varint at a time, a DecodeError naming the field that is wrong (the type
    is looked up before the version is read): ``(record type, class, version, the version's
    position, the body's)``."""
    frame_version, pos = _header_varint(data, 0, "frame_version")
    if frame_version != FRAME_VERSION:
        raise DecodeError(
            f"unknown metadata frame version {frame_version} (Kafka writes {FRAME_VERSION})",
            0,
            "frame_version",
        )
    type_at = pos
    record_type, pos = _header_varint(data, pos, "record_type")
    cls = _record_class(record_type, type_at, registry, record_class)
    version, body = _header_varint(data, pos, "record_version")
    return record_type, cls, version, pos, body


def _record_class(record_type: int, at: int, registry: Registry, record_class: Callable[[int], type[Message]] | None) -> type[Message]:  # fmt: skip
    try:
        return (record_class or registry.record_class)(record_type)
    except KeyError:
        error = DecodeError(f"unknown metadata record type {record_type}", at, "record_type")
        raise registries.explain(error, registry, "metadata", record_type) from None


def _header_varint(data: bytes, pos: int, field: str) -> tuple[int, int]:
    try:
        return read_uvarint(data, pos)
    except DecodeError as e:
        raise e.within(field) from None


def encode_record_value(
    message: Message, version: int, frame_version: int = FRAME_VERSION
) -> bytes:
    """The record value for a metadata record message at ``version``."""
    if getattr(message, "MESSAGE_TYPE", None) != "metadata":
        what = type(message).__name__ if isinstance(message, Message) else repr(message)[:60]
        raise EncodeError(f"{what} is not a KRaft metadata record; only those make a record value")
    record_type = message.API_KEY
    assert record_type is not None  # every metadata record has its type
    out = bytearray(uvarint(frame_version) + uvarint(record_type) + uvarint(version))
    message.encode_into(out, version)
    return bytes(out)
