"""Our log tools against Kafka's own, on the files a live controller wrote (segments and a
snapshot): ``dump-log`` prints what Kafka's DumpLogSegments prints, line for line, and its JSON
form carries the payloads Kafka prints."""

from __future__ import annotations

import io
import json
import subprocess

import pytest

from cluster.helpers import copy_metadata_log, log_files, wait_for
from kafka_meta_proto import dump, message_class
from kafka_client import KafkaConnection

pytestmark = pytest.mark.cluster

CreateTopicsRequest = message_class("CreateTopicsRequest")


def kafka_dump_log(cluster, files) -> list[str]:
    """Kafka's DumpLogSegments (kafka.tools in 3.9, org.apache.kafka.tools in 4.x)."""
    main = "org.apache.kafka.tools.DumpLogSegments" if cluster.release >= "4" else "kafka.tools.DumpLogSegments"
    run = subprocess.run(
        cluster._java(main, "--cluster-metadata-decoder", "--files", ",".join(map(str, files))),
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-2000:]
    return run.stdout.splitlines()


@pytest.fixture(scope="module")
def metadata_files(cluster, tmp_path_factory):
    """The controller's log once it holds a snapshot: topics are created until it takes one."""
    with KafkaConnection(*cluster.bootstrap[0]) as conn:

        def snapshot_taken():
            if any(p.suffix == ".checkpoint" for p in cluster.metadata_dir().iterdir()):
                return True
            topic = CreateTopicsRequest.CreatableTopic(
                name=f"filler-{conn.correlation_id}", num_partitions=20, replication_factor=2
            )
            conn.send(CreateTopicsRequest(topics=[topic], timeout_ms=30000), 7)
            return False

        wait_for(snapshot_taken, "a metadata snapshot", timeout=120, every=0.5)
    return log_files(copy_metadata_log(cluster, tmp_path_factory.mktemp("metadata-copy")))


def test_dump_log_text_equals_kafkas(cluster, metadata_files):
    assert any(p.suffix == ".checkpoint" for p in metadata_files)
    theirs = kafka_dump_log(cluster, metadata_files)
    out = io.StringIO()
    status = dump.dump([str(p) for p in metadata_files], out=out, err=io.StringIO())
    ours = out.getvalue().splitlines()
    differing = [(i, a, b) for i, (a, b) in enumerate(zip(ours, theirs)) if a != b]
    assert not differing, "\n".join(f"line {i}:\n  ours:  {a[:300]}\n  Kafka: {b[:300]}" for i, a, b in differing[:5])
    assert len(ours) == len(theirs) and status == 0


def test_dump_log_json_carries_kafkas_payloads(cluster, metadata_files):
    """Each record of --json holds the type, version and data Kafka prints in its payload."""
    theirs = {}
    current = None
    for line in kafka_dump_log(cluster, metadata_files):
        if line.startswith("Dumping "):
            current = line[len("Dumping "):]
        elif line.startswith("| offset: ") and " payload: " in line:
            offset = int(line.split()[2])
            theirs[(current, offset)] = json.loads(line.split(" payload: ", 1)[1])
    compared = 0
    for path in metadata_files:
        for obj in dump.iter_json_records(str(path)):
            key = (str(path), obj["offset"])
            if key in theirs:
                assert {k: obj[k] for k in ("type", "version", "data")} == theirs[key], key
                compared += 1
    assert compared == len(theirs) and compared > 100
