"""The proxy's loopback tests share this: two loopback brokers with one picture of a small
cluster (tests/client's), a proxy in front of the first, and the log read back."""

from __future__ import annotations

import asyncio
import io
import json
from contextlib import AsyncExitStack, asynccontextmanager

from client.loopback import LoopbackBroker
from client.test_cluster import Picture
from kafka_meta_proto.proxy import Proxy


def run(coroutine):
    return asyncio.run(asyncio.wait_for(coroutine, 60))  # a hang fails the test, never blocks it


def lines(log: io.StringIO, kind: str = "exchange") -> list[dict]:
    return [line for line in map(json.loads, log.getvalue().splitlines()) if line["kind"] == kind]


@asynccontextmanager
async def proxied_cluster(log=None, **options):
    """(picture, brokers by node id, the proxy, its log) with the proxy before node 1; the log
    is a StringIO unless one is given."""
    picture, log = Picture(), io.StringIO() if log is None else log
    async with AsyncExitStack() as stack:
        brokers = {}
        for node_id in (1, 2):
            broker = LoopbackBroker(picture.node(node_id))
            brokers[node_id] = await stack.enter_async_context(broker)
            picture.ports[node_id] = brokers[node_id].port
        upstream = ("127.0.0.1", brokers[1].port)
        proxy = Proxy(("127.0.0.1", 0), upstream, log=log, **options)
        await stack.enter_async_context(proxy)
        yield picture, brokers, proxy, log


async def raw_exchange(address, data: bytes, read: int = 0) -> tuple[bytes, bool]:
    """Send ``data`` on a new connection; read up to ``read`` bytes (or until closed); whether
    the proxy closed the connection."""
    reader, writer = await asyncio.open_connection(*address)
    writer.write(data)
    await writer.drain()
    received = await reader.readexactly(read) if read else b""
    closed = (await reader.read(1)) == b"" if not read else False
    writer.close()
    return received, closed
