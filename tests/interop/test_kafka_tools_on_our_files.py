"""Kafka's own tools on the files we write: every segment, snapshot and bootstrap file that
``kafka-meta-proto simulate`` writes is read by Kafka's DumpLogSegments, and its output equals our
dump-log's line for line. With ``simulate --diskless`` the files also hold the diskless design's
record type 29, which Kafka reads as its own UnregisterControllerRecord (4.4) or not at all (3.9):
those lines, and only those, differ."""

from __future__ import annotations

import io
import os
import subprocess
import sys

import pytest

import kafka_oracle
from conftest import need_kafka
from interop.conftest import RELEASES
from kafka_meta_proto import registries
from kafka_meta_proto.tools import dump

MAPPING = '"type":"TOPIC_PARTITION_TO_BATCH_COORDINATOR_MAPPING"'


def _simulate(out, *flags: str):
    from kafka_meta_proto import cli

    argv = ["simulate", "--out", str(out), "--records", "3000", "--seed", "3", "--quiet", *flags]
    assert cli.main(argv) == 0
    files = sorted(p for p in out.rglob("*") if p.suffix in (".log", ".checkpoint"))
    assert any(p.name == "bootstrap.checkpoint" for p in files) and any(
        p.suffix == ".log" for p in files
    )
    return out, files


@pytest.fixture(scope="module")
def simulated(tmp_path_factory):
    return _simulate(tmp_path_factory.mktemp("simulated"))


@pytest.fixture(scope="module")
def simulated_diskless(tmp_path_factory):
    return _simulate(tmp_path_factory.mktemp("simulated-diskless"), "--diskless")


def _both_dumps(release: str, simulated) -> tuple[list[str], list[str]]:
    """(our dump-log's lines, Kafka's DumpLogSegments' lines) over every file simulate wrote."""
    out, files = simulated
    relative = [str(p.relative_to(out)) for p in files]
    command = kafka_oracle.dump_log_segments(release, "--cluster-metadata-decoder", "--files", ",".join(relative),
                                             heap="-Xmx512m")  # fmt: skip
    run = subprocess.run(command, cwd=out, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    assert "isvalid: false" not in run.stdout
    ours = io.StringIO()
    cwd = os.getcwd()
    os.chdir(out)
    try:
        assert dump.dump(relative, out=ours, err=io.StringIO(), form=dump.tool_form(release)) == 0
    finally:
        os.chdir(cwd)
    return ours.getvalue().splitlines(), run.stdout.splitlines()


@pytest.mark.parametrize("release", RELEASES)
def test_dump_log_segments_reads_our_files_as_we_do(release, simulated):
    """Only records Kafka defines (simulate's default): every line is Kafka's."""
    need_kafka(release)
    mine, theirs = _both_dumps(release, simulated)
    # Written in the form of the release (3.9 prints a LeaderChange record by its control type).
    differing = [(i, a, b) for i, (a, b) in enumerate(zip(mine, theirs)) if a != b]
    assert not differing, "\n".join(
        f"line {i}:\n  ours:  {a[:300]}\n  Kafka: {b[:300]}" for i, a, b in differing[:5]
    )
    assert len(mine) == len(theirs) > 1000
    assert not any(MAPPING in line for line in mine)


@pytest.mark.parametrize("release", RELEASES)
def test_the_diskless_record_is_the_only_line_kafka_reads_otherwise(release, simulated_diskless):
    """simulate --diskless: our dump-log follows the marker and shows the design's mapping; Kafka
    cannot read it (3.9 knows no type 29, 4.4's type 29 is UnregisterControllerRecord) and says so
    on exactly those lines."""
    need_kafka(release)
    out, files = simulated_diskless
    assert (next(out.iterdir()) / registries.MARKER).exists()
    mine, theirs = _both_dumps(release, simulated_diskless)
    assert len(mine) == len(theirs) > 1000
    mapped = [i for i, line in enumerate(mine) if MAPPING in line]
    differing = [i for i, (a, b) in enumerate(zip(mine, theirs)) if a != b]
    assert mapped and differing == mapped
    for i in mapped:
        assert "29" in theirs[i] and ("Unknown metadata id" in theirs[i] or "Error at" in theirs[i]), theirs[i]


def kafka_dump(release: str, cwd, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(kafka_oracle.dump_log_segments(release, *args), cwd=cwd, capture_output=True,
                          text=True, timeout=300)  # fmt: skip


def ours(cwd, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "kafka_meta_proto.cli", "dump-log", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=300)  # fmt: skip


def kafka_lines(text: str) -> list[str]:
    """Kafka's output without the log4j set-up warnings its jars print on a bare classpath."""
    return [line for line in text.splitlines() if not line.startswith("log4j:")]


def unexplained(mine: list[str], theirs: list[str]) -> list[tuple[str, str]]:
    """Lines that differ (simulate's default files hold only records Kafka defines: none may)."""
    assert len(mine) == len(theirs)
    return [(a, b) for a, b in zip(mine, theirs) if a != b]


@pytest.mark.slow  # over ten seconds: the slow tier (.ci/run)
@pytest.mark.parametrize("release", RELEASES)
@pytest.mark.parametrize("skip", [False, True], ids=["", "skip-record-metadata"])
def test_release_forms_max_bytes_and_unknown_files_as_kafka(release, skip, simulated, tmp_path):
    """On our simulated segments, with --kafka-version naming the release: the same stdout and
    stderr (gaps, ignored files) as Kafka's tool, and the same batches for each --max-bytes cut."""
    need_kafka(release)
    out, files = simulated
    segment = str(next(p for p in files if p.suffix == ".log").relative_to(out))
    (tmp_path / "notes.txt").write_text("not a segment")
    flags = ["--skip-record-metadata"] if skip else []
    theirs = kafka_dump(
        release,
        out,
        "--cluster-metadata-decoder",
        *flags,
        "--files",
        f"{tmp_path}/notes.txt,{segment}",
    )
    mine = ours(out, "--kafka-version", release, *flags, str(tmp_path / "notes.txt"), segment)
    assert theirs.returncode == 0 and mine.returncode == 1  # we also say so in the exit status
    assert not unexplained(mine.stdout.splitlines(), kafka_lines(theirs.stdout))
    assert kafka_lines(theirs.stderr) == mine.stderr.splitlines()
    if skip:
        return
    size = (out / segment).stat().st_size
    for cut in (100, size // 2, size - 1):
        theirs = kafka_dump(
            release, out, "--cluster-metadata-decoder", "--max-bytes", str(cut), "--files", segment
        )
        mine = ours(out, "--kafka-version", release, "--max-bytes", str(cut), segment)
        assert not unexplained(mine.stdout.splitlines(), kafka_lines(theirs.stdout)), cut
        assert mine.returncode == 0 and mine.stderr == "", cut  # a cut inside a batch is no damage


@pytest.mark.parametrize("release", RELEASES)
@pytest.mark.parametrize("decoder, scope", [("offsets", "group-coordinator"), ("transaction-log", "transaction-coordinator"),
                                            ("share-group-state", "share-coordinator")])  # fmt: skip
def test_coordinator_decoders_as_kafka(release, decoder, scope, tmp_path):
    """Segments of the coordinators' topics written by our log writer, dumped by Kafka's tool and
    ours; equal but for the reason after "Error at offset N, skipping." (ours, not Java's)."""
    from log.coordinator_segments import write_segment
    from log.test_dump_coordinators import same_but_error_reasons

    need_kafka(release)
    if decoder == "share-group-state" and release < "4":
        pytest.skip("Kafka 3.9's tool has no --share-group-state-decoder")
    # Kafka 3.9's transaction decoder stops with an exception at a record it cannot read.
    write_segment(tmp_path, scope, broken=not (decoder == "transaction-log" and release < "4"))
    theirs = kafka_dump(
        release, tmp_path, f"--{decoder}-decoder", "--files", "00000000000000000000.log"
    )
    mine = ours(
        tmp_path, "--kafka-version", release, f"--{decoder}-decoder", "00000000000000000000.log"
    )
    assert theirs.returncode == 0, theirs.stderr[-2000:]
    theirs_lines, mine_lines = kafka_lines(theirs.stdout), mine.stdout.splitlines()
    assert (
        not same_but_error_reasons(mine_lines, theirs_lines)
        and len(mine_lines) == len(theirs_lines) > 8
    )
