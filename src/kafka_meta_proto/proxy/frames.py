"""Reading what passes through the proxy: a request's header without trusting its body, and
the bodies of requests and responses decoded with our classes when they can be.

A frame our classes cannot decode still goes through: its header is read by hand (api key,
version, correlation id, client id sit at fixed places in every request header version but v0)
and the decoding error is kept as text for the log.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from collections.abc import Callable
from typing import Union, cast

from .. import protocol
from ..errors import DecodeError
from ..message import Message
from ..net.connection import expects_response
from ..registries import RegistryLike
from ..wire import INT16, read_uvarint

PRODUCE_KEY = 0
FIRST_FLEXIBLE_PRODUCE = 9
_HEAD = struct.Struct(">hhi")  # api key, api version, correlation id
Buffer = Union[bytes, bytearray, memoryview]
# wire's reader only indexes its buffer: a memoryview of a read serves as well as bytes
read_varint = cast(Callable[[Buffer, int], tuple[int, int]], read_uvarint)


@dataclass(frozen=True)
class RequestHead:
    """The first fields of a request header, read without decoding the body."""

    api_key: int
    api_version: int
    correlation_id: int
    client_id: str | None


def read_request_head(payload: bytes) -> RequestHead:
    """The header fields of a request frame's payload (size prefix removed)."""
    if len(payload) < 8:
        raise DecodeError(f"a request of {len(payload)} bytes, shorter than its header", 4, "header")
    api_key, api_version, correlation_id = _HEAD.unpack_from(payload)
    client_id = None
    has_client_id = (api_key, api_version) != (protocol.CONTROLLED_SHUTDOWN_KEY, 0)
    if has_client_id and len(payload) >= 10:
        size = int.from_bytes(payload[8:10], "big", signed=True)
        if size >= 0:  # -1 is a null client id
            client_id = payload[10 : 10 + size].decode("utf-8", "replace")
    return RequestHead(api_key, api_version, correlation_id, client_id)


@dataclass(frozen=True)
class Decoded:
    """A body decoded at ``version``, or the reason it was not (then ``body`` is None)."""

    body: Message | None
    version: int
    error: str | None = None


def decode_request(frame: bytes, head: RequestHead, registry: RegistryLike) -> Decoded:
    try:
        # Bytes after the body are ignored, as the broker ignores them.
        body = protocol.decode_request(frame, registry=registry, trailing=True).body
        return Decoded(body, head.api_version)
    except DecodeError as e:
        return Decoded(None, head.api_version, str(e))


def decode_response(frame: bytes, api_key: int, version: int, registry: RegistryLike) -> Decoded:
    """The response body at the request's version; an ApiVersions refusal, which a broker writes
    in version 0, at version 0."""
    try:
        body = protocol.decode_response(frame, api_key, version, registry=registry).body
        return Decoded(body, version)
    except DecodeError as e:
        if api_key != protocol.API_VERSIONS_KEY or version == 0:
            return Decoded(None, version, str(e))
        error = str(e)
    try:
        return Decoded(protocol.decode_response(frame, api_key, 0, registry=registry).body, 0)
    except DecodeError:
        return Decoded(None, version, error)


def answered(payload: bytes, head: RequestHead, request: Decoded) -> bool:
    """Whether the broker will answer: all but an acks-0 Produce. Without a decoded body, a
    Produce's acks are read in place; bytes too short for them are taken to expect an answer
    (the broker closes the connection on bytes it cannot read, which ends the exchange anyway)."""
    if request.body is not None:
        return expects_response(request.body)
    return head.api_key != PRODUCE_KEY or produce_acks(payload, head.api_version) != 0


def produce_acks(payload: Buffer, api_version: int) -> int | None:
    """A Produce request's acks, read without decoding it (the proxy's path with no log and no
    hooks): after the header, the transactional id (versions 3 and up), then acks. None when
    the bytes end first."""
    try:
        (size,) = INT16.unpack_from(payload, 8)
        pos = 10 + max(0, size)  # after the client id
        flexible = api_version >= FIRST_FLEXIBLE_PRODUCE
        if flexible:  # the header's tagged fields: most often none, one byte of 0
            pos = pos + 1 if payload[pos] == 0 else skip_tagged_fields(payload, pos)
        if api_version >= 3:  # the transactional id: compact (length + 1) when flexible
            if flexible:
                size, pos = read_varint(payload, pos)
                pos += max(0, size - 1)
            else:
                (size,) = INT16.unpack_from(payload, pos)
                pos += 2 + max(0, size)
        return int(INT16.unpack_from(payload, pos)[0])
    except (DecodeError, IndexError, struct.error):
        return None


def skip_tagged_fields(payload: Buffer, pos: int) -> int:
    """Where a tagged-field section starting at ``pos`` ends."""
    count, pos = read_varint(payload, pos)
    for _ in range(count):
        _, pos = read_varint(payload, pos)
        size, pos = read_varint(payload, pos)
        pos += size
    return pos


def encode_request(body: Message, head: RequestHead, registry: RegistryLike) -> bytes:
    """A request a hook replaced, framed with the client's correlation id and client id."""
    return protocol.encode_request(
        body, head.api_version, head.correlation_id, head.client_id, registry=registry
    )


def encode_response(body: Message, version: int, correlation_id: int, registry: RegistryLike) -> bytes:
    return protocol.encode_response(body, version, correlation_id, registry=registry)
