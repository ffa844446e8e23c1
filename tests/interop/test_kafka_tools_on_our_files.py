"""Kafka's own tools on the files we write: every segment, snapshot and bootstrap file that
``kafka-meta-proto simulate`` writes is read by Kafka's DumpLogSegments, and its output equals our
dump-log's line for line, but for the diskless design's record (type 29), which Kafka does not
know and reports as such."""

from __future__ import annotations

import io
import os
import subprocess

import pytest

import kafka_oracle
from conftest import need_kafka
from interop.conftest import RELEASES
from kafka_meta_proto import dump


@pytest.fixture(scope="module")
def simulated(tmp_path_factory):
    out = tmp_path_factory.mktemp("simulated")
    from kafka_meta_proto import cli

    assert (
        cli.main(["simulate", "--out", str(out), "--records", "3000", "--seed", "3", "--quiet"])
        == 0
    )
    files = sorted(p for p in out.rglob("*") if p.suffix in (".log", ".checkpoint"))
    assert any(p.name == "bootstrap.checkpoint" for p in files) and any(
        p.suffix == ".log" for p in files
    )
    return out, files


@pytest.mark.parametrize("release", RELEASES)
def test_dump_log_segments_reads_our_files_as_we_do(release, simulated):
    need_kafka(release)
    out, files = simulated
    relative = [str(p.relative_to(out)) for p in files]
    main = (
        "org.apache.kafka.tools.DumpLogSegments"
        if release >= "4"
        else "kafka.tools.DumpLogSegments"
    )
    classpath = os.pathsep.join(map(str, kafka_oracle.jars(release)))
    run = subprocess.run(
        ["java", "-Xmx512m", "-cp", classpath, main, "--cluster-metadata-decoder", "--files", ",".join(relative)],
        cwd=out, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-2000:]
    assert "isvalid: false" not in run.stdout
    ours = io.StringIO()
    cwd = os.getcwd()
    os.chdir(out)
    try:
        assert dump.dump(relative, out=ours, err=io.StringIO()) == 0
    finally:
        os.chdir(cwd)
    theirs, mine = run.stdout.splitlines(), ours.getvalue().splitlines()
    unknown_to_kafka = "Unknown metadata id 29"
    diskless = [i for i, (a, b) in enumerate(zip(mine, theirs)) if a != b and unknown_to_kafka in b
                and '"type":"TOPIC_PARTITION_TO_BATCH_COORDINATOR_MAPPING"' in a]  # fmt: skip
    # Kafka 3.9's tool prints a segment's first LeaderChange record by its control type only
    # ("controlType: LEADER_CHANGE(2)"); 4.x prints it as JSON, as our dump-log does.
    only_type = {i for i, (a, b) in enumerate(zip(mine, theirs)) if a != b and b.endswith("controlType: LEADER_CHANGE(2)")
                 and " LeaderChange: {" in a and release < "4"}  # fmt: skip
    differing = [
        (i, a, b)
        for i, (a, b) in enumerate(zip(mine, theirs))
        if a != b and i not in set(diskless) | only_type
    ]
    assert len(diskless) == sum(unknown_to_kafka in line for line in theirs) > 0
    assert not differing, "\n".join(
        f"line {i}:\n  ours:  {a[:300]}\n  Kafka: {b[:300]}" for i, a, b in differing[:5]
    )
    assert len(mine) == len(theirs) > 1000
