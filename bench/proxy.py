"""What the decoding proxy costs: Produce requests through it next to a plain TCP relay (the
floor: bytes copied, nothing read), with its log off and on.

  python bench/proxy.py [--requests N] [--window W] [--rounds R] [--quick]

A loopback broker answers each Produce frame with a ready-made response (it decodes nothing,
so the broker is cheap), and a raw client keeps W requests in flight (throughput: requests per
second and MB/s of request bytes), then sends one at a time (added latency: the median round
trip). Broker, client, relay and proxy share one event loop and one process, the same in every
path, so the ratios are comparable with each other (each path also pays for the client and the
broker). Paths: direct to the broker, through the relay, through the proxy without and with its
log (to a temporary file). Each round runs every path once, in rotated order; the table shows
the median round, and the time against the relay is the median of the per-round ratios.
CPU a request is this process's CPU time over the pipelined sample divided by its requests:
on a busy machine, where the wall clock also counts waiting for a core, it is the steadier
figure.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

from kafka_meta_proto import message_class, protocol
from kafka_meta_proto.log.batch import Record, RecordBatch
from kafka_meta_proto.net import FrameReader
from kafka_meta_proto.proxy import Proxy

ProduceRequest = message_class("ProduceRequest")
ProduceResponse = message_class("ProduceResponse")
VERSION = ProduceRequest.versions()[-1]


def produce_frame(correlation_id: int) -> bytes:
    batch = RecordBatch.create([Record(value=b"v" * 100) for _ in range(10)]).encode()
    data = ProduceRequest.PartitionProduceData(index=0, records=batch)
    topic = ProduceRequest.TopicProduceData(name="bench", partition_data=[data])
    body = ProduceRequest(acks=1, timeout_ms=1000, topic_data=[topic])
    return protocol.encode_request(body, VERSION, correlation_id, "bench")


def response_template() -> bytes:
    answer = ProduceResponse.PartitionProduceResponse(index=0, base_offset=0)
    topic = ProduceResponse.TopicProduceResponse(name="bench", partition_responses=[answer])
    return protocol.encode_response(ProduceResponse(responses=[topic]), VERSION, 0)


async def broker(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    template, frames = response_template(), FrameReader()
    while data := await reader.read(1 << 16):
        for payload in frames.feed(data):  # the response's correlation id is the request's
            writer.write(template[:4] + payload[4:8] + template[8:])
        await writer.drain()
    writer.close()


async def relay(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, port: int) -> None:
    up_reader, up_writer = await asyncio.open_connection("127.0.0.1", port)

    async def copy(src: asyncio.StreamReader, dst: asyncio.StreamWriter) -> None:
        while data := await src.read(1 << 16):
            dst.write(data)
            await dst.drain()
        dst.close()

    await asyncio.gather(copy(reader, up_writer), copy(up_reader, writer), return_exceptions=True)


async def drive(port: int, requests: int, window: int) -> float:
    """Seconds to send ``requests`` Produce frames with ``window`` in flight and read the answers."""
    template = produce_frame(0)  # the correlation id patched in: the client costs little
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    frames, answered, sent = FrameReader(), 0, 0
    started = time.perf_counter()
    while answered < requests:
        while sent < requests and sent - answered < window:
            writer.write(template[:8] + sent.to_bytes(4, "big") + template[12:])
            sent += 1
        answered += len(frames.feed(await reader.read(1 << 16)))
    elapsed = time.perf_counter() - started
    writer.close()
    return elapsed


Sample = tuple[float, float, float]  # requests/s, round trip (ms), CPU µs a request


async def measure(port: int, requests: int, window: int) -> Sample:
    """Requests per second with ``window`` in flight, the median round trip in ms one at a
    time, and this process's CPU time per request in flight (client, path and broker: on a
    busy machine the wall clock also counts waiting for a core)."""
    cpu = time.process_time()
    throughput = requests / await drive(port, requests, window)
    cpu = (time.process_time() - cpu) / requests * 1e6
    trips = [await drive(port, 1, 1) for _ in range(max(50, requests // 50))]
    return throughput, statistics.median(trips) * 1e3, cpu


PATHS = ("direct", "TCP relay", "proxy, log off", "proxy, log on")


async def bench(requests: int, window: int, rounds: int) -> dict[str, list[Sample]]:
    """Each path's samples, one a round; every round runs each path once, in
    rotated order, so a change of load between rounds reaches every path alike."""
    upstream = await asyncio.start_server(broker, "127.0.0.1", 0)
    port = upstream.sockets[0].getsockname()[1]
    plain = await asyncio.start_server(lambda r, w: relay(r, w, port), "127.0.0.1", 0)
    with tempfile.TemporaryDirectory() as tmp:
        async with Proxy(("127.0.0.1", 0), ("127.0.0.1", port)) as quiet, Proxy(
            ("127.0.0.1", 0), ("127.0.0.1", port), log=Path(tmp) / "x.jsonl"
        ) as logged:
            ports = dict(zip(PATHS, (port, plain.sockets[0].getsockname()[1],
                                     quiet.address[1], logged.address[1])))  # fmt: skip
            for path_port in ports.values():  # warm up: connections, listeners, codecs
                await drive(path_port, min(requests, 200), window)
            results: dict[str, list[Sample]] = {path: [] for path in PATHS}
            for round_ in range(rounds):
                for path in PATHS[round_ % 4 :] + PATHS[: round_ % 4]:
                    results[path].append(await measure(ports[path], requests, window))
            await asyncio.sleep(0.2)  # the handlers see their connections end, and return
    plain.close()
    upstream.close()
    return results


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--requests", type=int, default=20000, help="requests a sample")
    ap.add_argument("--window", type=int, default=64)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--quick", action="store_true", help="a smoke run: 1000 requests, 1 round")
    args = ap.parse_args(argv)
    requests, rounds = (1000, 1) if args.quick else (args.requests, args.rounds)
    size = len(produce_frame(0))
    results = asyncio.run(bench(requests, args.window, rounds))
    floor = results["TCP relay"]
    print(f"Produce v{VERSION}, {size} bytes a request, {requests} requests a sample, "
          f"{args.window} in flight, {rounds} interleaved rounds (medians)")  # fmt: skip
    print("| path | requests/s | MB/s | time against the relay | CPU a request | CPU against the "
          "relay | one round trip |")  # fmt: skip
    print("|---|---:|---:|---:|---:|---:|---:|")
    for path, samples in results.items():
        rate = statistics.median(rate for rate, _, _ in samples)
        ratio = statistics.median(relay[0] / mine[0] for relay, mine in zip(floor, samples))
        cpu = statistics.median(cpu for _, _, cpu in samples)
        cpu_ratio = statistics.median(mine[2] / relay[2] for relay, mine in zip(floor, samples))
        trip = statistics.median(trip for _, trip, _ in samples)
        print(f"| {path} | {rate:,.0f} | {rate * size / 1e6:.1f} | {ratio:.2f}x | {cpu:.0f} µs "
              f"| {cpu_ratio:.2f}x | {trip:.2f} ms |")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
