"""One client connection through the proxy: its own connection to the upstream broker, the
client's bytes forwarded one way and the broker's the other, until either side ends it.

Kafka answers a connection's requests in the order they came, so the responses are matched to
the requests waiting, oldest first. Correlation ids are the client's own: the proxy forwards the
client's bytes as they are. What is read on the way, and what may be rewritten, is the
subclass's: ``decoding_relay`` (a log or hooks: every body decoded) or ``passing_relay`` (neither:
frames cut out of the stream and passed on, only responses naming brokers decoded).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from ..net.errors import ProtocolError
from .endpoints import Relocate
from .exchange_log import ExchangeLog
from .settings import Settings

logger = logging.getLogger("kafka_meta_proto.proxy")
READ_SIZE = 1 << 16

# What one read of a side becomes on the other: None when it completes no frame.
Outgoing = bytes | bytearray | memoryview | None
Forward = Callable[[bytes], Awaitable[Outgoing]]


def _address(writer: asyncio.StreamWriter) -> str:
    peer = writer.get_extra_info("peername")
    return f"{peer[0]}:{peer[1]}" if peer else "?"


class Relay:
    """Carries one client connection to ``upstream`` and back until either side ends it."""

    def __init__(
        self,
        client: tuple[asyncio.StreamReader, asyncio.StreamWriter],
        upstream: tuple[str, int],
        settings: Settings,
        relocate: Relocate,
        log: ExchangeLog | None,
    ):
        self.client_reader, self.client_writer = client
        self.upstream = upstream
        self.settings = settings
        self.relocate = relocate
        self.log = log
        self.client_name = _address(self.client_writer)
        self.upstream_name = f"{upstream[0]}:{upstream[1]}"
        self.closed_because: str | None = None

    async def forward_requests(self, data: bytes) -> Outgoing:
        """What to send the broker for bytes read from the client."""
        raise NotImplementedError

    async def forward_responses(self, data: bytes) -> Outgoing:
        """What to send the client for bytes read from the broker."""
        raise NotImplementedError

    def unanswered(self, reason: str) -> None:
        """The connection ends with ``reason``: what was still waiting for a response is done."""

    async def run(self) -> None:
        try:
            reader, self.upstream_writer = await asyncio.open_connection(*self.upstream)
        except OSError as e:
            self._close(f"the upstream broker {self.upstream_name} is unreachable: {e}")
            return
        tasks = [
            asyncio.create_task(self._pump(self.client_reader, self.forward_requests,
                                           self.upstream_writer, "client")),
            asyncio.create_task(self._pump(reader, self.forward_responses, self.client_writer,
                                           "upstream broker")),
        ]  # fmt: skip
        try:
            await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            self._close(self.closed_because)

    async def _pump(
        self,
        reader: asyncio.StreamReader,
        forward: Forward,
        writer: asyncio.StreamWriter,
        side: str,
    ) -> None:
        """Reads from ``reader``, each passed through ``forward``, to ``writer``: what one read
        completes goes out in one write. Sets why the connection ended."""
        try:
            while data := await reader.read(READ_SIZE):
                out = await forward(data)
                if out:
                    writer.write(out)
                    await writer.drain()
            reason = f"the {side} closed the connection"
        except ProtocolError as e:
            reason = f"the {side} broke the protocol: {e}"
        except OSError as e:
            reason = f"the {side} connection failed: {e}"
        except Exception as e:  # a hook's error, or the proxy's own: this connection only
            logger.exception("%s -> %s: relaying failed", self.client_name, self.upstream_name)
            reason = f"relaying the {side}'s data failed: {e!r}"
        self.closed_because = self.closed_because or reason

    def _close(self, reason: str | None) -> None:
        """End both connections; requests still waiting are done, with the reason."""
        reason = reason or "the proxy closed the connection"
        self.unanswered(reason)
        logger.info("%s -> %s closed: %s", self.client_name, self.upstream_name, reason)
        if self.log is not None:
            self.log.event("connection", client=self.client_name, upstream=self.upstream_name,
                           reason=reason)  # fmt: skip
        self.client_writer.close()
        writer = getattr(self, "upstream_writer", None)
        if writer is not None:
            writer.close()
