"""The proxy's exchange log through Spark: every exchange a row of the Parquet table, the
summary's counts equal to the exchanges per API, and the proxy-report command printing it."""

from __future__ import annotations

import json

from client.test_cluster import produce_to_t0
from kafka_meta_proto import cli, message_class
from kafka_meta_proto.client import connect
from kafka_meta_proto.pipeline.proxy_log import proxy_report, read_exchanges
from proxy.helpers import proxied_cluster, raw_exchange, run
from kafka_meta_proto import protocol

MetadataRequest = message_class("MetadataRequest")
HeartbeatRequest = message_class("HeartbeatRequest")
HeartbeatResponse = message_class("HeartbeatResponse")


def write_log(path) -> list[dict]:
    """A log with Metadata, Produce (acks 1 and acks 0), a Heartbeat answered with an error and
    a request that does not decode; returns its exchange lines."""

    async def scenario():
        async with proxied_cluster(log=path) as (picture, brokers, proxy, log):
            brokers[1].handlers[12] = lambda_handler(HeartbeatResponse(error_code=27))
            async with await connect(*proxy.address) as conn:
                for _ in range(3):
                    await conn.send(MetadataRequest(topics=[]))
                await conn.send(produce_to_t0())
                oneway = produce_to_t0()
                oneway.acks = 0
                await conn.send_oneway(oneway)
                await conn.send(HeartbeatRequest(group_id="g"))
            garbage = b"\x00\x03\x00\x0c\x00\x00\x00\x09\xff\xff\x00" + b"\xff" * 5
            await raw_exchange(proxy.address, protocol.frame(garbage))

    run(scenario())
    lines = [json.loads(line) for line in path.read_text().splitlines()]
    return [line for line in lines if line["kind"] == "exchange"]


def lambda_handler(body):
    async def handler(event):
        return body

    return handler


def test_every_exchange_is_a_row_and_the_summary_counts_them(spark, tmp_path):
    exchanges = write_log(tmp_path / "proxy.jsonl")
    rows = proxy_report(spark, [str(tmp_path / "proxy.jsonl")], tmp_path / "out")
    table = spark.read.parquet(str(tmp_path / "out" / "exchanges"))
    assert table.count() == len(exchanges)
    got = {(r.api_key, r.correlation_id) for r in table.select("api_key", "correlation_id").collect()}
    assert got == {(line["api_key"], line["correlation_id"]) for line in exchanges}
    by_api = {row.api_name: row for row in rows}
    counts = {}
    for line in exchanges:
        counts[line["api_name"]] = counts.get(line["api_name"], 0) + 1
    assert {name: row.requests for name, row in by_api.items()} == counts
    assert sum(row.requests for row in rows) == len(exchanges)
    assert by_api["Heartbeat"].errors == 1 and by_api["Produce"].errors == 0
    assert by_api["Metadata"].undecoded == 1 and by_api["Metadata"].unanswered == 1  # the garbage
    assert by_api["Metadata"].requests == 4
    metadata = by_api["Metadata"]
    assert 0 <= metadata.p50_ms <= metadata.p95_ms <= metadata.p99_ms
    sizes = [line["request_size"] for line in exchanges if line["api_name"] == "Metadata"]
    assert metadata.request_bytes == sum(sizes)
    decoded = read_exchanges(spark, [str(tmp_path / "proxy.jsonl")]).where("api_key = 0").collect()
    assert sorted(json.loads(r.request)["acks"] for r in decoded) == [0, 1]


def test_the_proxy_report_command_prints_the_summary(spark, tmp_path, capsys):
    exchanges = write_log(tmp_path / "proxy.jsonl")
    out = tmp_path / "out"
    assert cli.main(["proxy-report", str(tmp_path / "proxy.jsonl"), "--out", str(out)]) == 0
    printed = capsys.readouterr().out.splitlines()
    assert printed[0].split()[:3] == ["api", "requests", "errors"]
    heartbeat = next(line for line in printed if line.startswith("Heartbeat"))
    assert heartbeat.split()[1:3] == ["1", "1"]
    assert (out / "summary").is_dir() and len(printed) == 1 + len({l["api_key"] for l in exchanges})
