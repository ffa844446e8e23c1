"""The audit job over batch coordinators' topics (``kafka-meta-proto audit --coordinator-topic``).

``run_coordinator_audit(paths, out)`` in one SparkSession:

1. the driver lists the ``__diskless-metadata-<p>`` segments under ``paths`` (names and sizes
   only) and cuts them into units (diskless_rows.py);
2. ``mapInArrow`` over the units: each Python worker walks its byte range and decodes the
   records with the diskless registry into rows, which Spark writes as the Parquet table
   ``coordinator_records``;
3. the checks (diskless_checks.py) run over that table as window functions and joins in the
   executors; Spark writes the findings to ``violations`` (one partition per audit, as the
   metadata log audit's), and the driver collects only their counts and a few examples for the
   report (``report.txt``, ``report.json``).
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass

from .diskless_checks import AUDIT, CHECKS, findings
from .diskless_rows import ROW_DDL, TopicUnit, discover_topic, map_in_arrow
from .findings import UNVERIFIABLE, VIOLATION
from .inputs import DEFAULT_CHUNK_BYTES, is_local, local_path
from .report import table, write_atomically

UNIT_DDL = "coordinator STRING, partition INT, file STRING, uri STRING, base BIGINT, start BIGINT, `end` BIGINT"
EXAMPLES = 20
PARTITION_BYTES = 32 << 20  # input bytes per Spark partition of the decoding, as the metadata log audit's
FINDING_DDL = ("audit STRING, `check` STRING, status STRING, cluster STRING, `partition` INT, file STRING, offset BIGINT, "
               "subject STRING, detail STRING")  # fmt: skip


class NoTopicError(ValueError):
    """No ``__diskless-metadata-<p>`` segment under the given paths."""


@dataclass
class CoordinatorReport:
    out: str
    partitions: list  # "<coordinator>/__diskless-metadata-<p>"
    segments: int
    rows: dict  # row kind -> rows
    findings: dict  # check -> {"violation": n, "unverifiable": n}
    examples: list  # finding rows (dicts)

    @property
    def violations(self) -> int:
        return sum(n.get(VIOLATION, 0) for n in self.findings.values())

    def to_json(self) -> dict:
        return {**asdict(self), "audit": AUDIT, "violations": self.violations}


def incomplete_partitions(units: list[TopicUnit]) -> list[tuple[str, int]]:
    """The (coordinator, partition) whose log does not start at offset 0: their history is cut."""
    first: dict[tuple[str, int], int] = {}
    for u in units:
        key = (u.coordinator, u.partition)
        first[key] = min(first.get(key, u.base), u.base)
    return sorted(key for key, base in first.items() if base != 0)


def rows_frame(spark, units: list[TopicUnit]):
    """The units decoded into rows by the executors: the units dealt over about two Spark
    partitions per core (more for a large input: a partition per ``PARTITION_BYTES``)."""
    total = sum(u.end - u.start for u in units)
    slices = min(len(units), max(2 * spark.sparkContext.defaultParallelism, -(-total // PARTITION_BYTES)))
    rdd = spark.sparkContext.parallelize([tuple(u.row().values()) for u in units], slices)
    return spark.createDataFrame(rdd, UNIT_DDL).mapInArrow(map_in_arrow, ROW_DDL)


def run_coordinator_audit(paths: list[str], out: str, spark, chunk_bytes: int = DEFAULT_CHUNK_BYTES) -> CoordinatorReport:
    """Decode the coordinators' topics under ``paths``, write the tables under ``out``, check the
    design's invariants; the report is written there too and returned."""
    units = discover_topic(paths, spark, chunk_bytes)
    if not units:
        raise NoTopicError(f"no __diskless-metadata-<p> segment under {', '.join(paths)}")
    rows_frame(spark, units).write.mode("overwrite").parquet(f"{out}/coordinator_records")
    # Every check is per coordinator partition (or finer): shuffled once, its windows need no other shuffle.
    rows = spark.read.parquet(f"{out}/coordinator_records").repartition("coordinator", "partition").cache()
    try:
        findings(rows, incomplete_partitions(units)).write.mode("overwrite").partitionBy("audit").parquet(
            f"{out}/violations")  # fmt: skip
        kinds = {r["kind"]: r["count"] for r in rows.groupBy("kind").count().collect()}
    finally:
        rows.unpersist()
    found = spark.read.schema(FINDING_DDL).parquet(f"{out}/violations")  # no findings: no files
    counts: dict = {}
    for r in found.groupBy("check", "status").count().collect():
        counts.setdefault(r["check"], {})[r["status"]] = r["count"]
    examples = [r.asDict() for r in found.orderBy("cluster", "partition", "offset", "check").limit(EXAMPLES).collect()]
    partitions = sorted({f"{u.coordinator}/{u.file.split('/')[0]}" for u in units})
    segments = len({u.uri for u in units})
    report = CoordinatorReport(out, partitions, segments, dict(sorted(kinds.items())), counts, examples)
    _write_report(spark, report)
    return report


def render(report: CoordinatorReport) -> str:
    lines = [f"Audit of the batch coordinators' topics: {len(report.partitions)} partitions, "
             f"{report.segments} segments, under {report.out}", ""]  # fmt: skip
    lines += table(["rows", "count"], [[k, f"{n:,}"] for k, n in report.rows.items()], "lr") + [""]
    issues = sorted(set(report.findings) - set(map(str, CHECKS)))
    checks = [[str(c), about, *_counts(report, str(c))] for c, about in CHECKS.items()]
    checks += [[c, "a problem in the topic's files or records", *_counts(report, c)] for c in issues]
    lines += table(["check", "finds", "violations", "unverifiable"], checks, "llrr") + [""]
    for e in report.examples:
        lines.append(f"{e['status']}: {e['check']} at {e['cluster']}/{e['file']} offset {e['offset']} "
                     f"({e['subject']}): {e['detail']}")  # fmt: skip
    lines.append(f"{report.violations} violations")
    return "\n".join(lines) + "\n"


def _counts(report: CoordinatorReport, check: str) -> list[int]:
    n = report.findings.get(check, {})
    return [n.get(VIOLATION, 0), n.get(UNVERIFIABLE, 0)]


def _write_report(spark, report: CoordinatorReport) -> None:
    text, payload = render(report), json.dumps(report.to_json(), indent=2, default=str)
    if is_local(report.out):
        directory = local_path(report.out)
        os.makedirs(directory, exist_ok=True)
        write_atomically(os.path.join(directory, "report.json"), payload + "\n")
        write_atomically(os.path.join(directory, "report.txt"), text)
    else:
        frame = spark.createDataFrame([(text, payload)], "report STRING, json STRING")
        frame.coalesce(1).write.mode("overwrite").json(f"{report.out}/report")
