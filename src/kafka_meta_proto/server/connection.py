"""One client connection served: read frames, dispatch requests to handlers, write answers.

The bytes and their order belong to the sans-I/O ``net.ServerConnection``: handlers of one
connection run concurrently, and each answer is handed to it as soon as it is ready; it releases
them in request order, as Kafka guarantees its clients.

Memory per connection is bounded three ways: the frame size limit (a larger announced size
closes the connection before anything is allocated), a limit of requests in flight (reading
stops while it is reached, as Kafka's broker mutes a channel, and resumes when answers leave; the
frames of the last read wait undispatched meanwhile, so at most one read's worth is held),
and the transport's write buffer (each write waits for it to drain).
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from ..message import Message
from ..net.connection import RequestReceived, ServerConnection, UnsupportedRequest
from ..net.errors import ProtocolError
from ..protocol import API_VERSIONS_KEY
from .answers import api_versions_response, server_error_response
from .context import RequestContext
from .encoded import EncodedBody
from .handlers import Answer, CloseConnection, Handlers

logger = logging.getLogger("kafka_meta_proto.server")
_READ_SIZE = 1 << 16


class ServedConnection:
    """The server's side of one connection; ``run`` serves it until either side ends it."""

    def __init__(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        handlers: Handlers,
        *,
        max_frame_size: int,
        max_in_flight: int,
    ):
        self._reader, self._writer, self._handlers = reader, writer, handlers
        self._core = ServerConnection(max_frame_size=max_frame_size, registry=handlers.registry)
        self._max_in_flight = max_in_flight
        self._pending = 0  # requests received whose answer has not left (or handler not ended)
        self._room = asyncio.Event()
        self._write_lock = asyncio.Lock()
        self._tasks: set[asyncio.Task[None]] = set()
        self.peer: Any = writer.get_extra_info("peername")
        self.state: dict[str, Any] = {}
        self.closing = False

    @property
    def in_flight(self) -> int:
        """Requests read and not yet answered on the wire."""
        return self._pending

    async def read(self) -> None:
        """Read and dispatch until the peer closes, breaks the protocol, or reading is
        cancelled (the server shutting down)."""
        try:
            while data := await self._reader.read(_READ_SIZE):
                for event in self._core.receive_data(data):
                    await self._wait_for_room()
                    if self.closing:
                        return
                    self._dispatch(event)
        except ProtocolError as e:
            self.close(f"protocol error: {e}")
        except ConnectionError as e:  # the peer went away (a reset): nothing it did wrong
            logger.info("the connection from %s was lost: %s", self.peer, e)
            self.close()

    async def finish(self, timeout: float) -> None:
        """Give the handlers still running ``timeout`` seconds, cancel the rest, close."""
        if self._tasks and timeout > 0:
            await asyncio.wait(set(self._tasks), timeout=timeout)
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.wait(set(self._tasks))
        self.close()
        try:
            await self._writer.wait_closed()
        except (ConnectionError, OSError):
            pass  # the peer may have gone first; nothing is left to say to it

    def close(self, reason: str | None = None) -> None:
        """Close the connection; a reason is logged (the peer did something wrong)."""
        if reason is not None and not self.closing:
            logger.warning("closing the connection from %s: %s", self.peer, reason)
        self.closing = True
        self._core.close(reason or "the server closed the connection")
        self._writer.close()

    async def _wait_for_room(self) -> None:
        while self._pending >= self._max_in_flight and not self.closing:
            self._room.clear()
            await self._room.wait()

    def _dispatch(self, event: RequestReceived | UnsupportedRequest) -> None:
        self._pending += 1
        task = asyncio.get_running_loop().create_task(self._serve(event))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _serve(self, event: RequestReceived | UnsupportedRequest) -> None:
        answered = False
        try:
            answered = await self._answer(event)
        finally:
            if not answered:
                self._release(1)

    async def _answer(self, event: RequestReceived | UnsupportedRequest) -> bool:
        """Answer one request; True once its answer was handed to the core."""
        guard = self._handlers.guard
        refused = guard(event.api_key, self.state) if guard is not None else None
        if refused is not None:
            self.close(f"{refused} (correlation id {event.correlation_id})")
            return False
        if event.api_key == API_VERSIONS_KEY:
            versions, version = api_versions_response(
                self._handlers.registry, self._handlers.ranges(), event.api_version
            )
            return await self._send(event.correlation_id, versions, version)
        handler = (
            None
            if isinstance(event, UnsupportedRequest)
            else self._handlers.find(event.api_key, event.api_version)
        )
        if handler is None:  # Kafka closes the connection of a request it does not serve
            self.close(
                f"api key {event.api_key} version {event.api_version} is not served "
                f"(correlation id {event.correlation_id})"
            )
            return False
        assert isinstance(event, RequestReceived)
        body = await self._call(handler, event)
        if body is None or not event.expects_response:
            return False
        return await self._send(event.correlation_id, body, None)

    async def _call(self, handler: Any, event: RequestReceived) -> Answer:
        """The handler's answer, or Kafka's answer for an unexpected error when it raises (None,
        with the connection closed, when the response has no error code to carry it)."""
        context = RequestContext(
            event.body, event.api_version, event.request.header, self.peer, self.state
        )
        name = type(event.body).__name__
        try:
            body: Answer = await handler(context)
            if body is None and event.expects_response:
                raise TypeError("the handler returned None for a request that expects an answer")
            return body
        except asyncio.CancelledError:
            raise
        except CloseConnection as e:
            self.close(f"{name} (correlation id {event.correlation_id}): {e or 'dropped'}")
            return None
        except Exception:
            logger.exception(
                "the handler of %s v%d failed (correlation id %d, peer %s)",
                name, event.api_version, event.correlation_id, self.peer,
            )  # fmt: skip
        error = server_error_response(self._handlers.registry, event.api_key, event.api_version)
        if error is None:
            self.close(f"the handler of {name} failed and its response has no error code")
        return error

    async def _send(self, correlation_id: int, body: Message | EncodedBody, version: int | None) -> bool:
        if self.closing:
            return False
        before = self._core.awaiting
        try:
            self._core.send_response(correlation_id, body, version)
        except Exception:  # an answer that does not encode: the stream cannot go on in order
            logger.exception("the answer to correlation id %d does not encode", correlation_id)
            self.close(f"the answer to correlation id {correlation_id} does not encode")
            return False
        released = before - self._core.awaiting  # this answer and any it held back
        try:
            async with self._write_lock:
                self._writer.write(self._core.data_to_send())
                await self._writer.drain()
        except ConnectionError as e:
            logger.info("the connection from %s was lost while writing: %s", self.peer, e)
            self.close()
        finally:
            self._release(released)
        return True

    def _release(self, count: int) -> None:
        self._pending -= count
        self._room.set()
