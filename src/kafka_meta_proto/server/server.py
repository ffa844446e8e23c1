"""The server: listening sockets, the handlers, the connections served, and the shutdown::

    server = Server()

    @server.handle(MetadataRequest)
    async def metadata(request: RequestContext) -> Message:
        return MetadataResponse(cluster_id="tiny")

    async with server.listening(("127.0.0.1", 0)):
        print(server.addresses)

``close`` stops accepting, stops reading from every connection, lets the handlers in flight finish
within ``shutdown_timeout``, then closes the connections.
"""

from __future__ import annotations

import asyncio
import contextlib
import ssl as _ssl
from collections.abc import AsyncIterator
from typing import Any

from ..message import Message
from ..messages import REGISTRY
from ..protocol import MAX_FRAME_SIZE
from ..registries import RegistryLike
from .connection import ServedConnection
from ..net.sasl_server import SaslServerMechanism
from .handlers import Handler, Handlers, Interceptor
from .sasl import SaslGate

DEFAULT_MAX_IN_FLIGHT = 100  # requests per connection before reading pauses
DEFAULT_WRITE_BUFFER = 1 << 20  # bytes a connection may hold unsent before writes wait
DEFAULT_SHUTDOWN_TIMEOUT = 10.0  # seconds the handlers in flight get at close


class Server:
    """A Kafka-protocol server: handlers registered per API, answered over asyncio sockets."""

    def __init__(
        self,
        *,
        registry: RegistryLike = REGISTRY,
        max_frame_size: int = MAX_FRAME_SIZE,
        max_in_flight: int = DEFAULT_MAX_IN_FLIGHT,
        write_buffer: int = DEFAULT_WRITE_BUFFER,
        shutdown_timeout: float = DEFAULT_SHUTDOWN_TIMEOUT,
    ):
        if max_in_flight < 1:
            raise ValueError("max_in_flight must be at least 1")
        self.handlers = Handlers(registry)
        self.max_frame_size = max_frame_size
        self.max_in_flight = max_in_flight
        self.write_buffer = write_buffer
        self.shutdown_timeout = shutdown_timeout
        self._listeners: list[asyncio.Server] = []
        self._connections: set[ServedConnection] = set()
        self._readers: set[asyncio.Task[None]] = set()

    def handle(
        self,
        api: int | type[Message],
        handler: Handler | None = None,
        *,
        versions: tuple[int, int] | None = None,
    ) -> Any:
        """Serve ``api`` (api key or request class) with ``handler``; without one, a decorator.
        ``versions`` narrows what ApiVersions advertises and what is served."""
        if handler is not None:
            self.handlers.add(api, handler, versions)
            return handler

        def register(fn: Handler) -> Handler:
            self.handlers.add(api, fn, versions)
            return fn

        return register

    def intercept(self, interceptor: Interceptor) -> Interceptor:
        """Run ``interceptor(context, handler)`` around every request a handler serves (not
        ApiVersions, which the framework answers): it answers by calling ``handler(context)``, or
        answers itself, waits, or raises ``CloseConnection``. The first added runs outermost.
        Usable as a decorator."""
        self.handlers.interceptors.append(interceptor)
        return interceptor

    def enable_sasl(self, *mechanisms: SaslServerMechanism) -> None:
        """Require SASL (``net.sasl_server.PlainServer``, ``ScramServer``) before any request
        but ApiVersions and the SASL exchange itself, as a broker's SASL listener does."""
        SaslGate(mechanisms).install(self.handlers)

    @property
    def addresses(self) -> list[tuple[str, int]]:
        """The (host, port) of every listening socket, the chosen port for a port of 0."""
        found = []
        for listener in self._listeners:
            for sock in listener.sockets:
                host, port = sock.getsockname()[:2]
                found.append((host, port))
        return found

    @property
    def connections(self) -> int:
        """Connections being served."""
        return len(self._connections)

    async def start(self, *addresses: tuple[str, int], ssl: _ssl.SSLContext | None = None) -> None:
        """Listen on each (host, port); call again to add listeners."""
        for host, port in addresses:
            listener = await asyncio.start_server(self._accept, host, port, ssl=ssl)
            self._listeners.append(listener)

    @contextlib.asynccontextmanager
    async def listening(
        self, *addresses: tuple[str, int], ssl: _ssl.SSLContext | None = None
    ) -> AsyncIterator[Server]:
        """``start`` on entry, ``close`` on exit."""
        await self.start(*addresses, ssl=ssl)
        try:
            yield self
        finally:
            await self.close()

    async def __aenter__(self) -> Server:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def close(self) -> None:
        """Stop accepting, stop reading, let handlers in flight finish, close connections."""
        for listener in self._listeners:
            listener.close()
        for reader in list(self._readers):
            reader.cancel()
        connections = list(self._connections)
        await asyncio.gather(*(c.finish(self.shutdown_timeout) for c in connections))
        for listener in self._listeners:
            await listener.wait_closed()
        self._listeners.clear()

    async def serve_forever(self) -> None:
        """Wait until cancelled (then close)."""
        try:
            await asyncio.Event().wait()
        finally:
            await self.close()

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.transport.set_write_buffer_limits(high=self.write_buffer)
        connection = ServedConnection(
            reader,
            writer,
            self.handlers,
            max_frame_size=self.max_frame_size,
            max_in_flight=self.max_in_flight,
        )
        self._connections.add(connection)
        reading = asyncio.get_running_loop().create_task(connection.read())
        self._readers.add(reading)
        try:
            await asyncio.wait([reading])
        finally:
            self._readers.discard(reading)
            if not reading.cancelled():  # the peer ended it: nobody waits for the answers
                await connection.finish(0)
            self._connections.discard(connection)

    def __repr__(self) -> str:
        where = ", ".join(f"{h}:{p}" for h, p in self.addresses) or "not listening"
        return f"<Server on {where}, {len(self._connections)} connections>"
