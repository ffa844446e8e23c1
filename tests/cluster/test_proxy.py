"""kafka-python, a client no one here wrote, through the decoding proxy against the newest
Kafka (two brokers): it creates a topic, produces N records and consumes them in a group, and
reads the same records as a consumer connected to Kafka directly. The proxy's log holds every
exchange (each connection's correlation ids run without a gap; the logged Produce requests
carry the N records), every body decoded, and the Spark summary counts each exchange once.
Through a proxy with no log (the path that passes frames on unread), the same."""

from __future__ import annotations

import pytest

from cluster.proxied import ProxyThread, logged_exchanges, produced_records

kafka = pytest.importorskip("kafka", reason="kafka-python is not installed")

pytestmark = [pytest.mark.cluster, pytest.mark.slow]  # real Kafka clusters: minutes

N = 300
TOPIC = "through-the-proxy"


def consume(bootstrap: str, group: str, topic: str = TOPIC) -> list[tuple[int, int, bytes]]:
    consumer = kafka.KafkaConsumer(topic, bootstrap_servers=bootstrap, group_id=group,
                                   auto_offset_reset="earliest", consumer_timeout_ms=20000)  # fmt: skip
    records = []
    try:
        for record in consumer:
            records.append((record.partition, record.offset, record.value))
            if len(records) == N:
                break
        consumer.commit()
    finally:
        consumer.close()
    return sorted(records)


def through_the_proxy(address: str, topic: str = TOPIC) -> list[tuple[int, int, bytes]]:
    admin = kafka.KafkaAdminClient(bootstrap_servers=address)
    try:
        admin.create_topics([kafka.admin.NewTopic(topic, num_partitions=2, replication_factor=2)])
    finally:
        admin.close()
    producer = kafka.KafkaProducer(bootstrap_servers=address, acks="all", linger_ms=5)
    try:
        for i in range(N):
            producer.send(topic, f"record {i}".encode())
        producer.flush(60)
    finally:
        producer.close()
    return consume(address, f"proxied-group-{topic}", topic)


def test_kafka_python_through_the_proxy_with_every_exchange_logged(cluster, tmp_path):
    log = tmp_path / "proxy.jsonl"
    with ProxyThread(cluster.bootstrap[0], str(log)) as proxy:
        address = "%s:%d" % proxy.address
        proxied = through_the_proxy(address)
        upstream_ports = {listener.upstream for listener in proxy.listeners.values()}
    direct = consume("%s:%d" % cluster.bootstrap[0], "direct-group")
    assert len(proxied) == N and proxied == direct
    assert upstream_ports == set(cluster.bootstrap)  # a listener per broker, the bootstrap's reused

    exchanges = logged_exchanges(log)
    names = {line["api_name"] for line in exchanges}
    assert {"ApiVersions", "Metadata", "CreateTopics", "Produce", "FindCoordinator", "JoinGroup",
            "SyncGroup", "Fetch", "OffsetCommit", "Heartbeat"} - names <= {"Heartbeat"}  # fmt: skip
    assert produced_records(exchanges) == N
    summarized(log, tmp_path / "report", exchanges)


def test_kafka_python_through_the_proxy_without_a_log(cluster):
    """With neither log nor hooks the proxy passes frames on unread but for their headers (and
    rewrites the addresses in the responses that name brokers): the client sees the same."""
    topic = "through-the-quiet-proxy"
    with ProxyThread(cluster.bootstrap[0], None) as proxy:
        proxied = through_the_proxy("%s:%d" % proxy.address, topic)
        upstream_ports = {listener.upstream for listener in proxy.listeners.values()}
    direct = consume("%s:%d" % cluster.bootstrap[0], "direct-quiet-group", topic)
    assert len(proxied) == N and proxied == direct
    assert upstream_ports == set(cluster.bootstrap)


def summarized(log, out, exchanges: list[dict]) -> None:
    pytest.importorskip("pyspark", reason="pyspark is not installed")
    from kafka_meta_proto.pipeline.proxy_log import proxy_report
    from kafka_meta_proto.pipeline.spark import session

    spark = session("local[2]", app_name="kafka-meta-proto proxy tests")
    try:
        rows = proxy_report(spark, [str(log)], out)
        assert spark.read.parquet(str(out / "exchanges")).count() == len(exchanges)
    finally:
        spark.stop()
    counts: dict[str, int] = {}
    for line in exchanges:
        counts[line["api_name"]] = counts.get(line["api_name"], 0) + 1
    assert {row.api_name: row.requests for row in rows} == counts
    assert all(row.undecoded == 0 for row in rows)
