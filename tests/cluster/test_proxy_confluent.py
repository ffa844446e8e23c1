"""confluent-kafka (librdkafka, a client no one here wrote) through the decoding proxy against
the newest Kafka (two brokers): its producer writes N records, its consumer in a group reads them
back, and a consumer connected to Kafka directly reads the same records. The proxy's log holds
every exchange, decoded, with the N records in its Produce requests."""

from __future__ import annotations

import pytest

from cluster.helpers import wait_for
from cluster.proxied import ProxyThread, logged_exchanges, produced_records

confluent_kafka = pytest.importorskip("confluent_kafka", reason="confluent-kafka is not installed")
from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402

pytestmark = [pytest.mark.cluster, pytest.mark.slow]  # real Kafka clusters: minutes

N = 300
TOPIC = "librdkafka-through-the-proxy"


def create_topic(address: str) -> list[int]:
    """Creates the topic with the admin client; its partitions, once the admin client lists it
    (the broker answering may learn of the new topic a moment after the create returns)."""
    admin = AdminClient({"bootstrap.servers": address})
    futures = admin.create_topics([NewTopic(TOPIC, num_partitions=2, replication_factor=2)])
    futures[TOPIC].result(60)

    def listed() -> list[int]:
        topic = admin.list_topics(timeout=30).topics.get(TOPIC)
        return sorted(topic.partitions) if topic is not None else []

    return wait_for(listed, f"{TOPIC} listed by confluent-kafka's admin client")


def produce(address: str) -> None:
    producer = confluent_kafka.Producer({"bootstrap.servers": address, "acks": "all",
                                         "enable.idempotence": True, "linger.ms": 5})  # fmt: skip
    for i in range(N):
        producer.produce(TOPIC, f"record {i}".encode())
    assert producer.flush(60) == 0  # nothing left undelivered


def consume(address: str, group: str) -> list[tuple[int, int, bytes]]:
    consumer = confluent_kafka.Consumer({"bootstrap.servers": address, "group.id": group,
                                         "auto.offset.reset": "earliest"})  # fmt: skip
    records = []
    try:
        consumer.subscribe([TOPIC])
        for _ in range(600):  # at most a minute of polls
            message = consumer.poll(0.1)
            if message is not None:
                assert message.error() is None, message.error()
                records.append((message.partition(), message.offset(), message.value()))
            if len(records) == N:
                break
        consumer.commit(asynchronous=False)
    finally:
        consumer.close()
    return sorted(records)


def test_confluent_kafka_through_the_proxy_with_every_exchange_logged(cluster, tmp_path):
    log = tmp_path / "proxy.jsonl"
    with ProxyThread(cluster.bootstrap[0], str(log)) as proxy:
        address = "%s:%d" % proxy.address
        listed = create_topic(address)
        produce(address)
        proxied = consume(address, "proxied-librdkafka-group")
    direct = consume("%s:%d" % cluster.bootstrap[0], "direct-librdkafka-group")
    assert len(proxied) == N and proxied == direct
    assert listed == [0, 1]
    assert sorted(value for _, _, value in proxied) == sorted(
        f"record {i}".encode() for i in range(N)
    )

    exchanges = logged_exchanges(log)
    names = {line["api_name"] for line in exchanges}
    assert {"ApiVersions", "Metadata", "CreateTopics", "InitProducerId", "Produce",
            "FindCoordinator", "JoinGroup", "SyncGroup", "Fetch", "OffsetCommit"} <= names, names  # fmt: skip
    assert produced_records(exchanges) == N
