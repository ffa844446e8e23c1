"""How many requests one diskless batch coordinator sustains (the design's test plan asks it):
commits per second with 1, 10 and 100 partitions per object, and finds per second, with the
latency percentiles, next to two floors.

  python bench/batch_coordinator.py [--seconds S] [--clients C] [--quick]

- **coordinator**: ``kafka-meta-proto batch-coordinator`` in a process of its own on loopback;
  C connections commit (one object a request, one batch per partition) or find (one partition,
  a random offset, 1 MiB as a consumer's default fetch asks) back to back for S seconds;
  latencies are measured by the callers. Batches are 16 KiB (a producer's default batch.size).
- **SQLite floor**: the same state changes (the commit records the coordinator wrote) applied to a
  fresh ``Store`` directly, one transaction each, the same pragmas; finds as the same query.
- **append floor**: the same records appended to a fresh log, one fsynced batch each: the topic
  append alone.

The coordinator must do both, so its aim is half of the slower floor or better.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from kafka_meta_proto import DISKLESS_REGISTRY
from kafka_meta_proto.client import connect
from kafka_meta_proto.message import Message
from kafka_meta_proto.diskless.coordinator import BatchCoordinator
from kafka_meta_proto.diskless.store import BATCH_COLUMNS, LogPosition, Store
from kafka_meta_proto.diskless_messages.diskless_commit_record import DisklessCommitRecord
from kafka_meta_proto.diskless.topic_log import LogAppender, LogTail, partition_dir
from kafka_meta_proto.uuid import Uuid

M = DISKLESS_REGISTRY.message_class
TOPIC = Uuid(bytes(range(1, 17)))
PARTITIONS = 100
BATCH_BYTES = 16384  # a batch of a producer's default batch.size: a 1 MiB find gives 64 of them
FIND_BYTES = 1 << 20  # a consumer's default fetch.max.bytes
# what a find reads of each batch (the columns Store.batches_from selects)
FIND_SQL = (f"SELECT {BATCH_COLUMNS} FROM batches WHERE topic_id = ? AND partition = ? AND last_offset >= ? "
            "ORDER BY last_offset")  # fmt: skip


def commit_request(key: str, partitions: int) -> Message:
    chosen = random.sample(range(PARTITIONS), partitions)
    parts = [{"partitionIndex": p, "objectKey": key, "byteOffset": i * BATCH_BYTES, "size": BATCH_BYTES, "baseOffset": 0,
              "lastOffset": 9, "batchMaxTimestamp": 1, "messageTimestampType": 0, "producerId": -1,
              "producerEpoch": -1, "baseSequence": -1, "lastSequence": -1} for i, p in enumerate(chosen)]  # fmt: skip
    body = {"brokerId": 1, "batches": [{"topics": [{"topicId": str(TOPIC), "partitions": parts}]}]}
    return M("CommitBatchesRequest").from_json(body, 0)


def find_request(offsets: int) -> Message:
    body = {"topics": [{"topicId": str(TOPIC), "partitions": [{"partitionIndex": random.randrange(PARTITIONS),
            "offset": random.randrange(max(offsets, 1)), "maxBytes": FIND_BYTES}]}], "maxBytes": FIND_BYTES}  # fmt: skip
    return M("FindDisklessBatchesRequest").from_json(body, 0)


def percentiles(latencies: list[float]) -> str:
    q = statistics.quantiles(latencies, n=100)
    return f"p50 {q[49] * 1e3:.2f} ms, p99 {q[98] * 1e3:.2f} ms"


async def drive(
    host: str, port: int, clients: int, seconds: float, make: Callable[[int], Message]
) -> tuple[int, list[float]]:
    """Requests from ``make(n)`` sent back to back on ``clients`` connections for ``seconds``."""
    latencies: list[float] = []
    counter = iter(range(1 << 40))
    end = time.perf_counter() + seconds

    async def one() -> None:
        async with await connect(host, port, client_id="bench", registry=DISKLESS_REGISTRY) as conn:
            while time.perf_counter() < end:
                request = make(next(counter))
                start = time.perf_counter()
                await conn.send(request)
                latencies.append(time.perf_counter() - start)

    await asyncio.gather(*(one() for _ in range(clients)))
    return len(latencies), latencies


def start_coordinator(data: Path) -> tuple[subprocess.Popen[str], str, int]:
    proc = subprocess.Popen([sys.executable, "-m", "kafka_meta_proto.cli", "batch-coordinator", "--listen",
                             "127.0.0.1:0", "--data", str(data)], stdout=subprocess.PIPE, text=True)  # fmt: skip
    assert proc.stdout is not None
    host, port = proc.stdout.readline().strip().rsplit(":", 1)
    return proc, host, int(port)


def sql_find(store: Store, partition: int, offset: int, max_bytes: int) -> int:
    """The statements of a find, rows as SQLite gives them: the partition's offsets, then its
    batches from ``offset`` until ``max_bytes`` (the first one always); how many were read."""
    topic = TOPIC.bytes
    store.db.execute(
        "SELECT log_start_offset, high_watermark FROM partitions WHERE topic_id = ? AND partition = ?",
        (topic, partition),
    ).fetchone()
    found, room = 0, max_bytes
    for row in store.db.execute(FIND_SQL, (topic, partition, offset)):
        if found and row[5] > room:
            break
        found += 1
        room -= row[5]
    return found


def floors(data: Path, work: Path, find_offsets: int) -> tuple[float, float, float]:
    """(SQLite applies/s, fsynced appends/s, SQLite finds/s) for the commit requests in ``data``.

    The floors replay the coordinator's own log batch by batch: a batch holds the records of one
    group commit, so each is one SQLite transaction (committed with the log position, as the
    coordinator does) and one fsynced append: the grouping and durability the coordinator had,
    no more, no less. Rates are commit records (one a request) a second. The find floor runs the
    find's statements for requests drawn as the coordinator's were."""
    groups = list(LogTail(partition_dir(data, 0), LogPosition()).records(DISKLESS_REGISTRY))
    setup = [g for g in groups if not isinstance(g[0][0], DisklessCommitRecord)]
    groups = [g for g in groups if isinstance(g[0][0], DisklessCommitRecord)]
    requests = sum(len(records) for records, _ in groups)
    store = Store(work / "floor.sqlite")
    for records, position in setup:  # the topic, outside the timing
        store.begin()
        for record in records:
            store.apply(record)
        store.commit(position)
    start = time.perf_counter()
    for records, position in groups:
        store.begin()
        for record in records:
            store.apply(record)
        store.commit(position)
    applies = requests / (time.perf_counter() - start)
    (work / "log").mkdir()
    appender = LogAppender(work / "log", LogPosition())
    start = time.perf_counter()
    for records, _ in groups:
        appender.append(records, 0)
    appends = requests / (time.perf_counter() - start)
    n, start = 2000, time.perf_counter()
    for _ in range(n):
        sql_find(store, random.randrange(PARTITIONS), random.randrange(max(find_offsets, 1)), FIND_BYTES)
    finds = n / (time.perf_counter() - start)
    store.close()
    appender.close()
    return applies, appends, finds


def bench_commits(partitions: int, args: argparse.Namespace, tmp: Path) -> None:
    data = tmp / f"coordinator-{partitions}"
    with BatchCoordinator(data) as c:
        from kafka_meta_proto.diskless.types import CreateTopicAndPartitionsRequest

        c.create_topic_and_partitions([CreateTopicAndPartitionsRequest(TOPIC, "bench", PARTITIONS)])
    proc, host, port = start_coordinator(data)
    try:
        count, latencies = asyncio.run(drive(host, port, args.clients, args.seconds,
                                             lambda n: commit_request(f"o-{n}", partitions)))  # fmt: skip
        finds = None
        find_offsets = count // 10  # the first tenth of a partition's offsets (about count each)
        if partitions == 10:
            finds = asyncio.run(drive(host, port, args.clients, args.seconds, lambda n: find_request(find_offsets)))
    finally:
        proc.terminate()
        proc.wait()
    rate = count / args.seconds
    work = tmp / f"floor-{partitions}"
    work.mkdir()
    applies, appends, sqlite_finds = floors(data, work, find_offsets)
    floor = min(applies, appends)
    print(f"commits, {partitions:3d} partitions an object: {rate:8.0f} requests/s ({rate * partitions:8.0f} batches/s), "
          f"{percentiles(latencies)}; floors: SQLite {applies:.0f}/s, append {appends:.0f}/s; "
          f"{rate / floor:.2f} of the slower floor ({'met' if rate >= floor / 2 else 'not met'})")  # fmt: skip
    if finds is not None:
        frate = finds[0] / args.seconds
        print(f"finds, 1 partition:                 {frate:8.0f} requests/s, {percentiles(finds[1])}; "
              f"floor: SQLite query {sqlite_finds:.0f}/s; {frate / sqlite_finds:.2f} of it "
              f"({'met' if frate >= sqlite_finds / 2 else 'not met'})")  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=float, default=5.0)
    ap.add_argument("--clients", type=int, default=8)
    ap.add_argument("--quick", action="store_true", help="a smoke run (one second each)")
    ap.add_argument("--partitions", type=int, nargs="*", default=[1, 10, 100],
                    help="partitions per object of the commit runs (finds run with 10)")
    args = ap.parse_args()
    if args.quick:
        args.seconds = 1.0
    with tempfile.TemporaryDirectory() as tmp:
        print(f"{args.clients} connections, {args.seconds:.0f} s each run")
        for partitions in args.partitions:
            bench_commits(partitions, args, Path(tmp))


if __name__ == "__main__":
    main()
