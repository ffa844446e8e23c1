"""A Spark standalone cluster on loopback, run from the installed PySpark's own jars.

    with SparkStandalone(workdir, workers=2) as cluster:   # a master and two workers
        cluster.url                                         # spark://127.0.0.1:<port>
        cluster.startup_seconds                             # until every worker had registered

The master and each worker are separate JVMs (bounded heaps, ``java -cp <pyspark>/jars/*``) on
free loopback ports, each logging to a file in ``workdir`` (``master.log``, ``worker-N.log``).
The workers start their executors from the same jars: ``SPARK_HOME`` is the pyspark package
directory (it holds ``jars/``) and ``SPARK_SCALA_VERSION`` is set as ``spark-class`` sets it.
They pass their environment on to the executors: ``SPARK_LOCAL_IP=127.0.0.1`` and ``PYTHONPATH``
(the given source directories), so the executors' Python workers import the package from the
shared file system, as workers with it installed would. Which interpreter those Python workers
run is the driver's choice (its ``PYSPARK_PYTHON``, else ``python3``); the daemons get
``PYSPARK_PYTHON`` too (this interpreter unless told otherwise), for what they start themselves.
Everything started is stopped on exit, and killed when start-up fails.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

DAEMON_OPTIONS = (
    "-Xms64m",
    "-XX:+UseSerialGC",
    "-Djava.awt.headless=true",
    # the master's REST submission server listens on a fixed port (6066) by default
    "-Dspark.master.rest.enabled=false",
)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def pyspark_home() -> Path:
    """The installed pyspark package directory: its ``jars/`` are Spark's."""
    import pyspark

    return Path(pyspark.__file__).resolve().parent


def scala_version(home: Path) -> str:
    """The Scala line Spark was built for, from its core jar's name (spark-core_2.13-4.3.0.jar).

    A worker builds its executors' command line with Spark's launcher, which needs it:
    ``spark-class`` exports it (bin/load-spark-env.sh); without it the launcher looks for a
    source build's directories and fails ("Cannot find any build directories")."""
    for jar in sorted((home / "jars").glob("spark-core_*.jar")):
        return jar.name[len("spark-core_") :].split("-")[0]
    raise FileNotFoundError(f"no spark-core jar in {home / 'jars'}")


class SparkStandalone:
    def __init__(
        self,
        workdir,
        workers: int = 2,
        cores_per_worker: int = 1,
        memory: str = "1g",
        daemon_heap: str = "256m",
        python: str | None = None,
        pythonpath: list[str] | tuple[str, ...] = (),
        timeout: float = 120,
    ):
        self.workdir = Path(workdir)
        self.workers = workers
        self.cores_per_worker = cores_per_worker
        self.memory = memory
        self.daemon_heap = daemon_heap
        self.python = python or sys.executable
        self.pythonpath = [str(p) for p in pythonpath]
        self.timeout = timeout
        self.home = pyspark_home()
        self.port = free_port()
        self.webui_port = free_port()
        self.processes: list[tuple[str, subprocess.Popen]] = []  # (name, process), master first
        self.startup_seconds = 0.0

    @property
    def url(self) -> str:
        return f"spark://127.0.0.1:{self.port}"

    @property
    def webui(self) -> str:
        return f"http://127.0.0.1:{self.webui_port}"

    def environment(self) -> dict[str, str]:
        """What the daemons run with (the workers hand it on to their executors)."""
        env = dict(os.environ)
        env.update(SPARK_HOME=str(self.home), SPARK_SCALA_VERSION=scala_version(self.home),
                   SPARK_LOCAL_IP="127.0.0.1", PYSPARK_PYTHON=self.python)  # fmt: skip
        env.pop("PYSPARK_GATEWAY_PORT", None)
        env.pop("PYSPARK_GATEWAY_SECRET", None)
        if self.pythonpath:
            env["PYTHONPATH"] = os.pathsep.join(
                [*self.pythonpath, *filter(None, [env.get("PYTHONPATH")])]
            )
        return env

    def log_file(self, name: str) -> Path:
        return self.workdir / f"{name}.log"

    def _launch(self, name: str, main_class: str, *args: str) -> None:
        java = ["java", f"-Xmx{self.daemon_heap}", *DAEMON_OPTIONS]
        command = [*java, "-cp", str(self.home / "jars" / "*"), main_class, *args]
        with open(self.log_file(name), "ab") as log:
            process = subprocess.Popen(
                command, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                env=self.environment(), cwd=self.workdir,
                start_new_session=True,  # its own process group: the executors it starts go with it
            )  # fmt: skip
        self.processes.append((name, process))

    def status(self) -> dict:
        """The master's JSON status page (workers, cores, applications)."""
        with urllib.request.urlopen(f"{self.webui}/json/", timeout=5) as response:
            return json.load(response)

    def _wait(self, ready, what: str, deadline: float) -> None:
        last = None
        while time.monotonic() < deadline:
            for name, process in self.processes:
                if process.poll() is not None:
                    log = self.log_file(name)
                    raise RuntimeError(f"the {name} exited before {what}: see {log}")
            try:
                if ready(self.status()):
                    return
            except (OSError, ValueError) as exc:  # not listening yet, or a half-written page
                last = exc
            time.sleep(0.25)
        raise TimeoutError(
            f"no {what} within {self.timeout} s (last: {last}); logs in {self.workdir}"
        )

    def start(self) -> "SparkStandalone":
        began = time.monotonic()
        deadline = began + self.timeout
        self.workdir.mkdir(parents=True, exist_ok=True)
        try:
            self._launch("master", "org.apache.spark.deploy.master.Master",
                         "--host", "127.0.0.1", "--port", str(self.port), "--webui-port", str(self.webui_port))  # fmt: skip
            self._wait(lambda s: s.get("status") == "ALIVE", "master alive", deadline)
            for i in range(1, self.workers + 1):
                work = self.workdir / f"worker-{i}"
                work.mkdir(exist_ok=True)
                self._launch(f"worker-{i}", "org.apache.spark.deploy.worker.Worker", self.url,
                             "--host", "127.0.0.1", "--cores", str(self.cores_per_worker), "--memory", self.memory,
                             "--work-dir", str(work), "--webui-port", str(free_port()))  # fmt: skip
            self._wait(
                lambda s: s.get("aliveworkers", 0) >= self.workers,
                f"{self.workers} workers registered",
                deadline,
            )
        except BaseException:
            self.stop(hard=True)
            raise
        self.startup_seconds = time.monotonic() - began
        return self

    def stop(self, hard: bool = False, timeout: float = 30) -> None:
        """Workers first (each stops its executors), then the master; killed if they linger."""
        for name, process in reversed(self.processes):
            if process.poll() is None:
                self._signal(process, signal.SIGKILL if hard else signal.SIGTERM)
                try:
                    process.wait(timeout=timeout)
                except subprocess.TimeoutExpired:
                    self._signal(process, signal.SIGKILL)
                    process.wait()
            # anything the daemon started and left behind (an executor) is in its process group
            self._signal(process, signal.SIGKILL)
        self.processes.clear()

    @staticmethod
    def _signal(process: subprocess.Popen, sig: int) -> None:
        try:
            os.killpg(process.pid, sig)  # the group we created for this daemon (start_new_session)
        except (ProcessLookupError, PermissionError):
            pass

    def __enter__(self) -> "SparkStandalone":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


if (
    __name__ == "__main__"
):  # python tools/spark_standalone.py WORKDIR: start, print the URL, wait for Ctrl-C
    import argparse

    parser = argparse.ArgumentParser(description="a Spark standalone cluster on loopback")
    parser.add_argument("workdir")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--pythonpath", action="append", default=[])
    args = parser.parse_args()
    with SparkStandalone(args.workdir, workers=args.workers, pythonpath=args.pythonpath) as cluster:
        print(
            f"{cluster.url} (web UI {cluster.webui}), up in {cluster.startup_seconds:.1f} s; Ctrl-C stops it",
            flush=True,
        )
        try:
            signal.pause()
        except KeyboardInterrupt:
            pass
