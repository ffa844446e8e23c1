"""What the server tests share: a server on the loopback interface with a few handlers, and a raw
peer that writes bytes the client would never send and reads the answers frame by frame."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

from kafka_meta_proto import Message, message_class, protocol
from kafka_meta_proto.client import connect
from kafka_meta_proto.server import RequestContext, Server

MetadataRequest = message_class("MetadataRequest")
MetadataResponse = message_class("MetadataResponse")
LOOPBACK = ("127.0.0.1", 0)


def run(coroutine):
    return asyncio.run(asyncio.wait_for(coroutine, 60))  # a hang fails the test, never blocks it


async def echo_topic(request: RequestContext) -> Message:
    """A Metadata answer naming the request's first topic (or the client id) as cluster id."""
    topics = request.body.topics or []
    return MetadataResponse(cluster_id=topics[0].name if topics else request.client_id)


def metadata_for(name: str) -> Message:
    return MetadataRequest(topics=[MetadataRequest.MetadataRequestTopic(name=name)])


@contextlib.asynccontextmanager
async def serving(server: Server | None = None, **options) -> AsyncIterator[Server]:
    """``server`` (or one answering Metadata with ``echo_topic``) listening on loopback."""
    if server is None:
        server = Server(**options)
        server.handle(MetadataRequest, echo_topic)
    async with server.listening(LOOPBACK):
        yield server


async def still_serving(server: Server) -> None:
    """A fresh client connection is served: whatever happened before did not take the server down."""
    async with await connect(*server.addresses[0]) as conn:
        assert (await conn.send(metadata_for("alive"))).cluster_id == "alive"


class RawPeer:
    """A socket to the server that sends frames as given and reads whole response frames."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter):
        self.reader, self.writer = reader, writer

    @classmethod
    async def open(cls, server: Server) -> RawPeer:
        host, port = server.addresses[0]
        return cls(*await asyncio.open_connection(host, port))

    async def send(self, data: bytes) -> None:
        self.writer.write(data)
        await self.writer.drain()

    async def request(self, body: Message, version: int, correlation_id: int) -> None:
        await self.send(protocol.encode_request(body, version, correlation_id, "raw"))

    async def frame(self) -> bytes:
        """The next response frame, size prefix included (IncompleteReadError at the end)."""
        size = await self.reader.readexactly(4)
        return size + await self.reader.readexactly(int.from_bytes(size, "big"))

    async def closed_by_server(self) -> bool:
        """True when the server ends the stream without writing anything more."""
        return await asyncio.wait_for(self.reader.read(1), 10) == b""

    def close(self) -> None:
        self.writer.close()
