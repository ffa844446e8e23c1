"""How many requests one diskless batch coordinator sustains (the design's test plan asks it):
commits per second with 1, 10 and 100 partitions per object, and finds per second, with the
latency percentiles, next to the floors of its store and its log.

  python bench/batch_coordinator.py [--seconds S] [--clients C] [--partitions P ...] [--quick]

- **coordinator**: ``kafka-meta-proto batch-coordinator`` in a process of its own on loopback;
  C connections commit (one object a request, one batch per partition) or find (one partition,
  a random offset, 1 MiB as a consumer's default fetch asks) back to back for S seconds;
  latencies are measured by the callers. Batches are 16 KiB (a producer's default batch.size).
- **SQLite floor**: the coordinator's log replayed into a fresh ``Store``, one transaction a log
  batch (a log batch is one group commit), the same pragmas: the same state changes with the
  same durability. Finds: the find's two statements, rows read until 1 MiB.
- **append floor**: the same log batches appended to a fresh log, each fsynced: the topic
  append alone.

The coordinator must do both, so its aim is half of the slower floor or better (requests a wall
second). On a shared machine wall rates move with the load, so each line also gives CPU time a
request, the coordinator's process (every thread) against the floors' (store and log added):
the share of its work that is the store's and the log's, which the load moves much less.
"""


from __future__ import annotations

import argparse
import asyncio
import os
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
from kafka_meta_proto.diskless.types import CreateTopicAndPartitionsRequest
from kafka_meta_proto.diskless.store import FOUND_SIZE, FOUND_WIRE_COLUMNS, LogPosition, Store, found_sql
from kafka_meta_proto.diskless_messages.diskless_commit_record import DisklessCommitRecord
from kafka_meta_proto.diskless.topic_log import LogAppender, LogTail, partition_dir
from kafka_meta_proto.uuid import Uuid

M = DISKLESS_REGISTRY.message_class
TOPIC = Uuid(bytes(range(1, 17)))
PARTITIONS = 100
BATCH_BYTES = 16384  # a batch of a producer's default batch.size: a 1 MiB find gives 64 of them
FIND_BYTES = 1 << 20  # a consumer's default fetch.max.bytes
# the statement a find over the wire sends for a partition's batches (Store.found_rows_from)
FIND_SQL = found_sql(FOUND_WIRE_COLUMNS)


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
        if found and row[FOUND_SIZE] > room:
            break
        found += 1
        room -= row[FOUND_SIZE]
    return found


class Clocks:
    """Wall time and this process's CPU time (user and system) since it was made."""

    def __init__(self) -> None:
        self.wall, self.cpu = time.perf_counter(), time.process_time()

    def rates(self, count: int) -> tuple[float, float]:
        """(``count`` a wall second, CPU seconds one of ``count`` took)."""
        wall, cpu = time.perf_counter() - self.wall, time.process_time() - self.cpu
        return count / wall, cpu / count


def process_cpu(pid: int) -> float:
    """CPU seconds (user and system, all threads) a process has used, from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def replay(store: Store, groups: list[tuple[list[Message], LogPosition]]) -> None:
    """Apply each log batch's records in a transaction of its own, as the coordinator did."""
    for records, position in groups:
        store.begin()
        for record in records:
            store.apply(record)
        store.commit(position)


def floors(data: Path, work: Path, find_offsets: int) -> dict[str, tuple[float, float]]:
    """For the commit requests in ``data``: (requests a wall second, CPU seconds a request) of
    the SQLite floor ("sqlite"), the append floor ("append") and the find floor ("find").

    The floors replay the coordinator's own log batch by batch: a batch holds the records of one
    group commit, so each is one SQLite transaction (committed with the log position, as the
    coordinator does) and one fsynced append: the grouping and durability the coordinator had,
    no more, no less. A request is a commit record. The find floor runs the find's statements
    for requests drawn as the coordinator's were."""
    groups = list(LogTail(partition_dir(data, 0), LogPosition()).records(DISKLESS_REGISTRY))
    setup = [g for g in groups if not isinstance(g[0][0], DisklessCommitRecord)]
    groups = [g for g in groups if isinstance(g[0][0], DisklessCommitRecord)]
    requests = sum(len(records) for records, _ in groups)
    store = Store(work / "floor.sqlite")
    replay(store, setup)  # the topic, outside the timing
    found: dict[str, tuple[float, float]] = {}
    clocks = Clocks()
    replay(store, groups)
    found["sqlite"] = clocks.rates(requests)
    (work / "log").mkdir()
    appender = LogAppender(work / "log", LogPosition())
    clocks = Clocks()
    for records, _ in groups:
        appender.append(records, 0)
    found["append"] = clocks.rates(requests)
    n, clocks = 2000, Clocks()
    for _ in range(n):
        sql_find(store, random.randrange(PARTITIONS), random.randrange(max(find_offsets, 1)), FIND_BYTES)
    found["find"] = clocks.rates(n)
    store.close()
    appender.close()
    return found


def verdict(ratio: float) -> str:
    return f"{ratio:.2f} ({'met' if ratio >= 0.5 else 'not met'})"


def bench_commits(partitions: int, args: argparse.Namespace, tmp: Path) -> None:
    data = tmp / f"coordinator-{partitions}"
    with BatchCoordinator(data) as c:
        c.create_topic_and_partitions([CreateTopicAndPartitionsRequest(TOPIC, "bench", PARTITIONS)])
    proc, host, port = start_coordinator(data)
    find_offsets, finds = 0, None
    try:
        cpu = process_cpu(proc.pid)
        count, latencies = asyncio.run(drive(host, port, args.clients, args.seconds,
                                             lambda n: commit_request(f"o-{n}", partitions)))  # fmt: skip
        commit_cpu = (process_cpu(proc.pid) - cpu) / count
        find_offsets = count // 10  # the first tenth of a partition's offsets (about count each)
        if partitions == 10:
            cpu = process_cpu(proc.pid)
            found, find_latencies = asyncio.run(drive(host, port, args.clients, args.seconds,
                                                      lambda n: find_request(find_offsets)))  # fmt: skip
            finds = (found, find_latencies, (process_cpu(proc.pid) - cpu) / found)
    finally:
        proc.terminate()
        proc.wait()
    rate = count / args.seconds
    work = tmp / f"floor-{partitions}"
    work.mkdir()
    floor = floors(data, work, find_offsets)
    (applies, apply_cpu), (appends, append_cpu) = floor["sqlite"], floor["append"]
    slower = min(applies, appends)
    print(f"commits, {partitions:3d} partitions an object: {rate:6.0f} requests/s ({rate * partitions:6.0f} batches/s), "
          f"{percentiles(latencies)}; floors: SQLite {applies:.0f}/s, append {appends:.0f}/s; "
          f"of the slower floor {verdict(rate / slower)}; CPU a request {commit_cpu * 1e3:.2f} ms, "
          f"floors' {(apply_cpu + append_cpu) * 1e3:.2f} ms: {verdict((apply_cpu + append_cpu) / commit_cpu)}")  # fmt: skip
    if finds is not None:
        frate = finds[0] / args.seconds
        sqlite_finds, find_cpu = floor["find"]
        print(f"finds, 1 partition:                 {frate:6.0f} requests/s, {percentiles(finds[1])}; "
              f"floor: SQLite statements {sqlite_finds:.0f}/s; {verdict(frate / sqlite_finds)}; "
              f"CPU a request {finds[2] * 1e3:.2f} ms, floor's {find_cpu * 1e3:.2f} ms: {verdict(find_cpu / finds[2])}")  # fmt: skip


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
