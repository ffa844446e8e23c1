"""The sans-I/O connection: bytes in, typed requests and responses out, and bytes back.

No sockets and no event loop here. A transport feeds what it received to ``receive_data`` and
writes what ``data_to_send`` returns; the connection does the framing, the headers (their
versions per api key and version, as ``protocol`` knows them), the correlation ids and the
bookkeeping of what is in flight. ``ClientConnection`` is the asking side, ``ServerConnection``
the answering one; both share the frame reader and its size limit.

A protocol violation (a frame over the limit, bytes that do not decode, a response to no
request) raises ``ProtocolError`` and leaves the connection failed: every later call raises the
same error, since the stream's boundaries can no longer be trusted.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

from .. import protocol
from ..errors import DecodeError, UnsupportedVersionDecodeError
from ..message import Message
from ..messages import REGISTRY
from ..registries import RegistryLike
from .errors import ConnectionClosed, ProtocolError
from .frames import FrameReader

PRODUCE_KEY = 0
_CORRELATION_LIMIT = 2**31  # correlation ids are int32; they wrap to 0 past the largest


def expects_response(body: Message) -> bool:
    """Whether Kafka answers this request: all but a Produce with acks 0."""
    return not (body.API_KEY == PRODUCE_KEY and getattr(body, "acks", None) == 0)


@dataclass(frozen=True)
class PendingRequest:
    """A request sent and not yet answered: what decoding its response needs."""

    correlation_id: int
    request: Message
    api_version: int
    api_key: int


@dataclass(frozen=True)
class ResponseReceived:
    """A response matched to its request. ``api_version`` is the version the body was decoded
    at: the request's, except an ApiVersions refusal, which a broker writes in version 0."""

    request: Message
    api_version: int
    response: protocol.Response[Message]
    frame: bytes  # as received, size prefix included

    @property
    def correlation_id(self) -> int:
        return self.response.correlation_id

    @property
    def body(self) -> Message:
        return self.response.body


@dataclass(frozen=True)
class RequestReceived:
    """A request decoded by the answering side; ``expects_response`` is False for an acks-0
    Produce, which Kafka never answers."""

    request: protocol.Request
    frame: bytes
    expects_response: bool

    @property
    def correlation_id(self) -> int:
        return self.request.correlation_id

    @property
    def api_key(self) -> int:
        return self.request.api_key

    @property
    def api_version(self) -> int:
        return self.request.api_version

    @property
    def client_id(self) -> str | None:
        client_id: str | None = getattr(self.request.header, "client_id", None)
        return client_id

    @property
    def body(self) -> Message:
        return self.request.body


@dataclass(frozen=True)
class UnsupportedRequest:
    """A request whose api key or version this side has no schema for. Its header's first
    fields are read, so the server can answer as Kafka does (ApiVersions in version 0 with
    UNSUPPORTED_VERSION) or close the connection."""

    correlation_id: int
    api_key: int
    api_version: int
    reason: str


class _Endpoint:
    """What both sides share: the frame reader, the bytes waiting to be sent, the failed state."""

    def __init__(self, max_frame_size: int, registry: RegistryLike):
        self.registry = registry
        self._reader = FrameReader(max_frame_size)
        self._outgoing = bytearray()
        self._error: Exception | None = None

    @property
    def max_frame_size(self) -> int:
        return self._reader.max_frame_size

    @property
    def failed(self) -> Exception | None:
        """The error that ended the connection, or None while it is usable."""
        return self._error

    def close(self, reason: str = "the connection was closed") -> None:
        """Mark the connection ended; later calls raise ConnectionClosed with the reason."""
        if self._error is None:
            self._error = ConnectionClosed(reason)

    def data_to_send(self) -> bytes:
        """The bytes queued for the peer since the last call (empty when none)."""
        data = bytes(self._outgoing)
        self._outgoing.clear()
        return data

    def _check_usable(self) -> None:
        if self._error is not None:
            raise self._error

    def _frames(self, data: bytes | bytearray | memoryview) -> list[bytes]:
        self._check_usable()
        try:
            return self._reader.feed(data)
        except ProtocolError as e:
            self._error = e
            raise

    def _fail(self, error: ProtocolError) -> ProtocolError:
        self._error = error
        return error


class ClientConnection(_Endpoint):
    """The asking side: ``send_request`` queues a request and returns its correlation id;
    ``receive_data`` turns the peer's bytes into ``ResponseReceived`` events, in order.

    Kafka answers the requests of a connection in the order they were sent, so a response must
    answer the oldest request in flight (Kafka's own client holds the same rule)."""

    def __init__(
        self,
        client_id: str | None = None,
        *,
        max_frame_size: int = protocol.MAX_FRAME_SIZE,
        registry: RegistryLike = REGISTRY,
    ):
        super().__init__(max_frame_size, registry)
        self.client_id = client_id
        self._next_id = 0
        self._in_flight: OrderedDict[int, PendingRequest] = OrderedDict()

    @property
    def in_flight(self) -> list[PendingRequest]:
        """The requests awaiting a response, oldest first."""
        return list(self._in_flight.values())

    def send_request(
        self, body: Message, api_version: int, *, expect_response: bool | None = None
    ) -> int:
        """Queue ``body`` at ``api_version``; return its correlation id. A request Kafka does not
        answer (acks-0 Produce, unless ``expect_response`` says otherwise) is not kept in flight."""
        self._check_usable()
        if body.MESSAGE_TYPE != "request" or body.API_KEY is None:
            raise TypeError(f"{type(body).__name__} is not a request")
        correlation_id = self._take_correlation_id()
        self._outgoing += protocol.encode_request(
            body, api_version, correlation_id, self.client_id, registry=self.registry
        )
        if expects_response(body) if expect_response is None else expect_response:
            self._in_flight[correlation_id] = PendingRequest(
                correlation_id, body, api_version, body.API_KEY
            )
        return correlation_id

    def _take_correlation_id(self) -> int:
        while True:
            correlation_id = self._next_id
            self._next_id = (self._next_id + 1) % _CORRELATION_LIMIT
            if correlation_id not in self._in_flight:
                return correlation_id

    def receive_data(self, data: bytes | bytearray | memoryview) -> list[ResponseReceived]:
        """The responses ``data`` completes, each matched to its request and decoded."""
        return [self._response(frame) for frame in self._frames(data)]

    def _response(self, payload: bytes) -> ResponseReceived:
        if len(payload) < 4:
            raise self._fail(
                ProtocolError(
                    f"a response frame of {len(payload)} bytes, shorter than its correlation id"
                )
            )
        correlation_id = int.from_bytes(payload[:4], "big", signed=True)
        pending = self._in_flight.get(correlation_id)
        if pending is None:
            raise self._fail(
                ProtocolError(
                    f"a response with correlation id {correlation_id}, which no request in flight has"
                )
            )
        oldest = next(iter(self._in_flight))
        if correlation_id != oldest:
            raise self._fail(
                ProtocolError(
                    f"the response to correlation id {correlation_id} came before the one to {oldest}"
                )
            )
        del self._in_flight[correlation_id]
        frame = protocol.frame(payload)
        try:
            version, response = self._decode(frame, pending)
        except DecodeError as e:
            name = type(pending.request).__name__
            raise self._fail(
                ProtocolError(
                    f"the response to {name} v{pending.api_version} (correlation id {correlation_id}) does not decode: {e}"
                )
            ) from e
        return ResponseReceived(pending.request, version, response, frame)

    def _decode(
        self, frame: bytes, pending: PendingRequest
    ) -> tuple[int, protocol.Response[Message]]:
        api_key, version = pending.api_key, pending.api_version
        try:
            return version, protocol.decode_response(
                frame, api_key, version, registry=self.registry
            )
        except DecodeError:
            # A broker refusing our ApiVersions version answers in version 0 (Kafka's
            # ApiVersionsResponse.parse falls back the same way).
            if api_key != protocol.API_VERSIONS_KEY or version == 0:
                raise
        return 0, protocol.decode_response(frame, api_key, 0, registry=self.registry)


class ServerConnection(_Endpoint):
    """The answering side: ``receive_data`` gives ``RequestReceived`` (or ``UnsupportedRequest``)
    events; ``send_response`` may be called in any order, and the bytes go out in request order,
    as Kafka guarantees its clients."""

    def __init__(
        self, *, max_frame_size: int = protocol.MAX_FRAME_SIZE, registry: RegistryLike = REGISTRY
    ):
        super().__init__(max_frame_size, registry)
        # correlation id -> (version to answer at, encoded response once given), in request order
        self._awaiting: OrderedDict[int, tuple[int, bytes | None]] = OrderedDict()

    @property
    def awaiting(self) -> int:
        """Requests received and not yet answered (an answer held back by an earlier one counts)."""
        return len(self._awaiting)

    def receive_data(
        self, data: bytes | bytearray | memoryview
    ) -> list[RequestReceived | UnsupportedRequest]:
        """The requests ``data`` completes, decoded at their versions."""
        return [self._request(frame) for frame in self._frames(data)]

    def _request(self, payload: bytes) -> RequestReceived | UnsupportedRequest:
        frame = protocol.frame(payload)
        try:
            # Bytes after the body are ignored, as Kafka's brokers ignore them.
            request = protocol.decode_request(frame, registry=self.registry, trailing=True)
        except UnsupportedVersionDecodeError as e:
            if len(payload) < 8:
                raise self._fail(
                    ProtocolError(
                        f"a request frame of {len(payload)} bytes, shorter than its header: {e}"
                    )
                ) from e
            api_key, api_version = (
                int.from_bytes(payload[i : i + 2], "big", signed=True) for i in (0, 2)
            )
            correlation_id = int.from_bytes(payload[4:8], "big", signed=True)
            self._expect(correlation_id, 0)
            return UnsupportedRequest(correlation_id, api_key, api_version, str(e))
        except DecodeError as e:
            raise self._fail(ProtocolError(f"a request that does not decode: {e}")) from e
        answered = expects_response(request.body)
        if answered:
            self._expect(request.correlation_id, request.api_version)
        return RequestReceived(request, frame, answered)

    def _expect(self, correlation_id: int, api_version: int) -> None:
        if correlation_id in self._awaiting:
            raise self._fail(
                ProtocolError(
                    f"correlation id {correlation_id} reused while its request awaits an answer"
                )
            )
        self._awaiting[correlation_id] = (api_version, None)

    def send_response(
        self, correlation_id: int, body: protocol.ResponseBody, api_version: int | None = None
    ) -> None:
        """Answer the request with this correlation id, at its version unless one is given (an
        UnsupportedRequest is answered at version 0 unless told); ``body`` is the response
        message, or a body encoded already (``server.EncodedBody``)."""
        self._check_usable()
        if correlation_id not in self._awaiting:
            raise ValueError(f"no request with correlation id {correlation_id} awaits an answer")
        version, _ = self._awaiting[correlation_id]
        version = version if api_version is None else api_version
        encoded = protocol.encode_response(body, version, correlation_id, registry=self.registry)
        self._awaiting[correlation_id] = (version, encoded)
        # Release every answer that no earlier request holds back.
        while self._awaiting:
            first, (_, ready) = next(iter(self._awaiting.items()))
            if ready is None:
                break
            self._outgoing += ready
            del self._awaiting[first]
