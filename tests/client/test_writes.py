"""How the client writes: the requests of one turn of the event loop go out in one write, in
the order they were made; a call waits for the socket only when asyncio's buffer is full."""

from __future__ import annotations

import asyncio

from client.loopback import LoopbackBroker, answer_with
from kafka_meta_proto import message_class, protocol
from kafka_meta_proto.client import connect

MetadataRequest = message_class("MetadataRequest")
MetadataResponse = message_class("MetadataResponse")


def run(coroutine):
    return asyncio.run(asyncio.wait_for(coroutine, 60))  # a hang fails the test, never blocks it


def named(event):
    return MetadataResponse(cluster_id=event.body.topics[0].name)


def metadata_for(name: str):
    return MetadataRequest(topics=[MetadataRequest.MetadataRequestTopic(name=name)])


def test_a_burst_of_calls_is_one_write_in_call_order():
    async def scenario():
        async with LoopbackBroker({3: answer_with(named)}) as broker:
            async with await connect("127.0.0.1", broker.port) as conn:
                writes: list[bytes] = []
                write = conn._writer.write
                conn._writer.write = lambda data: (writes.append(bytes(data)), write(data))[1]
                names = [f"t{i}" for i in range(20)]
                bodies = await asyncio.gather(*(conn.send(metadata_for(n)) for n in names))
                return names, bodies, writes

    names, bodies, writes = run(scenario())
    assert [body.cluster_id for body in bodies] == names
    assert len(writes) == 1
    version = MetadataRequest.versions()[-1]
    expected = b"".join(
        protocol.encode_request(metadata_for(n), version, i + 1, "kafka-meta-proto")
        for i, n in enumerate(names)
    )  # correlation id 0 went to ApiVersions
    assert writes[0] == expected


def test_a_call_waits_for_the_socket_when_the_buffer_is_full():
    async def scenario():
        async with LoopbackBroker({3: answer_with(named)}) as broker:
            async with await connect("127.0.0.1", broker.port) as conn:
                drained = []
                drain = conn._writer.drain

                async def counted():
                    drained.append(True)
                    await drain()

                conn._writer.drain = counted
                first = await conn.send(metadata_for("a"))
                conn._high_water = -1  # every buffer counts as full
                second = await conn.send(metadata_for("b"))
                return first, second, drained

    first, second, drained = run(scenario())
    assert (first.cluster_id, second.cluster_id) == ("a", "b")
    assert drained == [True]  # the second call only
