"""Records/s of the Spark pipeline on local[2] against the same decoding in one plain Python process.

    .venv/bin/python bench/pipeline.py [--sizes 100000 1000000 10000000] [--data DIR]
    .venv/bin/python bench/pipeline.py --compare [--sizes 1000000]
    .venv/bin/python bench/pipeline.py --audit [--sizes 1000000]

The input for each size is simulator output (``kafka-meta-proto simulate``: 4 clusters sharing
N log records, seed 1; written once into --data and reused). Both sides do the same work: decode
every file (segments, snapshots, bootstrap) with the generated classes and write the ``records``
table as Parquet (zstd):

- single process: ``pipeline.decode.decode_units`` over every file (one RecordDecoder, as in a
  Spark task), ``pyarrow.parquet`` writing;
- Spark: the job's decode stage (``mapInArrow`` over a DataFrame of units, ``local[2]``): the
  workers decode and write every table (pipeline/sink.py: records, typed tables, batches,
  quarantine) and hand the JVM a summary; the session and its two Python workers are started
  before the clock starts (that start-up time is shown apart). So the Spark side does more
  than the single process, which writes ``records`` only.

Each measurement runs in a fresh process, so no cache of decoded values carries over. Peak memory
is the peak resident set of the process (single) or of the whole process tree, JVM and Python
workers included, sampled every 0.2 s (Spark). ``--compare`` times the four ways of running the
decoder in Spark (pipeline/strategies.py) with a no-op sink; ``--audit`` times the full
``kafka-meta-proto audit`` job (typed tables and audits included).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import resource
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_SIZES = (100_000, 1_000_000, 10_000_000)
CLUSTERS = 4
SEED = 1


def dataset(data: Path, records: int) -> Path:
    """Simulated logs with ``records`` log records over CLUSTERS clusters (written once)."""
    directory = data / f"sim-{records}"
    marker = directory / ".complete"
    if not marker.exists():
        from kafka_meta_proto import simulator

        started = time.perf_counter()
        simulator.simulate(directory, records=records // CLUSTERS, seed=SEED, clusters=CLUSTERS, jobs=min(CLUSTERS, os.cpu_count() or 1))
        marker.write_text(f"{time.perf_counter() - started:.1f}\n")
    return directory


def process_tree(root: int) -> list[dict]:
    """``root`` and all its descendants, each as {name, cpu (user + system seconds), rss (bytes)},
    from /proc (Linux)."""
    tick, page = os.sysconf("SC_CLK_TCK"), os.sysconf("SC_PAGE_SIZE")
    procs = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
            with open(f"/proc/{entry}/statm") as f:
                pages = int(f.read().split()[1])
        except OSError:
            continue
        fields = stat.rsplit(")", 1)[1].split()
        procs[int(entry)] = {"pid": int(entry), "ppid": int(fields[1]), "name": stat[stat.index("(") + 1 : stat.rindex(")")],
                             "cpu": (int(fields[11]) + int(fields[12])) / tick, "rss": pages * page}  # fmt: skip
    tree, frontier = {root}, [root]
    while frontier:
        parent = frontier.pop()
        for pid, proc in procs.items():
            if proc["ppid"] == parent and pid not in tree:
                tree.add(pid)
                frontier.append(pid)
    return [procs[pid] for pid in tree if pid in procs]


def _tree_rss(root: int) -> int:
    return sum(p["rss"] for p in process_tree(root))


def tree_cpu(root: int) -> dict:
    """CPU seconds used so far by ``root`` and its descendants, by program (``python``, ``java``)."""
    out: dict = {}
    for proc in process_tree(root):
        name = "java" if "java" in proc["name"] else "python"
        out[name] = out.get(name, 0.0) + proc["cpu"]
    return out


class PeakMemory:
    """Peak total RSS of this process and its descendants (JVM, Python workers), sampled in a thread."""

    def __init__(self, interval: float = 0.2):
        self.interval = interval
        self.peak = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _sample(self) -> int:
        return _tree_rss(os.getpid())

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            self.peak = max(self.peak, self._sample())

    def __enter__(self):
        self.peak = self._sample()
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, self._sample())


# --- the measured runs (each in its own process) ----------------------------------------------


def run_single(path: str, out: str) -> dict:
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    from kafka_meta_proto.pipeline.decode import ARROW_SCHEMA, RECORD, decode_units
    from kafka_meta_proto.pipeline.inputs import discover
    from kafka_meta_proto.pipeline.tables import RECORD_TABLE

    started = time.perf_counter()
    cpu = time.process_time()
    units = discover([path]).units()
    schema = pa.schema([ARROW_SCHEMA.field(n) for n in RECORD_TABLE])
    records = 0
    os.makedirs(out, exist_ok=True)
    gc.disable()  # as a Spark task decodes (sink.write_task): the rows hold no cycles
    with pq.ParquetWriter(os.path.join(out, "part-0.parquet"), schema, compression="zstd") as writer:
        for batch in decode_units(unit.row() for unit in units):  # one decoder, as in a task
            if batch.column(0)[0].as_py() != RECORD:
                continue
            table = pa.Table.from_batches([batch]).select(RECORD_TABLE)
            writer.write_table(table)
            records += batch.num_rows
    gc.enable()
    _ = pc  # imported for parity of start-up cost with the Spark worker
    seconds = time.perf_counter() - started
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    return {"records": records, "seconds": seconds, "cpu": time.process_time() - cpu, "peak_bytes": peak}


def _spark_session():
    from kafka_meta_proto.pipeline.spark import session

    started = time.perf_counter()
    conf = json.loads(os.environ.get("BENCH_SPARK_CONF", "{}"))  # else the job's own settings (pipeline/spark.py)
    spark = session(conf=conf)
    return spark, time.perf_counter() - started


def run_spark(path: str, out: str) -> dict:
    from kafka_meta_proto.pipeline.inputs import discover
    from kafka_meta_proto.pipeline.job import decoded_frame, fresh_directory

    begun = time.perf_counter()
    spark, _ = _spark_session()
    units = discover([path]).units()
    warm = [u for u in units if u.kind == "bootstrap"][:2] or units[:1]
    fresh_directory(spark, out)
    decoded, _ = decoded_frame(spark, warm, out)  # start the Python workers before the clock starts
    decoded.write.format("noop").mode("overwrite").save()
    startup = time.perf_counter() - begun
    runs = []
    for run in range(1 + int(os.environ.get("BENCH_WARM_RUNS", "0"))):
        with PeakMemory() as mem:
            cpu_before = tree_cpu(os.getpid())
            started = time.perf_counter()
            units = discover([path]).units()
            fresh_directory(spark, out)
            decoded, partitions = decoded_frame(spark, units, out)  # the workers write the records
            decoded.write.format("noop").mode("overwrite").save()  # the other rows: the job keeps them
            seconds = time.perf_counter() - started
            cpu_after = tree_cpu(os.getpid())
        cpu = {k: cpu_after.get(k, 0.0) - cpu_before.get(k, 0.0) for k in cpu_after}
        runs.append({"seconds": seconds, "peak_bytes": mem.peak, "cpu": cpu})
    records = spark.read.parquet(os.path.join(out, "records")).count()  # (the workers write every table)
    spark.stop()
    return {"records": records, "startup": startup, "partitions": partitions, "units": len(units), **runs[0],
            "warm": runs[1:]}  # fmt: skip


def run_compare(path: str, out: str) -> dict:
    from kafka_meta_proto.pipeline import strategies
    from kafka_meta_proto.pipeline.inputs import discover
    from kafka_meta_proto.pipeline.job import units_frame

    spark, startup = _spark_session()
    units = discover([path]).units(chunk_bytes=0)  # whole files, whatever their size
    frame, _ = units_frame(spark, units)
    strategies.map_in_arrow(frame).write.format("noop").mode("overwrite").save()  # start the Python workers
    results = {}
    for name, make in strategies.STRATEGIES.items():
        with PeakMemory() as mem:
            started = time.perf_counter()
            try:
                make(frame).write.format("noop").mode("overwrite").save()
                error = None
            except Exception as exc:  # a strategy that cannot hold the input is a result too
                error = f"{type(exc).__name__}: {str(exc).splitlines()[0][:160]}"
            seconds = time.perf_counter() - started
        results[name] = {"seconds": seconds, "peak_bytes": mem.peak, "error": error}
    spark.stop()
    return {"startup": startup, "strategies": results}


def run_audit_job(path: str, out: str) -> dict:
    from kafka_meta_proto.pipeline.job import run_audit

    spark, startup = _spark_session()
    with PeakMemory() as mem:
        report = run_audit([path], out, spark=spark, progress=False)
    spark.stop()
    return {"records": report.records_read, "seconds": report.seconds, "startup": startup, "peak_bytes": mem.peak,
            "phases": report.phases, "violations": report.violations, "balanced": report.balanced}  # fmt: skip


MODES = {"single": run_single, "spark": run_spark, "compare": run_compare, "audit": run_audit_job}


def child(mode: str, path: Path, out: Path) -> dict:
    run = subprocess.run([sys.executable, __file__, "--child", mode, str(path), str(out)], capture_output=True, text=True)
    if run.returncode != 0:
        raise RuntimeError(f"{mode} failed:\n{run.stderr[-3000:]}")
    return json.loads(run.stdout.strip().splitlines()[-1])


def mb(n: int) -> str:
    return f"{n / 2**20:,.0f} MiB"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=list(DEFAULT_SIZES))
    ap.add_argument("--data", type=Path, default=Path("/tmp/kafka-meta-proto-bench"))
    ap.add_argument("--compare", action="store_true", help="compare mapInArrow, arrow UDTF, mapPartitions, pandas UDF")
    ap.add_argument("--audit", action="store_true", help="time the whole audit job")
    ap.add_argument("--conf", action="append", default=[], metavar="KEY=VALUE", help="extra Spark setting (repeatable)")
    ap.add_argument("--warm", type=int, default=0, metavar="K",
                    help="run the Spark job K more times in the same JVM (JIT-compiled, caches warm) and show those too")  # fmt: skip
    ap.add_argument("--child", nargs=3, metavar=("MODE", "PATH", "OUT"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        mode, path, out = args.child
        print(json.dumps(MODES[mode](path, out)))
        return

    if args.conf:  # for the child processes
        os.environ["BENCH_SPARK_CONF"] = json.dumps(dict(c.split("=", 1) for c in args.conf))
    os.environ["BENCH_WARM_RUNS"] = str(args.warm)
    args.data.mkdir(parents=True, exist_ok=True)
    for size in args.sizes:
        path = dataset(args.data, size)
        files = [p for p in path.rglob("*") if p.suffix in (".log", ".checkpoint")]
        size_bytes = sum(p.stat().st_size for p in files)
        print(f"## {size:,} log records: {len(files)} files, {size_bytes / 1e6:.0f} MB ({path})", flush=True)
        out = args.data / f"out-{size}"
        if args.compare:
            r = child("compare", path, out)
            print(f"  Spark start-up {r['startup']:.1f} s")
            for name, s in r["strategies"].items():
                status = s["error"] or f"{size / s['seconds']:,.0f} records/s"
                print(f"  {name:18} {s['seconds']:8.1f} s  {status:>24}  peak {mb(s['peak_bytes'])}", flush=True)
            continue
        if args.audit:
            load_before = os.getloadavg()[0]
            r = child("audit", path, out)
            print(f"  audit job: {r['records']:,} records in {r['seconds']:.1f} s ({r['records'] / r['seconds']:,.0f} records/s), "
                  f"peak {mb(r['peak_bytes'])}, start-up {r['startup']:.1f} s, balanced {r['balanced']}, "
                  f"{r['violations']} violations; load average before {load_before:.1f}, after {os.getloadavg()[0]:.1f}")  # fmt: skip
            for name, sec in r["phases"]:
                print(f"    {name}: {sec:.1f} s")
            continue
        load_before = f"{os.getloadavg()[0]:.1f}"
        single = child("single", path, out / "single")
        spark = child("spark", path, out / "spark")
        assert single["records"] == spark["records"], (single["records"], spark["records"])
        n = single["records"]
        rs, rk = n / single["seconds"], n / spark["seconds"]
        print(f"  single process: {single['seconds']:8.1f} s  {rs:10,.0f} records/s  {1e6 / rs:6.1f} us/record  "
              f"peak {mb(single['peak_bytes'])}; CPU {single['cpu']:.1f} s")  # fmt: skip
        cpu = spark["cpu"]
        print(f"  Spark local[2]: {spark['seconds']:8.1f} s  {rk:10,.0f} records/s  {1e6 / rk:6.1f} us/record  "
              f"peak {mb(spark['peak_bytes'])} (JVM + workers; start-up {spark['startup']:.1f} s, "
              f"{spark['units']} units in {spark['partitions']} tasks); CPU {sum(cpu.values()):.1f} s "
              f"(Python {cpu.get('python', 0):.1f}, JVM {cpu.get('java', 0):.1f})")  # fmt: skip
        bound = single["cpu"] / (sum(cpu.values()) / 2)
        print(f"  speed-up: {rk / rs:.2f}x measured; {bound:.2f}x from CPU time (both cores to itself) "
              f"(load average before: {load_before}, after: {os.getloadavg()[0]:.1f})", flush=True)  # fmt: skip
        for warm in spark["warm"]:
            rw = n / warm["seconds"]
            cpu = warm["cpu"]
            print(f"  Spark, again in the same JVM: {warm['seconds']:.1f} s  {rw:10,.0f} records/s  {1e6 / rw:6.1f} us/record; "
                  f"CPU {sum(cpu.values()):.1f} s (Python {cpu.get('python', 0):.1f}, JVM {cpu.get('java', 0):.1f}); "
                  f"speed-up {rw / rs:.2f}x measured, {single['cpu'] / (sum(cpu.values()) / 2):.2f}x from CPU time",
                  flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
