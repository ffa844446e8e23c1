"""A broker on loopback over a ``StaticMetadata`` image, and the requests the tests send it
with the package's own client."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Coroutine
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kafka_meta_proto.client import Connection, connect
from kafka_meta_proto.log import BatchReader, Record, RecordBatch
from kafka_meta_proto.messages import FetchRequest, ProduceRequest
from kafka_meta_proto.testing.broker import Broker, StaticMetadata


def run(coroutine: Coroutine[Any, Any, Any]) -> Any:
    return asyncio.run(asyncio.wait_for(coroutine, 60))


@dataclass
class Setup:
    broker: Broker
    metadata: StaticMetadata
    conn: Connection

    def topic_id(self, name: str) -> Any:
        topic = self.metadata.image.topic(name)
        assert topic is not None
        return topic.id


@asynccontextmanager
async def one_broker(data_dir: Path, topics: dict[str, int] | None = None,
                     configs: dict[str, dict[str, str]] | None = None) -> AsyncIterator[Setup]:  # fmt: skip
    """Broker 0 alone, leading every partition of ``topics`` (name -> partitions)."""
    metadata = StaticMetadata()
    broker = Broker(0, data_dir / "broker-0", cluster_id=metadata.cluster_id, metadata=metadata)
    await broker.start()
    metadata.register_broker(0, *broker.address)
    for name, partitions in (topics or {"events": 1}).items():
        metadata.create_topic(name, partitions, configs=(configs or {}).get(name))
    conn = await connect(*broker.address, client_id="broker-tests")
    try:
        yield Setup(broker, metadata, conn)
    finally:
        await conn.close()
        await broker.stop()


def batch(values: list[bytes], *, compression: int = 0, producer: tuple[int, int, int] = (-1, -1, -1),
          timestamp: int | None = None, keys: list[bytes] | None = None) -> bytes:  # fmt: skip
    """One batch of ``values`` as a producer sends it (base offset 0, no leader epoch)."""
    now = int(time.time() * 1000) if timestamp is None else timestamp
    records = [Record(offset_delta=i, timestamp_delta=i, value=v, key=keys[i] if keys else None)
               for i, v in enumerate(values)]  # fmt: skip
    producer_id, epoch, sequence = producer
    return RecordBatch.create(records, base_timestamp=now, compression=compression,
                              producer_id=producer_id, producer_epoch=epoch,
                              base_sequence=sequence).encode()  # fmt: skip


def produce_request(setup: Setup, topic: str, partition: int, records: bytes | None,
                    acks: int = 1) -> Any:  # fmt: skip
    known = setup.metadata.image.topic(topic)
    data = ProduceRequest.PartitionProduceData(index=partition, records=records)
    return ProduceRequest(acks=acks, timeout_ms=5000, topic_data=[ProduceRequest.TopicProduceData(
        name=topic, topic_id=known.id if known else "AAAAAAAAAAAAAAAAAAAAAQ",
        partition_data=[data])])  # fmt: skip


async def produce(setup: Setup, topic: str, partition: int, records: bytes | None,
                  acks: int = 1, version: int | None = None) -> Any:  # fmt: skip
    """The partition's answer to a Produce of ``records``."""
    answer = await setup.conn.send(produce_request(setup, topic, partition, records, acks), version)
    return answer.responses[0].partition_responses[0]


def fetch_request(setup: Setup, wanted: dict[tuple[str, int], int], *, max_wait_ms: int = 0,
                  min_bytes: int = 0, max_bytes: int = 1 << 20, partition_max_bytes: int = 1 << 20,
                  session_id: int = 0, session_epoch: int = -1,
                  forgotten: list[tuple[str, int]] = ()) -> Any:  # fmt: skip
    """A Fetch of ``(topic, partition) -> offset``, each topic named and identified."""
    topics: dict[str, Any] = {}
    for (name, index), offset in wanted.items():
        topic = topics.setdefault(name, FetchRequest.FetchTopic(topic=name, topic_id=setup.topic_id(name)))
        topic.partitions.append(FetchRequest.FetchPartition(
            partition=index, fetch_offset=offset, partition_max_bytes=partition_max_bytes))  # fmt: skip
    gone = [FetchRequest.ForgottenTopic(topic=name, topic_id=setup.topic_id(name), partitions=[index])
            for name, index in forgotten]  # fmt: skip
    return FetchRequest(max_wait_ms=max_wait_ms, min_bytes=min_bytes, max_bytes=max_bytes,
                        session_id=session_id, session_epoch=session_epoch,
                        topics=list(topics.values()), forgotten_topics_data=gone)  # fmt: skip


def answers_of(response: Any) -> dict[tuple[str, int], Any]:
    """(topic name or id, partition) -> partition answer."""
    found = {}
    for topic in response.responses:
        for answer in topic.partitions:
            found[(topic.topic or topic.topic_id, answer.partition_index)] = answer
    return found


def batches_of(records: bytes | memoryview | None) -> list[RecordBatch]:
    return [batch for _, batch in BatchReader(bytes(records or b""))]


def values_of(records: bytes | memoryview | None) -> list[bytes | None]:
    return [record.value for batch in batches_of(records) for record in batch.records]
