"""The base class of generated messages: versioned encode, decode, size and JSON."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, ClassVar, NoReturn, TypeVar, Union

from . import codec
from .errors import DecodeError, EncodeError, KafkaProtocolError, UnsupportedVersionError
from .uuid import Uuid

if TYPE_CHECKING:
    from .schema_info import FieldInfo

# What decode accepts: bytes or anything bytes() copies from (bytearray, memoryview...).
BytesLike = Union[bytes, bytearray, memoryview]
# The class a classmethod is called on: FetchRequest.decode(...) is typed FetchRequest.
_M = TypeVar("_M", bound="Message")


class Message:
    """A Kafka message (request, response, header, metadata record or data record).

    Subclasses are generated dataclasses; the per-version codecs live in the tables below, one
    straight-line function per distinct wire layout. The methods here are the pure Python codec;
    under the compiled codec (codec.py chooses) encode and size are replaced at the end of this
    module and each class's decode by codec.install, all falling back on these.
    """

    __slots__ = ()

    NAME: ClassVar[str]
    MESSAGE_TYPE: ClassVar[str]
    API_KEY: ClassVar[int | None]
    LOWEST_VERSION: ClassVar[int]
    HIGHEST_VERSION: ClassVar[int]
    LOWEST_FLEXIBLE_VERSION: ClassVar[int | None]
    # The generated codecs, one per version: reader(buf, pos) -> (message, next pos),
    # writer(message, parts) appends the encoding, sizer(message) -> its length.
    _READERS: ClassVar[dict[int, Callable[[bytes, int], tuple[Any, int]]]]
    _WRITERS: ClassVar[dict[int, Callable[[Any, list[bytes]], None]]]
    _SIZERS: ClassVar[dict[int, Callable[[Any], int]]]
    _TO_JSON: ClassVar[Callable[[Any, int], dict[str, Any]]]
    _FROM_JSON: ClassVar[Callable[[Any, int, str], Any]]
    _FIELDS: ClassVar[tuple[FieldInfo, ...]]

    @classmethod
    def versions(cls) -> range:
        return range(cls.LOWEST_VERSION, cls.HIGHEST_VERSION + 1)

    @classmethod
    def is_flexible(cls, version: int) -> bool:
        low = cls.LOWEST_FLEXIBLE_VERSION
        return low is not None and version >= low

    @classmethod
    def _codec(cls, table: dict[int, Any], version: int) -> Any:
        codec = table.get(version)
        if codec is None:
            cls._unsupported(version)
        return codec

    def _encode_error(self, version: int, exc: Exception) -> KafkaProtocolError:
        """The error for a writer or sizer that failed with ``exc``: the first field a careful
        walk finds wrong (path, what it expects, what it holds), else ``exc`` with the context."""
        from ._check import find_problem

        context = f"{self.NAME} v{version}"
        try:
            problem = find_problem(self, version, self.is_flexible(version))
        except Exception:  # the walk explains failures; it must never hide one
            problem = None
        if problem is None:
            if isinstance(exc, UnsupportedVersionError):
                return UnsupportedVersionError(f"{context}: {exc}")
            if isinstance(exc, EncodeError):
                exc.context = context
                return exc
            return EncodeError(f"cannot encode: {exc}", context=context)
        if isinstance(problem, EncodeError):
            problem.context = context
            return problem
        return type(problem)(f"{context}: {problem}")

    @classmethod
    def _unsupported(cls, version: object) -> NoReturn:
        raise UnsupportedVersionError(
            f"{cls.NAME} has no version {version!r} (valid: {cls.LOWEST_VERSION}-{cls.HIGHEST_VERSION})"
        )

    @classmethod
    def decode(cls: type[_M], data: BytesLike, version: int) -> _M:
        """Decode exactly ``data`` (bytes-like); trailing bytes are an error."""
        # decode_from and _codec inlined: for small messages the calls cost as much as the body.
        try:
            reader = cls._READERS[version]
        except KeyError:  # the version check is outside, so no exception is chained to it
            reader = None
        if reader is None:
            cls._unsupported(version)
        if type(data) is not bytes:
            if isinstance(data, str):
                raise TypeError("decode takes bytes, not str")
            data = bytes(data)
        msg: _M  # local annotations cost nothing at run time
        end: int
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
    def decode_from(cls: type[_M], data: BytesLike, version: int, offset: int = 0) -> tuple[_M, int]:
        """Decode one message starting at ``offset``; return it and the offset just after it.

        For callers that hold more than one message in a buffer (or want the rest)."""
        try:
            reader = cls._READERS[version]
        except KeyError:  # the version check is outside, so no exception is chained to it
            reader = None
        if reader is None:
            cls._unsupported(version)
        if type(data) is not bytes:
            if isinstance(data, str):
                raise TypeError("decode takes bytes, not str")
            data = bytes(data)
        try:
            result: tuple[_M, int] = reader(data, offset)
            return result
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
            self._unsupported(version)
        # The writers append parts to a list; one join copies each part once, into the result.
        out: list[bytes] = []
        try:
            writer(self, out)
            return b"".join(out)
        except Exception as e:  # struct.error, TypeError... and our own EncodeErrors
            raise self._encode_error(version, e) from None

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
            self._unsupported(version)
        try:
            n: int = sizer(self)
            return n
        except Exception as e:  # the sizers refuse what the writers refuse
            raise self._encode_error(version, e) from None

    def to_json(self, version: int) -> dict[str, Any]:
        """Kafka's JSON form of the message at ``version``; refuses what encode refuses."""
        self.size(version)  # the cheapest full check of the values
        form: dict[str, Any] = codec.json_form(self, version)
        return form

    @classmethod
    def from_json(cls: type[_M], obj: dict[str, Any], version: int) -> _M:
        """Build the message from Kafka's JSON form at ``version``."""
        cls._codec(cls._READERS, version)
        try:
            msg: _M = cls._FROM_JSON(obj, version, "")
            return msg
        except DecodeError as e:
            e.context = f"{cls.NAME} v{version} (JSON)"
            raise


def detached_state(obj: Any) -> tuple[None, dict[str, Any]]:
    """``__getstate__`` of a class with zero-copy fields (``records``, ``zeroCopy`` bytes), which
    decode as memoryview slices of the input: pickle and copy see them as bytes, so a copy owns
    its data and does not keep the decoded input alive."""
    state: dict[str, Any] = {}
    for name in obj.__slots__:
        value = getattr(obj, name)
        state[name] = bytes(value) if type(value) is memoryview else value
    return None, state


def absent_field_error(struct_name: str, field: str) -> UnsupportedVersionError:
    return UnsupportedVersionError(
        f"{struct_name}.{field} has a non-default value, but this version has no such field"
    )


# The codec chosen in codec.py. When it is the compiled one, encode and size are its methods: they
# run a class's compiled layouts and call the Python methods above for what they decline (decode
# is replaced per class, by the codec.install call of each generated module).
_compiled_methods = codec.message_methods(Uuid, Message)
if _compiled_methods is not None:
    Message.encode, Message.size = _compiled_methods  # type: ignore[method-assign]
