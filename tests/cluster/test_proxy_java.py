"""Kafka's own Java clients, through the command-line tools of its distribution, talk to the
newest Kafka (two brokers) through the decoding proxy: the admin client creates, describes and
deletes a topic (kafka-topics), the idempotent producer writes N records (kafka-console-producer)
and a consumer in a group reads them (kafka-console-consumer). The proxied consumer reads what a
consumer connected to Kafka directly reads, the topic is described alike both ways, and the
proxy's log holds every exchange, decoded, the Produce batches carrying the N records under a
producer id."""

from __future__ import annotations

import subprocess

import kafka_oracle  # tools/, on the path through this folder's conftest
import pytest

from cluster.proxied import ProxyThread, logged_exchanges, produced_batches

pytestmark = [pytest.mark.cluster, pytest.mark.slow]  # real Kafka clusters: minutes

N = 200
TOPIC = "java-through-the-proxy"
TOOLS = "org.apache.kafka.tools."
NEWEST = kafka_oracle.releases()[-1]


def tool(main: str, address: str, *args: str) -> list[str]:
    return kafka_oracle.java_command(NEWEST, TOOLS + main, "--bootstrap-server", address, *args)


def topics(address: str, *args: str) -> list[str]:
    return tool("TopicCommand", address, "--topic", TOPIC, *args)


def consumer(address: str, group: str) -> list[str]:
    return tool("consumer.ConsoleConsumer", address, "--topic", TOPIC, "--group", group,
                "--from-beginning", "--max-messages", str(N), "--timeout-ms", "60000",
                "--formatter-property", "print.partition=true",
                "--formatter-property", "print.offset=true")  # fmt: skip


def run_together(*commands: list[str], stdin: str | None = None) -> list[str]:
    """Run ``commands`` at once (the JVMs start in parallel); each must succeed. Their outputs."""
    started = [
        subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)  # fmt: skip
        for command in commands
    ]
    outputs = []
    for process in started:
        out, err = process.communicate(stdin, timeout=180)
        assert process.returncode == 0, err[-3000:]
        outputs.append(out)
    return outputs


def records(output: str) -> list[tuple[int, int, str]]:
    """(partition, offset, value) of the lines kafka-console-consumer printed, sorted."""
    found = []
    for line in output.splitlines():
        partition, offset, value = line.split("\t", 2)
        found.append((int(partition.removeprefix("Partition:")),
                      int(offset.removeprefix("Offset:")), value))  # fmt: skip
    return sorted(found)


def described(output: str) -> list[str]:
    """kafka-topics --describe's lines, the whitespace between fields made one space."""
    return [" ".join(line.split()) for line in output.splitlines() if line.strip()]


def test_kafkas_java_clients_through_the_proxy_with_every_exchange_logged(cluster, tmp_path):
    direct = "%s:%d" % cluster.bootstrap[0]
    log = tmp_path / "proxy.jsonl"
    with ProxyThread(cluster.bootstrap[0], str(log)) as proxy:
        proxied = "%s:%d" % proxy.address
        run_together(topics(proxied, "--create", "--partitions", "2", "--replication-factor", "2"))
        producer = tool("ConsoleProducer", proxied, "--topic", TOPIC,
                        "--producer-property", "enable.idempotence=true",
                        "--producer-property", "acks=all")  # fmt: skip
        run_together(producer, stdin="".join(f"record {i}\n" for i in range(N)))
        read, read_directly, description, direct_description = run_together(
            consumer(proxied, "proxied-java-group"),
            consumer(direct, "direct-java-group"),
            topics(proxied, "--describe"),
            topics(direct, "--describe"),
        )
        run_together(topics(proxied, "--delete"))
    assert len(records(read)) == N and records(read) == records(read_directly)
    assert sorted(value for _, _, value in records(read)) == sorted(f"record {i}" for i in range(N))
    assert described(description) == described(direct_description)
    assert described(description)[0].startswith(f"Topic: {TOPIC} TopicId: ")

    exchanges = logged_exchanges(log, contiguous=False)
    names = {line["api_name"] for line in exchanges}
    assert {"ApiVersions", "Metadata", "CreateTopics", "DeleteTopics", "InitProducerId", "Produce",
            "FindCoordinator", "JoinGroup", "SyncGroup", "Fetch", "OffsetCommit"} <= names, names  # fmt: skip
    batches = produced_batches(exchanges)
    assert sum(len(batch.records) for batch in batches) == N
    assert {batch.producer_id >= 0 for batch in batches} == {True}  # idempotent: a producer id
    creates = [line for line in exchanges if line["api_name"] == "CreateTopics"]
    assert [topic["name"] for topic in creates[0]["request"]["topics"]] == [TOPIC]
