"""A small broker on the loopback interface for the client's tests, built on the sans-I/O
``ServerConnection``: a handler per api key returns the response body (or None: never answer,
or ``Raw``: bytes written as they are, to break the protocol on purpose)."""

from __future__ import annotations

import asyncio
import ssl
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from kafka_meta_proto import Message, message_class, request_class
from kafka_meta_proto.net import RequestReceived, ServerConnection, UnsupportedRequest

ApiVersionsResponse = message_class("ApiVersionsResponse")
MetadataResponse = message_class("MetadataResponse")


@dataclass(frozen=True)
class Raw:
    data: bytes


Handler = Callable[[RequestReceived], Awaitable["Message | Raw | None"]]


def our_ranges() -> dict[int, tuple[int, int]]:
    ranges = {}
    for key in range(100):
        try:
            versions = request_class(key).versions()
        except KeyError:
            continue
        ranges[key] = (versions[0], versions[-1])
    return ranges


@dataclass
class LoopbackBroker:
    handlers: dict[int, Handler] = field(default_factory=dict)
    ranges: dict[int, tuple[int, int]] = field(default_factory=our_ranges)
    ssl: ssl.SSLContext | None = None
    seen: list[tuple[int, int]] = field(default_factory=list)  # (api key, version) of each request
    port: int = 0
    writers: list[asyncio.StreamWriter] = field(default_factory=list)

    async def __aenter__(self) -> LoopbackBroker:
        self.server = await asyncio.start_server(self._serve, "127.0.0.1", 0, ssl=self.ssl)
        self.port = self.server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc) -> None:
        self.server.close()
        await self.server.wait_closed()

    def drop_connections(self) -> None:
        """Close every connection from the broker's side."""
        for writer in self.writers:
            writer.close()

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        core = ServerConnection()
        self.writers.append(writer)
        tasks = set()
        try:
            while data := await reader.read(1 << 16):
                for event in core.receive_data(data):
                    task = asyncio.create_task(self._answer(core, writer, event))
                    tasks.add(task)
                    task.add_done_callback(tasks.discard)
        except (ConnectionError, asyncio.CancelledError):
            pass
        finally:
            writer.close()

    async def _answer(self, core: ServerConnection, writer: asyncio.StreamWriter, event) -> None:
        self.seen.append((event.api_key, event.api_version))
        if isinstance(event, UnsupportedRequest):
            body: Message | Raw | None = self._api_versions(event.api_version)
        elif event.api_key == 18 and event.api_key not in self.handlers:
            body = self._api_versions(event.api_version)
        else:
            body = await self.handlers[event.api_key](event)
        if isinstance(body, Raw):
            writer.write(body.data)
        elif body is not None and event.correlation_id is not None and not writer.is_closing():
            version = 0 if body.API_KEY == 18 and body.error_code == 35 else None
            core.send_response(event.correlation_id, body, version)
            writer.write(core.data_to_send())

    def _api_versions(self, version: int):
        low, high = self.ranges[18]
        if not low <= version <= high:  # Kafka's refusal: version 0, naming the versions it speaks
            versions = [
                ApiVersionsResponse.ApiVersion(api_key=18, min_version=low, max_version=high)
            ]
            return ApiVersionsResponse(error_code=35, api_keys=versions)
        versions = [
            ApiVersionsResponse.ApiVersion(api_key=k, min_version=lo, max_version=hi)
            for k, (lo, hi) in self.ranges.items()
        ]
        return ApiVersionsResponse(api_keys=versions)


def answer_with(
    body_of: Callable[[RequestReceived], Message | Raw | None], delay: float = 0
) -> Handler:
    async def handler(event: RequestReceived):
        if delay:
            await asyncio.sleep(delay)
        return body_of(event)

    return handler
