"""The Spark session the pipeline runs in, and a progress line while it works.

``session(master)``: ``local[2]`` unless told otherwise; under ``spark-submit`` (which starts the
JVM and sets the master itself) the session spark-submit made is used as it is. For local masters
the Python workers run this very interpreter (``PYSPARK_PYTHON``), which has the package (an
editable install or a wheel); for a cluster, ship the package with ``spark-submit --py-files``
(see docs/pipeline.md).

With ``--master spark://...`` (or any other cluster) outside spark-submit, the cluster's
settings are left alone: the executors' Python workers run the interpreter the driver's
environment names (``PYSPARK_PYTHON``, else ``python3`` on the workers), the driver advertises
the address Spark picks for it (``SPARK_LOCAL_IP`` chooses another), and executor memory, cores
and shuffle partitions come from spark-defaults.conf (SPARK_CONF_DIR) or Spark's defaults; a value
set here would override them. Spark's default executor (1 GiB) fits a worker offering 1 GiB, as
tests/pipeline/test_standalone_cluster.py runs it.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from contextlib import contextmanager

DEFAULT_MASTER = "local[2]"

# Settings for a job that is mostly Python decoding and a few small shuffles.
DEFAULT_CONF = {
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",  # the pipeline prints its own progress line
    "spark.sql.adaptive.enabled": "true",  # on a cluster: shuffles coalesced to what the data needs
    "spark.sql.execution.arrow.pyspark.enabled": "true",
    "spark.python.worker.reuse": "true",
    "spark.sql.session.timeZone": "UTC",
    "spark.sql.parquet.compression.codec": "zstd",
}
LOCAL_CONF = {
    "spark.driver.memory": "768m",  # local mode: the driver JVM is the executor; it holds only small rows
    # The audits' shuffles are small; on two cores, adaptive execution's extra jobs (one per
    # shuffle) cost more than they save, and two shuffle partitions are plenty.
    "spark.sql.adaptive.enabled": "false",
    "spark.sql.shuffle.partitions": "2",
    "spark.driver.bindAddress": "127.0.0.1",
    "spark.driver.host": "127.0.0.1",
    # throughput over pause times: less JVM CPU per record than G1 for this batch work
    "spark.driver.extraJavaOptions": "-XX:+UseParallelGC",
}


def under_spark_submit() -> bool:
    """True when spark-submit started this Python process (it passes the gateway port)."""
    return "PYSPARK_GATEWAY_PORT" in os.environ


def is_local_master(master: str | None) -> bool:
    return master is None or master.startswith("local")


def session(master: str | None = None, app_name: str = "kafka-meta-proto audit", conf: dict | None = None):
    """A SparkSession for the pipeline (an existing one is reused, as ``getOrCreate`` does)."""
    submitted = under_spark_submit()
    if master is None and not submitted:
        master = DEFAULT_MASTER
    if not submitted and is_local_master(master):
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
        os.environ.setdefault("PYSPARK_DRIVER_PYTHON", sys.executable)
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    from pyspark.sql import SparkSession

    builder = SparkSession.builder.appName(app_name)
    if master is not None:
        builder = builder.master(master)
    settings = dict(DEFAULT_CONF)
    if not submitted and is_local_master(master):
        settings.update(LOCAL_CONF)
    settings.update(conf or {})
    for key, value in settings.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def java_available() -> bool:
    from shutil import which

    home = os.environ.get("JAVA_HOME")
    return bool(which("java") or (home and os.path.exists(os.path.join(home, "bin", "java"))))


class Progress:
    """One line saying what the job is doing: the phase, its Spark tasks done, time elapsed.

    On a terminal the line is rewritten in place; otherwise a line is printed when a phase ends
    (and every ``interval`` seconds during a long one).
    """

    def __init__(self, spark=None, stream=None, enabled: bool = True, interval: float = 10.0):
        self.spark = spark
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = enabled
        self.tty = enabled and hasattr(self.stream, "isatty") and self.stream.isatty()
        self.interval = interval
        self.started = time.perf_counter()
        self.phases: list[tuple[str, float]] = []

    def _tasks(self) -> str:
        if self.spark is None:
            return ""
        try:
            tracker = self.spark.sparkContext.statusTracker()
            done = total = 0
            for stage_id in tracker.getActiveStageIds():
                info = tracker.getStageInfo(stage_id)
                if info is not None:
                    done += info.numCompletedTasks
                    total += info.numTasks
            return f" {done}/{total} tasks" if total else ""
        except Exception:  # the tracker is advisory; never let it break the job
            return ""

    def _write(self, text: str, final: bool) -> None:
        if self.tty:
            self.stream.write("\r\033[K" + text + ("\n" if final else ""))
        else:
            self.stream.write(text + "\n")
        self.stream.flush()

    @contextmanager
    def phase(self, name: str):
        start = time.perf_counter()
        stop = threading.Event()
        if self.spark is not None:
            self.spark.sparkContext.setJobDescription(name)

        def tick() -> None:
            last = time.perf_counter()
            while not stop.wait(0.5):
                now = time.perf_counter()
                if self.tty or now - last >= self.interval:
                    last = now
                    self._write(f"[audit] {name}:{self._tasks()} {now - start:6.1f} s", final=False)

        thread = None
        if self.enabled:
            if self.tty:
                self._write(f"[audit] {name} ...", final=False)
            thread = threading.Thread(target=tick, daemon=True)
            thread.start()
        try:
            yield
        except BaseException:
            # Stopped (Ctrl-C, an error): no "done"; a half-written terminal line is cleared so
            # that the message that follows stands alone.
            stop.set()
            if thread is not None:
                thread.join()
            if self.tty:
                self.stream.write("\r\033[K")
                self.stream.flush()
            raise
        stop.set()
        if thread is not None:
            thread.join()
        elapsed = time.perf_counter() - start
        self.phases.append((name, elapsed))
        if self.enabled:
            self._write(f"[audit] {name}: done in {elapsed:.1f} s", final=True)
        if self.spark is not None:
            self.spark.sparkContext.setJobDescription(None)
