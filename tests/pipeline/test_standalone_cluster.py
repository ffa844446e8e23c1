"""``kafka-meta-proto audit`` on a Spark standalone cluster gives what it gives on ``local[2]``.

A master and two workers (separate JVMs on loopback, started from the installed PySpark's jars by
tools/spark_standalone.py) run the same command over the same built-in sample as ``local[2]``
does; the report and every table must come out the same. The code is not told which master it
runs on beyond ``--master``: the driver's environment names the executors' interpreter
(``PYSPARK_PYTHON``, Spark's own convention) and keeps the driver on loopback
(``SPARK_LOCAL_IP``); the executors import this checkout's package from the shared file system
(``PYTHONPATH``), as workers with the package installed would.

Slow (several minutes on two cores: two audits and a cluster start), so out of the default run:
``python -m pytest -m slow tests/pipeline/test_standalone_cluster.py -s`` prints the figures.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from kafka_meta_proto.pipeline.spark import java_available

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow

SAMPLE = ["--sample-records", "20000", "--sample-clusters", "2", "--seed", "7"]

# report.json fields that differ between the two runs by construction, not by result:
RUN_FIELDS = {
    "out": "the --out directory, one per run",
    "master": "local[2] against spark://127.0.0.1:<port>, the one thing the runs differ in",
    "seconds": "wall time of the job",
    "phases": "(name, seconds) per phase: the names are compared, the seconds are wall times",
}


def _require_cluster_tools() -> None:
    pytest.importorskip(
        "pyspark", reason="pyspark is not installed (pip install 'kafka-meta-proto[spark]')"
    )
    pytest.importorskip(
        "pyarrow", reason="pyarrow is not installed (pip install 'kafka-meta-proto[spark]')"
    )
    if not java_available():
        pytest.skip("a Spark standalone cluster needs Java: no java on PATH and no JAVA_HOME")


def audit_env() -> dict[str, str]:
    """The driver's environment: this checkout first on the path, this interpreter for the
    executors' Python workers, everything on loopback."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), *filter(None, [env.get("PYTHONPATH")])])
    env.update(PYSPARK_PYTHON=sys.executable, SPARK_LOCAL_IP="127.0.0.1")
    return env


def run_audit(master: str, out: Path) -> tuple[subprocess.CompletedProcess, float]:
    """``kafka-meta-proto audit --master MASTER`` over the sample, as a user runs it; its wall time."""
    began = time.monotonic()
    run = subprocess.run(
        [sys.executable, "-m", "kafka_meta_proto.cli", "audit", *SAMPLE, "--master", master, "--out", str(out),
         "--no-progress"],
        capture_output=True, text=True, timeout=1200, env=audit_env(),
    )  # fmt: skip
    return run, time.monotonic() - began


def comparable(report: dict) -> dict:
    kept = {k: v for k, v in report.items() if k not in RUN_FIELDS}
    kept["phase_names"] = [name for name, _ in report["phases"]]
    return kept


def table_dirs(out: Path) -> list[str]:
    """The Parquet tables under ``out`` (the sample's logs are not a table)."""
    top = sorted(
        p.name for p in out.iterdir() if p.is_dir() and p.name not in ("sample-logs", "typed")
    )
    return top + sorted(f"typed/{p.name}" for p in (out / "typed").iterdir() if p.is_dir())


def read_rows(out: Path, name: str):
    """A table's schema and its rows as sorted JSON text (part files and the order of rows in
    them follow how the tasks were scheduled, not what they hold; the text keeps floats exact,
    NaN included, and shows bytes as Python literals)."""
    import pyarrow.dataset as ds

    table = ds.dataset(
        out / name, format="parquet", partitioning="hive" if name == "violations" else None
    ).to_table()
    return table.schema, sorted(
        json.dumps(r, sort_keys=True, default=repr) for r in table.to_pylist()
    )


def test_audit_on_a_standalone_cluster_matches_local(tmp_path):
    _require_cluster_tools()
    sys.path.insert(0, str(ROOT / "tools"))
    from spark_standalone import SparkStandalone

    local, local_seconds = run_audit("local[2]", tmp_path / "local")
    assert local.returncode == 0, local.stderr[-3000:]

    with SparkStandalone(tmp_path / "cluster", workers=2, cores_per_worker=1, memory="1g",
                         pythonpath=[str(ROOT / "src")]) as cluster:  # fmt: skip
        remote, remote_seconds = run_audit(cluster.url, tmp_path / "standalone")
        logs = f"(daemon logs in {cluster.workdir})"
        assert remote.returncode == 0, f"{remote.stderr[-3000:]}\n{logs}"
        status = cluster.status()

    # it ran on the cluster: one finished application, with an executor on each worker
    apps = status["completedapps"]
    assert [(a["name"], a["state"]) for a in apps] == [("kafka-meta-proto audit", "FINISHED")], apps
    for i in (1, 2):
        executors = list((tmp_path / "cluster" / f"worker-{i}" / apps[0]["id"]).iterdir())
        assert executors, f"worker {i} ran no executor"

    # the same report
    a = json.loads((tmp_path / "local" / "report.json").read_text())
    b = json.loads((tmp_path / "standalone" / "report.json").read_text())
    assert (a["master"], b["master"]) == ("local[2]", cluster.url)
    assert comparable(a) == comparable(b)
    assert a["balanced"] and a["records_read"] > 20000 and a["violations"] > 0

    # the same tables, row for row
    names = table_dirs(tmp_path / "local")
    assert names == table_dirs(tmp_path / "standalone")
    assert {"records", "batches", "quarantine", "files", "violations"} <= set(names)
    rows = 0
    for name in names:
        schema_a, rows_a = read_rows(tmp_path / "local", name)
        schema_b, rows_b = read_rows(tmp_path / "standalone", name)
        assert schema_a.equals(schema_b, check_metadata=False), name
        assert len(rows_a) == len(rows_b), name
        if rows_a != rows_b:
            at = next(i for i, (x, y) in enumerate(zip(rows_a, rows_b)) if x != y)
            pytest.fail(f"{name}: rows differ; first at {at}:\n{rows_a[at]}\n{rows_b[at]}")
        rows += len(rows_a)

    print(f"\nstandalone cluster (master, 2 workers) up in {cluster.startup_seconds:.1f} s")
    print(f"audit of {a['records_read']:,} records in {len(a['files'])} files, wall time (job):")
    print(f"  local[2]   {local_seconds:6.1f} s ({a['seconds']:.1f} s)")
    print(f"  standalone {remote_seconds:6.1f} s ({b['seconds']:.1f} s)")
    print(f"{len(names)} tables, {rows:,} rows, equal")
    for x, y in zip(a["phases"], b["phases"]):
        print(f"  {x[0]}: local[2] {x[1]:.1f} s, standalone {y[1]:.1f} s")
