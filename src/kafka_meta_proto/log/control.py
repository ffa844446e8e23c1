"""Control records: the records of a control batch, their keys, values and JSON form.

A control record's key is ``int16 version, int16 type`` (a later key version may only add fields
after these, so Kafka reads any version >= 0). Its value depends on the type: transaction markers
(ABORT, COMMIT) hold ``int16 version, int32 coordinatorEpoch``; the KRaft types hold a message
body read at schema version 0, as Kafka reads them.

The JSON form is what Kafka's dump tool prints for them: the message's fields written at the
version its own ``Version`` field names (Kafka's converters are called with ``message.version()``),
and for a marker ``{"coordinatorEpoch": n}`` with the value's version beside it.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from enum import IntEnum
from typing import TYPE_CHECKING, Any, Callable

from ..errors import DecodeError
from .errors import LogFormatError

if TYPE_CHECKING:
    from ..message import Message
    from .source import Buffer

    # The message class of a name (a registry's message_class): the caller knows the registry.
    MessageClassOf = Callable[[str], type[Message]]

_KEY = struct.Struct(">hh")
_MARKER = struct.Struct(">hi")


class ControlRecordType(IntEnum):
    """The ``type`` of a control record's key (Kafka's ControlRecordType)."""

    ABORT = 0
    COMMIT = 1
    LEADER_CHANGE = 2
    SNAPSHOT_HEADER = 3
    SNAPSHOT_FOOTER = 4
    KRAFT_VERSION = 5
    KRAFT_VOTERS = 6

    @classmethod
    def of(cls, type_id: int) -> ControlRecordType | int:
        """The member, or the number itself for a type this library does not know."""
        try:
            return cls(type_id)
        except ValueError:
            return type_id


ABORT, COMMIT, LEADER_CHANGE, SNAPSHOT_HEADER, SNAPSHOT_FOOTER, KRAFT_VERSION, KRAFT_VOTERS = (
    ControlRecordType
)
MARKERS = (ABORT, COMMIT)
# Kafka's name of each type, as its tools print it (and our tables name them).
CONTROL_TYPE_NAMES: dict[int, str] = {t.value: t.name for t in ControlRecordType}
UNKNOWN_TYPE_NAME = "UNKNOWN"
# The message class holding each KRaft type's value.
CONTROL_MESSAGES: dict[int, str] = {
    LEADER_CHANGE: "LeaderChangeMessage",
    SNAPSHOT_HEADER: "SnapshotHeaderRecord",
    SNAPSHOT_FOOTER: "SnapshotFooterRecord",
    KRAFT_VERSION: "KRaftVersionRecord",
    KRAFT_VOTERS: "VotersRecord",
}


def parse_control_key(key: Buffer | None) -> tuple[int, int]:
    """Read a control record key: ``(version, type)``, both int16."""
    if key is None or len(key) < 4:
        raise LogFormatError(
            f"control record key must be at least 4 bytes, got {None if key is None else len(key)}"
        )
    version, type_id = _KEY.unpack_from(key)
    if version < 0:
        raise LogFormatError(f"control record key has negative version {version}")
    return version, type_id


def control_key(type_id: int, version: int = 0) -> bytes:
    """Build a control record key."""
    return _KEY.pack(version, type_id)


def control_type_name(type_id: int) -> str:
    return CONTROL_TYPE_NAMES.get(type_id, UNKNOWN_TYPE_NAME)


@dataclass
class ControlRecord:
    """A decoded control record: its type and, for the KRaft types, the message."""

    control_type: int
    key_version: int
    message: Message | None  # None for ABORT/COMMIT markers
    coordinator_epoch: int | None = None  # for ABORT/COMMIT markers
    marker_version: int | None = None  # for ABORT/COMMIT markers

    @property
    def type_name(self) -> str:
        return control_type_name(self.control_type)

    @property
    def json_version(self) -> int:
        """The version Kafka writes the JSON form at: the message's own Version field (within
        the versions the class has), or the marker's version."""
        if self.message is None:
            return 0 if self.marker_version is None else self.marker_version
        versions = type(self.message).versions()
        version = getattr(self.message, "version", 0)
        return min(max(version, versions.start), versions.stop - 1)

    def to_json(self) -> dict[str, Any]:
        """Kafka's JSON form of the value (without unknown tagged fields dropped: see dump)."""
        if self.message is None:
            return {"coordinatorEpoch": self.coordinator_epoch}
        return self.message.to_json(self.json_version)


def decode_control_record(key: Buffer | None, value: Buffer | None, message_class: MessageClassOf) -> ControlRecord:
    """Decode a control record (DecodeError for a bad key, an unknown type or a bad value); the
    KRaft types' values are read with ``message_class(name)`` (kraft.decode_control_record passes
    a registry's)."""
    key_version, type_id = parse_control_key(key)
    if type_id in MARKERS:
        if value is None or len(value) < _MARKER.size:
            raise DecodeError("transaction marker value shorter than 6 bytes", 0, "value")
        version, epoch = _MARKER.unpack_from(value)
        return ControlRecord(type_id, key_version, None, epoch, version)
    name = CONTROL_MESSAGES.get(type_id)
    if name is None:
        raise DecodeError(f"unknown control record type {type_id}", 2, "key.type")
    message = message_class(name).decode(bytes(value or b""), 0)
    return ControlRecord(type_id, key_version, message)
