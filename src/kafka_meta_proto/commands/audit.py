"""Decode and audit KRaft metadata logs with Spark, and write them out as Parquet tables.

PATH is a directory tree (local, or any URI Spark's Hadoop FileSystem reads: hdfs://, s3a://...)
holding __cluster_metadata-*/ segments and *.checkpoint snapshots, of one cluster or a fleet
(a cluster is the directory above __cluster_metadata-0). With no PATH, the built-in sample (a
simulated fleet with diskless topics, one planted fault per cluster) is written first and audited.
Each cluster's records are read with Kafka's registry, or with the one its kafka-meta-proto.registry
marker names (simulate --diskless writes one), or with the one --registry/--diskless names.

With --coordinator-topic, PATH holds batch coordinators' __diskless-metadata-<p> partitions
instead: their records are read with the diskless registry into coordinator_records and checked
against the design's invariants (offsets, high watermarks, log start offsets, objects); the
findings go to violations and the report as above.

Writes under --out: records, typed/<record type>, batches, quarantine, files and violations
(one partition per audit) as Parquet, report.txt and report.json; prints the report. A local
--out holds the file _AUDIT_INCOMPLETE (and no report) until the run has finished, so an
interrupted run's tables are not taken for complete ones. Ctrl-C stops the run at once (exit 130). Runs on
local[2] unless --master (or spark-submit) says otherwise. Needs the spark extra (pyspark,
pyarrow, pandas) and Java. See docs/pipeline.md.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from types import ModuleType

from .. import registries
from ..log.source import is_local, local_path


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="*", metavar="PATH", help="directory trees to audit (default: the built-in sample)")
    parser.add_argument("--out", default="audit-out", metavar="DIR", help="output directory (default: audit-out)")
    parser.add_argument("--master", metavar="URL", help="Spark master (default local[2]; under spark-submit, its own)")
    parser.add_argument("--sample-records", type=int, default=None, metavar="N",
                        help="records in the built-in sample, over all its clusters (default 300000)")  # fmt: skip
    parser.add_argument("--sample-clusters", type=int, default=None, metavar="K", help="clusters in the sample (default 6)")
    parser.add_argument("--seed", type=int, default=None, metavar="S", help="seed of the sample (default 2024)")
    parser.add_argument("--work", metavar="DIR", help="where the sample is written (default: OUT/sample-logs)")
    parser.add_argument("--chunk-mb", type=int, default=64, metavar="M",
                        help="split files larger than M MiB into byte ranges decoded in parallel (default 64)")  # fmt: skip
    parser.add_argument("--all-files", action="store_true", help="list every file in the printed report")
    parser.add_argument("--no-progress", action="store_true", help="no progress line")
    parser.add_argument("--fail-on-violations", action="store_true", help="exit 1 when an audit finds a violation")
    parser.add_argument("--coordinator-topic", action="store_true",
                        help="PATHs hold batch coordinators' __diskless-metadata-<p> partitions: audit those instead")  # fmt: skip
    registries.add_arguments(parser)


def run(args: argparse.Namespace) -> int:
    try:
        import pyspark  # noqa: F401
    except ImportError:
        print("kafka-meta-proto audit: needs pyspark; install the spark extra: pip install 'kafka-meta-proto[spark]'",
              file=sys.stderr)  # fmt: skip
        return 2
    from ..pipeline import inputs, sample
    from ..pipeline.interrupts import interruptible
    from ..pipeline.job import NoInputError, run_audit
    from ..pipeline.report import begin_output, finish_output, render
    from ..pipeline.spark import java_available, session, under_spark_submit

    # Outside spark-submit the driver's JVM starts here, whatever the master (local, spark://, yarn)
    if not under_spark_submit() and not java_available():
        print("kafka-meta-proto audit: Spark needs Java (17 or 21) on PATH or in JAVA_HOME", file=sys.stderr)
        return 2
    for name, value in (("--sample-records", args.sample_records), ("--sample-clusters", args.sample_clusters),
                        ("--chunk-mb", args.chunk_mb)):  # fmt: skip
        if value is not None and value < 1:
            print(f"kafka-meta-proto audit: {name} must be at least 1", file=sys.stderr)
            return 2
    paths = list(args.paths)
    # Local paths are checked here, before Spark spends seconds starting.
    missing = [p for p in paths if is_local(p) and not os.path.exists(local_path(p))]
    if missing:
        print(f"kafka-meta-proto audit: no such file or directory: {', '.join(missing)}", file=sys.stderr)
        return 2
    # From here until the report is written, the output says that it is not complete.
    marker = begin_output(local_path(args.out)) if is_local(args.out) else None
    if args.coordinator_topic:
        return _audit_coordinator_topic(args, paths, marker)
    if not paths:
        if args.work:
            work = args.work
        elif is_local(args.out):
            work = os.path.join(local_path(args.out), "sample-logs")
        else:
            work = tempfile.mkdtemp(prefix="kafka-meta-proto-sample-")
        records = args.sample_records or sample.SAMPLE_RECORDS
        clusters = args.sample_clusters or sample.SAMPLE_CLUSTERS
        seed = sample.SAMPLE_SEED if args.seed is None else args.seed
        _write_sample(sample, work, records, clusters, seed, progress=not args.no_progress)
        paths = [work]
    spark = session(args.master)
    try:
        with interruptible(spark):
            report = run_audit(paths, args.out, spark=spark, chunk_bytes=args.chunk_mb << 20,
                               progress=not args.no_progress, registry=args.registry)  # fmt: skip
    except (NoInputError, FileNotFoundError) as exc:
        print(f"kafka-meta-proto audit: {exc}", file=sys.stderr)
        return 2
    if marker is not None:
        finish_output(marker)
    sys.stdout.write(render(report, all_files=args.all_files))
    if args.fail_on_violations and report.violations:
        return 1
    return 0 if report.balanced else 1


def _audit_coordinator_topic(args: argparse.Namespace, paths: list[str], marker: str | None) -> int:
    """The audit of batch coordinators' topics (pipeline/diskless_audit.py)."""
    from ..pipeline.diskless_audit import NoTopicError, render, run_coordinator_audit
    from ..pipeline.interrupts import interruptible
    from ..pipeline.report import finish_output
    from ..pipeline.spark import session

    if not paths:  # there is no built-in sample of a coordinator's topic
        print("kafka-meta-proto audit: --coordinator-topic needs a PATH", file=sys.stderr)
        return 2
    spark = session(args.master)
    try:
        with interruptible(spark):
            report = run_coordinator_audit(paths, args.out, spark, chunk_bytes=args.chunk_mb << 20)
    except (NoTopicError, FileNotFoundError) as exc:
        print(f"kafka-meta-proto audit: {exc}", file=sys.stderr)
        return 2
    if marker is not None:
        finish_output(marker)
    sys.stdout.write(render(report))
    return 1 if args.fail_on_violations and report.violations else 0


def _write_sample(sample: ModuleType, work: str, records: int, clusters: int, seed: int, progress: bool) -> None:
    """The built-in sample, with its expected size said first and progress every few seconds."""
    expected = sample.estimated_bytes(records, clusters)
    if progress:
        print(f"[audit] writing the built-in sample: {records} records in {clusters} clusters (seed {seed}), "
              f"about {expected / 1e6:.1f} MB, to {work}", file=sys.stderr)  # fmt: skip
        free = _free_bytes(work)
        if free is not None and free < expected:
            print(f"[audit] warning: {free / 1e6:.1f} MB free where the sample goes", file=sys.stderr)
    report = (lambda line: print(line, file=sys.stderr, flush=True)) if progress else None
    sample.write_sample(work, records=records, clusters=clusters, seed=seed, progress=report)


def _free_bytes(directory: str) -> int | None:
    """Free bytes on the file system that holds (or will hold) ``directory``."""
    import shutil

    path = os.path.abspath(directory)
    while not os.path.exists(path) and os.path.dirname(path) != path:
        path = os.path.dirname(path)
    try:
        return shutil.disk_usage(path).free
    except OSError:
        return None
