"""Clients no one here wrote against the whole in-process cluster (the ``fake_kafka_factory``
fixture the package gives every pytest session): confluent-kafka (librdkafka), kafka-python and
aiokafka produce N records idempotently to a replicated topic, a consumer in a group reads exactly
those N back in order per partition and commits, and a second consumer of the group resumes from
the commits. The same clients through the loss of a broker: test_failover.py."""

from __future__ import annotations

import asyncio
import time

import pytest

N = 300
TOPIC = "judged"


def values(prefix: str, count: int = N, start: int = 0) -> list[str]:
    return [f"{prefix} {i}" for i in range(start, start + count)]


def in_order_per_partition(seen: list[tuple[int, int, str]]) -> bool:
    last: dict[int, int] = {}
    for partition, offset, _ in seen:
        if offset <= last.get(partition, -1):
            return False
        last[partition] = offset
    return True


# --- confluent-kafka ------------------------------------------------------------------------------


def confluent_produce(confluent, bootstrap: str, sent: list[str]) -> None:
    producer = confluent.Producer({"bootstrap.servers": bootstrap, "enable.idempotence": True,
                                   "acks": "all", "linger.ms": 5})  # fmt: skip
    errors: list = []
    for value in sent:
        producer.produce(TOPIC, value=value.encode(), key=value.encode(),
                         on_delivery=lambda e, m: errors.append(e) if e else None)  # fmt: skip
    assert producer.flush(30) == 0 and not errors


def confluent_consume(confluent, bootstrap: str, group: str, count: int) -> list[tuple[int, int, str]]:
    consumer = confluent.Consumer({"bootstrap.servers": bootstrap, "group.id": group,
                                   "auto.offset.reset": "earliest", "enable.auto.commit": False})  # fmt: skip
    seen: list[tuple[int, int, str]] = []
    try:
        consumer.subscribe([TOPIC])
        deadline = time.monotonic() + 60
        while len(seen) < count and time.monotonic() < deadline:
            message = consumer.poll(0.2)
            if message is None or message.error():
                continue
            seen.append((message.partition(), message.offset(), message.value().decode()))
        consumer.commit(asynchronous=False)
    finally:
        consumer.close()
    return seen


def test_confluent_kafka_in_a_group_reads_what_it_produced_and_resumes_from_its_commits(fake_kafka):
    confluent = pytest.importorskip("confluent_kafka", reason="confluent-kafka is not installed")
    fake_kafka.create_topic(TOPIC, partitions=3, replication_factor=2)
    confluent_produce(confluent, fake_kafka.bootstrap, values("first"))
    seen = confluent_consume(confluent, fake_kafka.bootstrap, "readers", N)
    assert sorted(v for _, _, v in seen) == sorted(values("first"))
    assert in_order_per_partition(seen)
    confluent_produce(confluent, fake_kafka.bootstrap, values("second", 30))
    resumed = confluent_consume(confluent, fake_kafka.bootstrap, "readers", 30)
    assert sorted(v for _, _, v in resumed) == sorted(values("second", 30))


# --- kafka-python -----------------------------------------------------------------------------------


def test_kafka_python_in_a_group_reads_what_it_produced_and_resumes_from_its_commits(fake_kafka):
    kafka = pytest.importorskip("kafka", reason="kafka-python is not installed")
    fake_kafka.create_topic(TOPIC, partitions=2, replication_factor=2)

    def produce(sent: list[str]) -> None:
        producer = kafka.KafkaProducer(bootstrap_servers=fake_kafka.bootstrap, acks="all",
                                       enable_idempotence=True, linger_ms=5)  # fmt: skip
        try:
            for future in [producer.send(TOPIC, value=v.encode()) for v in sent]:
                future.get(30)
        finally:
            producer.close(10)

    def consume(count: int) -> list[tuple[int, int, str]]:
        consumer = kafka.KafkaConsumer(TOPIC, bootstrap_servers=fake_kafka.bootstrap,
                                       group_id="kp-readers", enable_auto_commit=False,
                                       auto_offset_reset="earliest")  # fmt: skip
        seen: list[tuple[int, int, str]] = []
        try:
            deadline = time.monotonic() + 60
            while len(seen) < count and time.monotonic() < deadline:
                for records in consumer.poll(timeout_ms=300).values():
                    seen += [(r.partition, r.offset, r.value.decode()) for r in records]
            consumer.commit()
        finally:
            consumer.close()
        return seen

    produce(values("first"))
    seen = consume(N)
    assert sorted(v for _, _, v in seen) == sorted(values("first"))
    assert in_order_per_partition(seen)
    produce(values("second", 20))
    assert sorted(v for _, _, v in consume(20)) == sorted(values("second", 20))


# --- aiokafka ---------------------------------------------------------------------------------------


def test_aiokafka_in_a_group_reads_what_it_produced_and_resumes_from_its_commits(fake_kafka):
    aiokafka = pytest.importorskip("aiokafka", reason="aiokafka is not installed")
    fake_kafka.create_topic(TOPIC, partitions=2, replication_factor=2)
    bootstrap = fake_kafka.bootstrap

    async def produce(sent: list[str]) -> None:
        producer = aiokafka.AIOKafkaProducer(bootstrap_servers=bootstrap, acks="all",
                                             enable_idempotence=True)  # fmt: skip
        await producer.start()
        try:
            for value in sent:
                await producer.send_and_wait(TOPIC, value.encode())
        finally:
            await producer.stop()

    async def consume(count: int) -> list[tuple[int, int, str]]:
        consumer = aiokafka.AIOKafkaConsumer(TOPIC, bootstrap_servers=bootstrap,
                                             group_id="aio-readers", enable_auto_commit=False,
                                             auto_offset_reset="earliest")  # fmt: skip
        await consumer.start()
        seen: list[tuple[int, int, str]] = []
        try:
            while len(seen) < count:
                batches = await asyncio.wait_for(consumer.getmany(timeout_ms=300), 60)
                for records in batches.values():
                    seen += [(r.partition, r.offset, r.value.decode()) for r in records]
            await consumer.commit()
        finally:
            await consumer.stop()
        return seen

    async def scenario():
        await produce(values("first", 100))
        first = await consume(100)
        await produce(values("second", 20))
        return first, await consume(20)

    first, resumed = asyncio.run(asyncio.wait_for(scenario(), 120))
    assert sorted(v for _, _, v in first) == sorted(values("first", 100))
    assert in_order_per_partition(first)
    assert sorted(v for _, _, v in resumed) == sorted(values("second", 20))
