"""kafka-python and aiokafka through the loss of a partition leader's broker: an idempotent
producer (acks=all) keeps sending while the leader's broker is stopped, fails over to the new
leader the controller elects, and every record it saw acknowledged is read back, in order per
partition, exactly once (both producers are idempotent, so a retried batch must not land twice).
confluent-kafka's and the Java clients' own judgements of the same are in test_clients_in_groups.py
and tests/cluster/test_fake_cluster_java.py."""

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
PRODUCER = {"acks": "all", "enable_idempotence": True, "linger_ms": 2}


def start_cluster(fake_kafka_factory):
    cluster = fake_kafka_factory(3, **QUICK)
    cluster.create_topic(TOPIC, partitions=PARTITIONS, replication_factor=3)
    return cluster


def leader_of_partition_0(cluster) -> int:
    return cluster.image.topic(TOPIC).partitions[0].leader


def values(prefix: str, count: int) -> list[str]:
    return [f"{prefix} {i}" for i in range(count)]


def assert_every_acknowledged_record_read_once(acked: list[str], seen: list[tuple[int, int, str]]) -> None:
    """``seen``: (partition, offset, value) in the order read."""
    read = Counter(value for _, _, value in seen)
    # Partition 0's leader was the broker lost: records sent after the loss reached its successor.
    assert any(p == 0 and value.startswith("during") for p, _, value in seen)
    assert sorted(set(acked) - set(read)) == [], "acknowledged records lost"
    assert [v for v, n in read.items() if n > 1] == [], "an idempotent producer's record written twice"
    for partition in range(PARTITIONS):
        offsets = [offset for p, offset, _ in seen if p == partition]
        assert offsets == sorted(set(offsets)), f"partition {partition} read out of order"
        # One key per value sent in order: a partition keeps a producer's order.
        sent_order = [value for p, _, value in seen if p == partition]
        for prefix in ("before", "during"):
            numbers = [int(v.split()[1]) for v in sent_order if v.startswith(prefix)]
            assert numbers == sorted(numbers), f"partition {partition}: {prefix} records reordered"


def moved_off(cluster, lost: int) -> None:
    """The loss is complete: every partition of the topic has a leader other than ``lost``."""
    cluster.wait_until(lambda image: all(p.leader not in (lost, -1)
                                         for p in image.topic(TOPIC).partitions.values()))  # fmt: skip


# --- kafka-python -----------------------------------------------------------------------------------


def test_kafka_python_producer_fails_over_and_loses_no_acknowledged_record(fake_kafka_factory):
    kafka = pytest.importorskip("kafka", reason="kafka-python is not installed")
    cluster = start_cluster(fake_kafka_factory)
    producer = kafka.KafkaProducer(bootstrap_servers=cluster.bootstrap, retries=1_000_000,
                                   request_timeout_ms=5000, delivery_timeout_ms=60_000,
                                   max_in_flight_requests_per_connection=5, **PRODUCER)  # fmt: skip
    acked: list[str] = []
    try:
        for future in [producer.send(TOPIC, key=v.encode(), value=v.encode()) for v in values("before", BEFORE)]:
            future.get(30)
        acked += values("before", BEFORE)
        lost = leader_of_partition_0(cluster)
        cluster.stop_broker(lost)
        during = []
        for value in values("during", DURING):
            during.append((value, producer.send(TOPIC, key=value.encode(), value=value.encode())))
            time.sleep(PACE)
        for value, future in during:
            future.get(60)  # an idempotent producer retries to the new leader: every send lands
            acked.append(value)
    finally:
        producer.close(10)
    moved_off(cluster, lost)
    consumer = kafka.KafkaConsumer(bootstrap_servers=cluster.bootstrap, auto_offset_reset="earliest",
                                   enable_auto_commit=False)  # fmt: skip
    seen: list[tuple[int, int, str]] = []
    try:
        consumer.assign([kafka.TopicPartition(TOPIC, p) for p in range(PARTITIONS)])
        deadline = time.monotonic() + 60
        while len(seen) < len(acked) and time.monotonic() < deadline:
            for records in consumer.poll(timeout_ms=300).values():
                seen += [(r.partition, r.offset, r.value.decode()) for r in records]
    finally:
        consumer.close()
    assert_every_acknowledged_record_read_once(acked, seen)


# --- aiokafka ---------------------------------------------------------------------------------------


def test_aiokafka_producer_fails_over_and_loses_no_acknowledged_record(fake_kafka_factory):
    aiokafka = pytest.importorskip("aiokafka", reason="aiokafka is not installed")
    cluster = start_cluster(fake_kafka_factory)
    bootstrap = cluster.bootstrap

    async def produce() -> list[str]:
        producer = aiokafka.AIOKafkaProducer(bootstrap_servers=bootstrap, request_timeout_ms=5000,
                                             **PRODUCER)  # fmt: skip
        await producer.start()
        try:
            await asyncio.gather(*[await producer.send(TOPIC, key=v.encode(), value=v.encode())
                                   for v in values("before", BEFORE)])  # fmt: skip
            # The cluster's calls block: off this loop, so the producer keeps running meanwhile.
            await asyncio.to_thread(cluster.stop_broker, leader_of_partition_0(cluster))
            during = []
            for value in values("during", DURING):
                during.append(await producer.send(TOPIC, key=value.encode(), value=value.encode()))
                await asyncio.sleep(PACE)
            await asyncio.gather(*during)  # raises if any send was not acknowledged
        finally:
            await producer.stop()
        return values("before", BEFORE) + values("during", DURING)

    async def consume(count: int) -> list[tuple[int, int, str]]:
        consumer = aiokafka.AIOKafkaConsumer(bootstrap_servers=bootstrap, auto_offset_reset="earliest",
                                             enable_auto_commit=False)  # fmt: skip
        await consumer.start()
        seen: list[tuple[int, int, str]] = []
        try:
            consumer.assign([aiokafka.TopicPartition(TOPIC, p) for p in range(PARTITIONS)])
            while len(seen) < count:
                for records in (await consumer.getmany(timeout_ms=300)).values():
                    seen += [(r.partition, r.offset, r.value.decode()) for r in records]
        finally:
            await consumer.stop()
        return seen

    lost = leader_of_partition_0(cluster)
    acked = asyncio.run(asyncio.wait_for(produce(), 120))
    moved_off(cluster, lost)
    seen = asyncio.run(asyncio.wait_for(consume(len(acked)), 60))
    assert_every_acknowledged_record_read_once(acked, seen)
