"""Produce throughput of the package's client next to aiokafka, kafka-python and confluent-kafka
(librdkafka), against a real broker.

  python bench/client.py [--records N] [--size BYTES] [--batch B] [--window W] [--rounds R]
  python bench/client.py --bootstrap HOST:PORT   # a running broker instead of starting one
  python bench/client.py --quick                 # a smoke run

Every library sends the same records (N values of BYTES bytes, no key, uncompressed) to a topic
of its own with one partition, acks=1, and the clock runs from the first send to the last
acknowledgement. The package's client has no producer: it sends record batches built before
the clock starts (B records each, one Produce request a batch) with W requests in flight on one
connection (``Connection.send`` pipelined). The producers batch the records themselves, with
settings chosen to make the same requests: B records (or their bytes) a batch, a linger long
enough to fill it, W requests in flight where the library has such a setting (aiokafka sends
one request at a time to a broker). The settings are printed with the results.

Without --bootstrap the script starts one KRaft broker (and its controller) of the newest
Kafka release the tests use (tools/kafka_cluster.py), on loopback, in a temporary directory.
Its JVM runs with the full JIT (the tests' clusters stop at the first tier, to start fast) and
a round of every library, untimed, warms it before the rounds. Each round runs every library
once, in rotated order; the table shows the median round, and the ratios are the medians of
the per-round ratios. Besides wall time, the process's CPU time over the run is shown (every
library runs in this process; librdkafka's threads count): the broker answers every library
at the same pace, so where it is the limit, CPU time is what tells the clients apart.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path

from kafka_meta_proto import message_class
from kafka_meta_proto.client import connect
from kafka_meta_proto.log.batch import Record, RecordBatch

ROOT = Path(__file__).resolve().parent.parent
CreateTopicsRequest = message_class("CreateTopicsRequest")
MetadataRequest = message_class("MetadataRequest")
ProduceRequest = message_class("ProduceRequest")


@dataclass(frozen=True)
class Load:
    records: int
    size: int  # bytes of each value
    batch: int  # records a Produce request
    window: int  # requests in flight

    @property
    def megabytes(self) -> float:
        return self.records * self.size / 1e6

    def value(self) -> bytes:
        return b"v" * self.size


async def _create_topic(bootstrap: tuple[str, int], topic: str) -> None:
    async with await connect(*bootstrap) as conn:
        creatable = CreateTopicsRequest.CreatableTopic(
            name=topic, num_partitions=1, replication_factor=1
        )
        created = await conn.send(CreateTopicsRequest(topics=[creatable], timeout_ms=30000))
        assert created.topics[0].error_code in (0, 36), created  # 36: it exists already
        by_name = MetadataRequest(topics=[MetadataRequest.MetadataRequestTopic(name=topic)])
        for _ in range(100):  # until the partition has a leader
            topics = (await conn.send(by_name)).topics
            if topics[0].error_code == 0 and topics[0].partitions[0].leader_id >= 0:
                return
            await asyncio.sleep(0.1)
        raise RuntimeError(f"topic {topic} has no leader")


async def _ours(bootstrap: tuple[str, int], topic: str, load: Load) -> float:
    """Seconds to send the pre-built batches, ``load.window`` requests in flight."""
    value = load.value()
    batch = RecordBatch.create(
        [Record(offset_delta=i, value=value) for i in range(load.batch)]
    ).encode()
    partition = ProduceRequest.PartitionProduceData(index=0, records=batch)
    request = ProduceRequest(
        acks=1,
        timeout_ms=30000,
        topic_data=[ProduceRequest.TopicProduceData(name=topic, partition_data=[partition])],
    )
    requests = load.records // load.batch
    async with await connect(*bootstrap) as conn:
        version = min(conn.version_for(request), 12)  # by name: v13 names topics by id
        await conn.send(request, version)  # the partition's first write before the clock
        free = asyncio.Semaphore(load.window)

        async def send() -> None:
            try:
                answer = await conn.send(request, version)
                assert answer.responses[0].partition_responses[0].error_code == 0, answer
            finally:
                free.release()

        started = time.perf_counter()
        tasks = []
        for _ in range(requests):
            await free.acquire()
            tasks.append(asyncio.create_task(send()))
        await asyncio.gather(*tasks)
        return time.perf_counter() - started


def ours(bootstrap: tuple[str, int], topic: str, load: Load) -> float:
    return asyncio.run(_ours(bootstrap, topic, load))


def aiokafka_settings(load: Load) -> dict:
    return dict(acks=1, linger_ms=5, max_batch_size=load.batch * (load.size + 80))


def aiokafka(bootstrap: tuple[str, int], topic: str, load: Load) -> float:
    from aiokafka import AIOKafkaProducer

    async def produce() -> float:
        producer = AIOKafkaProducer(
            bootstrap_servers=f"{bootstrap[0]}:{bootstrap[1]}", **aiokafka_settings(load)
        )
        await producer.start()
        try:
            await producer.send_and_wait(topic, b"warm", partition=0)  # metadata before the clock
            value = load.value()
            started = time.perf_counter()
            sent = [await producer.send(topic, value, partition=0) for _ in range(load.records)]
            await asyncio.gather(*sent)
            return time.perf_counter() - started
        finally:
            await producer.stop()

    return asyncio.run(produce())


def kafka_python_settings(load: Load) -> dict:
    return dict(
        acks=1,
        linger_ms=5,
        batch_size=load.batch * (load.size + 80),
        max_in_flight_requests_per_connection=load.window,
        enable_idempotence=False,
    )


def kafka_python(bootstrap: tuple[str, int], topic: str, load: Load) -> float:
    from kafka import KafkaProducer

    producer = KafkaProducer(
        bootstrap_servers=f"{bootstrap[0]}:{bootstrap[1]}", **kafka_python_settings(load)
    )
    try:
        producer.send(topic, b"warm", partition=0).get(30)  # metadata fetched before the clock
        value = load.value()
        started = time.perf_counter()
        sent = [producer.send(topic, value, partition=0) for _ in range(load.records)]
        producer.flush()
        elapsed = time.perf_counter() - started
        assert all(future.succeeded() for future in sent)
        return elapsed
    finally:
        producer.close()


def confluent_settings(load: Load) -> dict:
    return {
        "acks": 1,
        "linger.ms": 5,
        "batch.num.messages": load.batch,
        "max.in.flight.requests.per.connection": load.window,
        "enable.idempotence": False,
        "queue.buffering.max.messages": load.records + 1000,
        "queue.buffering.max.kbytes": max(1 << 20, load.records * (load.size + 80) // 1024),
    }


def confluent_kafka(bootstrap: tuple[str, int], topic: str, load: Load) -> float:
    from confluent_kafka import Producer

    producer = Producer({"bootstrap.servers": f"{bootstrap[0]}:{bootstrap[1]}",
                         **confluent_settings(load)})  # fmt: skip
    failed: list[object] = []

    def delivered(error: object, message: object) -> None:
        if error is not None:
            failed.append(error)

    producer.produce(topic, b"warm", partition=0)
    producer.flush(30)  # metadata fetched before the clock
    value = load.value()
    started = time.perf_counter()
    for _ in range(load.records):
        producer.produce(topic, value, partition=0, on_delivery=delivered)
    producer.flush(60)
    elapsed = time.perf_counter() - started
    assert not failed and len(producer) == 0, failed[:3]
    return elapsed


Contender = Callable[[tuple[str, int], str, Load], float]
Sample = tuple[float, float]  # wall and CPU seconds of one run
CONTENDERS: dict[str, Contender] = {
    "kafka_meta_proto": ours,
    "aiokafka": aiokafka,
    "kafka-python": kafka_python,
    "confluent-kafka": confluent_kafka,
}


def versions() -> str:
    import aiokafka as aio
    import confluent_kafka as ck
    import kafka

    import kafka_meta_proto

    return (f"kafka_meta_proto {kafka_meta_proto.__version__}, aiokafka {aio.__version__}, "
            f"kafka-python {kafka.__version__}, confluent-kafka {ck.version()[0]} "
            f"(librdkafka {ck.libversion()[0]})")  # fmt: skip


def settings_text(load: Load) -> list[str]:
    return [
        f"kafka_meta_proto: pre-built batches of {load.batch} records, one Produce request "
        f"each (v12 or the newest the broker speaks), {load.window} in flight on one connection",
        f"aiokafka: {aiokafka_settings(load)} (one request in flight a broker)",
        f"kafka-python: {kafka_python_settings(load)}",
        f"confluent-kafka: {confluent_settings(load)}",
    ]


def run_rounds(bootstrap: tuple[str, int], load: Load, rounds: int) -> dict[str, list[Sample]]:
    """Each library's (wall, CPU) seconds per round."""
    names = list(CONTENDERS)
    for name in names:
        asyncio.run(_create_topic(bootstrap, f"bench-{name}"))
    seconds: dict[str, list[Sample]] = {name: [] for name in names}
    warm = Load(max(load.batch, load.records // 10), load.size, load.batch, load.window)
    for name in names:  # the broker's JIT and the libraries' imports, before any clock
        CONTENDERS[name](bootstrap, f"bench-{name}", warm)
    for round_ in range(rounds):
        for name in names[round_ % len(names) :] + names[: round_ % len(names)]:
            cpu = time.process_time()
            wall = CONTENDERS[name](bootstrap, f"bench-{name}", load)
            seconds[name].append((wall, time.process_time() - cpu))
            print(f"  round {round_ + 1} {name}: {wall:.3f} s", file=sys.stderr)
    return seconds


def _ratio(mine: list[Sample], theirs: list[Sample], cpu: bool = False) -> float:
    """How many times longer the peer took: the median of the per-round ratios."""
    return statistics.median(t[cpu] / m[cpu] for m, t in zip(mine, theirs))


def report(seconds: dict[str, list[Sample]], load: Load) -> list[str]:
    mine = seconds["kafka_meta_proto"]
    lines = [
        "| library | records/s | MB/s | wall time | CPU time | faster by (wall) | faster by (CPU) |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for name, samples in seconds.items():
        wall = statistics.median(w for w, _ in samples)
        cpu = statistics.median(c for _, c in samples)
        ratios = "- | -" if name == "kafka_meta_proto" else (
            f"{_ratio(mine, samples):.2f}x | {_ratio(mine, samples, cpu=True):.2f}x")  # fmt: skip
        lines.append(f"| {name} | {load.records / wall:,.0f} | {load.megabytes / wall:.1f} "
                     f"| {wall:.3f} s | {cpu:.3f} s | {ratios} |")  # fmt: skip
    return lines


def aims(seconds: dict[str, list[Sample]]) -> list[str]:
    """Each aim on wall time, met or not."""
    mine, out = seconds["kafka_meta_proto"], []
    for peer in ("kafka-python", "aiokafka"):
        ratio = _ratio(mine, seconds[peer])
        out.append(f"- at least 3x {peer}: {ratio:.2f}x, {'met' if ratio >= 3 else 'not met'}")
    slower = 1 / _ratio(mine, seconds["confluent-kafka"])
    met = "met" if slower <= 1.5 else "not met"
    out.append(f"- within 1.5x of librdkafka (confluent-kafka): {slower:.2f}x its time, {met}")
    return out


def broker(stack: ExitStack, bootstrap: str | None) -> tuple[str, int]:
    """The broker given, or one started for the run (stopped when ``stack`` closes)."""
    if bootstrap:
        host, port = bootstrap.rsplit(":", 1)
        return host, int(port)
    sys.path.insert(0, str(ROOT / "tools"))
    import kafka_cluster
    import kafka_oracle

    kafka_cluster.JAVA_OPTIONS = ("-Xmx1g", "-Xms256m", "-Djava.awt.headless=true")

    workdir = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="bench-client-")))
    cluster = kafka_cluster.KafkaCluster(kafka_oracle.releases()[-1], workdir, brokers=1)
    cluster.start()
    stack.callback(cluster.stop)
    print(f"started Kafka {cluster.release}: one controller, one broker", file=sys.stderr)
    return cluster.bootstrap[0]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bootstrap", help="HOST:PORT of a running broker")
    ap.add_argument("--records", type=int, default=200_000)
    ap.add_argument("--size", type=int, default=100, help="bytes of each record's value")
    ap.add_argument("--batch", type=int, default=100, help="records a Produce request")
    ap.add_argument("--window", type=int, default=5, help="requests in flight")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="a smoke run: 10,000 records, 1 round")
    args = ap.parse_args(argv)
    records, rounds = (10_000, 1) if args.quick else (args.records, args.rounds)
    load = Load(records, args.size, args.batch, args.window)
    with ExitStack() as stack:
        seconds = run_rounds(broker(stack, args.bootstrap), load, rounds)
    print(f"- {versions()}")
    print(f"- {records:,} records of {args.size} bytes, acks=1, one partition, {rounds} rounds "
          f"(median); records/s and MB/s count the values' bytes")  # fmt: skip
    print("\n".join(f"- {line}" for line in settings_text(load)))
    print("\n".join(report(seconds, load)))
    print("\n".join(aims(seconds)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
