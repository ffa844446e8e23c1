"""How many requests one diskless batch coordinator sustains (the design's test plan asks it):
commits per second with 1, 10 and 100 partitions per object, and finds per second, with the
latency percentiles, next to the floors of its store and its log.

  python bench/batch_coordinator.py [--seconds S] [--clients C] [--partitions P ...] [--quick]

- **coordinator**: ``kafka-meta-proto batch-coordinator`` in a process of its own on loopback;
  C connections commit (one object a request, one batch per partition) or find (one partition,
  a random offset, 1 MiB as a consumer's default fetch asks) back to back for S seconds;
  latencies are measured by the callers. Batches are 16 KiB (a producer's default batch.size).
  The callers send requests encoded before the clock starts (a copy with its correlation id and
  object key patched in), so on a machine they share with the coordinator they take little of
  it; every answer's correlation id is checked and one in CHECK_EVERY decoded for its errors.
- **ceiling**: the same command answering FindCoordinator from memory: the server framework,
  connections and callers alone, the most any request can reach.
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
import struct
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kafka_meta_proto import DISKLESS_REGISTRY, protocol
from kafka_meta_proto.message import Message
from kafka_meta_proto.server import event_loop
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


FIND_COORDINATOR = 10
KEY_WIDTH = 12  # object keys "o-0000000001": one width, so a request's bytes are patched in place
TEMPLATES = 256  # requests encoded before the clock starts (random partitions, offsets), sent in turn
CHECK_EVERY = 16  # one answer in this many is decoded and its error codes checked


def object_key(n: int) -> str:
    return f"o-{n:0{KEY_WIDTH - 2}d}"


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


class Requests:
    """Requests encoded before the clock starts: a send patches the correlation id (and a
    commit's object key, unique a request) into a copy of one of them, so the callers (on the
    same cores as the coordinator) spend little of the machine. The coordinator sees exactly the
    bytes a client of the generated classes would send."""

    CORRELATION_AT = 8  # size (4), api key (2), api version (2)

    def __init__(self, make: Callable[[], Message], keyed: bool, version: int = 0):
        placeholder = object_key(0).encode()
        made = [make() for _ in range(TEMPLATES)]
        self.api_key, self.version = made[0].API_KEY, version
        self.templates = [protocol.encode_request(m, version, 0, "bench", registry=DISKLESS_REGISTRY) for m in made]
        self.placeholder = placeholder if keyed else None
        self.count = 0

    def next(self) -> tuple[int, bytearray]:
        """(correlation id, the request's bytes)."""
        n = self.count = self.count + 1
        data = self.templates[n % TEMPLATES]
        if self.placeholder is not None:
            data = data.replace(self.placeholder, object_key(n).encode())
        out = bytearray(data)
        struct.pack_into(">i", out, self.CORRELATION_AT, n)
        return n, out


def answer_errors(requests: Requests, payload: bytes) -> list[int]:
    """The error codes of one answer (its frame without the size), decoded whole."""
    body: Any = protocol.decode_response(payload, requests.api_key, requests.version, size_prefix=False,
                                         registry=DISKLESS_REGISTRY).body  # fmt: skip
    if requests.api_key == FIND_COORDINATOR:
        return [c.error_code for c in body.coordinators]
    return [p.error_code for t in getattr(body, "topics", None) or body.responses for p in t.partitions]


async def drive(host: str, port: int, clients: int, seconds: float, requests: Requests) -> tuple[int, list[float]]:
    """``requests`` sent back to back on ``clients`` connections for ``seconds``, one in flight
    on each; every answer's correlation id is checked, one in CHECK_EVERY decoded, and an answer
    with an error stops the run (a bench that measures refusals measures nothing)."""
    latencies: list[float] = []
    end = time.perf_counter() + seconds

    async def one() -> None:
        reader, writer = await asyncio.open_connection(host, port)
        try:
            while time.perf_counter() < end:
                correlation_id, data = requests.next()
                start = time.perf_counter()
                writer.write(data)
                size = int.from_bytes(await reader.readexactly(4), "big")
                payload = await reader.readexactly(size)
                latencies.append(time.perf_counter() - start)
                if int.from_bytes(payload[:4], "big") != correlation_id:
                    raise RuntimeError(f"answer to {correlation_id} expected, got {payload[:4].hex()}")
                if correlation_id % CHECK_EVERY == 0 and any(answer_errors(requests, payload)):
                    raise RuntimeError(f"request {correlation_id} refused: {answer_errors(requests, payload)}")
        finally:
            writer.close()

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
        commits = Requests(lambda: commit_request(object_key(0), partitions), keyed=True)
        count, latencies = event_loop.run(drive(host, port, args.clients, args.seconds, commits))
        commit_cpu = (process_cpu(proc.pid) - cpu) / count
        find_offsets = count // 10  # the first tenth of a partition's offsets (about count each)
        if partitions == 10:
            cpu = process_cpu(proc.pid)
            finds_made = Requests(lambda: find_request(find_offsets), keyed=False)
            found, find_latencies = event_loop.run(drive(host, port, args.clients, args.seconds, finds_made))
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


def bench_ceiling(args: argparse.Namespace, tmp: Path) -> None:
    """The server alone: FindCoordinator (v7, a ``read:`` batch key) answered from memory by the
    same command, through the same server framework, connections and driver. No request that
    reaches the coordinator's state can go faster; a floor above twice this rate cannot be met
    by halves, whatever the coordinator does."""
    proc, host, port = start_coordinator(tmp / "ceiling")
    key = f"read:{TOPIC}:0"
    requests = Requests(lambda: M("FindCoordinatorRequest")(key_type=3, coordinator_keys=[key]), False, 7)
    try:
        cpu = process_cpu(proc.pid)
        count, latencies = event_loop.run(drive(host, port, args.clients, args.seconds, requests))
        cpu_each = (process_cpu(proc.pid) - cpu) / count
    finally:
        proc.terminate()
        proc.wait()
    print(f"ceiling: FindCoordinator from memory: {count / args.seconds:6.0f} requests/s, {percentiles(latencies)}; "
          f"CPU a request {cpu_each * 1e3:.2f} ms")  # fmt: skip


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
        print(f"{args.clients} connections, {args.seconds:.0f} s each run, the coordinator and the callers on {event_loop.loop_name()}")
        bench_ceiling(args, Path(tmp))
        for partitions in args.partitions:
            bench_commits(partitions, args, Path(tmp))


if __name__ == "__main__":
    main()
