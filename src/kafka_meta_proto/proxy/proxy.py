"""The proxy: a listener per upstream broker, each client connection relayed to its broker.

The first listener, at the address given, stands for the bootstrap broker. Each broker a
response names (Metadata, FindCoordinator, ...) gets a listener of its own, opened on the same
host at a port the system chooses, before the response reaches the client: the client is told
the listener's address instead of the broker's, so every connection it opens comes back through
the proxy. ``on_listener`` hears of each listener as it opens.

The listening and accepting are the few lines of ``_listen``; the work of a connection is a
relay's: ``DecodingRelay`` when a log or a hook wants the bodies, ``PassingRelay`` otherwise.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import TextIO

from ..messages import REGISTRY
from ..protocol import MAX_FRAME_SIZE
from ..registries import RegistryLike
from .exchange_log import ExchangeLog
from .hooks import RequestHook, ResponseHook
from .decoding_relay import DecodingRelay
from .passing_relay import PassingRelay
from .relay import Relay
from .settings import Settings

Address = tuple[str, int]


@dataclass(frozen=True)
class Listener:
    """A proxy address (``host``, ``port``, as clients are told it) and the broker behind it."""

    host: str
    port: int
    upstream: Address

    def __str__(self) -> str:
        return f"{self.host}:{self.port} for {self.upstream[0]}:{self.upstream[1]}"


class Proxy:
    """``async with Proxy(("127.0.0.1", 9092), ("broker", 9092), log="x.jsonl") as proxy: ...``

    ``log`` is a path, an open text stream or an ``ExchangeLog`` (None: no log). ``on_request``
    and ``on_response`` (plain or async) may return a new body to replace the one passing
    through. ``advertised_host`` is the host clients are told (default: the listening host)."""

    def __init__(
        self,
        listen: Address,
        upstream: Address,
        *,
        log: str | Path | TextIO | ExchangeLog | None = None,
        on_request: RequestHook | None = None,
        on_response: ResponseHook | None = None,
        advertised_host: str | None = None,
        on_listener: Callable[[Listener], object] | None = None,
        max_frame_size: int = MAX_FRAME_SIZE,
        registry: RegistryLike = REGISTRY,
    ):
        self.listen, self.upstream = listen, upstream
        self.advertised_host = advertised_host or listen[0]
        self.on_listener = on_listener
        self.log = log if isinstance(log, ExchangeLog) or log is None else ExchangeLog(log)
        hooked = on_request is not None or on_response is not None
        self.settings = Settings(registry, max_frame_size, on_request, on_response)
        # a log or a hook needs every body decoded; without either, bodies pass unread
        relay: type[Relay] = DecodingRelay if hooked or self.log is not None else PassingRelay
        self.relay_class = relay
        self.listeners: dict[Address, Listener] = {}
        self._servers: list[asyncio.AbstractServer] = []
        self._relays: set[asyncio.Task[None]] = set()
        self._opening = asyncio.Lock()

    @property
    def address(self) -> Address:
        """Where clients bootstrap: the first listener's address."""
        first = self.listeners[self.upstream]
        return first.host, first.port

    async def start(self) -> None:
        await self._listen(self.listen[0], self.listen[1], self.upstream)

    async def __aenter__(self) -> Proxy:
        await self.start()
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()

    async def serve_forever(self) -> None:
        await asyncio.gather(*(server.serve_forever() for server in self._servers))

    async def close(self) -> None:
        """Stop listening, end every relayed connection and close the log."""
        for server in self._servers:
            server.close()
        for task in list(self._relays):
            task.cancel()
        await asyncio.gather(*self._relays, return_exceptions=True)
        for server in self._servers:
            await server.wait_closed()
        if self.log is not None:
            self.log.close()

    async def relocate(self, host: str, port: int) -> Address:
        """The proxy address standing for the broker at ``host:port``, opening it when new."""
        async with self._opening:
            listener = self.listeners.get((host, port))
            if listener is None:
                listener = await self._listen(self.listen[0], 0, (host, port))
        return listener.host, listener.port

    async def _listen(self, host: str, port: int, upstream: Address) -> Listener:
        async def accept(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            relay = self.relay_class((reader, writer), upstream, self.settings, self.relocate, self.log)
            task = asyncio.current_task()
            assert task is not None  # asyncio runs each accepted connection in a task
            self._relays.add(task)
            try:
                await relay.run()
            except asyncio.CancelledError:
                pass  # the proxy closing: the relay has closed both connections
            finally:
                self._relays.discard(task)

        server = await asyncio.start_server(accept, host, port)
        self._servers.append(server)
        bound = server.sockets[0].getsockname()[1]
        listener = Listener(self.advertised_host, bound, upstream)
        self.listeners[upstream] = listener
        if self.log is not None:
            self.log.event("listener", listen=f"{listener.host}:{listener.port}",
                           upstream=f"{upstream[0]}:{upstream[1]}")  # fmt: skip
        if self.on_listener is not None:
            self.on_listener(listener)
        return listener
