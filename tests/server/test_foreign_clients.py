"""Clients no one here wrote accept a tiny broker built with the framework (ApiVersions answered
by the framework, Metadata by one handler): kafka-python, confluent-kafka's admin client
(librdkafka), and Kafka's own Java admin client through its tools (kafka-broker-api-versions,
kafka-topics --list)."""

from __future__ import annotations

import asyncio
import contextlib
import subprocess
import sys
import threading
import uuid
from collections.abc import Iterator

import pytest

from conftest import ROOT, need_kafka
from kafka_meta_proto.server import Server
from server.peer import MetadataRequest, MetadataResponse

TOPIC = "greetings"


def tiny_broker() -> Server:
    """One broker (node 0, itself), one topic of three partitions it leads."""
    server = Server()
    topic_id = uuid.uuid4()

    @server.handle(MetadataRequest)
    async def metadata(request):
        host, port = server.addresses[0]
        partitions = [
            MetadataResponse.MetadataResponsePartition(
                partition_index=i, leader_id=0, replica_nodes=[0], isr_nodes=[0]
            )
            for i in range(3)
        ]
        return MetadataResponse(
            brokers=[MetadataResponse.MetadataResponseBroker(node_id=0, host=host, port=port)],
            cluster_id="tiny",
            controller_id=0,
            topics=[
                MetadataResponse.MetadataResponseTopic(
                    name=TOPIC, topic_id=topic_id, partitions=partitions
                )
            ],
        )

    return server


@contextlib.contextmanager
def serving_in_a_thread(server: Server) -> Iterator[str]:
    """``server`` on loopback in an event loop of its own thread; yields "host:port"."""
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    asyncio.run_coroutine_threadsafe(server.start(("127.0.0.1", 0)), loop).result(30)
    try:
        host, port = server.addresses[0]
        yield f"{host}:{port}"
    finally:
        asyncio.run_coroutine_threadsafe(server.close(), loop).result(30)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(30)
        loop.close()


def test_kafka_python_reads_the_topics_of_the_tiny_broker():
    kafka = pytest.importorskip("kafka", reason="kafka-python is not installed")
    with serving_in_a_thread(tiny_broker()) as address:
        consumer = kafka.KafkaConsumer(
            bootstrap_servers=address, client_id="kafka-python", request_timeout_ms=10000
        )
        try:
            assert consumer.topics() == {TOPIC}
            assert consumer.partitions_for_topic(TOPIC) == {0, 1, 2}
        finally:
            consumer.close()


def java_tool(main: str, *args: str) -> list[str]:
    sys.path.insert(0, str(ROOT / "tools"))
    import kafka_oracle

    release = kafka_oracle.releases()[-1]
    need_kafka(release)
    return kafka_oracle.java_command(release, main, *args)


@pytest.mark.slow
def test_kafkas_java_admin_client_accepts_the_tiny_broker():
    versions = java_tool("org.apache.kafka.tools.BrokerApiVersionsCommand")
    topics = java_tool("org.apache.kafka.tools.TopicCommand", "--list")
    with serving_in_a_thread(tiny_broker()) as address:
        found = [
            subprocess.run(
                [*command, "--bootstrap-server", address],
                capture_output=True,
                text=True,
                timeout=120,
            )
            for command in (versions, topics)
        ]
    assert [run.returncode for run in found] == [0, 0], [run.stderr[-2000:] for run in found]
    lines = found[0].stdout.splitlines()
    assert lines[0].startswith(f"{address} (id: 0 rack: null")
    served = [line.strip() for line in lines if "usable" in line]
    newest = MetadataRequest.versions()[-1]
    assert served[0].startswith(f"Metadata(3): 0 to {newest} [usable: ")
    assert any(line.startswith("ApiVersions(18): 0 to ") for line in served)
    assert "Produce(0): UNSUPPORTED," in found[0].stdout
    assert found[1].stdout.split() == [TOPIC]


def test_confluent_kafkas_admin_client_lists_the_topics_of_the_tiny_broker():
    admin_module = pytest.importorskip(
        "confluent_kafka.admin", reason="confluent-kafka is not installed"
    )
    with serving_in_a_thread(tiny_broker()) as address:
        admin = admin_module.AdminClient({"bootstrap.servers": address, "client.id": "librdkafka"})
        metadata = admin.list_topics(timeout=20)
    assert set(metadata.topics) == {TOPIC}
    assert sorted(metadata.topics[TOPIC].partitions) == [0, 1, 2]
    assert [broker.id for broker in metadata.brokers.values()] == [0]
    assert metadata.cluster_id == "tiny" and metadata.controller_id == 0
