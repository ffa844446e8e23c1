"""One client connection through the proxy: its own connection to the upstream broker, the
client's frames forwarded one way and the broker's the other, each exchange logged.

Kafka answers a connection's requests in the order they came, so the responses are matched to
the requests waiting, oldest first. Correlation ids are the client's own: the proxy forwards the
client's bytes as they are, and re-encodes (with the same header values) only what a hook or an
address rewrite changed.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from ..client.routing import error_codes
from ..message import Message
from ..net.errors import ProtocolError
from ..net.frames import FrameReader
from ..protocol import frame as framed
from .endpoints import ENDPOINT_APIS, Relocate, rewrite_endpoints
from .exchange_log import Exchange, ExchangeLog, api_name, json_form
from .frames import (
    Decoded,
    RequestHead,
    answered,
    decode_request,
    decode_response,
    encode_request,
    encode_response,
    read_request_head,
)
from .hooks import ProxiedRequest, settle
from .leaders import may_name_brokers
from .settings import Settings

logger = logging.getLogger("kafka_meta_proto.proxy")
READ_SIZE = 1 << 16


@dataclass
class _Waiting:
    """A forwarded request awaiting its response."""

    head: RequestHead
    request: Decoded
    proxied: ProxiedRequest | None
    exchange: Exchange
    started: float  # perf_counter at the request's arrival


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
        self.waiting: deque[_Waiting] = deque()
        self.client_name = _address(self.client_writer)
        self.upstream_name = f"{upstream[0]}:{upstream[1]}"
        self.closed_because: str | None = None

    async def run(self) -> None:
        try:
            reader, self.upstream_writer = await asyncio.open_connection(*self.upstream)
        except OSError as e:
            self._close(f"the upstream broker {self.upstream_name} is unreachable: {e}")
            return
        tasks = [
            asyncio.create_task(self._client_to_upstream()),
            asyncio.create_task(self._upstream_to_client(reader)),
        ]
        try:
            await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            self._close(self.closed_because)

    async def _client_to_upstream(self) -> None:
        await self._pump(self.client_reader, self._forward_request, self.upstream_writer, "client")

    async def _upstream_to_client(self, reader: asyncio.StreamReader) -> None:
        await self._pump(reader, self._forward_response, self.client_writer, "upstream broker")

    async def _pump(
        self,
        reader: asyncio.StreamReader,
        forward: Callable[[bytes], Awaitable[bytes]],
        writer: asyncio.StreamWriter,
        side: str,
    ) -> None:
        """Frames from ``reader``, each passed through ``forward``, to ``writer``: what one read
        completes goes out in one write. Sets why the connection ended."""
        frames = FrameReader(self.settings.max_frame_size)
        try:
            while data := await reader.read(READ_SIZE):
                out = [await forward(payload) for payload in frames.feed(data)]
                if out:
                    writer.write(b"".join(out))
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

    async def _forward_request(self, payload: bytes) -> bytes:
        """The frame to send upstream for a client's frame; the exchange kept until answered."""
        started, frame = time.perf_counter(), framed(payload)
        try:
            head = read_request_head(payload)
        except Exception as e:
            # Nothing to match a response to: let the broker judge the bytes, log what came.
            self._log_unreadable(frame, str(e))
            return frame
        request = self._decode_request(frame, head)
        proxied, exchange = None, self._exchange(payload, head, request)
        if request.body is not None:
            proxied = ProxiedRequest(head.api_key, head.api_version, head.correlation_id,
                                     head.client_id, request.body, self.upstream)  # fmt: skip
            replaced = await self._hook_request(proxied)
            if replaced is not None:
                frame = encode_request(replaced, head, self.settings.registry)
                exchange.request_rewritten = True
        if exchange.expects_response:
            self.waiting.append(_Waiting(head, request, proxied, exchange, started))
        elif self.log is not None:
            self.log.exchange(exchange)
        return frame

    def _decode_request(self, frame: bytes, head: RequestHead) -> Decoded:
        settings = self.settings
        if settings.decodes_everything:
            return decode_request(frame, head, settings.registry)
        return Decoded(None, head.api_version)

    def _exchange(self, payload: bytes, head: RequestHead, request: Decoded) -> Exchange:
        logging = self.log is not None  # the name is for the log only
        logged = logging and request.body is not None
        return Exchange(
            api_key=head.api_key,
            api_name=api_name(head.api_key, self.settings.registry) if logging else None,
            api_version=head.api_version,
            correlation_id=head.correlation_id,
            client_id=head.client_id,
            client=self.client_name,
            upstream=self.upstream_name,
            time=time.time(),
            request_size=len(payload) + 4,
            request=json_form(request.body, head.api_version) if logged else None,
            request_error=request.error,
            expects_response=answered(payload, head, request),
        )

    async def _hook_request(self, proxied: ProxiedRequest) -> Message | None:
        hook = self.settings.on_request
        return None if hook is None else await settle(hook(proxied))

    async def _forward_response(self, payload: bytes) -> bytes:
        """The frame to give the client for the broker's, and the exchange logged."""
        correlation_id = int.from_bytes(payload[:4], "big", signed=True) if len(payload) >= 4 else None
        if not self.waiting or self.waiting[0].head.correlation_id != correlation_id:
            expected = self.waiting[0].head.correlation_id if self.waiting else None
            raise ProtocolError(
                f"a response with correlation id {correlation_id} when {expected} was awaited"
            )
        waiting = self.waiting.popleft()
        frame = framed(payload)
        exchange = waiting.exchange
        exchange.latency_ms = (time.perf_counter() - waiting.started) * 1000
        exchange.response_size = len(frame)
        out = await self._response_frame(payload, frame, waiting)
        if self.log is not None:
            self.log.exchange(exchange)
        return out

    async def _response_frame(self, payload: bytes, frame: bytes, waiting: _Waiting) -> bytes:
        """The frame to give the client: the broker's, or re-encoded when a hook or an address
        rewrite changed the body. Fills in the exchange's response fields."""
        head, exchange, settings = waiting.head, waiting.exchange, self.settings
        needed = settings.decodes_everything or (
            head.api_key in ENDPOINT_APIS
            and may_name_brokers(head.api_key, head.api_version, payload)
        )
        if not needed:
            return frame
        response = decode_response(frame, head.api_key, head.api_version, settings.registry)
        exchange.response_version, exchange.response_error = response.version, response.error
        body = response.body
        if body is None:
            return frame
        if self.log is not None:
            exchange.error_codes = [code for code in error_codes(body) if code]
            exchange.response = json_form(body, response.version)
        if waiting.proxied is not None and settings.on_response is not None:
            replaced = await settle(settings.on_response(waiting.proxied, body))
            if replaced is not None:
                body, exchange.response_rewritten = replaced, True
        if await rewrite_endpoints(body, self.relocate):
            exchange.response_rewritten = True
        if not exchange.response_rewritten:
            return frame
        return encode_response(body, response.version, head.correlation_id, settings.registry)

    def _log_unreadable(self, frame: bytes, error: str) -> None:
        if self.log is not None:
            self.log.event("unreadable", client=self.client_name, upstream=self.upstream_name,
                           request_size=len(frame), request_error=error)  # fmt: skip

    def _close(self, reason: str | None) -> None:
        """End both connections; requests still waiting are logged unanswered, with the reason."""
        reason = reason or "the proxy closed the connection"
        while self.waiting:
            waiting = self.waiting.popleft()
            waiting.exchange.response_error = f"no response: {reason}"
            if self.log is not None:
                self.log.exchange(waiting.exchange)
        logger.info("%s -> %s closed: %s", self.client_name, self.upstream_name, reason)
        if self.log is not None:
            self.log.event("connection", client=self.client_name, upstream=self.upstream_name,
                           reason=reason)  # fmt: skip
        self.client_writer.close()
        writer = getattr(self, "upstream_writer", None)
        if writer is not None:
            writer.close()
