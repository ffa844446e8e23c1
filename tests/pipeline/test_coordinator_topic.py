"""The audit of batch coordinators' topics (``audit --coordinator-topic``), in one Spark run:

- a real coordinator, driven through its operations over two partitions of its topic, gives no
  finding;
- one coordinator per planted fault, its records written with the coordinator's own log writer
  (or a real log edited), each found by exactly the check for it, at the record's offset and
  in the right partition of the topic.
"""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.dataset as ds
import pytest

from diskless.helpers import T1, T2, Clock, batch
from kafka_meta_proto import cli
from kafka_meta_proto.diskless import BatchCoordinator
from kafka_meta_proto.diskless.store import LogPosition
from kafka_meta_proto.diskless.topic_log import LogAppender, partition_dir
from kafka_meta_proto.diskless.types import CreateTopicAndPartitionsRequest, DeleteRecordsRequest, TopicIdPartition
from kafka_meta_proto.diskless_messages.diskless_commit_record import DisklessBatch, DisklessCommitRecord
from kafka_meta_proto.diskless_messages.diskless_log_start_offset_record import DisklessLogStartOffsetRecord
from kafka_meta_proto.diskless_messages.diskless_objects_deleted_record import DisklessObjectsDeletedRecord
from kafka_meta_proto.diskless_messages.diskless_topic_record import DisklessTopicRecord
from kafka_meta_proto.diskless_messages.remove_diskless_topic_record import RemoveDisklessTopicRecord
from kafka_meta_proto.log.segment import list_segments
from kafka_meta_proto.pipeline.diskless_audit import run_coordinator_audit

# A Spark job of its own (15-20 s of a worker): the slow tier, which .ci/run runs.
pytestmark = pytest.mark.slow

P0, P1, Q0 = TopicIdPartition(T1, 0), TopicIdPartition(T1, 1), TopicIdPartition(T2, 0)
NOW = 1_700_000_000_000


def drive_a_coordinator(data: Path, partition: int) -> None:
    """Every operation that writes, on one partition of the coordinator's topic, with a restart."""
    clock = Clock()
    with BatchCoordinator(data, partition, clock=clock) as c:
        c.create_topic_and_partitions([CreateTopicAndPartitionsRequest(T1, "t1", 1)])
        c.create_topic_and_partitions([CreateTopicAndPartitionsRequest(T1, "t1", 2), CreateTopicAndPartitionsRequest(T2, "t2", 1)])
        c.commit_file("a", 1, 300, [batch(P0, 10), batch(P1, 4, byte_offset=100), batch(P0, 1, byte_offset=200)])
        c.commit_files([("b", 2, 200, [batch(P0, 5, producer=(7, 0, 0)), batch(Q0, 3, byte_offset=100)]),
                        ("c", 2, 100, [batch(Q0, 2)])])  # fmt: skip
        c.commit_file("b", 2, 100, [batch(P0)])  # refused: a key commits once
        c.commit_file("d", 1, 100, [batch(P0, 5, producer=(7, 0, 0))])  # a duplicate: nothing new
        c.delete_records([DeleteRecordsRequest(P0, 12), DeleteRecordsRequest(P1, 99)])  # the second is refused
    with BatchCoordinator(data, partition, clock=clock) as c:  # restarted: catches up, appends on
        c.commit_file("e", 1, 400, [batch(P1, 3, byte_offset=300, size=100)])
        clock.now += 10_000
        c.enforce_retention(P1, 5_000, -1)
        c.delete_topics([T2])
        keys = [f.object_key for f in c.get_files_to_delete()]
        # "a" and "e" lost their batches to the log start offsets, "c" to the topic's removal,
        # "d" never had one (its batch was a duplicate); "b" still has a live batch
        assert sorted(keys) == ["a", "c", "d", "e"]
        c.delete_files(keys + ["b"])  # "b" is not deleted


def write_log(root: Path, coordinator: str, batches: list[list], partition: int = 0) -> Path:
    """A coordinator's partition log holding ``batches`` (lists of records), written as the
    coordinator writes it."""
    directory = partition_dir(root / coordinator, partition)
    LogAppender.create_directory(directory)
    appender = LogAppender(directory, LogPosition())
    for records in batches:
        appender.append(records, NOW)
    appender.close()
    return directory


def commit(key: str, size: int, *batches: tuple) -> DisklessCommitRecord:
    """A commit of ``(tp, base, last, byte_offset, batch size)`` batches into object ``key``."""
    return DisklessCommitRecord(object_key=key, uploader_broker_id=1, object_size=size, committed_at=NOW, batches=[
        DisklessBatch(topic_id=tp.topic_id, partition_index=tp.partition, byte_offset=at, size=n, base_offset=base,
                      last_offset=last, log_append_time=NOW, batch_max_timestamp=NOW, message_timestamp_type=0,
                      producer_id=-1, producer_epoch=-1, base_sequence=-1, last_sequence=-1)
        for tp, base, last, at, n in batches
    ])  # fmt: skip


def topics(*counts: tuple) -> list:
    return [DisklessTopicRecord(topic_id=t, num_partitions=n) for t, n in counts]


def log_start(tp: TopicIdPartition, offset: int) -> DisklessLogStartOffsetRecord:
    return DisklessLogStartOffsetRecord(topic_id=tp.topic_id, partition_index=tp.partition,
                                        log_start_offset=offset, changed_at=NOW)  # fmt: skip


def deleted(*keys: str) -> DisklessObjectsDeletedRecord:
    return DisklessObjectsDeletedRecord(object_keys=list(keys))


def _flip_byte_of_batch(directory: Path, index: int) -> None:
    """Corrupt the ``index``-th batch of the first segment (its CRC no longer matches)."""
    path = list_segments(directory)[0].path
    data = bytearray(path.read_bytes())
    pos = 0
    for _ in range(index):
        pos += 12 + int.from_bytes(data[pos + 8 : pos + 12], "big")
    data[pos + 70] ^= 0x5A  # inside the records, past the 61-byte header
    path.write_bytes(bytes(data))


def _cut_last_batch(directory: Path) -> None:
    path = list_segments(directory)[0].path
    path.write_bytes(path.read_bytes()[:-5])


# coordinator -> the findings expected: {(check, status, topic partition, offset)}
def planted(root: Path) -> dict[str, set]:
    cases = {}
    created = topics((T1, 2), (T2, 1))  # at offsets 0 and 1
    cases["gap"] = {("offset gap", "violation", 0, 3)}
    write_log(root, "gap", [created, [commit("a", 100, (P0, 0, 9, 0, 100))], [commit("b", 100, (P0, 12, 14, 0, 100))]])
    cases["duplicate"] = {("duplicate offsets", "violation", 1, 3)}
    write_log(root, "duplicate", [created, [commit("a", 100, (P0, 0, 9, 0, 100))],
                                  [commit("b", 100, (P0, 8, 12, 0, 100))]], partition=1)  # fmt: skip
    cases["hw-decreased"] = {("high watermark decreased", "violation", 0, 4)}
    write_log(root, "hw-decreased", [created, [commit("a", 100, (P0, 0, 9, 0, 100))],
                                     [commit("b", 100, (P0, 10, 19, 0, 100))], [commit("c", 100, (P0, 3, 4, 0, 100))]])  # fmt: skip
    cases["log-start"] = {("log start offset above high watermark", "violation", 0, 4)}
    write_log(root, "log-start", [created, [commit("a", 200, (P0, 0, 9, 0, 100), (P1, 0, 4, 100, 100))],
                                  [log_start(P1, 5)], [log_start(P0, 15)]])  # fmt: skip
    cases["outside"] = {("batch outside its object", "violation", 0, 2)}
    write_log(root, "outside", [created, [commit("a", 150, (P0, 0, 9, 0, 100), (P1, 0, 0, 100, 100))]])
    cases["twice"] = {("object committed twice", "violation", 0, 3)}
    write_log(root, "twice", [created, [commit("a", 100, (P0, 0, 9, 0, 100))], [commit("a", 100, (P0, 10, 19, 0, 100))],
                              [deleted("b")], [commit("b", 100, (P1, 0, 0, 0, 100))]])  # fmt: skip
    # "a" is deleted while P0's batch lives; "b" after its batch went below the log start,
    # "c" after its topic was removed: only "a" breaks the rule.
    cases["deleted-in-use"] = {("object deleted while in use", "violation", 0, 8)}
    write_log(root, "deleted-in-use", [
        created, [commit("a", 100, (P0, 0, 9, 0, 100)), commit("b", 100, (P1, 0, 4, 0, 100))],
        [commit("c", 100, (Q0, 0, 0, 0, 100))], [log_start(P1, 5)], [RemoveDisklessTopicRecord(topic_id=T2, removed_at=NOW)],
        [deleted("b", "c")], [deleted("a")],
    ])  # fmt: skip
    # the commit at offset 3 is lost to a bad CRC: the next commit's gap cannot be told from it
    cases["corrupt"] = {("crc mismatch", "violation", 0, 3), ("offset gap", "unverifiable", 0, 4)}
    directory = write_log(root, "corrupt", [created, [commit("a", 100, (P0, 0, 9, 0, 100))],
                                            [commit("b", 100, (P0, 10, 19, 0, 100))], [commit("c", 100, (P0, 20, 29, 0, 100))]])  # fmt: skip
    _flip_byte_of_batch(directory, 2)
    cases["cut"] = {("truncated tail", "violation", 0, 3)}
    directory = write_log(root, "cut", [created, [commit("a", 100, (P0, 0, 9, 0, 100))], [log_start(P0, 5)]])
    _cut_last_batch(directory)
    return cases


@pytest.fixture(scope="module")
def audited(spark, tmp_path_factory):
    root = tmp_path_factory.mktemp("coordinators")
    drive_a_coordinator(root / "real", 0)
    drive_a_coordinator(root / "real", 1)
    cases = planted(root)
    out = tmp_path_factory.mktemp("out")
    report = run_coordinator_audit([str(root)], str(out), spark)
    rows = ds.dataset(out / "violations", format="parquet", partitioning="hive").to_table().to_pylist()
    return cases, report, rows, out


def _found(rows: list[dict], coordinator: str) -> set:
    return {(r["check"], r["status"], r["partition"], r["offset"]) for r in rows if r["cluster"] == coordinator}


def test_a_real_coordinator_gives_no_finding(audited):
    _, report, rows, out = audited
    assert _found(rows, "real") == set()
    assert "real/__diskless-metadata-0" in report.partitions and "real/__diskless-metadata-1" in report.partitions
    records = ds.dataset(out / "coordinator_records", format="parquet").to_table().to_pylist()
    kinds = {r["kind"] for r in records if r["coordinator"] == "real"}
    # every kind of record the coordinator writes was audited
    assert kinds == {"topic", "commit", "batch", "log-start", "remove-topic", "objects-deleted"}


def test_each_planted_fault_is_found_by_its_check_alone(audited):
    """One comparison over every planted log (one test, so the module's single Spark run stays on
    one worker): each log gives exactly its own finding."""
    cases, _, rows, _ = audited
    assert set(cases) == {"gap", "duplicate", "hw-decreased", "log-start", "outside", "twice", "deleted-in-use",
                          "corrupt", "cut"}  # fmt: skip
    assert {name: _found(rows, name) for name in cases} == cases
    for name in cases:
        finding = next(r for r in rows if r["cluster"] == name)
        assert finding["audit"] == "coordinator-topic" and finding["file"].startswith("__diskless-metadata-")
        assert finding["detail"], name


def test_the_report_counts_the_findings(audited):
    cases, report, _, out = audited
    expected = sum(1 for found in cases.values() for f in found if f[1] == "violation")
    assert report.violations == expected
    assert json.loads((out / "report.json").read_text())["violations"] == expected
    assert "object deleted while in use" in (out / "report.txt").read_text()


def test_the_command_audits_a_coordinator_topic(spark, audited, tmp_path, capsys):
    source = tmp_path / "one"
    write_log(source, "c", [topics((T1, 1)), [commit("a", 100, (P0, 0, 9, 0, 100))], [commit("b", 100, (P0, 11, 11, 0, 100))]])
    out = tmp_path / "out"
    args = ["audit", "--coordinator-topic", str(source / "c" / "__diskless-metadata-0"), "--out", str(out)]
    assert cli.main(args + ["--fail-on-violations"]) == 1  # 0 without the option
    printed = capsys.readouterr().out
    assert "violation: offset gap at c/__diskless-metadata-0/00000000000000000000.log offset 2" in printed
    assert (out / "report.txt").is_file() and not (out / "_AUDIT_INCOMPLETE").exists()
    capsys.readouterr()
    assert cli.main(["audit", "--coordinator-topic", str(tmp_path / "empty-dir-missing"), "--out", str(out)]) == 2


def test_batches_no_reader_applies_are_rows_of_their_own_not_findings(spark, tmp_path):
    """A partition kept in a Kafka cluster: a stale writer's batch (its first key expects another
    offset) and a control batch are skipped as the coordinator's readers skip them, and shown."""
    from kafka_meta_proto.diskless.kafka_topic import expected_offset_key
    from kafka_meta_proto.kraft import encode_record_value
    from kafka_meta_proto.log.batch import RecordBatch
    from kafka_meta_proto.log.records import Record

    def keyed(offset: int, expected: int, record) -> bytes:
        value = encode_record_value(record, 0)
        return RecordBatch.create([Record(offset_delta=0, key=expected_offset_key(expected), value=value)],
                                  base_offset=offset, base_timestamp=NOW).encode()  # fmt: skip

    control = RecordBatch.create([Record(offset_delta=0, key=b"\0\0\0\0", value=b"\0\0\0\0\0\0")], base_offset=4,
                                 base_timestamp=NOW, control=True, transactional=True).encode()  # fmt: skip
    directory = partition_dir(tmp_path / "in" / "kafka-hosted", 0)
    directory.mkdir(parents=True)
    (directory / "00000000000000000000.log").write_bytes(b"".join([
        keyed(0, 0, topics((T1, 1))[0]),
        keyed(1, 1, commit("a", 100, (P0, 0, 9, 0, 100))),
        keyed(2, 1, commit("stale", 100, (P0, 0, 9, 0, 100))),  # would be duplicate offsets if read
        keyed(3, 3, commit("b", 100, (P0, 10, 19, 0, 100))),
        control,
    ]))  # fmt: skip
    out = tmp_path / "out"
    report = run_coordinator_audit([str(tmp_path / "in")], str(out), spark)
    assert report.violations == 0
    records = ds.dataset(out / "coordinator_records", format="parquet").to_table().to_pylist()
    skipped = sorted((r["offset"], r["detail"]) for r in records if r["kind"] == "skipped")
    assert skipped == [(2, "batch at offset 2: written by a stale coordinator (it expected offset 1)"),
                       (4, "batch at offset 4: a control batch")]  # fmt: skip
    assert sorted(r["object_key"] for r in records if r["kind"] == "commit") == ["a", "b"]
