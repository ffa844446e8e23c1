"""Exceptions raised by the message codecs."""

from __future__ import annotations


class KafkaProtocolError(Exception):
    """Base class of every error this package raises about message data."""


class DecodeError(KafkaProtocolError, ValueError):
    """Bytes that are not a valid encoding of the message at the requested version.

    ``path`` names the field being read (``topics[2].partitions[0].leader_id``), ``offset`` is the
    byte offset in the input where reading went wrong (for a bad length, just after the length
    prefix, where the value it announces starts), ``context`` names the message and version.
    """

    def __init__(self, reason: str, offset: int | None = None, path: str = "", context: str = ""):
        self.reason = reason
        self.offset = offset
        self.path = path
        self.context = context
        super().__init__(reason)

    def __str__(self) -> str:
        where = []
        if self.path:
            where.append(f"field {self.path}")
        if self.offset is not None:
            where.append(f"byte offset {self.offset}")
        prefix = f"{self.context}: " if self.context else ""
        return prefix + self.reason + (f" ({', '.join(where)})" if where else "")

    def within(self, field: str, index: int | None = None) -> DecodeError:
        """Prefix the path with the enclosing field (and element index for struct arrays).

        Generated readers call this while the error travels out through nested structs, so the
        happy path pays nothing for path tracking.
        """
        if field.endswith("[]"):
            field = field[:-2] + (f"[{index}]" if self.path and index is not None else "")
        self.path = f"{field}.{self.path}" if self.path else field
        return self


class EncodeError(KafkaProtocolError, ValueError):
    """A message value that cannot be written (out-of-range integer, null where not nullable...).

    ``path`` names the field (``listeners[0].port``), ``context`` the message and version; the
    reason says what the field expects and what it holds. encode, size and to_json raise the same
    error for the same message."""

    def __init__(self, reason: str, path: str = "", context: str = ""):
        self.reason = reason
        self.path = path
        self.context = context
        super().__init__(reason)

    def __str__(self) -> str:
        prefix = f"{self.context}: " if self.context else ""
        return prefix + (f"{self.path}: " if self.path else "") + self.reason


class UnsupportedVersionError(KafkaProtocolError):
    """The version is not valid for the message, or a field the version lacks holds a value."""


class UnsupportedVersionDecodeError(DecodeError, UnsupportedVersionError):
    """Bytes that name an api key or version no schema has (both a DecodeError, since the input
    is what is wrong, and an UnsupportedVersionError, since that is the reason)."""
