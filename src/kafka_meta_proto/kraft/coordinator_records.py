"""Records of the coordinators' internal topics: ``__consumer_offsets`` (the group coordinator),
``__transaction_state`` (the transaction coordinator) and ``__share_group_state`` (the share
coordinator).

A record's key is ``int16 record type, key body``; its value is ``int16 value version, value
body``, or null for a tombstone (the key's state was deleted). The record type picks the key and
value schemas within the coordinator's own numbering (``REGISTRY.coordinator_classes``). As Kafka
reads them, a body may be followed by bytes no field claims; they are ignored.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from ..errors import DecodeError, UnsupportedVersionDecodeError
from ..message import Message
from ..messages import REGISTRY
from ..registry import Registry

GROUP_COORDINATOR = "group-coordinator"
TRANSACTION_COORDINATOR = "transaction-coordinator"
SHARE_COORDINATOR = "share-coordinator"

# The internal topic each coordinator writes.
TOPICS = {
    GROUP_COORDINATOR: "__consumer_offsets",
    TRANSACTION_COORDINATOR: "__transaction_state",
    SHARE_COORDINATOR: "__share_group_state",
}


class UnknownRecordTypeError(DecodeError):
    """A key whose record type the coordinator has no schema for."""

    def __init__(self, record_type: int, scope: str):
        super().__init__(f"no {scope} record type {record_type}", 0, "record_type")
        self.record_type = record_type


@dataclass
class CoordinatorRecord:
    """A decoded coordinator record; ``value`` is None for a tombstone."""

    record_type: int
    key: Message
    value: Optional[Message]
    value_version: Optional[int]


def _int16(data: bytes, what: str) -> int:
    if len(data) < 2:
        raise DecodeError(f"{what} of {len(data)} bytes has no int16 version", 0, "version")
    return int.from_bytes(data[:2], "big", signed=True)


def decode_coordinator_record(
    scope: str, key: bytes, value: Optional[bytes], registry: Registry = REGISTRY
) -> CoordinatorRecord:
    """Decode a record of ``scope``'s topic (``GROUP_COORDINATOR`` and so on).

    Raises DecodeError (``UnknownRecordTypeError`` for a record type without a schema), with the
    context ``key`` or ``value`` and the offset within that part."""
    key = bytes(key)
    record_type = _int16(key, "key")
    try:
        key_class, value_class = registry.coordinator_classes(scope, record_type)
    except KeyError:
        raise UnknownRecordTypeError(record_type, scope) from None
    # Kafka reads every key body with the layout of key version 0 (the int16 is the type).
    key_message = _read(key_class, key, key_class.LOWEST_VERSION, "key")
    if value is None:
        return CoordinatorRecord(record_type, key_message, None, None)
    value = bytes(value)
    version = _int16(value, "value")
    value_message = _read(value_class, value, version, "value")
    return CoordinatorRecord(record_type, key_message, value_message, version)


def _read(cls: type[Message], data: bytes, version: int, part: str) -> Message:
    if not cls.LOWEST_VERSION <= version <= cls.HIGHEST_VERSION:
        raise UnsupportedVersionDecodeError(
            f"{cls.NAME} has no version {version} (valid: {cls.LOWEST_VERSION}-{cls.HIGHEST_VERSION})",
            0,
            "version",
            context=part,
        )
    try:
        return cls.decode_from(data, version, 2)[0]
    except DecodeError as exc:
        exc.context = f"{part} {exc.context}".strip()
        raise
