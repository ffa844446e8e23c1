"""The base class of generated messages: versioned encode, decode, size and JSON."""

from __future__ import annotations

from typing import Any, ClassVar

from .errors import DecodeError, EncodeError, UnsupportedVersionError

_ENCODE_FAILURES = (TypeError, ValueError, AttributeError, OverflowError)


class Message:
    """A Kafka message (request, response, header, metadata record or data record).

    Subclasses are generated dataclasses; the per-version codecs live in the tables below, one
    straight-line function per distinct wire layout.
    """

    __slots__ = ()

    NAME: ClassVar[str]
    MESSAGE_TYPE: ClassVar[str]
    API_KEY: ClassVar[int | None]
    LOWEST_VERSION: ClassVar[int]
    HIGHEST_VERSION: ClassVar[int]
    LOWEST_FLEXIBLE_VERSION: ClassVar[int | None]
    _READERS: ClassVar[dict]
    _WRITERS: ClassVar[dict]
    _SIZERS: ClassVar[dict]
    _TO_JSON: ClassVar[Any]
    _FROM_JSON: ClassVar[Any]

    @classmethod
    def versions(cls) -> range:
        return range(cls.LOWEST_VERSION, cls.HIGHEST_VERSION + 1)

    @classmethod
    def is_flexible(cls, version: int) -> bool:
        low = cls.LOWEST_FLEXIBLE_VERSION
        return low is not None and version >= low

    @classmethod
    def _codec(cls, table: dict, version: int):
        codec = table.get(version)
        if codec is None:
            raise UnsupportedVersionError(
                f"{cls.NAME} has no version {version!r} "
                f"(valid: {cls.LOWEST_VERSION}-{cls.HIGHEST_VERSION})"
            )
        return codec

    @classmethod
    def decode(cls, data, version: int):
        """Decode exactly ``data`` (bytes-like); trailing bytes are an error."""
        # decode_from and _codec inlined: for small messages the calls cost as much as the body.
        try:
            reader = cls._READERS[version]
        except KeyError:  # the version check is outside, so no exception is chained to it
            reader = None
        if reader is None:
            cls._codec(cls._READERS, version)
        if type(data) is not bytes:
            if isinstance(data, str):
                raise TypeError("decode takes bytes, not str")
            data = bytes(data)
        try:
            msg, end = reader(data, 0)
        except DecodeError as e:
            e.__dict__.pop("_element", None)  # list readers' note for the path (wire.in_element)
            e.context = f"{cls.NAME} v{version}"
            raise
        except RecursionError:  # cannot happen from data (no recursive schemas); kept honest
            raise DecodeError("nesting too deep", 0, context=f"{cls.NAME} v{version}") from None
        if end != len(data):
            raise DecodeError(
                f"{len(data) - end} trailing bytes after the message", end, context=f"{cls.NAME} v{version}"
            )
        return msg

    @classmethod
    def decode_from(cls, data, version: int, offset: int = 0):
        """Decode one message starting at ``offset``; return it and the offset just after it.

        For callers that hold more than one message in a buffer (or want the rest)."""
        try:
            reader = cls._READERS[version]
        except KeyError:  # the version check is outside, so no exception is chained to it
            reader = None
        if reader is None:
            cls._codec(cls._READERS, version)
        if type(data) is not bytes:
            if isinstance(data, str):
                raise TypeError("decode takes bytes, not str")
            data = bytes(data)
        try:
            return reader(data, offset)
        except DecodeError as e:
            e.__dict__.pop("_element", None)  # list readers' note for the path (wire.in_element)
            e.context = f"{cls.NAME} v{version}"
            raise
        except RecursionError:  # cannot happen from data (no recursive schemas); kept honest
            raise DecodeError("nesting too deep", offset, context=f"{cls.NAME} v{version}") from None

    def encode(self, version: int) -> bytes:
        """The message body at ``version`` (no size prefix or header)."""
        try:
            writer = self._WRITERS[version]
        except KeyError:  # the version check is outside, so no exception is chained to it
            writer = None
        if writer is None:
            self._codec(self._WRITERS, version)
        # The writers append parts to a list; one join copies each part once, into the result.
        out: list = []
        try:
            writer(self, out)
            return b"".join(out)
        except UnsupportedVersionError as e:
            raise UnsupportedVersionError(f"{self.NAME} v{version}: {e}") from None
        except EncodeError as e:
            raise EncodeError(f"{self.NAME} v{version}: {e}") from None
        except _ENCODE_FAILURES as e:
            raise EncodeError(f"{self.NAME} v{version}: cannot encode: {e}") from None
        except Exception as e:  # struct.error and friends
            raise EncodeError(f"{self.NAME} v{version}: cannot encode: {e}") from None

    def encode_into(self, out: bytearray, version: int) -> None:
        """Append the encoding to ``out`` (left as it was when encoding fails)."""
        out += self.encode(version)

    def size(self, version: int) -> int:
        """``len(self.encode(version))``, computed without encoding."""
        try:
            sizer = self._SIZERS[version]
        except KeyError:  # the version check is outside, so no exception is chained to it
            sizer = None
        if sizer is None:
            self._codec(self._SIZERS, version)
        try:
            return sizer(self)
        except _ENCODE_FAILURES as e:
            raise EncodeError(f"{self.NAME} v{version}: cannot size: {e}") from None

    def to_json(self, version: int) -> dict:
        """Kafka's JSON form of the message at ``version``."""
        self._codec(self._READERS, version)
        return type(self)._TO_JSON(self, version)

    @classmethod
    def from_json(cls, obj: dict, version: int):
        """Build the message from Kafka's JSON form at ``version``."""
        cls._codec(cls._READERS, version)
        try:
            return cls._FROM_JSON(obj, version, "")
        except DecodeError as e:
            e.context = f"{cls.NAME} v{version} (JSON)"
            raise


def detached_state(obj) -> tuple[None, dict]:
    """``__getstate__`` of a class with zero-copy fields (``records``, ``zeroCopy`` bytes), which
    decode as memoryview slices of the input: pickle and copy see them as bytes, so a copy owns
    its data and does not keep the decoded input alive."""
    state = {}
    for name in obj.__slots__:
        value = getattr(obj, name)
        state[name] = bytes(value) if type(value) is memoryview else value
    return None, state


def absent_field_error(struct_name: str, field: str) -> UnsupportedVersionError:
    return UnsupportedVersionError(
        f"{struct_name}.{field} has a non-default value, but this version has no such field"
    )
