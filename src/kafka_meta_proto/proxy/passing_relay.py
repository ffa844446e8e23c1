"""The relay of a proxy with no log and no hooks: the bytes pass on as they came, and only what
the proxy needs for itself is read.

That is, for each request, the 8 header bytes (api key, version, correlation id) that match it
to its response, and a Produce's acks (an acks-0 Produce gets no response); for each response,
its correlation id, and the body only when it may name brokers whose addresses must be
rewritten (``endpoints``; a Produce response only when ``leaders`` finds its tagged section
filled). Frames are cut out of the reads without copying them (``scanner``), so a read whose
frames all pass unchanged is written on as it is.
"""

from __future__ import annotations

import struct
from collections import deque
from typing import Any

from ..net.errors import ProtocolError
from .endpoints import ENDPOINT_APIS, rewrite_endpoints
from .frames import PRODUCE_KEY, decode_response, encode_response, produce_acks
from .leaders import may_name_brokers
from .relay import Outgoing, Relay
from .scanner import Chunk, FrameScanner

_HEAD = struct.Struct(">hhi")  # a request's api key, api version, correlation id
_CORRELATION_ID = struct.Struct(">i")
_SHORTEST_REQUEST = 4 + _HEAD.size  # size prefix and the header's first fields


class PassingRelay(Relay):
    """Forwards one client connection's frames unread but for their headers."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:  # Relay's
        super().__init__(*args, **kwargs)
        # (api key, api version, correlation id) of each request awaiting its response
        self.waiting: deque[tuple[int, int, int]] = deque()
        self._requests = FrameScanner(self.settings.max_frame_size)
        self._responses = FrameScanner(self.settings.max_frame_size)

    async def forward_requests(self, data: bytes) -> Outgoing:
        chunk, bounds = self._requests.feed(data)
        if len(bounds) == 1:
            return None
        view, waiting = memoryview(chunk), self.waiting
        for start, end in zip(bounds, bounds[1:]):
            if end - start < _SHORTEST_REQUEST:
                continue  # no header to match a response to: the broker judges the bytes
            api_key, version, correlation_id = _HEAD.unpack_from(chunk, start + 4)
            if api_key == PRODUCE_KEY and produce_acks(view[start + 4 : end], version) == 0:
                continue  # acks 0: no response will come
            waiting.append((api_key, version, correlation_id))
        return _whole_frames(chunk, view, bounds[-1])

    async def forward_responses(self, data: bytes) -> Outgoing:
        chunk, bounds = self._responses.feed(data)
        if len(bounds) == 1:
            return None
        view, waiting = memoryview(chunk), self.waiting
        pieces: list[Any] = []  # the frames to send, when one was rewritten
        passed = 0  # where the frames not yet in ``pieces`` start
        for start, end in zip(bounds, bounds[1:]):
            correlation_id = None
            if end - start >= 8:
                (correlation_id,) = _CORRELATION_ID.unpack_from(chunk, start + 4)
            if not waiting or waiting[0][2] != correlation_id:
                expected = waiting[0][2] if waiting else None
                raise ProtocolError(
                    f"a response with correlation id {correlation_id} when {expected} was awaited"
                )
            api_key, version, _ = waiting.popleft()
            payload = view[start + 4 : end]
            if api_key in ENDPOINT_APIS and may_name_brokers(api_key, version, payload):
                rewritten = await self._relocated(bytes(view[start:end]), api_key, version)
                if rewritten is not None:
                    pieces += (view[passed:start], rewritten)
                    passed = end
        if not pieces:
            return _whole_frames(chunk, view, bounds[-1])
        pieces.append(view[passed : bounds[-1]])
        return b"".join(pieces)

    async def _relocated(self, frame: bytes, api_key: int, version: int) -> bytes | None:
        """The response re-encoded with the proxy's addresses, or None when it names none (or
        does not decode: then it passes on as the broker sent it)."""
        settings = self.settings
        response = decode_response(frame, api_key, version, settings.registry)
        if response.body is None or not await rewrite_endpoints(response.body, self.relocate):
            return None
        correlation_id = _CORRELATION_ID.unpack_from(frame, 4)[0]
        return encode_response(response.body, response.version, correlation_id, settings.registry)


def _whole_frames(chunk: Chunk, view: memoryview, end: int) -> Outgoing:
    """The chunk's whole frames: the chunk itself when it ends with them."""
    return chunk if end == len(chunk) else view[:end]
