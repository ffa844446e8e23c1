"""One asyncio connection to a broker: the socket (plain or TLS), SASL, the ApiVersions
negotiation, then typed requests and responses, many in flight at once.

The bytes and their bookkeeping belong to the sans-I/O ``net.ClientConnection``; this module only
moves them and wakes the waiting calls. A background task reads the socket; each call waits on a
future of its own, under a timeout, so a call that times out or is cancelled leaves the others and
the connection alone (its late response is read and dropped). A closed connection or a protocol
error ends every waiting call with that error.
"""

from __future__ import annotations

import asyncio
import ssl as _ssl
from types import TracebackType
from typing import TypeVar, overload

from .. import __version__
from ..message import Message
from ..messages import REGISTRY
from ..messages.api_versions_request import ApiVersionsRequest
from ..net.connection import ClientConnection, ResponseReceived, expects_response
from ..net.errors import ConnectionClosed, NetworkError, ProtocolError, RequestTimedOut
from ..net.sasl import SaslMechanism
from ..net.versions import (
    Retry,
    VersionRanges,
    choose_version,
    newest_api_versions_version,
    read_api_versions,
)
from ..protocol import MAX_FRAME_SIZE
from ..registries import RegistryLike
from .sasl import authenticate

DEFAULT_CLIENT_ID = "kafka-meta-proto"
DEFAULT_TIMEOUT = 30.0  # seconds; no call waits longer unless told
_READ_SIZE = 1 << 16
_R = TypeVar("_R", bound=Message)


class Connection:
    """Made by ``connect``; use as ``async with await connect(...) as conn`` or close it."""

    def __init__(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        core: ClientConnection,
        *,
        address: tuple[str, int],
        timeout: float = DEFAULT_TIMEOUT,
    ):
        self.address = address
        self.timeout = timeout
        # api key -> (min, max) the broker speaks; filled by the negotiation
        self.api_versions: VersionRanges = {}
        self._reader, self._writer, self._core = reader, writer, core
        self._waiting: dict[int, asyncio.Future[ResponseReceived]] = {}
        self._error: NetworkError | None = None
        self._write_pending = False  # a _write_out is scheduled
        # above this many bytes unsent, a call waits for the socket (asyncio's own mark)
        self._high_water = writer.transport.get_write_buffer_limits()[1]
        self._reading = asyncio.get_running_loop().create_task(self._read_forever())

    def __repr__(self) -> str:
        state = "closed" if self._error else f"{len(self._waiting)} waiting"
        return f"<Connection to {self.address[0]}:{self.address[1]}, {state}>"

    @property
    def closed(self) -> bool:
        return self._error is not None

    async def __aenter__(self) -> Connection:
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    async def close(self) -> None:
        """Close the socket; calls still waiting end with ConnectionClosed."""
        self._fail(ConnectionClosed(f"the connection to {self._where} was closed by this side"))
        self._reading.cancel()
        try:
            await asyncio.wait_for(self._writer.wait_closed(), 5)
        except (OSError, asyncio.TimeoutError):
            pass  # closing anyway: the peer may already be gone
        try:
            await self._reading
        except asyncio.CancelledError:
            pass

    @property
    def _where(self) -> str:
        return f"{self.address[0]}:{self.address[1]}"

    def version_for(self, request: Message | type[Message], version: int | None = None) -> int:
        """The version ``send`` would use: the one given if the broker speaks it, else the
        newest both sides speak (NoCommonVersion otherwise)."""
        return choose_version(request, self.api_versions, version)

    @overload
    async def send(
        self, request: Message, version: int | None = None, *, timeout: float | None = None
    ) -> Message: ...
    @overload
    async def send(
        self,
        request: Message,
        version: int | None = None,
        *,
        expect: type[_R],
        timeout: float | None = None,
    ) -> _R: ...
    async def send(
        self,
        request: Message,
        version: int | None = None,
        *,
        expect: type[Message] | None = None,
        timeout: float | None = None,
    ) -> Message:
        """Send ``request`` and return the response body (``expect`` checks and types its class).

        The version is the newest both sides speak unless given. An acks-0 Produce, which Kafka
        never answers, goes through ``send_oneway``."""
        body = (await self.exchange(request, version, timeout=timeout)).body
        if expect is not None and not isinstance(body, expect):
            raise TypeError(f"the response is a {type(body).__name__}, not a {expect.__name__}")
        return body

    async def exchange(
        self, request: Message, version: int | None = None, *, timeout: float | None = None
    ) -> ResponseReceived:
        """As ``send``, with the whole exchange: the version, the response header and the frame."""
        if not expects_response(request):
            raise ValueError(
                f"{type(request).__name__} with acks 0 gets no response: use send_oneway"
            )
        return await self._exchange_at(request, self.version_for(request, version), timeout)

    async def send_oneway(
        self, request: Message, version: int | None = None, *, timeout: float | None = None
    ) -> None:
        """Send a request Kafka does not answer (a Produce with acks 0); return once written."""
        at = self.version_for(request, version)
        self._check_open()
        self._core.send_request(request, at, expect_response=False)
        await self._flush(timeout, f"{type(request).__name__} v{at}")

    async def _exchange_at(
        self, request: Message, version: int, timeout: float | None
    ) -> ResponseReceived:
        self._check_open()
        correlation_id = self._core.send_request(request, version)
        loop = asyncio.get_running_loop()
        answer: asyncio.Future[ResponseReceived] = loop.create_future()
        self._waiting[correlation_id] = answer
        limit = self.timeout if timeout is None else timeout
        # One timer for the whole call (writing and waiting), set on the call's own future: no
        # task is made for it, which is most of what a pipelined call costs the event loop.
        timer = loop.call_later(limit, _time_out, answer, self._where, request, version,
                                correlation_id, limit)  # fmt: skip
        try:
            self._write_soon(loop)
            if self._writer.transport.get_write_buffer_size() > self._high_water:
                await self._flush(limit, f"{type(request).__name__} v{version}")
            return await answer
        finally:
            timer.cancel()
            # The core keeps the request in flight: its late response is read and dropped.
            self._waiting.pop(correlation_id, None)
            if not answer.done():
                answer.cancel()

    def _write_soon(self, loop: asyncio.AbstractEventLoop) -> None:
        """Write what the core queued once the calls of this turn of the event loop are made:
        a burst of pipelined requests goes out in one write (one system call), not one each."""
        if not self._write_pending:
            self._write_pending = True
            loop.call_soon(self._write_out)

    def _write_out(self) -> None:
        self._write_pending = False
        data = self._core.data_to_send()
        if data and not self._writer.is_closing():
            self._writer.write(data)

    async def _flush(self, timeout: float | None, what: str) -> None:
        self._writer.write(self._core.data_to_send())
        try:
            await asyncio.wait_for(
                self._writer.drain(), self.timeout if timeout is None else timeout
            )
        except asyncio.TimeoutError:
            raise RequestTimedOut(f"could not write {what} to {self._where} in time") from None
        except OSError as e:
            raise self._fail(ConnectionClosed(f"writing to {self._where} failed: {e}")) from e

    def _check_open(self) -> None:
        if self._error is not None:
            raise self._error

    def _fail(self, error: NetworkError) -> NetworkError:
        """End the connection with ``error`` (the first one wins) and every call waiting on it."""
        if self._error is None:
            self._error = error
            self._core.close(str(error))
            self._writer.close()
        for answer in self._waiting.values():
            if not answer.done():
                answer.set_exception(self._error)
        self._waiting.clear()
        return self._error

    async def _read_forever(self) -> None:
        try:
            while True:
                data = await self._reader.read(_READ_SIZE)
                if not data:
                    self._fail(ConnectionClosed(f"{self._where} closed the connection"))
                    return
                for response in self._core.receive_data(data):
                    answer = self._waiting.pop(response.correlation_id, None)
                    if answer is not None and not answer.done():
                        answer.set_result(response)
        except ProtocolError as e:
            self._fail(e)
        except OSError as e:
            self._fail(ConnectionClosed(f"reading from {self._where} failed: {e}"))
        except (
            Exception
        ) as e:  # anything else still ends the waiting calls, never leaves them hanging
            self._fail(NetworkError(f"reading from {self._where} failed: {e!r}"))
            raise


def _time_out(
    answer: asyncio.Future[ResponseReceived],
    where: str,
    request: Message,
    version: int,
    correlation_id: int,
    limit: float,
) -> None:
    if not answer.done():
        what = f"{type(request).__name__} v{version} (correlation id {correlation_id})"
        answer.set_exception(
            RequestTimedOut(f"no response to {what} from {where} within {limit} s")
        )


async def connect(
    host: str,
    port: int,
    *,
    ssl: _ssl.SSLContext | None = None,
    sasl: SaslMechanism | None = None,
    client_id: str | None = DEFAULT_CLIENT_ID,
    timeout: float = DEFAULT_TIMEOUT,
    max_frame_size: int = MAX_FRAME_SIZE,
    registry: RegistryLike = REGISTRY,
) -> Connection:
    """Open a connection ready for requests: the socket (TLS when ``ssl`` is given), the
    ApiVersions negotiation, then SASL when ``sasl`` is given. ``timeout`` bounds each step and
    is every later call's default."""
    try:
        reader, writer = await asyncio.wait_for(
            asyncio.open_connection(host, port, ssl=ssl, limit=_READ_SIZE), timeout
        )
    except asyncio.TimeoutError:
        raise RequestTimedOut(f"connecting to {host}:{port} took over {timeout} s") from None
    core = ClientConnection(client_id, max_frame_size=max_frame_size, registry=registry)
    conn = Connection(reader, writer, core, address=(host, port), timeout=timeout)
    try:
        conn.api_versions = await negotiate(conn, registry)
        if sasl is not None:
            await authenticate(conn, sasl)
    except BaseException:
        await conn.close()
        raise
    return conn


async def negotiate(
    conn: Connection, registry: RegistryLike = REGISTRY
) -> dict[int, tuple[int, int]]:
    """Kafka's ApiVersions rule: the newest version first, then the one a refusal names."""
    request = ApiVersionsRequest(
        client_software_name="kafka-meta-proto", client_software_version=__version__
    )
    version = newest_api_versions_version(registry)
    while True:
        answer = await conn._exchange_at(request, version, None)
        outcome = read_api_versions(answer.body, version)
        if not isinstance(outcome, Retry):
            return outcome
        version = outcome.version
