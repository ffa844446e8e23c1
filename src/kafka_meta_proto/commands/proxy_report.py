"""Summarise a proxy exchange log with Spark: a Parquet table and a per-API summary.

LOG is one or more files (or directories) written by `kafka-meta-proto proxy --log`. OUT
receives `exchanges/` (one row per exchange: the log's fields, the decoded bodies as JSON text)
and `summary/` (one row per API: requests, errors, undecoded, unanswered, latency p50/p95/p99 in
milliseconds, request and response bytes), both Parquet; the summary is printed as a table.
Runs on local[2] unless --master says otherwise. Needs the spark extra and Java.
"""

from __future__ import annotations

import argparse
import sys


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("log", nargs="+", metavar="LOG", help="exchange log file(s) or directories")
    parser.add_argument("--out", required=True, metavar="DIR", help="where the Parquet tables go")
    parser.add_argument("--master", metavar="URL", help="Spark master (default local[2])")


def run(args: argparse.Namespace) -> int:
    import pyspark  # noqa: F401 (a missing spark extra is named before Java is looked for)

    from ..pipeline.proxy_log import proxy_report, summary_text
    from ..pipeline.spark import java_available, session, under_spark_submit

    if not under_spark_submit() and not java_available():
        print("kafka-meta-proto proxy-report: Spark needs Java (17 or 21) on PATH or in JAVA_HOME",
              file=sys.stderr)  # fmt: skip
        return 2
    # The session is left to end with the process: one made earlier in it (getOrCreate) goes on.
    spark = session(args.master, app_name="kafka-meta-proto proxy-report")
    rows = proxy_report(spark, list(args.log), args.out)
    print(summary_text(rows))
    return 0
