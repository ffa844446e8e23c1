"""The audit job: list the input, decode it in the executors, write the tables, run the audits.

``run_audit(paths, out)`` does it all in one SparkSession and returns an ``AuditReport``:

1. the driver lists the files (names and sizes only) and cuts them into units (inputs.py);
2. a DataFrame of units, one partition per bin of about ``partition_bytes``, goes through
   ``mapInArrow``: each Python worker memory-maps its file, decodes its batches and records with
   the generated classes (decode.py) and writes every table itself (sink.py): ``records``, the
   typed tables (built from the decoded records, typed.py), ``batches``, ``quarantine``, and the
   narrow sorted files the audits read (events.py); Spark gets back a summary (rows and records
   per file, type and issue);
3. the per-file accounting (records read = written + reported) is taken from the summary and the
   written tables;
4. the audits (audits.py) replay each cluster from its audit files in a second ``mapInArrow``, a
   task per cluster, and Spark writes the violations.
"""

from __future__ import annotations

import json
import math
import os
import time
from dataclasses import asdict, dataclass, field

from .. import registries
from .columns import Issue
from .decode import BATCH, ISSUE
from .inputs import DEFAULT_CHUNK_BYTES, SEGMENT, SNAPSHOT_SEQ_SHIFT, Inventory, Unit, discover
from .sink import AUDIT_DIR, COUNTS, SUMMARY_DDL, complete_tables, writing_tables
from .spark import Progress, session
from .tables import table_name

DEFAULT_PARTITION_BYTES = 32 << 20
UNIT_DDL = ("unit INT, cluster STRING, file STRING, uri STRING, kind STRING, start BIGINT, `end` BIGINT, size BIGINT, registry STRING, "
            "cluster_index INT, replayed BOOLEAN, min_offset BIGINT, seq_shift BIGINT, file_base BIGINT")  # fmt: skip
UNIT_PLAN = {"cluster_index": 0, "replayed": False, "min_offset": 0, "seq_shift": 0, "file_base": 0}  # not replayed
MIN_LONG = -(1 << 63)
EXAMPLES = 20
# the tables the workers write (a fresh run starts without them)
WORKER_TABLES = ("records", "typed", "batches", "quarantine", AUDIT_DIR)


class NoInputError(ValueError):
    """No KRaft metadata file under the given paths."""


@dataclass
class FileReport:
    cluster: str
    file: str
    kind: str
    bytes: int
    batches: int = 0
    records_read: int = 0  # announced by the batch headers (and a truncated tail's header)
    records_written: int = 0  # rows in the records table
    records_reported: int = 0  # records in quarantine rows
    bytes_unreadable: int = 0
    issues: dict = field(default_factory=dict)  # issue -> count

    @property
    def balanced(self) -> bool:
        return self.records_read == self.records_written + self.records_reported

    @property
    def status(self) -> str:
        if not self.issues:
            return "ok"
        return "quarantined: " + ", ".join(f"{n} {k}" if n > 1 else k for k, n in sorted(self.issues.items()))


@dataclass
class AuditReport:
    out: str
    master: str
    clusters: list[str]
    files: list[FileReport]
    types: dict  # type name -> {"records": n, "typed": n, "table": name}
    audits: dict  # audit -> {"checks": [...], "violations": n, "unverifiable": n, "by_check": {...}, "clusters": [...]}
    examples: list  # violation rows (dicts)
    phases: list  # (phase, seconds)
    seconds: float
    partitions: int = 0
    units: int = 0

    @property
    def records_read(self) -> int:
        return sum(f.records_read for f in self.files)

    @property
    def records_written(self) -> int:
        return sum(f.records_written for f in self.files)

    @property
    def records_reported(self) -> int:
        return sum(f.records_reported for f in self.files)

    @property
    def balanced(self) -> bool:
        return all(f.balanced for f in self.files) and all(t["records"] == t["typed"] for t in self.types.values())

    @property
    def violations(self) -> int:
        return sum(a["violations"] for a in self.audits.values())

    def to_json(self) -> dict:
        d = asdict(self)
        for f, fd in zip(self.files, d["files"]):
            fd["balanced"] = f.balanced
            fd["status"] = f.status
        d.update(records_read=self.records_read, records_written=self.records_written,
                 records_reported=self.records_reported, balanced=self.balanced, violations=self.violations)  # fmt: skip
        return d


# --- units ------------------------------------------------------------------------------------


def pack_units(units: list[Unit], bins: int) -> list[list[Unit]]:
    """Units into ``bins`` bins of about equal bytes (largest first into the lightest bin)."""
    bins = max(1, min(bins, len(units)))
    loads = [[0, i, []] for i in range(bins)]
    for unit in sorted(units, key=lambda u: (-(u.end - u.start), u.unit)):
        lightest = min(loads)
        lightest[0] += max(1, unit.end - unit.start)
        lightest[2].append(unit)
    return [sorted(b[2], key=lambda u: u.unit) for b in sorted(loads, key=lambda b: b[1]) if b[2]]


def partition_count(spark, units: list[Unit], partition_bytes: int) -> int:
    total = sum(u.end - u.start for u in units)
    parallelism = spark.sparkContext.defaultParallelism
    return max(1, min(len(units), max(2 * parallelism, math.ceil(total / partition_bytes))))


def units_frame(spark, units: list[Unit], partition_bytes: int = DEFAULT_PARTITION_BYTES, plans: dict | None = None):
    """A DataFrame of units, one partition per bin; ``plans`` (unit -> its place in the replay,
    see task_units) defaults to no replay."""
    bins = pack_units(units, partition_count(spark, units, partition_bytes))
    plans = plans or {}
    rows = [[tuple({**u.row(), **plans.get(u.unit, UNIT_PLAN)}.values()) for u in b] for b in bins]
    rdd = spark.sparkContext.parallelize(rows, len(rows)).flatMap(lambda b: b)
    return spark.createDataFrame(rdd, UNIT_DDL), len(bins)


def decoded_frame(spark, units: list[Unit], out: str, partition_bytes: int = DEFAULT_PARTITION_BYTES,
                  plans: dict | None = None):  # fmt: skip
    """The units decoded in the executors by mapInArrow: every table written under ``out`` by
    the workers (see ``fresh_output``), the summary returned (SUMMARY_DDL)."""
    frame, partitions = units_frame(spark, units, partition_bytes, plans)
    return frame.mapInArrow(writing_tables(out), SUMMARY_DDL), partitions


def fresh_directory(spark, uri: str) -> None:
    """Make ``uri`` an empty directory (what it held is deleted), locally or through the
    session's Hadoop FileSystem."""
    from .inputs import is_local, local_path

    if is_local(uri):
        import shutil

        shutil.rmtree(local_path(uri), ignore_errors=True)
        os.makedirs(local_path(uri))
        return
    jvm = spark.sparkContext._jvm
    path = jvm.org.apache.hadoop.fs.Path(uri)
    fs = path.getFileSystem(spark.sparkContext._jsc.hadoopConfiguration())
    fs.delete(path, True)
    fs.mkdirs(path)


def remove_directory(spark, uri: str) -> None:
    """Delete ``uri`` and what it holds, if it exists, locally or through Hadoop's FileSystem."""
    from .inputs import is_local, local_path

    if is_local(uri):
        import shutil

        shutil.rmtree(local_path(uri), ignore_errors=True)
        return
    jvm = spark.sparkContext._jvm
    path = jvm.org.apache.hadoop.fs.Path(uri)
    path.getFileSystem(spark.sparkContext._jsc.hadoopConfiguration()).delete(path, True)


def fresh_output(spark, out: str) -> None:
    """Remove what an earlier run's workers wrote under ``out`` (its other files stay)."""
    for table in WORKER_TABLES:
        remove_directory(spark, f"{out}/{table}")


# --- replay plan ---------------------------------------------------------------------------------


def plan_rows(inventory: Inventory) -> list[tuple]:
    """(cluster, file, min_offset, seq_shift, file_base) for each file the metadata audits replay."""
    rows = []
    plans = inventory.plans()
    for f in inventory.files:
        plan = plans[f.cluster]
        if f.kind == SEGMENT and plan.log_from is not None and (f.base_offset or 0) >= 0:
            rows.append((f.cluster, f.file, plan.log_from, 0, f.base_offset))
        elif plan.snapshot == f.file:
            rows.append((f.cluster, f.file, MIN_LONG, SNAPSHOT_SEQ_SHIFT, 0))
    return rows


PLAN_DDL = "cluster STRING, file STRING, min_offset BIGINT, seq_shift BIGINT, file_base BIGINT"


def cluster_indexes(inventory: Inventory) -> dict[str, int]:
    """Each cluster's index: the name of its audit directory (``_audit/c<index>``)."""
    return {name: i for i, name in enumerate(sorted(inventory.clusters))}


def unit_plans(inventory: Inventory, units: list[Unit]) -> dict[int, dict]:
    """Per unit, what the workers need besides the unit: its cluster's index and its file's place
    in the cluster's replay (``replayed``, ``min_offset``, ``seq_shift``, ``file_base``; see
    plan_rows)."""
    index = cluster_indexes(inventory)
    plans = {(c, f): (m, shift, base) for c, f, m, shift, base in plan_rows(inventory)}
    out = {}
    for u in units:
        plan = plans.get((u.cluster, u.file))
        out[u.unit] = {"cluster_index": index[u.cluster], "replayed": plan is not None,
                       "min_offset": plan[0] if plan else 0, "seq_shift": plan[1] if plan else 0,
                       "file_base": plan[2] if plan else 0}  # fmt: skip
    return out


def task_units(inventory: Inventory, units: list[Unit]) -> list[dict]:
    """The units as the workers get them (without Spark: tests, one process)."""
    plans = unit_plans(inventory, units)
    return [{**u.row(), **plans[u.unit]} for u in units]


# --- the job -------------------------------------------------------------------------------------


def run_audit(
    paths: list[str],
    out: str,
    *,
    spark=None,
    master: str | None = None,
    chunk_bytes: int = DEFAULT_CHUNK_BYTES,
    partition_bytes: int = DEFAULT_PARTITION_BYTES,
    progress: bool = True,
    stream=None,
    registry: str | None = None,
) -> AuditReport:
    """Decode, write and audit the metadata files under ``paths``. ``registry`` (a shipped
    registry's name) reads every cluster with it; by default each cluster is read with the one its
    marker names (``registries.MARKER``), else Kafka's."""
    started = time.perf_counter()
    spark = spark or session(master)
    out = out.rstrip("/")
    prog = Progress(spark, stream=stream, enabled=progress)

    with prog.phase("listing input"):
        inventory, units = list_input(spark, paths, chunk_bytes, registry)

    fresh_output(spark, out)
    decoded, partitions = decoded_frame(spark, units, out, partition_bytes, unit_plans(inventory, units))
    try:
        with prog.phase(f"decoding {len(inventory.files)} files ({inventory.total_bytes / 1e6:.1f} MB) in {partitions} tasks"):
            summary = [row.asDict() for row in decoded.collect()]  # the workers write the tables
            complete_tables(out)

        present = sorted({r["type_name"] for r in summary if r["kind"] == COUNTS})
        with prog.phase("counting what was written"):
            written, typed_counts = count_written(spark, out, present)

        files = file_reports(inventory, summary, written)
        types = type_reports(summary, typed_counts)

        with prog.phase("auditing"):
            audit_results, examples = run_audits(spark, out, inventory)
    finally:
        remove_directory(spark, f"{out}/{AUDIT_DIR}")

    elapsed = time.perf_counter() - started
    report = AuditReport(
        out=out,
        master=spark.sparkContext.master,
        clusters=sorted(inventory.clusters),
        files=files,
        types=dict(sorted(types.items())),
        audits=audit_results,
        examples=examples,
        phases=prog.phases,
        seconds=elapsed,
        partitions=partitions,
        units=len(units),
    )
    write_report_files(spark, report)
    return report


def list_input(spark, paths: list[str], chunk_bytes: int, registry: str | None) -> tuple[Inventory, list]:
    """The metadata files under ``paths`` and the units they are cut into (NoInputError when
    there is none); ``registry``, when given, reads every cluster."""
    inventory = discover(paths, spark)
    if registry is not None:
        inventory.registries = {name: registries.name_of(registry) for name in inventory.clusters}
    units = inventory.units(chunk_bytes)
    if not units:
        raise NoInputError(f"no KRaft metadata files (__cluster_metadata-*/*.log, *.checkpoint) under {', '.join(paths)}")
    return inventory, units


def type_reports(summary: list[dict], typed_counts: dict) -> dict:
    """Per record type: the records the workers wrote, the rows of its typed table, its name."""
    types: dict = {}
    for r in summary:
        if r["kind"] == COUNTS:
            entry = types.setdefault(r["type_name"], {"records": 0, "typed": typed_counts.get(r["type_name"], 0),
                                                      "table": table_name(r["type_name"])})  # fmt: skip
            entry["records"] += r["rows"]
    return types


def count_written(spark, out: str, present: list[str]) -> tuple[dict, dict]:
    """Rows per (cluster, file) in the records table and rows per typed table, read back from
    the written Parquet (with pyarrow for a local output, else with Spark)."""
    from .inputs import is_local, local_path

    if is_local(out):
        import pyarrow as pa
        import pyarrow.dataset as ds

        base = local_path(out)
        # batch by batch, the names kept dictionary-encoded as Parquet has them: the driver
        # never holds a column of the whole table
        parquet = ds.ParquetFileFormat(read_options={"dictionary_columns": ["cluster", "file"]})
        written: dict = {}
        for batch in ds.dataset(f"{base}/records", format=parquet).to_batches(columns=["cluster", "file"]):
            grouped = pa.Table.from_batches([batch]).group_by(["cluster", "file"]).aggregate([([], "count_all")])
            for c, f, n in zip(*(grouped.column(k).to_pylist() for k in ("cluster", "file", "count_all"))):
                written[(c, f)] = written.get((c, f), 0) + n
        typed = {t: ds.dataset(f"{base}/typed/{table_name(t)}", format="parquet").count_rows() for t in present}
        return written, typed
    written = {(r["cluster"], r["file"]): r["count"]
               for r in spark.read.parquet(f"{out}/records").groupBy("cluster", "file").count().collect()}  # fmt: skip
    typed = {t: spark.read.parquet(f"{out}/typed/{table_name(t)}").count() for t in present}
    return written, typed


def file_reports(inventory: Inventory, summary, written: dict) -> list[FileReport]:
    reports = {(f.cluster, f.file): FileReport(f.cluster, f.file, f.kind, f.size) for f in inventory.files}
    for r in summary:
        fr = reports[(r["cluster"], r["file"])]
        if r["kind"] == BATCH:
            fr.batches += r["rows"]
            fr.records_read += r["announced"] or 0
        elif r["kind"] == ISSUE:
            fr.issues[r["issue"]] = fr.issues.get(r["issue"], 0) + r["rows"]
            fr.records_reported += r["lost"] or 0
            if r["issue"] == Issue.TRUNCATED_TAIL:
                fr.records_read += r["lost"] or 0
            if r["issue"] == Issue.UNREADABLE_BYTES:
                fr.bytes_unreadable += r["bytes_lost"] or 0
    for key, count in written.items():
        reports[key].records_written = count
    return list(reports.values())


def run_audits(spark, out: str, inventory: Inventory):
    """Run every audit (a task per cluster over its audit files), write ``violations`` (one
    partition per audit), return counts and examples."""
    from . import audits as audit_mod

    plans = inventory.plans()
    rows = [(i, name, plans[name].complete) for name, i in cluster_indexes(inventory).items()]
    tasks = spark.sparkContext.parallelize(rows, max(1, len(rows)))
    clusters = spark.createDataFrame(tasks, audit_mod.CLUSTER_DDL)
    violations = clusters.mapInArrow(audit_mod.replaying(f"{out}/{AUDIT_DIR}"), audit_mod.VIOLATION_DDL)
    # one partition directory per audit: violations/audit=<name>/
    violations.write.mode("overwrite").partitionBy("audit").parquet(f"{out}/violations")
    outcomes = read_violations(spark, out, list(audit_mod.AUDITS))

    results, examples = {}, []
    for name, counts, found in outcomes:
        by_check = {check: {"violation": 0, "unverifiable": 0} for check, _, _ in audit_mod.AUDITS[name]}
        where = set()
        for r in counts:
            by_check.setdefault(r["check"], {"violation": 0, "unverifiable": 0})[r["status"]] += r["count"]
            if r["status"] == "violation":
                where.add(r["cluster"])
        results[name] = {
            "checks": [c for c, _, _ in audit_mod.AUDITS[name]],
            "violations": sum(v["violation"] for v in by_check.values()),
            "unverifiable": sum(v["unverifiable"] for v in by_check.values()),
            "by_check": by_check,
            "clusters": sorted(where),
        }
        examples.extend(found)
    examples.sort(key=lambda r: (r["audit"], r["cluster"], r["offset"] if r["offset"] is not None else -1))
    return results, examples


def read_violations(spark, out: str, names: list[str]) -> list[tuple[str, list[dict], list[dict]]]:
    """Per audit: counts by (check, status, cluster), and the first violations by cluster and offset."""
    from .inputs import is_local, local_path

    path = f"{out}/violations"
    by_audit: dict[str, tuple[list, list]] = {name: ([], []) for name in names}
    if is_local(out):
        import pyarrow.compute as pc
        import pyarrow.dataset as ds

        table = ds.dataset(local_path(path), format="parquet", partitioning="hive").to_table()
        if table.num_rows:
            grouped = table.group_by(["audit", "check", "status", "cluster"]).aggregate([([], "count_all")])
            for a, c, st, k, n in zip(*(grouped.column(x).to_pylist() for x in ("audit", "check", "status", "cluster", "count_all"))):
                by_audit[a][0].append({"check": c, "status": st, "cluster": k, "count": n})
            found = table.filter(pc.equal(table.column("status"), "violation"))
            found = found.sort_by([("audit", "ascending"), ("cluster", "ascending"), ("offset", "ascending"), ("check", "ascending")])
            for row in found.to_pylist():
                if len(by_audit[row["audit"]][1]) < EXAMPLES:
                    by_audit[row["audit"]][1].append(row)
    else:
        from pyspark.errors import AnalysisException
        from pyspark.sql import Window
        from pyspark.sql import functions as F

        try:
            back = spark.read.parquet(path)
        except AnalysisException:  # no violation at all: no data files
            back = None
        if back is not None:
            for r in back.groupBy("audit", "check", "status", "cluster").count().collect():
                by_audit[r["audit"]][0].append({k: r[k] for k in ("check", "status", "cluster", "count")})
            first = Window.partitionBy("audit").orderBy("cluster", "offset", "check")
            rows = back.where(F.col("status") == "violation").withColumn("n", F.row_number().over(first))
            for r in rows.where(F.col("n") <= EXAMPLES).drop("n").collect():
                by_audit[r["audit"]][1].append(r.asDict())
    return [(name, *by_audit[name]) for name in names]


def write_report_files(spark, report: AuditReport) -> None:
    from .report import render

    rows = [(f.cluster, f.file, f.kind, f.bytes, f.batches, f.records_read, f.records_written, f.records_reported,
             f.bytes_unreadable, f.balanced, f.status) for f in report.files]  # fmt: skip
    ddl = ("cluster STRING, file STRING, kind STRING, bytes BIGINT, batches BIGINT, records_read BIGINT, "
           "records_written BIGINT, records_reported BIGINT, bytes_unreadable BIGINT, balanced BOOLEAN, status STRING")  # fmt: skip
    spark.createDataFrame(rows, ddl).coalesce(1).write.mode("overwrite").parquet(f"{report.out}/files")
    text = render(report, all_files=True)
    payload = json.dumps(report.to_json(), indent=2, default=str)
    from .inputs import is_local, local_path

    if is_local(report.out):
        import os

        from .report import write_atomically

        os.makedirs(local_path(report.out), exist_ok=True)  # each report file appears whole or not at all
        write_atomically(os.path.join(local_path(report.out), "report.json"), payload + "\n")
        write_atomically(os.path.join(local_path(report.out), "report.txt"), text)
    else:
        spark.createDataFrame([(text, payload)], "report STRING, json STRING").coalesce(1).write.mode("overwrite").json(
            f"{report.out}/report"
        )
