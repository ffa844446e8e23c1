"""The package's fake Kafka cluster (``kafka_meta_proto.testing``) next to franz-go's kfake and a
real Kafka cluster: how soon it serves, and how many records confluent-kafka moves through it.

  python bench/fake_cluster.py [--records N] [--rounds R] [--brokers B] [--cpu-time]
  python bench/fake_cluster.py --quick          # a smoke run: 20,000 records, one round
  python bench/fake_cluster.py --json out.json  # the samples and figures, as JSON too

Peers, each in every round, in rotated order (tables: the median round; ratios: the median of
the per-round ratios):

- ours, fresh process: ``FakeCluster`` in a Python process of its own (this script with
  ``--serve``, as ``kafka-meta-proto fake-cluster`` runs it), interpreter start and imports
  included; ours, in-process: ``RunningCluster`` on a thread of this process, imported before
  the clock (a test session pays that once);
- kfake: franz-go's ``pkg/kfake`` in a small Go program (bench/kfake/), built in the set-up into
  bench/.cache/; it keeps its logs in memory (its default), ours writes real log segments;
- Kafka: tools/kafka_cluster.py's controller and brokers, one JVM each, from Kafka's jars.

Start-up: from launching the cluster until a Metadata request (the package's client, retried every
20 ms) lists all B brokers (3 by default). Kafka's nodes run with the tests' JVM options (first
JIT tier, to start fast); its time without the storage tool's formatting (five JVM runs) is
shown too.

Throughput: a cluster of one broker of each peer (Kafka's JVM with the full JIT and a gigabyte of
heap), started once and warmed by an untimed round. Each round creates a topic of one partition;
confluent-kafka produces N records of 100-byte values, idempotent, acks=all (from the first
``produce`` to the end of ``flush``), then a consumer assigned to the partition from the
beginning reads them all back (from the warm-up record at offset 0 to the last; the wait for
that first record, the consumer's own start, is shown apart). CPU time is the cluster
processes' (/proc) over each phase: on a shared machine, where the wall clock also counts
waiting for a core, it is the steadier figure, and ``--cpu-time`` judges the aim by it. The
in-process cluster shares this process with the client: it has no CPU figure of its own.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
KFAKE_SOURCE = ROOT / "bench" / "kfake"
CACHE = ROOT / "bench" / ".cache"
TICKS = os.sysconf("SC_CLK_TCK")
KAFKA_THROUGHPUT_JVM = ("-Xmx1g", "-Xms256m", "-Djava.awt.headless=true")
READY_TIMEOUT = 300.0  # seconds a cluster may take to serve on a loaded machine
VALUE_SIZE = 100
OURS, OURS_THREAD = "ours, fresh process", "ours, in-process"
KFAKE_AIM = 0.5  # ours at least half of kfake's records per second
PEERS = ("ours", "kfake", "Kafka")
sys.path.insert(0, str(ROOT / "tools"))  # kafka_cluster, kafka_oracle


def serve(brokers: int, profile: Path | None) -> int:
    """Run a FakeCluster, print its bootstrap servers, serve until stdin closes or SIGTERM;
    with ``profile``, what it does once serving is profiled (cProfile) into that file."""
    import cProfile
    import signal

    from kafka_meta_proto.testing.cluster import FakeCluster

    profiler = cProfile.Profile(time.process_time)  # CPU: the machine may be shared

    async def run() -> None:
        done, loop = asyncio.Event(), asyncio.get_running_loop()
        loop.add_signal_handler(signal.SIGTERM, done.set)
        async with FakeCluster(brokers=brokers) as cluster:
            print(cluster.bootstrap, flush=True)
            threading.Thread(target=lambda: (sys.stdin.read(), loop.call_soon_threadsafe(done.set)),
                             daemon=True).start()  # fmt: skip
            if profile:
                profiler.enable()
            await done.wait()
            profiler.disable()

    asyncio.run(run())
    if profile:
        profiler.dump_stats(profile)
    return 0


def profile_producing(path: Path, records: int) -> None:
    """Profile a fresh-process cluster of one broker while confluent-kafka produces ``records``
    records into it (as a throughput round does), and print its top costs."""
    import pstats

    peer = LineServer(OURS, [sys.executable, __file__, "--profile", str(path), "--serve"])
    bootstrap = peer.start(1)
    try:
        metadata_lists(bootstrap, 1)
        create_topic(bootstrap, "bench-profile")
        phase = produce(bootstrap, "bench-profile", records)
    finally:
        peer.stop()
    print(f"{records:,} records produced in {phase.wall:.2f} s; the cluster's top costs:")
    pstats.Stats(str(path)).sort_stats("tottime").print_stats(25)


def cpu_seconds(pids: list[int]) -> float:
    """User and system CPU seconds of running processes, their threads included."""
    total = 0
    for pid in pids:
        with open(f"/proc/{pid}/stat", encoding="ascii") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / TICKS


class Peer:
    name = ""
    version = ""  # what runs, for the report
    in_process = False
    format_seconds = format_cpu = 0.0  # Kafka's storage tool, run before its nodes start

    def start(self, brokers: int) -> str:
        """Launch the cluster and return its bootstrap servers (it may not serve yet)."""
        raise NotImplementedError

    def pids(self) -> list[int]:
        return []

    def cpu(self) -> float:
        """CPU seconds the cluster has used so far (this process's for an in-process one)."""
        return time.process_time() if self.in_process else cpu_seconds(self.pids())

    def stop(self) -> None:
        raise NotImplementedError


class LineServer(Peer):
    """A cluster in a child process, ``command`` and the number of brokers: it prints its
    bootstrap servers as its first line and serves until its standard input closes."""

    def __init__(self, name: str, command: list[str], version: str = ""):
        self.name, self.command, self.version = name, command, version

    def start(self, brokers: int) -> str:
        self.process = subprocess.Popen([*self.command, str(brokers)], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, text=True)  # fmt: skip
        line = self.process.stdout.readline().strip()
        if not line:
            raise RuntimeError(f"{self.name} exited before serving: {self.process.wait()}")
        return line

    def pids(self) -> list[int]:
        return [self.process.pid]

    def stop(self) -> None:
        self.process.stdin.close()
        self.process.wait(60)
        self.process.stdout.close()


class OursThread(Peer):
    name = OURS_THREAD
    in_process = True

    def start(self, brokers: int) -> str:
        from kafka_meta_proto.testing.threaded import RunningCluster

        self.cluster = RunningCluster(brokers=brokers).start()
        return self.cluster.bootstrap

    def stop(self) -> None:
        self.cluster.stop()


class Kafka(Peer):
    name = "Kafka"

    def __init__(self, release: str):
        self.release, self.version = release, f"Kafka {release}"
        self.jvm: tuple[str, ...] = ()  # none given: the tests' options

    def start(self, brokers: int) -> str:
        import kafka_cluster

        self.jvm = self.jvm or tuple(kafka_cluster.JAVA_OPTIONS)
        kafka_cluster.JAVA_OPTIONS = self.jvm
        self.workdir = tempfile.mkdtemp(prefix="bench-fake-kafka-")
        self.cluster = kafka_cluster.KafkaCluster(self.release, Path(self.workdir), brokers)
        began, cpu = time.perf_counter(), resource.getrusage(resource.RUSAGE_CHILDREN)
        self.cluster.format()  # the storage tool, one JVM run a node and one for the id
        self.format_seconds = time.perf_counter() - began
        used = resource.getrusage(resource.RUSAGE_CHILDREN)
        self.format_cpu = used.ru_utime + used.ru_stime - cpu.ru_utime - cpu.ru_stime
        for node in self.cluster.nodes:
            self.cluster.start_node(node.node_id)
        return ",".join(f"{host}:{port}" for host, port in self.cluster.bootstrap)

    def pids(self) -> list[int]:
        return [node.process.pid for node in self.cluster.nodes if node.process is not None]

    def stop(self) -> None:
        self.cluster.stop()
        shutil.rmtree(self.workdir, ignore_errors=True)


def build_kfake() -> Path | str:
    """The kfake program, built once per source (bench/.cache/), or why it cannot be."""
    go = shutil.which("go")
    if go is None:
        return "Go is not installed (bench/kfake needs Go 1.26 or newer): kfake left out"
    digest = hashlib.sha256()
    for name in ("go.mod", "go.sum", "main.go"):
        digest.update((KFAKE_SOURCE / name).read_bytes())
    binary = CACHE / f"kfake-{digest.hexdigest()[:12]}"
    if not binary.exists():
        print(f"building {binary.relative_to(ROOT)} (go build, modules from the proxy)",
              file=sys.stderr)  # fmt: skip
        CACHE.mkdir(exist_ok=True)
        command = [go, "build", "-buildvcs=false", "-o", str(binary), "."]
        built = subprocess.run(command, cwd=KFAKE_SOURCE, capture_output=True, text=True,
                               check=False)  # fmt: skip
        if built.returncode != 0:
            return f"go build of bench/kfake failed: kfake left out\n{built.stderr}"
    return binary


def peers(only: list[str]) -> list[Peer]:
    """The peers asked for that can run here (a note on standard error for each left out)."""
    import kafka_oracle

    found: list[Peer] = []
    if "ours" in only:
        found += [LineServer(OURS, [sys.executable, __file__, "--serve"]), OursThread()]
    kfake = build_kfake() if "kfake" in only else None
    if isinstance(kfake, Path):
        requires = (KFAKE_SOURCE / "go.mod").read_text(encoding="utf-8").split()
        version = requires[requires.index("github.com/twmb/franz-go/pkg/kfake") + 1]
        found.append(LineServer("kfake", [str(kfake), "-brokers"], f"kfake {version}"))
    elif kfake:
        print(kfake, file=sys.stderr)
    release = kafka_oracle.releases()[-1]
    if "Kafka" in only and kafka_oracle.missing(release):
        print(f"Kafka cannot run here ({kafka_oracle.missing(release)}): Kafka left out",
              file=sys.stderr)  # fmt: skip
    elif "Kafka" in only:
        found.append(Kafka(release))
    return found


def metadata_lists(bootstrap: str, brokers: int, timeout: float = READY_TIMEOUT) -> None:
    """Until a Metadata request to the first broker lists ``brokers`` brokers."""
    from kafka_cluster import broker_ids

    from kafka_meta_proto.client import sync
    from kafka_meta_proto.net.errors import NetworkError

    host, port = bootstrap.split(",")[0].rsplit(":", 1)
    deadline = time.perf_counter() + timeout
    while time.perf_counter() < deadline:
        try:
            with sync.connect(host, int(port), timeout=5) as conn:
                if len(broker_ids(conn)) >= brokers:
                    return
        except (OSError, NetworkError):  # not listening yet
            pass
        time.sleep(0.02)
    raise TimeoutError(f"{bootstrap} did not list {brokers} brokers within {timeout} s")


def rotated(found: list[Peer], round_: int) -> list[Peer]:
    """The peers in the order of a round: each goes first in turn."""
    return found[round_ % len(found) :] + found[: round_ % len(found)]


@dataclass
class Startup:
    wall: float  # seconds from launch to a Metadata answer listing every broker
    cpu: float  # the cluster's CPU seconds by then
    format_wall: float = 0.0  # Kafka: its storage tool, before the nodes start


def time_startup(peer: Peer, brokers: int) -> Startup:
    cpu = peer.cpu() if peer.in_process else 0.0
    began = time.perf_counter()
    bootstrap = peer.start(brokers)
    try:
        metadata_lists(bootstrap, brokers)
        wall = time.perf_counter() - began
        used = peer.cpu() - cpu
    finally:
        peer.stop()
    return Startup(wall, used + peer.format_cpu, peer.format_seconds)


def startup_rounds(found: list[Peer], brokers: int, rounds: int) -> dict[str, list[Startup]]:
    samples: dict[str, list[Startup]] = {peer.name: [] for peer in found}
    for round_ in range(rounds):
        for peer in rotated(found, round_):
            sample = time_startup(peer, brokers)
            samples[peer.name].append(sample)
            print(f"  start-up round {round_ + 1} {peer.name}: {sample.wall:.2f} s",
                  file=sys.stderr)  # fmt: skip
    return samples


def create_topic(bootstrap: str, topic: str) -> None:
    """A topic of one partition (replication factor 1), once its leader is known."""
    from confluent_kafka.admin import AdminClient, NewTopic

    admin = AdminClient({"bootstrap.servers": bootstrap, **CLIENT})
    admin.create_topics([NewTopic(topic, 1, 1)])[topic].result(60)
    deadline = time.perf_counter() + 60
    while time.perf_counter() < deadline:
        partitions = admin.list_topics(topic, timeout=10).topics[topic].partitions
        if partitions and partitions[0].leader >= 0:
            return
        time.sleep(0.05)
    raise RuntimeError(f"topic {topic} has no leader")


@dataclass
class Phase:
    wall: float  # seconds the records took
    cpu: float  # the cluster's CPU seconds over the whole phase
    records: int  # records the wall time covers
    first: float = 0.0  # consuming: seconds from ``assign`` to the first record


CLIENT = {"enable.metrics.push": False}  # no telemetry requests: not what is measured
PRODUCER = {"enable.idempotence": True, "acks": "all", "linger.ms": 5}


def produce(bootstrap: str, topic: str, records: int) -> Phase:
    """Seconds to produce ``records`` values and see them all acknowledged."""
    from confluent_kafka import Producer

    producer = Producer({"bootstrap.servers": bootstrap, **PRODUCER, **CLIENT,
                         "queue.buffering.max.messages": records + 1000,
                         "queue.buffering.max.kbytes": 1 << 21})  # fmt: skip
    failed: list[object] = []

    def delivered(error: object, message: object) -> None:
        if error is not None:
            failed.append(error)

    producer.produce(topic, b"warm", partition=0)  # metadata and a producer id before the clock
    producer.flush(60)
    value = b"v" * VALUE_SIZE
    began = time.perf_counter()
    for _ in range(records):
        producer.produce(topic, value, partition=0, on_delivery=delivered)
    producer.flush(600)
    elapsed = time.perf_counter() - began
    if failed or len(producer):
        raise RuntimeError(f"{len(failed)} records failed, {len(producer)} unsent: {failed[:3]}")
    return Phase(elapsed, 0.0, records)


def consume(bootstrap: str, topic: str, records: int) -> Phase:
    """Read the partition from the beginning, checking each offset and value. The clock starts
    once the warm-up record (offset 0) is read (``first``: how long that took, the consumer's
    own start) and runs to the last of ``records`` values after it."""
    from confluent_kafka import OFFSET_BEGINNING, Consumer, TopicPartition

    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": "bench-fake-cluster",
                         "enable.auto.commit": False, **CLIENT})  # fmt: skip
    try:
        assigned, expected, began = time.perf_counter(), 0, 0.0
        consumer.assign([TopicPartition(topic, 0, OFFSET_BEGINNING)])
        while expected <= records and time.perf_counter() < assigned + 600:
            # the warm-up record alone first, then no more than are left (consume() waits for
            # as many as it is asked for)
            wanted = min(10_000, records + 1 - expected) if began else 1
            for message in consumer.consume(wanted, timeout=1.0):
                if message.error() is not None:
                    raise RuntimeError(f"consuming {topic}: {message.error()}")
                size = len(message.value()) if expected else VALUE_SIZE  # offset 0: "warm"
                if message.offset() != expected or size != VALUE_SIZE:
                    raise RuntimeError(f"{topic}: offset {message.offset()}, {expected} expected")
                expected += 1
            began = began or (time.perf_counter() if expected else 0.0)
        if expected <= records:
            raise TimeoutError(f"{topic}: {expected} of {records + 1} records read")
        return Phase(time.perf_counter() - began, 0.0, records, began - assigned)
    finally:
        consumer.close()


@dataclass
class Moved:
    produce: Phase
    consume: Phase


def move_records(peer: Peer, bootstrap: str, topic: str, records: int) -> Moved:
    create_topic(bootstrap, topic)
    phases = []
    for work in (produce, consume):
        cpu = peer.cpu()
        phases.append(work(bootstrap, topic, records))
        phases[-1].cpu = peer.cpu() - cpu
    return Moved(*phases)


def throughput_rounds(found: list[Peer], records: int, rounds: int) -> dict[str, list[Moved]]:
    """Every peer's cluster of one broker started once; each round moves ``records`` through
    every one in rotated order, after an untimed round (JIT, imports, first segments)."""
    bootstraps: dict[str, str] = {}
    try:
        for peer in found:
            bootstraps[peer.name] = peer.start(1)
            metadata_lists(bootstraps[peer.name], 1)
            move_records(peer, bootstraps[peer.name], "bench-warm", max(1000, records // 10))
        samples: dict[str, list[Moved]] = {peer.name: [] for peer in found}
        for round_ in range(rounds):
            for peer in rotated(found, round_):
                moved = move_records(peer, bootstraps[peer.name], f"bench-{round_}", records)
                samples[peer.name].append(moved)
                print(f"  throughput round {round_ + 1} {peer.name}: produce "
                      f"{moved.produce.wall:.2f} s, consume {moved.consume.wall:.2f} s",
                      file=sys.stderr)  # fmt: skip
        return samples
    finally:
        for peer in found:
            if peer.name in bootstraps:
                peer.stop()


def startup_table(samples: dict[str, list[Startup]]) -> list[str]:
    lines = ["| cluster | ready (median) | fastest | cluster CPU (median) |",
             "|---|---:|---:|---:|"]  # fmt: skip
    for name, runs in samples.items():
        wall = statistics.median(s.wall for s in runs)
        cpu = statistics.median(s.cpu for s in runs)
        lines.append(f"| {name} | {wall:.2f} s | {min(s.wall for s in runs):.2f} s "
                     f"| {cpu:.2f} s |")  # fmt: skip
        if name == "Kafka":  # its nodes only, after the storage tool formatted their directories
            nodes = [s.wall - s.format_wall for s in runs]
            lines.append(f"| Kafka, nodes only | {statistics.median(nodes):.2f} s "
                         f"| {min(nodes):.2f} s | - |")  # fmt: skip
    return lines


def startup_verdicts(samples: dict[str, list[Startup]]) -> list[str]:
    out = []
    for name in (OURS, OURS_THREAD):
        if name in samples:
            wall = statistics.median(s.wall for s in samples[name])
            out.append(f"- {name} ready in under a second: {wall:.2f} s, "
                       f"{'met' if wall < 1 else 'not met'}")  # fmt: skip
            for peer in ("kfake", "Kafka"):
                if peer in samples:
                    pairs = zip(samples[name], samples[peer])
                    times = statistics.median(m.wall / t.wall for m, t in pairs)
                    out.append(f"  - its time over {peer}'s: {times:.3g}x")
    return out


def per_second(phase: Phase, records: int, cpu: bool = False) -> float:
    """Records a second of wall time, or records of the round a second of the cluster's CPU."""
    return records / max(phase.cpu, 1 / TICKS) if cpu else phase.records / phase.wall


def rate(phases: list[Phase], records: int, cpu: bool = False) -> float:
    return statistics.median(per_second(p, records, cpu) for p in phases)


def throughput_table(samples: dict[str, list[Moved]], records: int) -> list[str]:
    lines = [("| cluster | produce, records/s | consume, records/s | consumer's first record "
              "after | produce, records a cluster CPU-second | consume, records a cluster "
              "CPU-second |"), "|---|---:|---:|---:|---:|---:|"]  # fmt: skip
    for name, runs in samples.items():
        produced, consumed = [m.produce for m in runs], [m.consume for m in runs]
        cpu = (f"{rate(produced, records, True):,.0f} | {rate(consumed, records, True):,.0f}"
               if name != OURS_THREAD else "- | -")  # fmt: skip
        first = statistics.median(p.first for p in consumed)
        lines.append(f"| {name} | {rate(produced, records):,.0f} | {rate(consumed, records):,.0f} "
                     f"| {first:.2f} s | {cpu} |")  # fmt: skip
    return lines


def ratio(mine: list[Phase], theirs: list[Phase], records: int, cpu: bool = False) -> float:
    """Our records per second over theirs: the median of the per-round ratios."""
    return statistics.median(per_second(m, records, cpu) / per_second(t, records, cpu)
                             for m, t in zip(mine, theirs))  # fmt: skip


def throughput_ratios(samples: dict[str, list[Moved]], records: int) -> dict[str, float]:
    """ours / peer, each phase, by wall time and (fresh process only) by CPU time."""
    found = {}
    for ours in (OURS, OURS_THREAD):
        for peer in ("kfake", "Kafka"):
            if ours not in samples or peer not in samples:
                continue
            for phase in ("produce", "consume"):
                mine = [getattr(m, phase) for m in samples[ours]]
                theirs = [getattr(m, phase) for m in samples[peer]]
                found[f"{ours} / {peer}, {phase}"] = ratio(mine, theirs, records)
                if ours == OURS:
                    found[f"{ours} / {peer}, {phase}, CPU"] = ratio(mine, theirs, records, True)
    return found


def throughput_verdicts(ratios: dict[str, float], by_cpu: bool) -> list[str]:
    out = [f"- {name}: {value:.2f}" for name, value in ratios.items()]
    for phase in ("produce", "consume"):
        key = f"{OURS} / kfake, {phase}{', CPU' if by_cpu else ''}"
        if key in ratios:
            met = "met" if ratios[key] >= KFAKE_AIM else "not met"
            out.append(f"- aim, at least {KFAKE_AIM} of kfake ({phase}, "
                       f"{'CPU' if by_cpu else 'wall'}): {ratios[key]:.2f}, {met}")  # fmt: skip
    return out


def machine() -> dict[str, object]:
    with open("/proc/loadavg", encoding="ascii") as f:
        load = f.read().split()[:3]
    return {"cores": os.cpu_count(), "load average (1, 5, 15 min)": load,
            "time": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())}  # fmt: skip


def versions(found: list[Peer]) -> str:
    import confluent_kafka

    import kafka_meta_proto

    ours = f"kafka_meta_proto {kafka_meta_proto.__version__}"
    librdkafka = confluent_kafka.libversion()[0]
    client = f"confluent-kafka {confluent_kafka.__version__} (librdkafka {librdkafka})"
    return ", ".join([ours, client, *(peer.version for peer in found if peer.version)])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--records", type=int, default=200_000, help="records a throughput round")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--brokers", type=int, default=3, help="brokers of the start-up clusters")
    ap.add_argument("--part", choices=("all", "startup", "throughput"), default="all")
    ap.add_argument("--only", nargs="+", choices=PEERS, default=PEERS, help="these peers")
    ap.add_argument("--cpu-time", action="store_true", help="rank by the clusters' CPU time")
    ap.add_argument("--quick", action="store_true", help="a smoke run: 20,000 records, 1 round")
    ap.add_argument("--json", type=Path, help="write the samples and figures here too")
    ap.add_argument("--profile", type=Path, help="only profile ours while producing, into this")
    ap.add_argument("--serve", type=int, metavar="BROKERS", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    records, rounds = (20_000, 1) if args.quick else (args.records, args.rounds)
    if args.serve:
        return serve(args.serve, args.profile)
    if args.profile:
        profile_producing(args.profile, records)
        return 0
    found = peers(args.only)
    result: dict[str, object] = {"machine before": machine(), "versions": versions(found)}
    print(f"- {result['versions']}")
    if args.part in ("all", "startup"):
        result.update(startup_part(found, args.brokers, rounds))
    if args.part in ("all", "throughput"):
        result.update(throughput_part(found, records, rounds, args.cpu_time))
    result["machine after"] = machine()
    print(f"- load average before {result['machine before']['load average (1, 5, 15 min)']}, "
          f"after {result['machine after']['load average (1, 5, 15 min)']}, "
          f"{os.cpu_count()} cores")  # fmt: skip
    if args.json:
        args.json.write_text(json.dumps(result, indent=2, default=asdict) + "\n", encoding="utf-8")
    return 0


def startup_part(found: list[Peer], brokers: int, rounds: int) -> dict[str, object]:
    for peer in found:
        if peer.in_process:  # its imports and first-use costs, once, before any clock
            time_startup(peer, brokers)
    samples = startup_rounds(found, brokers, rounds)
    print(f"\nStart-up: {brokers} brokers, until a Metadata request lists them all; "
          f"{rounds} rounds")  # fmt: skip
    print("\n".join(startup_table(samples)))
    verdicts = startup_verdicts(samples)
    print("\n".join(verdicts))
    return {"startup": samples, "startup verdicts": verdicts}


def throughput_part(found: list[Peer], records: int, rounds: int, by_cpu: bool) -> dict:
    for peer in found:
        if isinstance(peer, Kafka):
            peer.jvm = KAFKA_THROUGHPUT_JVM
    samples = throughput_rounds(found, records, rounds)
    print(f"\nThroughput: {records:,} records of {VALUE_SIZE} bytes, one partition, one broker, "
          f"producer {PRODUCER}; {rounds} rounds (median)")  # fmt: skip
    print("\n".join(throughput_table(samples, records)))
    ratios = throughput_ratios(samples, records)
    verdicts = throughput_verdicts(ratios, by_cpu)
    print("\n".join(verdicts))
    return {"records": records, "throughput": samples, "ratios": ratios,
            "throughput verdicts": verdicts}  # fmt: skip


if __name__ == "__main__":
    sys.exit(main())
