"""Our log tools against Kafka's own, on the files a live controller wrote (segments and a
snapshot): ``dump-log`` prints what Kafka's DumpLogSegments prints, line for line, and its JSON
form carries the payloads Kafka prints."""

from __future__ import annotations

import io
import itertools
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cluster.helpers import (
    connect,
    copy_metadata_log,
    init_producer_id,
    log_files,
    send,
    until_settled,
    wait_for,
)
from conftest import need_kafka
from kafka_meta_proto import message_class
from kafka_meta_proto.tools import dump
from kafka_meta_proto.log.batch import Record, RecordBatch
from kafka_meta_proto.log.names import parse_snapshot_name

pytestmark = [pytest.mark.cluster, pytest.mark.slow]  # real Kafka clusters: minutes

CreateTopicsRequest = message_class("CreateTopicsRequest")


def kafka_dump_log(cluster, files, decoder: str = "--cluster-metadata-decoder") -> list[str]:
    """Kafka's DumpLogSegments (kafka.tools in 3.9, org.apache.kafka.tools in 4.x)."""
    main = (
        "org.apache.kafka.tools.DumpLogSegments"
        if cluster.release >= "4"
        else "kafka.tools.DumpLogSegments"
    )
    run = subprocess.run(
        cluster._java(main, decoder, "--files", ",".join(map(str, files))),
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-2000:]
    # Kafka 3.9's tool logs a line of its own start on stdout through the node's log4j set-up.
    return [line for line in run.stdout.splitlines() if not LOG4J_LINE.match(line)]


LOG4J_LINE = re.compile(r"\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}\] (TRACE|DEBUG|INFO|WARN) ")


def snapshotted_metadata_log(cluster, tmp_path_factory, replicas: int) -> list[Path]:
    """A copy of the controller's log once it holds a snapshot of its own (not the bootstrap
    snapshot 4.4's storage tool writes, 00000000000000000000-0000000000.checkpoint): topics are
    created until it takes one."""
    fillers = itertools.count()
    with connect(*cluster.bootstrap[0]) as conn:

        def snapshot_taken():
            if any((parse_snapshot_name(p.name) or (0, 0)) != (0, 0) for p in cluster.metadata_dir().iterdir()):
                return True
            topic = CreateTopicsRequest.CreatableTopic(
                name=f"filler-{next(fillers)}", num_partitions=20, replication_factor=replicas
            )
            send(conn, CreateTopicsRequest(topics=[topic], timeout_ms=30000), 7)
            return False

        wait_for(snapshot_taken, "a metadata snapshot", timeout=120, every=0.5)
    return log_files(copy_metadata_log(cluster, tmp_path_factory.mktemp("metadata-copy")))


@pytest.fixture(scope="module")
def metadata_files(cluster, tmp_path_factory):
    """The newest release's controller log (a snapshot of its own included)."""
    return snapshotted_metadata_log(cluster, tmp_path_factory, replicas=2)


@pytest.fixture(scope="module")
def old_metadata_files(old_cluster, tmp_path_factory):
    """The 3.9 node's log (a snapshot included): files Kafka 4.3.1's shell can read."""
    return snapshotted_metadata_log(old_cluster, tmp_path_factory, replicas=1)


def test_dump_log_text_equals_kafkas(cluster, metadata_files):
    assert any(p.suffix == ".checkpoint" for p in metadata_files)
    theirs = kafka_dump_log(cluster, metadata_files)
    out = io.StringIO()
    status = dump.dump([str(p) for p in metadata_files], out=out, err=io.StringIO())
    ours = out.getvalue().splitlines()
    differing = [(i, a, b) for i, (a, b) in enumerate(zip(ours, theirs)) if a != b]
    assert not differing, "\n".join(
        f"line {i}:\n  ours:  {a[:300]}\n  Kafka: {b[:300]}" for i, a, b in differing[:5]
    )
    assert len(ours) == len(theirs) and status == 0


def test_dump_log_json_carries_kafkas_payloads(cluster, metadata_files):
    """Each record of --json holds the type, version and data Kafka prints in its payload."""
    theirs = {}
    current = None
    for line in kafka_dump_log(cluster, metadata_files):
        if line.startswith("Dumping "):
            current = line[len("Dumping ") :]
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


def test_shell_answers_as_kafkas_on_the_controllers_files(old_metadata_files):
    """Kafka's metadata shell and ours on a live controller's snapshot and first segment: find /,
    tree /, ls of every directory and cat of every file print the same lines, but for the named
    differences (the snapshot's provenance offset, /local). The shell is kafka_oracle.SHELL's
    (4.3.1: 4.4.0 publishes no kafka-shell jar), so the files are the 3.9 node's: 4.3.1's shell
    cannot read the newest release's (the next test)."""
    from kafka_shell import LOCAL, PROVENANCE, SHELL, compare_shells, reason

    need_kafka(SHELL)
    snapshot = [p for p in old_metadata_files if p.suffix == ".checkpoint"][-1]
    first_segment = [p for p in old_metadata_files if p.suffix == ".log"][0]
    for path, named in ((snapshot, {PROVENANCE, LOCAL}), (first_segment, {LOCAL})):
        answers = compare_shells(SHELL, path)
        assert not answers.unexplained(SHELL), answers.unexplained(SHELL)[:5]
        assert {reason(SHELL, a, b) for _, _, a, b in answers.differences} == named
        # how many topics the snapshot holds depends on when the controller took it: several
        # hundred lines usually; the tree check below asks for brokers and partitions)
        assert answers.lines > 100
        tree = "\n".join(answers.kafka["tree /"])
        assert "BrokerRegistration(id=" in tree and "PartitionRegistration(" in tree


def test_kafka_4_3_shell_loads_nothing_of_the_newest_release(metadata_files):
    """Kafka 4.3.1's shell on the 4.4.0 controller's first segment: it does not know
    metadata.version 4.4-IV2 (33), publishes no image and shows an empty one; ours shows it all.
    When Maven Central serves a kafka-shell of the newest release, kafka_oracle.SHELL moves to it
    and this test is to go."""
    from kafka_shell import SHELL, KafkaShell, load, our_shell

    need_kafka(SHELL)
    first_segment = [p for p in metadata_files if p.suffix == ".log"][0]
    with KafkaShell(SHELL, first_segment) as kafka:
        assert kafka.ask("cat /image/features/metadataVersion") == ["Optional.empty"]
        assert kafka.ask("ls /image/cluster/brokers") == []
    from kafka_meta_proto.tools.shell import MetadataShell

    ours = MetadataShell.for_image(load(first_segment))
    assert our_shell(ours, "cat", "/image/features/metadataVersion") == ["Optional[4.4-IV2]"]
    assert our_shell(ours, "ls", "/image/cluster/brokers") == ["2", "3"]


def test_audit_finds_a_real_cluster_clean(metadata_files, tmp_path):
    """The Spark audit over the controller's own log: no violation, every record accounted for."""
    out = tmp_path / "audit"
    run = run_audit(
        [metadata_files[0].parent.parent], out
    )  # the folder holding __cluster_metadata-0
    assert run.returncode == 0, run.stderr[-3000:]
    report = json.loads((out / "report.json").read_text())
    records = sum(1 for path in metadata_files for _ in dump.iter_json_records(str(path)))
    assert (report["records_read"], report["records_written"], report["records_reported"]) == (
        records,
        records,
        0,
    )
    assert report["violations"] == 0, report["audits"]
    assert "every record accounted for" in run.stdout


def run_audit(paths, out):
    """``kafka-meta-proto audit`` (Spark, local mode) over the folders, as a user runs it."""
    return subprocess.run(
        [sys.executable, "-m", "kafka_meta_proto.cli", "audit", *map(str, paths), "--out", str(out), "--no-progress"],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip


def latest(files, record_type: str, **where):
    """The newest record of a type (matching ``where`` on its JSON data), as a message."""
    found = None
    for path in files:
        for obj in dump.iter_json_records(str(path)):
            if obj["type"] == record_type and all(
                obj["data"].get(k) == v for k, v in where.items()
            ):
                found = obj
    assert found is not None, f"no {record_type} {where} in the log"
    cls = message_class(_class_name(record_type))
    return cls.from_json(found["data"], found["version"]), found["version"]


def _class_name(record_type: str) -> str:
    """REGISTER_BROKER_RECORD -> RegisterBrokerRecord."""
    return "".join(part.title() for part in record_type.lower().split("_"))


def append_batch(segment, messages):
    """Write ``(message, version)`` records as a new batch after the segment's last one."""
    from kafka_meta_proto.kraft import encode_record_value
    from kafka_meta_proto.log.segment import SegmentReader

    with SegmentReader(segment) as reader:
        last = [batch for _, batch in reader][-1]
    records = [
        Record(offset_delta=i, value=encode_record_value(m, v)) for i, (m, v) in enumerate(messages)
    ]
    batch = RecordBatch.create(
        records, base_offset=last.last_offset + 1, base_timestamp=last.max_timestamp + 1,
        partition_leader_epoch=last.partition_leader_epoch,
    )  # fmt: skip
    with open(segment, "ab") as f:
        f.write(batch.encode())


def test_faults_planted_in_a_real_log_are_each_found(cluster, tmp_path):
    """Copies of the controller's log with faults planted by hand: an overlapping producer-ID
    block, a reused topic ID and a broker epoch going back (records appended as a new batch); a
    flipped byte and a cut tail (bytes changed). Each is found by its audit."""
    with connect(*cluster.bootstrap[0]) as conn:  # makes sure a producer-ID block was handed out
        init_producer_id(conn)

    def has_block():
        live = [p for p in log_files(cluster.metadata_dir()) if p.suffix == ".log"]
        return any(
            o["type"] == "PRODUCER_IDS_RECORD" for p in live for o in dump.iter_json_records(str(p))
        )

    wait_for(has_block, "a ProducerIdsRecord in the controller's log")
    semantic = copy_metadata_log(cluster, tmp_path / "semantic")
    damaged = copy_metadata_log(cluster, tmp_path / "damaged")
    segments = [p for p in log_files(semantic) if p.suffix == ".log"]

    block, v_block = latest(segments, "PRODUCER_IDS_RECORD")
    block.next_producer_id -= 500  # hands out IDs that were handed out already
    topic, v_topic = latest(segments, "TOPIC_RECORD")
    topic.name = "planted-reuse"  # a new name with an existing topic's ID
    broker, v_broker = latest(segments, "REGISTER_BROKER_RECORD", brokerId=2)
    broker.broker_epoch -= 1  # registers below its previous epoch
    append_batch(segments[-1], [(block, v_block), (topic, v_topic), (broker, v_broker)])

    damaged_segments = [p for p in log_files(damaged) if p.suffix == ".log"]
    first = bytearray(damaged_segments[0].read_bytes())
    first[200] ^= 0x01  # inside an early batch: its CRC no longer matches
    damaged_segments[0].write_bytes(bytes(first))
    last = damaged_segments[-1]
    last.write_bytes(last.read_bytes()[:-7])  # the file ends inside its last batch

    run = run_audit([semantic.parent, damaged.parent], tmp_path / "out")
    assert run.returncode == 0, run.stderr[-3000:]
    report = json.loads((tmp_path / "out" / "report.json").read_text())
    checks = {
        audit: {c: n["violation"] for c, n in a["by_check"].items() if n["violation"]}
        for audit, a in report["audits"].items()
    }
    assert checks["producer-ids"].get("overlapping block", 0) >= 1, checks
    assert checks["topic-ids"].get("topic id reused", 0) >= 1, checks
    assert checks["brokers"].get("epoch not increasing", 0) >= 1, checks
    assert (
        checks["log"].get("crc mismatch") == 1 and checks["log"].get("truncated tail") == 1
    ), checks
    assert (
        report["balanced"] and report["records_reported"] > 0
    )  # the damaged records are counted, not lost


# --- the coordinators' topics, as a real broker writes them --------------------------------


def _coordinator_conn(cluster, key: str, key_type: int):
    """A connection to the broker coordinating ``key`` (0: a group, 1: a transactional id)."""
    find = message_class("FindCoordinatorRequest")(key=key, key_type=key_type)
    with connect(*cluster.bootstrap[0]) as conn:
        answer = until_settled(lambda: send(conn, find, 3).body, lambda a: a.error_code)
    assert answer.error_code == 0, answer
    return connect(answer.host, answer.port)


def _write_coordinator_records(cluster) -> None:
    """An offset commit for a group (__consumer_offsets) and a transactional producer's
    registration (__transaction_state), through the coordinators that own them."""
    topic = CreateTopicsRequest.CreatableTopic(
        name="dumped", num_partitions=1, replication_factor=1
    )
    with connect(*cluster.bootstrap[0]) as conn:
        send(conn, CreateTopicsRequest(topics=[topic], timeout_ms=30000), 5)
    commit_request = message_class("OffsetCommitRequest")
    partition = commit_request.OffsetCommitRequestPartition(
        partition_index=0, committed_offset=17, committed_metadata="dump-log"
    )
    request = commit_request(group_id="dump-log-group", generation_id_or_member_epoch=-1, member_id="",
                             topics=[commit_request.OffsetCommitRequestTopic(name="dumped", partitions=[partition])])  # fmt: skip
    with _coordinator_conn(cluster, "dump-log-group", 0) as conn:
        answer = until_settled(lambda: send(conn, request, 8).body,
                               lambda a: a.topics[0].partitions[0].error_code)  # fmt: skip
        assert answer.topics[0].partitions[0].error_code == 0, answer
    init = message_class("InitProducerIdRequest")(
        transactional_id="dump-log-tx", transaction_timeout_ms=60000
    )
    with _coordinator_conn(cluster, "dump-log-tx", 1) as conn:
        assert (
            until_settled(lambda: send(conn, init, 4).body, lambda a: a.error_code).error_code == 0
        )


def _coordinator_segments(cluster, topic: str, target) -> list:
    """Copies of every non-empty segment of ``topic``'s partitions, over all brokers."""
    found = []
    for node in cluster.nodes:
        if not node.is_broker:
            continue
        for segment in sorted(cluster.data_dir(node).glob(f"{topic}-*/*.log")):
            if segment.stat().st_size:
                copy = target / f"{node.node_id}-{segment.parent.name}"
                copy.mkdir(parents=True, exist_ok=True)
                found.append(Path(shutil.copy2(segment, copy / segment.name)))
    return found


@pytest.mark.parametrize("which", ["cluster", "old_cluster"])
def test_dump_log_reads_a_brokers_coordinator_topics_as_kafka_does(which, request, tmp_path):
    """The offset commit and transactional id a broker wrote, dumped with --offsets-decoder and
    --transaction-log-decoder by Kafka's tool and by ours (in the form of that release)."""
    cluster = request.getfixturevalue(which)
    _write_coordinator_records(cluster)
    for topic, flag in (
        ("__consumer_offsets", "--offsets-decoder"),
        ("__transaction_state", "--transaction-log-decoder"),
    ):
        files = wait_for(
            lambda: _coordinator_segments(cluster, topic, tmp_path / topic), f"a {topic} segment"
        )
        theirs = kafka_dump_log(cluster, files, flag)
        ours = subprocess.run([sys.executable, "-m", "kafka_meta_proto.cli", "dump-log", flag,
                               "--kafka-version", cluster.release, *map(str, files)],
                              capture_output=True, text=True, timeout=120)  # fmt: skip
        assert ours.returncode == 0, ours.stderr
        assert ours.stdout.splitlines() == theirs
        assert any(" key: " in line and " payload: " in line for line in theirs)
