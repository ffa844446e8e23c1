"""The relay of a proxy with a log or hooks: every request and response decoded with our
classes, each exchange kept until its answer and logged, the hooks given each body.

A body that does not decode is forwarded all the same, with its error logged; a frame too
short for a request header is forwarded and logged as unreadable.
"""

from __future__ import annotations

import time
from collections import deque
from dataclasses import dataclass
from typing import Any

from ..client.routing import error_codes
from ..message import Message
from ..net.errors import ProtocolError
from ..net.frames import FrameReader
from ..protocol import frame as framed
from .endpoints import rewrite_endpoints
from .exchange_log import Exchange, api_name, json_form
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
from .relay import Relay


@dataclass
class _Waiting:
    """A forwarded request awaiting its response."""

    head: RequestHead
    request: Decoded
    proxied: ProxiedRequest | None
    exchange: Exchange
    started: float  # perf_counter at the request's arrival


class DecodingRelay(Relay):
    """Decodes, logs and hooks each exchange of one client connection."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:  # Relay's
        super().__init__(*args, **kwargs)
        self.waiting: deque[_Waiting] = deque()
        self._requests = FrameReader(self.settings.max_frame_size)
        self._responses = FrameReader(self.settings.max_frame_size)

    async def forward_requests(self, data: bytes) -> bytes:
        return b"".join([await self._forward_request(p) for p in self._requests.feed(data)])

    async def forward_responses(self, data: bytes) -> bytes:
        return b"".join([await self._forward_response(p) for p in self._responses.feed(data)])

    async def _forward_request(self, payload: bytes) -> bytes:
        """The frame to send upstream for a client's frame; the exchange kept until answered."""
        started, frame = time.perf_counter(), framed(payload)
        try:
            head = read_request_head(payload)
        except Exception as e:
            # Nothing to match a response to: let the broker judge the bytes, log what came.
            self._log_unreadable(frame, str(e))
            return frame
        request = decode_request(frame, head, self.settings.registry)
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
        out = await self._response_frame(frame, waiting)
        if self.log is not None:
            self.log.exchange(exchange)
        return out

    async def _response_frame(self, frame: bytes, waiting: _Waiting) -> bytes:
        """The frame to give the client: the broker's, or re-encoded when a hook or an address
        rewrite changed the body. Fills in the exchange's response fields."""
        head, exchange, settings = waiting.head, waiting.exchange, self.settings
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

    def unanswered(self, reason: str) -> None:
        """Requests still waiting are logged unanswered, with the reason."""
        while self.waiting:
            waiting = self.waiting.popleft()
            waiting.exchange.response_error = f"no response: {reason}"
            if self.log is not None:
                self.log.exchange(waiting.exchange)
