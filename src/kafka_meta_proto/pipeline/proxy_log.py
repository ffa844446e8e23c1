"""The proxy's exchange log with Spark: the JSON lines read into a table (written as Parquet)
and a summary per API (requests, errors, latency percentiles, bytes).

The decoded request and response stay JSON text in the table (``request``, ``response``): their
shape differs per API and version, and Spark's JSON functions (``get_json_object``,
``from_json``) read them where a query needs them. Lines other than exchanges (listeners opened,
connections closed) are left out of the table.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

# The exchange's fields, as proxy/exchange_log.py writes them.
EXCHANGE_FIELDS = [
    ("kind", "string"), ("api_key", "int"), ("api_name", "string"), ("api_version", "int"),
    ("correlation_id", "int"), ("client_id", "string"), ("client", "string"),
    ("upstream", "string"), ("time", "double"), ("request_size", "long"), ("request", "string"),
    ("request_error", "string"), ("expects_response", "boolean"), ("request_rewritten", "boolean"),
    ("response_size", "long"), ("response_version", "int"), ("response", "string"),
    ("response_error", "string"), ("response_rewritten", "boolean"), ("latency_ms", "double"),
    ("error_codes", "array<int>"),
]  # fmt: skip
PERCENTILES = (0.5, 0.95, 0.99)


def exchange_schema() -> str:
    """The table's columns as a Spark DDL string."""
    return ", ".join(f"{name} {kind}" for name, kind in EXCHANGE_FIELDS)


def read_exchanges(spark: Any, paths: list[str]) -> Any:
    """The exchanges of the logs at ``paths`` (files or directories), one row each; ``time``
    becomes a timestamp."""
    from pyspark.sql import functions as F

    lines = spark.read.schema(exchange_schema()).option("mode", "FAILFAST").json(paths)
    rows = lines.where(F.col("kind") == "exchange").drop("kind")
    return rows.withColumn("time", F.col("time").cast("timestamp"))


def summarize(exchanges: Any) -> Any:
    """One row per API: requests; errors (a non-zero error code in the response); undecoded
    (a request or response our classes could not decode); unanswered (a response expected and
    none came); latency percentiles in milliseconds; request and response bytes."""
    from pyspark.sql import functions as F

    undecoded = F.col("request_error").isNotNull() | (
        F.col("response_error").isNotNull() & F.col("response_size").isNotNull()
    )
    unanswered = F.col("expects_response") & F.col("response_size").isNull()
    latency = F.percentile_approx("latency_ms", list(PERCENTILES), 10000)
    summary = exchanges.groupBy("api_key", "api_name").agg(
        F.count(F.lit(1)).alias("requests"),
        F.sum((F.size("error_codes") > 0).cast("long")).alias("errors"),
        F.sum(undecoded.cast("long")).alias("undecoded"),
        F.sum(unanswered.cast("long")).alias("unanswered"),
        latency.alias("latency"),
        F.sum("request_size").alias("request_bytes"),
        F.coalesce(F.sum("response_size"), F.lit(0)).alias("response_bytes"),
    )
    for i, name in enumerate(("p50_ms", "p95_ms", "p99_ms")):
        summary = summary.withColumn(name, F.col("latency")[i])
    return summary.drop("latency").orderBy("api_key")


def proxy_report(spark: Any, paths: list[str], out: str | Path) -> list[Any]:
    """Write ``out/exchanges`` and ``out/summary`` (Parquet); return the summary's rows."""
    exchanges = read_exchanges(spark, paths)
    exchanges.write.mode("overwrite").parquet(str(Path(out) / "exchanges"))
    table = spark.read.parquet(str(Path(out) / "exchanges"))
    summary = summarize(table)
    summary.write.mode("overwrite").parquet(str(Path(out) / "summary"))
    rows: list[Any] = summary.collect()
    return rows


def summary_text(rows: list[Any]) -> str:
    """The summary as an aligned table, one line per API."""
    header = ("api", "requests", "errors", "undecoded", "unanswered", "p50 ms", "p95 ms",
              "p99 ms", "request bytes", "response bytes")  # fmt: skip
    table = [header] + [
        (row.api_name or f"api key {row.api_key}", row.requests, row.errors, row.undecoded,
         row.unanswered, _ms(row.p50_ms), _ms(row.p95_ms), _ms(row.p99_ms), row.request_bytes,
         row.response_bytes)  # fmt: skip
        for row in rows
    ]
    widths = [max(len(str(line[i])) for line in table) for i in range(len(header))]
    return "\n".join(
        "  ".join(str(v).ljust(w) if i == 0 else str(v).rjust(w) for i, (v, w) in enumerate(zip(line, widths)))
        for line in table
    )


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"
