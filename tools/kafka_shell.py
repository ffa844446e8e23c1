"""Kafka's metadata shell and ours, asked the same questions about the same snapshot.

    answers = compare_shells(SHELL, path)     # find /, tree /, ls of every directory, cat of every file
    answers.differences                       # [(command, line number, Kafka's line, ours)]
    answers.unexplained(SHELL)                # those without a named reason

``SHELL`` is ``kafka_oracle.SHELL``, the folder of the newest kafka-shell jar Maven Central serves
(``shell-4.3.1``: Kafka 4.4.0 publishes no kafka-shell jar), so the reference shell may be older
than the newest release line. Kafka's shell (``org.apache.kafka.shell.MetadataShell --snapshot
FILE``) runs from that folder's jars in one JVM, driven through its prompt, its logging sent to stderr. It takes a lock on the log
directory two levels up when one is there, so give it a copy of a live cluster's files. ``reason``
names each difference that remains.
"""

from __future__ import annotations

import io
import os
import re
import select
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import kafka_oracle
from kafka_oracle import SHELL
from kafka_meta_proto import __version__
from kafka_meta_proto.commands.shell import command_lines
from kafka_meta_proto.kraft.image import DIRECTORY_MIGRATING, DIRECTORY_UNASSIGNED, MetadataImage
from kafka_meta_proto.tools.shell import MetadataShell

_LOG4J2 = (
    "appender.err.type = Console\nappender.err.name = ERR\nappender.err.target = SYSTEM_ERR\n"
    "appender.err.layout.type = PatternLayout\nappender.err.layout.pattern = %p %m%n\n"
    "rootLogger.level = warn\nrootLogger.appenderRef.err.ref = ERR\n"
)


class KafkaShell:
    """Kafka's shell in interactive mode on one file, asked one command at a time.

    Its one-shot mode answers as soon as the first batch is applied, which for a ``.log`` file is
    a partial image; here ``wait_for`` polls a file until it reads as expected (the provenance of
    the last record) before the real questions are put."""

    PROMPT = ">> "
    # Kafka's shell waits until its loader has applied an offset above 0, and a race between the
    # loader and the file reader's high-water mark can leave it waiting for ever; on a file of a
    # few batches about one start in ten hangs at "Loading...". A start that takes longer than
    # STARTUP_TIMEOUT is abandoned and tried again, up to STARTS times.
    STARTUP_TIMEOUT = 30.0
    STARTS = 4

    def __init__(self, release: str, path: Path):
        """``release``: the folder of Kafka's jars (``SHELL``, or a release line holding kafka-shell)."""
        classpath = ":".join(str(jar) for jar in kafka_oracle.jars(release))
        self._tmp = tempfile.TemporaryDirectory()
        config = Path(self._tmp.name) / "log4j2.properties"
        config.write_text(_LOG4J2, encoding="utf-8")
        command = [
            "java", "-Xmx256m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
            f"-Dlog4j2.configurationFile={config}", "-cp", classpath,
            "org.apache.kafka.shell.MetadataShell", "--snapshot", str(path),
        ]  # fmt: skip
        for start in range(1, self.STARTS + 1):
            self.process = subprocess.Popen(
                command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
            )
            try:
                self._read_until_prompt(self.STARTUP_TIMEOUT)  # "Loading...", the banner
                return
            except TimeoutError:
                self._stop()
                if start == self.STARTS:
                    self._tmp.cleanup()
                    raise

    def _read_until_prompt(self, timeout: float) -> str:
        data = bytearray()
        deadline = time.monotonic() + timeout
        fd = self.process.stdout.fileno()
        while not data.endswith(self.PROMPT.encode()):
            if not select.select([fd], [], [], max(0.0, deadline - time.monotonic()))[0]:
                raise TimeoutError(f"Kafka's metadata shell did not answer: {bytes(data[-500:])!r}")
            chunk = os.read(fd, 65536)
            if not chunk:
                raise RuntimeError(f"Kafka's metadata shell ended: {bytes(data[-500:])!r}")
            data += chunk
        return data[: -len(self.PROMPT)].decode("utf-8")

    def ask(self, command: str, timeout: float = 120) -> list[str]:
        self.process.stdin.write(command.encode("utf-8") + b"\n")
        self.process.stdin.flush()
        return self._read_until_prompt(timeout).splitlines()

    def wait_for(self, command: str, expected: list[str], timeout: float = 60) -> list[str]:
        deadline = time.monotonic() + timeout
        while (answer := self.ask(command)) != expected and time.monotonic() < deadline:
            time.sleep(0.2)
        return answer

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.stdin.close()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self._stop()
        self._tmp.cleanup()

    def _stop(self) -> None:
        self.process.kill()
        self.process.wait()
        for stream in (self.process.stdin, self.process.stdout):
            stream.close()

    def __enter__(self) -> "KafkaShell":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


# The differences that remain, each with its reason (docs/metadata-shell.md).
PROVENANCE = "a snapshot's provenance: ours is the log offset the snapshot stands for, Kafka's the offset inside the file"
DIRECTORIES = "a partition recorded without directories: Kafka 4 fills UNASSIGNED, the image 3.x's MIGRATING"
LOCAL = "/local describes the tool that answers"


def shell_version(release: str) -> str:
    """The Kafka version of a folder of jars: ``shell-4.3.1`` is 4.3.1."""
    return release.removeprefix("shell-")


def reason(release: str, theirs: str | None, ours: str | None) -> str | None:
    """Why Kafka's line and ours differ, when it is one of the named differences."""
    if theirs is None or ours is None:
        return None
    theirs, ours = theirs.strip(), ours.strip()
    if theirs.startswith("offset ") and ours.startswith("offset "):
        if theirs.split(",")[1:] == ours.split(",")[1:]:
            return PROVENANCE
    if ours.replace(str(DIRECTORY_MIGRATING), str(DIRECTORY_UNASSIGNED)) == theirs:
        return DIRECTORIES
    if (theirs, ours) == (shell_version(release), __version__) or (
        ours == "unknown" and re.fullmatch("[0-9a-f]{16}", theirs)
    ):
        return LOCAL
    return None


def load(snapshot: Path) -> MetadataImage:
    """The image our shell serves for ``--snapshot FILE`` (a ``.log`` file is replayed)."""
    if snapshot.suffix == ".log":
        return MetadataImage(strict=False).replay_segment(snapshot)
    return MetadataImage.from_snapshot(snapshot, strict=False)


def our_shell(shell: MetadataShell, *words: str) -> list[str]:
    out, err = io.StringIO(), io.StringIO()
    shell.out, shell.err = out, err
    shell.run_lines(command_lines(list(words)))
    if err.getvalue():
        raise RuntimeError(f"our shell failed: {err.getvalue()}")
    return out.getvalue().splitlines()


@dataclass
class Answers:
    """What each shell printed, command by command, and where they differ."""

    kafka: dict[str, list[str]] = field(default_factory=dict)
    ours: dict[str, list[str]] = field(default_factory=dict)

    @property
    def differences(self) -> list[tuple[str, int, str | None, str | None]]:
        found = []
        for command, theirs in self.kafka.items():
            mine = self.ours[command]
            for i in range(max(len(theirs), len(mine))):
                a = theirs[i] if i < len(theirs) else None
                b = mine[i] if i < len(mine) else None
                if a != b:
                    found.append((command, i, a, b))
        return found

    def unexplained(self, release: str) -> list[tuple[str, int, str | None, str | None]]:
        """The differences ``reason`` does not account for."""
        return [d for d in self.differences if reason(release, d[2], d[3]) is None]

    @property
    def lines(self) -> int:
        return sum(max(len(self.kafka[c]), len(self.ours[c])) for c in self.kafka)


# Every comparison made in this process: (file name, lines compared, lines that differ).
COMPARISONS: list[tuple[str, int, int]] = []


def compare_shells(release: str, path: Path) -> Answers:
    """``find /``, ``tree /``, ``ls`` of every directory and ``cat`` of every file, in both shells.

    For a ``.log`` file Kafka's answers are taken once its provenance shows the last record ours
    applied; a snapshot is applied whole, and there the provenance offsets differ (see
    docs/metadata-shell.md)."""
    shell = MetadataShell.for_image(load(path))
    answers = Answers()
    with KafkaShell(release, path) as kafka:
        if path.suffix == ".log":
            kafka.wait_for("cat /image/provenance", our_shell(shell, "cat", "/image/provenance"))

        def ask(*words: str) -> None:
            key = " ".join(words[:1] + (f"({len(words) - 1} paths)",) if len(words) > 3 else words)
            line = " ".join(_escape(word) for word in words)
            answers.kafka[key] = kafka.ask(line)
            answers.ours[key] = our_shell(shell, *words)

        ask("find", "/")
        ask("tree", "/")
        paths = answers.kafka["find /"]
        directories = {p for p in paths if _is_directory(shell, p)}
        ask("ls", *[p for p in paths if p in directories])
        ask("cat", *[p for p in paths if p not in directories])
    COMPARISONS.append((path.name, answers.lines, len(answers.differences)))
    return answers


def _escape(word: str) -> str:
    """A word as Kafka's shell's line reader (JLine) reads it back: backslash escapes, quotes in
    any position included."""
    for special in "\\ \"'":
        word = word.replace(special, "\\" + special)
    return word


def _is_directory(shell: MetadataShell, path: str) -> bool:
    try:
        return isinstance(shell.lookup(path)[1], dict)
    except Exception:
        return False
