"""kafka-python, a client no one here wrote, through the decoding proxy against the newest
Kafka (two brokers): it creates a topic, produces N records and consumes them in a group, and
reads the same records as a consumer connected to Kafka directly. The proxy's log holds every
exchange (each connection's correlation ids run without a gap; the logged Produce requests
carry the N records), every body decoded, and the Spark summary counts each exchange once."""

from __future__ import annotations

import asyncio
import base64
import json
import threading

import pytest

from kafka_meta_proto.log.batch import decode_batch
from kafka_meta_proto.proxy import Proxy

kafka = pytest.importorskip("kafka", reason="kafka-python is not installed")

pytestmark = [pytest.mark.cluster, pytest.mark.slow]  # real Kafka clusters: minutes

N = 300
TOPIC = "through-the-proxy"


class ProxyThread:
    """A Proxy on an event loop of its own, for a synchronous client."""

    def __init__(self, upstream, log):
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.proxy = Proxy(("127.0.0.1", 0), upstream, log=log)

    def __enter__(self):
        self.thread.start()
        asyncio.run_coroutine_threadsafe(self.proxy.start(), self.loop).result(30)
        return self.proxy

    def __exit__(self, *exc):
        asyncio.run_coroutine_threadsafe(self.proxy.close(), self.loop).result(30)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(30)


def consume(bootstrap: str, group: str) -> list[tuple[int, int, bytes]]:
    consumer = kafka.KafkaConsumer(TOPIC, bootstrap_servers=bootstrap, group_id=group,
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


def through_the_proxy(address: str) -> list[tuple[int, int, bytes]]:
    admin = kafka.KafkaAdminClient(bootstrap_servers=address)
    try:
        admin.create_topics([kafka.admin.NewTopic(TOPIC, num_partitions=2, replication_factor=2)])
    finally:
        admin.close()
    producer = kafka.KafkaProducer(bootstrap_servers=address, acks="all", linger_ms=5)
    try:
        for i in range(N):
            producer.send(TOPIC, f"record {i}".encode())
        producer.flush(60)
    finally:
        producer.close()
    return consume(address, "proxied-group")


def produced_records(exchanges: list[dict]) -> int:
    count = 0
    for line in exchanges:
        if line["api_name"] != "Produce":
            continue
        for topic in line["request"]["topicData"]:
            for partition in topic["partitionData"]:
                data = base64.b64decode(partition["records"])
                position = 0
                while position < len(data):
                    batch, position = decode_batch(data, position)
                    count += len(batch.records)
    return count


def test_kafka_python_through_the_proxy_with_every_exchange_logged(cluster, tmp_path):
    log = tmp_path / "proxy.jsonl"
    with ProxyThread(cluster.bootstrap[0], str(log)) as proxy:
        address = "%s:%d" % proxy.address
        proxied = through_the_proxy(address)
        upstream_ports = {listener.upstream for listener in proxy.listeners.values()}
    direct = consume("%s:%d" % cluster.bootstrap[0], "direct-group")
    assert len(proxied) == N and proxied == direct
    assert upstream_ports == set(cluster.bootstrap)  # a listener per broker, the bootstrap's reused

    lines = [json.loads(line) for line in log.read_text().splitlines()]
    exchanges = [line for line in lines if line["kind"] == "exchange"]
    assert not [line for line in lines if line["kind"] == "unreadable"]
    for line in exchanges:
        assert line["request_error"] is None and line["request"] is not None, line
        if line["response_size"] is not None:
            assert line["response_error"] is None and line["response"] is not None, line
    names = {line["api_name"] for line in exchanges}
    assert {"ApiVersions", "Metadata", "CreateTopics", "Produce", "FindCoordinator", "JoinGroup",
            "SyncGroup", "Fetch", "OffsetCommit", "Heartbeat"} - names <= {"Heartbeat"}  # fmt: skip
    assert produced_records(exchanges) == N
    by_connection: dict[tuple[str, str], list[int]] = {}
    for line in exchanges:
        by_connection.setdefault((line["client"], line["upstream"]), []).append(line["correlation_id"])
    for ids in by_connection.values():
        assert ids == list(range(ids[0], ids[0] + len(ids)))
    summarized(log, tmp_path / "report", exchanges)


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
