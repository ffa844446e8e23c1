"""Apache Kafka's own serializer as a subprocess: the oracle our bytes are judged by.

``kafka/RELEASE/pom.xml`` names the Kafka artifacts of one release line; ``tools/kafka_setup.sh``
resolves them through Maven into ``.kafka/RELEASE/classpath.txt`` and compiles
``kafka/oracle/Oracle.java`` against them. This module finds those pieces, says which one is
missing, and talks to the oracle (one JSON line per request, answers in order)::

    with Oracle("4.4.0") as kafka:
        kafka.encode("FetchRequest", 13, data)      # -> bytes Kafka writes
        kafka.decode("FetchRequest", 13, body)      # -> Kafka's JSON, bytes read, re-encoding
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import threading
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator

ROOT = Path(__file__).resolve().parents[1]
POMS = ROOT / "kafka"
CACHE = ROOT / ".kafka"
REQUIRE_ENV = "KAFKA_META_PROTO_REQUIRE_KAFKA"
# Bounded heap and a quick start: the oracle holds one message at a time.
JAVA_OPTIONS = ("-Xms64m", "-Xmx512m", "-XX:+UseSerialGC", "-Xshare:auto")
# A tool run over a test's few files is over before the optimizing compiler pays back: the quick
# compiler alone and the serial collector cut its CPU by about a third.
QUICK_START = ("-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xshare:auto")


# The newest kafka-shell jar Maven Central serves (4.4.0 publishes none): the reference for our
# metadata shell, in a folder of its own that is not a protocol release line.
SHELL = "shell-4.3.1"


def releases() -> list[str]:
    """The Kafka release lines the project speaks and tests against, oldest first: the folders
    under kafka/ named by a version (not tool-only ones such as shell-4.3.1)."""
    found = [p.parent.name for p in POMS.glob("*/pom.xml") if re.fullmatch(r"[0-9]+(\.[0-9]+)*", p.parent.name)]
    return sorted(found, key=lambda r: tuple(int(x) for x in r.split(".")))


def required() -> bool:
    """Under KAFKA_META_PROTO_REQUIRE_KAFKA=1 (CI) a missing piece fails instead of skipping."""
    return os.environ.get(REQUIRE_ENV, "") not in ("", "0")


def missing(release: str) -> str | None:
    """Why Kafka ``release`` cannot be run here, or None when everything is in place."""
    if shutil.which("java") is None:
        return "java is not on PATH (Java 17 runs Kafka's classes)"
    if not (POMS / release / "pom.xml").exists():
        return f"kafka/{release}/pom.xml is missing"
    if not (CACHE / release / "classpath.txt").exists():
        if shutil.which("mvn") is None:
            return "Maven (mvn) is not on PATH, so Kafka's jars were never fetched"
        return f"Kafka {release}'s jars were not fetched yet: run bash tools/setup.sh"
    if release in releases() and not (CACHE / release / "oracle" / "Oracle.class").exists():
        if shutil.which("javac") is None:
            return "javac is not on PATH, so the oracle was not compiled"
        return f"the oracle for Kafka {release} was not compiled: run bash tools/setup.sh"
    return None


def jars(release: str) -> list[Path]:
    """Every jar on Kafka ``release``'s classpath (Kafka's own and their dependencies)."""
    text = (CACHE / release / "classpath.txt").read_text().strip()
    return [Path(p) for p in text.split(os.pathsep) if p]


def dump_log_segments(release: str, *args: str, heap: str = "-Xmx256m") -> list[str]:
    """The command running Kafka ``release``'s DumpLogSegments with ``args`` (the Scala tool,
    ``kafka.tools``, up to 4.2; the Java one, ``org.apache.kafka.tools``, from 4.3)."""
    major_minor = tuple(int(x) for x in release.split(".")[:2])
    main = "org.apache.kafka.tools.DumpLogSegments" if major_minor >= (4, 3) else "kafka.tools.DumpLogSegments"
    return ["java", heap, *QUICK_START, "-cp", os.pathsep.join(map(str, jars(release))), main, *args]


@dataclass(frozen=True)
class SchemaFile:
    jar: str  # the jar's file name, e.g. kafka-clients-4.3.1.jar
    entry: str  # the path inside it, e.g. common/message/FetchRequest.json
    text: str

    @property
    def name(self) -> str:
        """The schema's "name" (which can differ from the file's)."""
        from codegen.jsonc import strip_comments

        return json.loads(strip_comments(self.text))["name"]


def schema_files(release: str) -> Iterator[SchemaFile]:
    """The JSON message schemas packed in Kafka ``release``'s own jars (``org.apache.kafka``)."""
    return schema_files_in(jars(release))


def schema_files_in(classpath: Iterable[Path]) -> Iterator[SchemaFile]:
    """The JSON message schemas packed in Kafka's own jars (``org.apache.kafka``) of a classpath."""
    for jar in classpath:
        if f"{os.sep}org{os.sep}apache{os.sep}kafka{os.sep}" not in str(jar):
            continue
        with zipfile.ZipFile(jar) as archive:
            for entry in sorted(archive.namelist()):
                if entry.endswith(".json") and ("message/" in entry or "metadata/" in entry):
                    yield SchemaFile(jar.name, entry, archive.read(entry).decode("utf-8"))


class OracleError(RuntimeError):
    """The oracle could not answer (it refused the request, or the process died)."""


class Oracle:
    """One running oracle process for one Kafka release."""

    def __init__(self, release: str):
        reason = missing(release)
        if reason:
            raise OracleError(f"Kafka {release} cannot run here: {reason}")
        self.release = release
        classpath = os.pathsep.join([str(CACHE / release / "oracle"), *map(str, jars(release))])
        self._process = subprocess.Popen(
            ["java", *JAVA_OPTIONS, "-cp", classpath, "Oracle"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            encoding="utf-8",
            bufsize=1 << 16,
        )
        self._lock = threading.Lock()

    def __enter__(self) -> "Oracle":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        if self._process.poll() is None:
            self._process.stdin.close()
            try:
                self._process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
        for stream in (self._process.stdout, self._process.stderr):
            stream.close()

    def call_many(self, requests: Iterable[dict]) -> list[dict]:
        """Send every request, then read every answer (in order); a writer thread keeps the two
        pipes from filling up against each other."""
        requests = list(requests)
        lines = [json.dumps(r, allow_nan=True, ensure_ascii=True) + "\n" for r in requests]
        with self._lock:
            failure: list[BaseException] = []

            def write() -> None:
                try:
                    self._process.stdin.writelines(lines)
                    self._process.stdin.flush()
                except BaseException as e:  # a dead process: reported by the reader below
                    failure.append(e)

            writer = threading.Thread(target=write, daemon=True)
            writer.start()
            answers = []
            for _ in requests:
                line = self._process.stdout.readline()
                if not line:
                    writer.join(timeout=1)
                    raise OracleError(
                        f"the Kafka {self.release} oracle died: {self._stderr_tail()}"
                    )
                answers.append(json.loads(line))
            writer.join()
            if failure:
                raise OracleError(
                    f"writing to the Kafka {self.release} oracle failed: {failure[0]}"
                )
            return answers

    def call(self, request: dict) -> dict:
        answer = self.call_many([request])[0]
        if not answer.get("ok"):
            raise OracleError(f"Kafka {self.release}: {answer.get('error')}")
        return answer

    def _stderr_tail(self) -> str:
        try:
            self._process.wait(timeout=5)
            return self._process.stderr.read()[-2000:] or f"exit code {self._process.returncode}"
        except subprocess.TimeoutExpired:
            return "(no answer, still running)"

    # The four requests, as plain calls.

    def encode(self, name: str, version: int, data: dict) -> bytes:
        return bytes.fromhex(
            self.call({"op": "encode", "name": name, "version": version, "data": data})["hex"]
        )

    def decode(self, name: str, version: int, body: bytes) -> dict:
        """Kafka's reading of ``body``: its JSON form ("data"), "consumed" bytes and "reencoded"."""
        answer = self.call({"op": "decode", "name": name, "version": version, "hex": body.hex()})
        answer["reencoded"] = bytes.fromhex(answer["reencoded"])
        return answer

    def info(self, name: str) -> dict:
        return self.call({"op": "info", "name": name})

    def messages(self) -> dict[str, range]:
        """Every message class this Kafka release has: schema name -> the versions it defines."""
        answer = self.call({"op": "list"})
        return {m["name"]: range(m["lowest"], m["highest"] + 1) for m in answer["messages"]}


def java_command(release: str, main: str, *args: str) -> list[str]:
    """The command running class ``main`` of Kafka ``release`` (a tool such as
    org.apache.kafka.tools.TopicCommand) with ``args``, on the release's classpath."""
    classpath = os.pathsep.join(str(jar) for jar in jars(release))
    return ["java", *JAVA_OPTIONS, "-cp", classpath, main, *args]
