"""Clients no one here wrote against one broker: kafka-python and confluent-kafka (librdkafka)
produce N records with each compression codec, idempotently, and a consumer with ``assign`` reads
exactly those N back, in order."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Iterator

import pytest

from kafka_meta_proto.testing.broker import Broker, StaticMetadata

COUNT = 200
CODECS = ["gzip", "snappy", "lz4", "zstd"]


@contextlib.contextmanager
def broker_in_a_thread(tmp_path, topic: str) -> Iterator[str]:
    """Broker 0 leading ``topic`` (one partition) in an event loop of its own thread."""
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    metadata = StaticMetadata()
    broker = Broker(0, tmp_path / "broker-0", cluster_id=metadata.cluster_id, metadata=metadata)

    async def start() -> None:
        await broker.start()
        metadata.register_broker(0, *broker.address)
        metadata.create_topic(topic, 1)

    asyncio.run_coroutine_threadsafe(start(), loop).result(30)
    try:
        host, port = broker.address
        yield f"{host}:{port}"
    finally:
        asyncio.run_coroutine_threadsafe(broker.stop(), loop).result(30)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(30)
        loop.close()


def sent_values(codec: str) -> list[bytes]:
    return [f"{codec} record {i} ".encode() * (1 + i % 7) for i in range(COUNT)]


@pytest.mark.parametrize("codec", CODECS)
def test_kafka_python_produces_and_consumes_with_assign(tmp_path, codec):
    kafka = pytest.importorskip("kafka", reason="kafka-python is not installed")
    topic = f"kp-{codec}"
    with broker_in_a_thread(tmp_path, topic) as address:
        producer = kafka.KafkaProducer(bootstrap_servers=address, compression_type=codec, acks="all",
                                       enable_idempotence=True, linger_ms=5)  # fmt: skip
        try:
            futures = [producer.send(topic, value=v, partition=0) for v in sent_values(codec)]
            producer.flush(30)
            offsets = [f.get(30).offset for f in futures]
        finally:
            producer.close(10)
        assert offsets == list(range(COUNT))
        consumer = kafka.KafkaConsumer(bootstrap_servers=address, enable_auto_commit=False,
                                       auto_offset_reset="earliest", group_id=None)  # fmt: skip
        try:
            consumer.assign([kafka.TopicPartition(topic, 0)])
            got: list[bytes] = []
            for _ in range(100):
                for records in consumer.poll(timeout_ms=500).values():
                    got += [r.value for r in records]
                if len(got) >= COUNT:
                    break
        finally:
            consumer.close()
    assert got == sent_values(codec)


@pytest.mark.parametrize("codec", CODECS)
def test_confluent_kafka_produces_and_consumes_with_assign(tmp_path, codec):
    confluent = pytest.importorskip("confluent_kafka", reason="confluent-kafka is not installed")
    topic = f"ck-{codec}"
    with broker_in_a_thread(tmp_path, topic) as address:
        producer = confluent.Producer({"bootstrap.servers": address, "compression.type": codec,
                                       "enable.idempotence": True, "linger.ms": 5})  # fmt: skip
        delivered: list[int] = []
        for value in sent_values(codec):
            producer.produce(topic, value=value, partition=0,
                             on_delivery=lambda err, msg: delivered.append(-1 if err else msg.offset()))  # fmt: skip
        assert producer.flush(30) == 0
        assert delivered == list(range(COUNT))
        consumer = confluent.Consumer({"bootstrap.servers": address, "group.id": "unused",
                                       "enable.auto.commit": False, "auto.offset.reset": "earliest"})  # fmt: skip
        try:
            consumer.assign([confluent.TopicPartition(topic, 0, 0)])
            got: list[bytes] = []
            for _ in range(200):
                message = consumer.poll(0.5)
                if message is not None and message.error() is None:
                    got.append(message.value())
                if len(got) >= COUNT:
                    break
        finally:
            consumer.close()
    assert got == sent_values(codec)
