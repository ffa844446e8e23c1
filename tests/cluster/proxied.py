"""The decoding proxy for synchronous clients (kafka-python, confluent-kafka, Kafka's Java tools)
and the checks every proxied test makes of its exchange log."""

from __future__ import annotations

import asyncio
import base64
import json
import threading
from pathlib import Path

from kafka_meta_proto.log.batch import decode_batch
from kafka_meta_proto.proxy import Proxy


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
        self.loop.close()


def logged_exchanges(log: Path, contiguous: bool = True) -> list[dict]:
    """The exchanges of a proxy log, each request (and each response the broker sent) decoded.

    Per client connection no correlation id repeats; ``contiguous`` also wants them in one run
    without a gap, as clients counting per connection number them (Kafka's Java clients count per
    client over all of its connections, and may number a request before an earlier-sent one)."""
    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert not [line for line in lines if line["kind"] == "unreadable"]
    exchanges = [line for line in lines if line["kind"] == "exchange"]
    for line in exchanges:
        assert line["request_error"] is None and line["request"] is not None, line
        if line["response_size"] is not None:
            assert line["response_error"] is None and line["response"] is not None, line
    by_connection: dict[tuple[str, str], list[int]] = {}
    for line in exchanges:
        by_connection.setdefault((line["client"], line["upstream"]), []).append(
            line["correlation_id"]
        )
    for ids in by_connection.values():
        if contiguous:
            assert ids == list(range(ids[0], ids[0] + len(ids))), ids
        else:
            assert len(ids) == len(set(ids)), ids
    return exchanges


def produced_batches(exchanges: list[dict]) -> list:
    """The record batches of the logged Produce requests."""
    batches = []
    for line in exchanges:
        if line["api_name"] != "Produce":
            continue
        for topic in line["request"]["topicData"]:
            for partition in topic["partitionData"]:
                data = base64.b64decode(partition["records"])
                position = 0
                while position < len(data):
                    batch, position = decode_batch(data, position)
                    batches.append(batch)
    return batches


def produced_records(exchanges: list[dict]) -> int:
    """Records in the batches of the logged Produce requests."""
    return sum(len(batch.records) for batch in produced_batches(exchanges))
