"""confluent-kafka, kafka-python and aiokafka through the loss of a partition leader's broker:
an idempotent producer (acks=all) keeps sending while the leader's broker is stopped, fails over
to the new leader the controller elects, and a consumer in a group (its coordinator found again
among the live brokers) reads back every record the producer saw acknowledged, in order per
partition and exactly once: all three producers are idempotent, so a batch retried to the new
leader must not land twice. Kafka's Java clients are judged the same way in
tests/cluster/test_fake_cluster_java.py."""

from __future__ import annotations

import asyncio
import time
from collections import Counter

import pytest

TOPIC = "failover"
PARTITIONS = 2
BEFORE, DURING = 60, 120  # records acknowledged before the loss; records sent while it happens
PACE = 0.005  # seconds between sends during the loss: ~0.6 s of sending, across the fencing
# The cluster fences a silent broker after a second, so the loss is seen within the test.
QUICK = {"session_timeout_ms": 1000, "heartbeat_interval_ms": 50}
READ_TIMEOUT = 60.0


def start_cluster(fake_kafka_factory):
    cluster = fake_kafka_factory(3, **QUICK)
    cluster.create_topic(TOPIC, partitions=PARTITIONS, replication_factor=3)
    return cluster


def leader_of_partition_0(cluster) -> int:
    return cluster.image.topic(TOPIC).partitions[0].leader


def values(prefix: str, count: int) -> list[str]:
    return [f"{prefix} {i}" for i in range(count)]


SENT = values("before", BEFORE) + values("during", DURING)


def assert_every_acknowledged_record_read_once(cluster, lost: int, seen: list[tuple[int, int, str]]) -> None:
    """``seen``: (partition, offset, value) in the order read; every record of ``SENT`` was
    acknowledged (each client's producing step fails otherwise)."""
    assert all(p.leader not in (lost, -1) for p in cluster.image.topic(TOPIC).partitions.values())
    read = Counter(value for _, _, value in seen)
    assert sorted(set(SENT) - set(read)) == [], "acknowledged records lost"
    assert [v for v, n in read.items() if n > 1] == [], "an idempotent producer's record written twice"
    # Partition 0's leader was the broker lost: records sent after the loss reached its successor.
    assert any(p == 0 and value.startswith("during") for p, _, value in seen)
    for partition in range(PARTITIONS):
        offsets = [offset for p, offset, _ in seen if p == partition]
        assert offsets == sorted(set(offsets)), f"partition {partition} read out of order"
        # Records were sent in numbered order: a partition keeps its producer's order.
        kept = [value for p, _, value in seen if p == partition]
        for prefix in ("before", "during"):
            numbers = [int(v.split()[1]) for v in kept if v.startswith(prefix)]
            assert numbers == sorted(numbers), f"partition {partition}: {prefix} records reordered"


def paced(sent: list[str]):
    """``sent`` with a pause before each: the producer is sending while the loss is dealt with."""
    for value in sent:
        time.sleep(PACE)
        yield value


# --- confluent-kafka --------------------------------------------------------------------------------


@pytest.mark.slow  # librdkafka's retries through the fencing: about 4 s
def test_confluent_kafka_fails_over_and_loses_no_acknowledged_record(fake_kafka_factory):
    confluent = pytest.importorskip("confluent_kafka", reason="confluent-kafka is not installed")
    cluster = start_cluster(fake_kafka_factory)
    producer = confluent.Producer({"bootstrap.servers": cluster.bootstrap, "enable.idempotence": True,
                                   "acks": "all", "linger.ms": 2})  # fmt: skip
    errors: list = []

    def send(value: str) -> None:
        producer.produce(TOPIC, value=value.encode(), key=value.encode(),
                         on_delivery=lambda e, m: errors.append(e) if e else None)  # fmt: skip
        producer.poll(0)

    for value in values("before", BEFORE):
        send(value)
    assert producer.flush(30) == 0 and not errors
    lost = leader_of_partition_0(cluster)
    cluster.stop_broker(lost)
    for value in paced(values("during", DURING)):
        send(value)
    assert producer.flush(60) == 0 and not errors

    consumer = confluent.Consumer({"bootstrap.servers": cluster.bootstrap, "group.id": "after-loss",
                                   "auto.offset.reset": "earliest", "enable.auto.commit": False})  # fmt: skip
    seen: list[tuple[int, int, str]] = []
    try:
        consumer.subscribe([TOPIC])
        deadline = time.monotonic() + READ_TIMEOUT
        while len(seen) < len(SENT) and time.monotonic() < deadline:
            message = consumer.poll(0.2)
            if message is not None and not message.error():
                seen.append((message.partition(), message.offset(), message.value().decode()))
    finally:
        consumer.close()
    assert_every_acknowledged_record_read_once(cluster, lost, seen)


# --- kafka-python -----------------------------------------------------------------------------------


def test_kafka_python_fails_over_and_loses_no_acknowledged_record(fake_kafka_factory):
    kafka = pytest.importorskip("kafka", reason="kafka-python is not installed")
    cluster = start_cluster(fake_kafka_factory)
    producer = kafka.KafkaProducer(bootstrap_servers=cluster.bootstrap, acks="all",
                                   enable_idempotence=True, linger_ms=2, request_timeout_ms=5000,
                                   delivery_timeout_ms=60_000)  # fmt: skip
    try:
        for future in [producer.send(TOPIC, key=v.encode(), value=v.encode()) for v in values("before", BEFORE)]:
            future.get(30)
        lost = leader_of_partition_0(cluster)
        cluster.stop_broker(lost)
        during = [producer.send(TOPIC, key=v.encode(), value=v.encode()) for v in paced(values("during", DURING))]
        for future in during:
            future.get(60)  # raises unless acknowledged: the producer retries to the new leader
    finally:
        producer.close(10)

    consumer = kafka.KafkaConsumer(TOPIC, bootstrap_servers=cluster.bootstrap, group_id="after-loss",
                                   auto_offset_reset="earliest", enable_auto_commit=False)  # fmt: skip
    seen: list[tuple[int, int, str]] = []
    try:
        deadline = time.monotonic() + READ_TIMEOUT
        while len(seen) < len(SENT) and time.monotonic() < deadline:
            for records in consumer.poll(timeout_ms=300).values():
                seen += [(r.partition, r.offset, r.value.decode()) for r in records]
    finally:
        consumer.close()
    assert_every_acknowledged_record_read_once(cluster, lost, seen)


# --- aiokafka ---------------------------------------------------------------------------------------


def test_aiokafka_fails_over_and_loses_no_acknowledged_record(fake_kafka_factory):
    aiokafka = pytest.importorskip("aiokafka", reason="aiokafka is not installed")
    cluster = start_cluster(fake_kafka_factory)
    bootstrap = cluster.bootstrap
    lost = leader_of_partition_0(cluster)

    async def produce() -> None:
        producer = aiokafka.AIOKafkaProducer(bootstrap_servers=bootstrap, acks="all",
                                             enable_idempotence=True, linger_ms=2,
                                             request_timeout_ms=5000)  # fmt: skip
        await producer.start()
        try:
            await asyncio.gather(*[await producer.send(TOPIC, key=v.encode(), value=v.encode())
                                   for v in values("before", BEFORE)])  # fmt: skip
            # The cluster's calls block: off this loop, so the producer keeps running meanwhile.
            await asyncio.to_thread(cluster.stop_broker, lost)
            during = []
            for value in values("during", DURING):
                await asyncio.sleep(PACE)
                during.append(await producer.send(TOPIC, key=value.encode(), value=value.encode()))
            await asyncio.gather(*during)  # raises unless every send was acknowledged
        finally:
            await producer.stop()

    async def consume() -> list[tuple[int, int, str]]:
        consumer = aiokafka.AIOKafkaConsumer(TOPIC, bootstrap_servers=bootstrap, group_id="after-loss",
                                             auto_offset_reset="earliest", enable_auto_commit=False)  # fmt: skip
        await consumer.start()
        seen: list[tuple[int, int, str]] = []
        try:
            while len(seen) < len(SENT):
                for records in (await consumer.getmany(timeout_ms=300)).values():
                    seen += [(r.partition, r.offset, r.value.decode()) for r in records]
        finally:
            await consumer.stop()
        return seen

    asyncio.run(asyncio.wait_for(produce(), 120))
    seen = asyncio.run(asyncio.wait_for(consume(), READ_TIMEOUT))
    assert_every_acknowledged_record_read_once(cluster, lost, seen)
