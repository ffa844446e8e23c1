"""Kafka's 128-bit ``Uuid``: text form is URL-safe base64 without padding (22 characters)."""

from __future__ import annotations

import base64
import binascii
import os
import re
import uuid
from typing import Any, Union

_TEXT = re.compile(r"[A-Za-z0-9_-]{22}")
_Bytes = bytes  # inside the class, "bytes" names the attribute


class Uuid:
    """An immutable 16-byte identifier, as Kafka's ``org.apache.kafka.common.Uuid``."""

    __slots__ = ("bytes",)

    bytes: _Bytes
    ZERO_UUID: Uuid
    ONE_UUID: Uuid
    METADATA_TOPIC_ID: Uuid
    RESERVED: frozenset[Uuid]

    def __init__(self, raw: _Bytes | bytearray | memoryview | str | uuid.UUID | Uuid):
        """From 16 bytes, Kafka's text form (``Uuid("MvDxzVmcRsaTz33bUuRU6A")``), a
        ``uuid.UUID`` or another Uuid."""
        # A value type: treat it as immutable. No __setattr__ guard, because decoders build
        # one per uuid field and the guard would double the cost of that.
        if type(raw) is not bytes or len(raw) != 16:
            if isinstance(raw, str):
                raw = Uuid.from_string(raw).bytes
            elif isinstance(raw, (uuid.UUID, Uuid)):
                raw = raw.bytes
            elif not isinstance(raw, (_Bytes, bytearray, memoryview)):
                raise TypeError(f"a Uuid is made from 16 bytes, its text form or a uuid.UUID, not {type(raw).__name__}")
            raw = _Bytes(raw)
            if len(raw) != 16:
                raise ValueError(f"a Uuid is 16 bytes, got {len(raw)}")
        self.bytes = raw

    @classmethod
    def from_bits(cls, most: int, least: int) -> Uuid:
        """From the two signed or unsigned 64-bit halves (Kafka's constructor)."""
        return cls((most & (2**64 - 1)).to_bytes(8, "big") + (least & (2**64 - 1)).to_bytes(8, "big"))

    @classmethod
    def from_string(cls, text: str) -> Uuid:
        """Parse Kafka's text form (22 URL-safe base64 characters)."""
        if not isinstance(text, str):
            raise ValueError(f"a Uuid string is expected, got {type(text).__name__}")
        if not _TEXT.fullmatch(text):
            raise ValueError(f"invalid Uuid string {text!r}: 22 URL-safe base64 characters are expected")
        try:
            raw = base64.urlsafe_b64decode(text + "==")
        except (binascii.Error, ValueError) as e:
            raise ValueError(f"invalid Uuid string {text!r}: {e}") from None
        if len(raw) != 16:
            raise ValueError(f"invalid Uuid string {text!r}: decodes to {len(raw)} bytes, not 16")
        return cls(raw)

    @classmethod
    def random(cls) -> Uuid:
        """A random (version 4) Uuid that is never reserved and whose text form does not start
        with '-' (so it cannot be mistaken for a command-line option), as Kafka generates them."""
        while True:
            raw = bytearray(os.urandom(16))
            raw[6] = (raw[6] & 0x0F) | 0x40  # version 4
            raw[8] = (raw[8] & 0x3F) | 0x80  # IETF variant
            uuid = cls(bytes(raw))
            if uuid not in cls.RESERVED and not str(uuid).startswith("-"):
                return uuid

    @property
    def most_significant_bits(self) -> int:
        return int.from_bytes(self.bytes[:8], "big", signed=True)

    @property
    def least_significant_bits(self) -> int:
        return int.from_bytes(self.bytes[8:], "big", signed=True)

    def __str__(self) -> str:
        return base64.urlsafe_b64encode(self.bytes)[:22].decode("ascii")

    def __repr__(self) -> str:
        return f"Uuid({str(self)!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Uuid) and other.bytes == self.bytes

    def __hash__(self) -> int:
        return hash(self.bytes)

    def __lt__(self, other: Uuid) -> bool:
        # Kafka compares the halves as signed longs.
        return (self.most_significant_bits, self.least_significant_bits) < (
            other.most_significant_bits,
            other.least_significant_bits,
        )

    def __reduce__(self) -> tuple[type[Uuid], tuple[_Bytes]]:
        return (Uuid, (self.bytes,))


def coerce(value: object) -> Any:
    """``value`` as a Uuid when it is Kafka's text form or a ``uuid.UUID``, else unchanged (the
    encoder names what is wrong with it). Generated constructors call it for uuid fields."""
    if isinstance(value, (str, uuid.UUID)):
        return Uuid(value)
    return value


def coerce_list(values: list[Any]) -> list[Any]:
    """``values``, or a copy with its text and ``uuid.UUID`` elements made Uuids."""
    for value in values:
        if value.__class__ is not Uuid:
            return [coerce(v) for v in values]
    return values


# What a generated constructor takes for a uuid field, and for a list of uuids: its __post_init__
# makes a Uuid of Kafka's text form and of a uuid.UUID (coerce, coerce_list).
UuidLike = Union[Uuid, str, uuid.UUID]
UuidListLike = Union[list[Uuid], list[str], list[uuid.UUID], list[UuidLike]]

Uuid.ZERO_UUID = Uuid(bytes(16))
Uuid.ONE_UUID = Uuid(bytes(15) + b"\x01")
Uuid.METADATA_TOPIC_ID = Uuid.ONE_UUID
Uuid.RESERVED = frozenset({Uuid.ZERO_UUID, Uuid.ONE_UUID})
