"""Request and response frames: int32 size, header, body.

Header versions follow Kafka's rule: a request uses header v2 when its api version is flexible
and v1 otherwise (ControlledShutdown v0 uses v0); a response uses header v1 when flexible and v0
otherwise, except ApiVersions responses, which always use v0 so any client can read them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar, overload

from .errors import DecodeError, UnsupportedVersionDecodeError, UnsupportedVersionError
from .message import BytesLike, Message
from . import registries
from .messages import REGISTRY
from .registries import RegistryLike
from .wire import INT32

# The class of a response body: decode_response(data, FetchResponse, v).body is a FetchResponse.
_Body = TypeVar("_Body", bound=Message)


class ResponseBody(Protocol):
    """What ``encode_response`` asks of a body: a ``Message``, or a body encoded already
    (``server.EncodedBody``)."""

    @property
    def API_KEY(self) -> int | None: ...  # noqa: N802 (Message's name)

    def is_flexible(self, version: int) -> bool: ...

    def encode_into(self, out: bytearray, version: int) -> None: ...


API_VERSIONS_KEY = 18
CONTROLLED_SHUTDOWN_KEY = 7
MAX_FRAME_SIZE = 100 * 1024 * 1024  # Kafka's socket.request.max.bytes default is 100 MiB


def _request_class(api_key: int, registry: RegistryLike = REGISTRY) -> type[Message]:
    try:
        return registries.resolve(registry).request_class(api_key)
    except KeyError:
        error = UnsupportedVersionError(f"no request schema for api key {api_key}")
        note = registries.clash_note(registry, "request", api_key)
        raise (UnsupportedVersionError(f"{error}; {note}") if note else error) from None


def request_header_version(api_key: int, api_version: int, registry: RegistryLike = REGISTRY) -> int:
    if api_key == CONTROLLED_SHUTDOWN_KEY and api_version == 0:
        return 0
    return 2 if _request_class(api_key, registry).is_flexible(api_version) else 1


def response_header_version(api_key: int, api_version: int, registry: RegistryLike = REGISTRY) -> int:
    if api_key == API_VERSIONS_KEY:
        return 0
    return 1 if _request_class(api_key, registry).is_flexible(api_version) else 0


@dataclass
class Request:
    header: Message  # RequestHeader (the registry's)
    body: Message

    # The header is the registry's RequestHeader class, which Message does not describe.
    @property
    def api_key(self) -> int:
        key: int = getattr(self.header, "request_api_key")
        return key

    @property
    def api_version(self) -> int:
        version: int = getattr(self.header, "request_api_version")
        return version

    @property
    def correlation_id(self) -> int:
        cid: int = getattr(self.header, "correlation_id")
        return cid


@dataclass
class Response(Generic[_Body]):
    """A decoded response: ``Response[FetchResponse]`` when decode_response was given the class,
    ``Response[Message]`` when given the api key."""

    header: Message  # ResponseHeader (the registry's)
    body: _Body

    @property
    def correlation_id(self) -> int:
        cid: int = getattr(self.header, "correlation_id")
        return cid


def frame(payload: bytes) -> bytes:
    """Prefix with the int32 size."""
    return INT32.pack(len(payload)) + payload


def unframe(data: BytesLike, offset: int = 0, max_size: int = MAX_FRAME_SIZE) -> tuple[bytes, int]:
    """Read one size-prefixed frame; return its payload and the offset after it."""
    if len(data) - offset < 4:
        raise DecodeError("frame shorter than its 4-byte size", offset, "size")
    (size,) = INT32.unpack_from(data, offset)
    if size < 0 or size > max_size:
        raise DecodeError(f"invalid frame size {size}", offset, "size")
    end = offset + 4 + size
    if end > len(data):
        raise DecodeError(f"frame of {size} bytes but only {len(data) - offset - 4} follow", offset, "size")
    return bytes(data[offset + 4 : end]), end


def encode_request(
    body: Message,
    api_version: int,
    correlation_id: int,
    client_id: str | None = None,
    *,
    registry: RegistryLike = REGISTRY,
    size_prefix: bool = True,
) -> bytes:
    """Header and body of a request, size-prefixed unless asked otherwise."""
    api_key = body.API_KEY
    # The header version follows the body's own class, whichever registry it comes from.
    hv = 0 if (api_key, api_version) == (CONTROLLED_SHUTDOWN_KEY, 0) else (2 if body.is_flexible(api_version) else 1)
    # the registry's own RequestHeader: its fields are not Message's
    header_cls: Callable[..., Message] = registries.resolve(registry).message_class("RequestHeader")
    header = header_cls(request_api_key=api_key, request_api_version=api_version, correlation_id=correlation_id)
    if hv >= 1:
        setattr(header, "client_id", client_id)  # the registry's RequestHeader has it
    out = bytearray()
    header.encode_into(out, hv)
    body.encode_into(out, api_version)
    return frame(bytes(out)) if size_prefix else bytes(out)


def _whole(data: BytesLike, size_prefix: bool) -> bytes:
    """The payload of exactly one frame (bytes after it are an error), or the data itself."""
    if not size_prefix:
        return bytes(data)
    payload, end = unframe(data)
    if end != len(data):
        raise DecodeError(f"{len(data) - end} bytes after the frame", end, "size")
    return payload


def read_frames(data: BytesLike, offset: int = 0) -> Iterator[tuple[bytes, int]]:
    """Yield (payload, offset of the frame) for each size-prefixed frame in a buffer."""
    while offset < len(data):
        payload, end = unframe(data, offset)
        yield payload, offset
        offset = end


def decode_request(data: BytesLike, *, size_prefix: bool = True, registry: RegistryLike = REGISTRY, trailing: bool = False) -> Request:
    """Decode one request (a whole frame, or header and body with size_prefix=False),
    dispatching on the api key and version in its header. ``trailing=True`` ignores bytes after
    the body, as a Kafka broker does (librdkafka's Metadata requests for every topic carry some)."""
    payload = _whole(data, size_prefix)
    base = 4 if size_prefix else 0  # errors give offsets into the input, not into the payload
    if len(payload) < 4:
        raise DecodeError("request shorter than its api key and version", base, "header")
    api_key, api_version = int.from_bytes(payload[0:2], "big", signed=True), int.from_bytes(payload[2:4], "big", signed=True)
    reg = registries.resolve(registry)
    try:
        try:
            body_cls = reg.request_class(api_key)
        except KeyError:
            raise UnsupportedVersionDecodeError(f"no request schema for api key {api_key}", base, "header.request_api_key") from None
        if api_version not in body_cls.versions():
            raise UnsupportedVersionDecodeError(f"{body_cls.NAME} has no version {api_version}", base + 2, "header.request_api_version")
        hv = request_header_version(api_key, api_version, reg)
        header, pos = _decode_part(reg.message_class("RequestHeader"), payload, hv, 0, base, "header")
        body, _ = _decode_part(body_cls, payload, api_version, pos, base, "", trailing)
    except DecodeError as e:
        raise registries.explain(e, reg, "request", api_key) from None
    return Request(header, body)


def _decode_part(cls: type[_Body], payload: bytes, version: int, pos: int, base: int, path: str, trailing: bool = False) -> tuple[_Body, int]:
    """Decode a header or body inside the payload; the body must end the payload unless
    ``trailing`` allows more bytes after it."""
    try:
        msg, end = cls.decode_from(payload, version, pos)
        if not path and not trailing and end != len(payload):
            raise DecodeError(f"{len(payload) - end} trailing bytes after the message", end, context=f"{cls.NAME} v{version}")
    except DecodeError as e:
        if e.offset is not None:
            e.offset += base
        if path:
            e.within(path)
        raise
    return msg, end


def encode_response(
    body: ResponseBody, api_version: int, correlation_id: int, *, registry: RegistryLike = REGISTRY, size_prefix: bool = True
) -> bytes:
    # Kafka gives a request and its response the same flexible versions; ApiVersions answers in v0.
    hv = 0 if body.API_KEY == API_VERSIONS_KEY else (1 if body.is_flexible(api_version) else 0)
    header_cls: Callable[..., Message] = registries.resolve(registry).message_class("ResponseHeader")
    header = header_cls(correlation_id=correlation_id)
    out = bytearray()
    header.encode_into(out, hv)
    body.encode_into(out, api_version)
    return frame(bytes(out)) if size_prefix else bytes(out)


@overload
def decode_response(
    data: BytesLike, api_key: type[_Body], api_version: int, *, size_prefix: bool = True, registry: RegistryLike = REGISTRY
) -> Response[_Body]: ...
@overload
def decode_response(
    data: BytesLike, api_key: int, api_version: int, *, size_prefix: bool = True, registry: RegistryLike = REGISTRY
) -> Response[Message]: ...
def decode_response(
    data: BytesLike, api_key: int | type[Message], api_version: int, *, size_prefix: bool = True, registry: RegistryLike = REGISTRY
) -> Response[Any]:
    """Decode one response; the api key and version come from the matching request.

    ``api_key`` is the api key, or the response class itself (``decode_response(data,
    FetchResponse, 12)``), which types the body for a type checker and decodes it with that class
    (one of a registry of one's own too); the header is the registry's."""
    payload = _whole(data, size_prefix)
    base = 4 if size_prefix else 0
    # The same errors as decode_request: a DecodeError that is also an UnsupportedVersionError.
    reg = registries.resolve(registry)
    given: type[Message] | None = None
    if isinstance(api_key, type):
        if not issubclass(api_key, Message) or api_key.MESSAGE_TYPE != "response" or api_key.API_KEY is None:
            raise TypeError(f"decode_response takes an api key or a response class, not {api_key.__name__}")
        given, api_key = api_key, api_key.API_KEY
    try:
        if given is not None:
            body_cls = given
        else:
            try:
                body_cls = reg.response_class(api_key)
            except KeyError:
                raise UnsupportedVersionDecodeError(f"no response schema for api key {api_key}", base, "header") from None
        if api_version not in body_cls.versions():
            raise UnsupportedVersionDecodeError(f"{body_cls.NAME} has no version {api_version}", base, "header")
        if given is None:
            hv = response_header_version(api_key, api_version, reg)
        else:  # as encode_response: Kafka gives a request and its response the same flexible versions
            hv = 0 if api_key == API_VERSIONS_KEY else (1 if body_cls.is_flexible(api_version) else 0)
        header, pos = _decode_part(reg.message_class("ResponseHeader"), payload, hv, 0, base, "header")
        body, _ = _decode_part(body_cls, payload, api_version, pos, base, "")
    except DecodeError as e:
        raise registries.explain(e, reg, "response", api_key) from None
    return Response(header, body)
