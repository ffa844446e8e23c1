"""``kafka-meta-proto proxy`` as a process: its first line names the bootstrap listener, a line
per broker listener follows as Metadata names them, and --log writes the exchanges."""

from __future__ import annotations

import asyncio
import json
import signal
import sys

from client.test_cluster import Picture
from client.loopback import LoopbackBroker
from kafka_meta_proto import message_class
from kafka_meta_proto.client import connect
from proxy.helpers import run

MetadataRequest = message_class("MetadataRequest")


async def first_lines(process, count: int) -> list[str]:
    return [(await process.stdout.readline()).decode().rstrip("\n") for _ in range(count)]


def test_the_command_prints_its_listeners_and_logs_the_exchanges(tmp_path):
    log = tmp_path / "proxy.jsonl"

    async def scenario():
        picture = Picture()
        async with LoopbackBroker(picture.node(1)) as one, LoopbackBroker(picture.node(2)) as two:
            picture.ports = {1: one.port, 2: two.port}
            process = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "kafka_meta_proto.cli", "proxy", "--listen", "127.0.0.1:0",
                "--upstream", f"127.0.0.1:{one.port}", "--log", str(log),
                stdout=asyncio.subprocess.PIPE,
            )  # fmt: skip
            try:
                [first] = await first_lines(process, 1)
                host, port = first.split()[2].split(":")
                async with await connect(host, int(port), client_id="cmd") as conn:
                    metadata = await conn.send(MetadataRequest(topics=[]))
                [second] = await first_lines(process, 1)
            finally:
                process.send_signal(signal.SIGINT)
                await process.wait()
            return first, second, metadata, picture.ports, process.returncode

    first, second, metadata, ports, status = run(scenario())
    assert first.startswith("listening on 127.0.0.1:") and first.endswith(f" for 127.0.0.1:{ports[1]}")
    assert second.endswith(f" for 127.0.0.1:{ports[2]}")
    told = {broker.node_id: broker.port for broker in metadata.brokers}
    assert told == {1: int(first.split()[2].split(":")[1]), 2: int(second.split()[2].split(":")[1])}
    assert status == 130  # interrupted, as the other commands report it
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    exchanges = [line for line in lines if line["kind"] == "exchange"]
    assert [line["api_name"] for line in exchanges] == ["ApiVersions", "Metadata"]
    assert {line["client_id"] for line in exchanges} == {"cmd"}
