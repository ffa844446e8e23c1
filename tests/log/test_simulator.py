"""The cluster simulator: its output read back with the log readers, record for record."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from kafka_meta_proto import cli, kraft, registries, simulator
from kafka_meta_proto.tools import dump
from kafka_meta_proto.log import (
    CorruptBatchError,
    Record,
    RecordBatch,
    SegmentReader,
    SnapshotReader,
    control_key,
    list_segments,
    list_snapshots,
)

ALL_FAULTS = tuple(simulator.FAULTS)


# --- reading a simulated cluster back ------------------------------------------------------------


class Entry:
    """One record of the log, decoded."""

    __slots__ = ("offset", "file", "position", "epoch", "timestamp", "control", "type", "message")

    def __init__(self, offset, file, position, epoch, timestamp, control, type_, message):
        self.offset, self.file, self.position, self.epoch = offset, file, position, epoch
        self.timestamp, self.control, self.type, self.message = timestamp, control, type_, message


def read_cluster(cluster: Path, *, skip_corrupt: bool = False) -> tuple[list[Entry], dict]:
    """Every record of the segments, decoded (strict: a CRC mismatch raises unless skip_corrupt)."""
    log_dir = cluster / "__cluster_metadata-0"
    registry = registries.for_paths([cluster])  # the diskless design's where simulate marked it
    entries, info = [], {"corrupt": [], "truncated": None, "batches": 0, "first_of_epoch": {}}
    for segment in list_segments(log_dir):
        with SegmentReader(segment.path, skip_corrupt=skip_corrupt) as reader:
            for position, batch in reader:
                info["batches"] += 1
                info["first_of_epoch"].setdefault(
                    batch.partition_leader_epoch, (batch, segment.path.name)
                )
                for record in batch.records:
                    if batch.is_control:
                        control = kraft.decode_control_record(record.key, record.value)
                        type_, message = control.type_name, control.message
                    else:
                        decoded = kraft.decode_record_value(record.value, registry)
                        type_, message = decoded.message.NAME, decoded.message
                    entries.append(Entry(batch.offset_of(record), segment.path.name, position, batch.partition_leader_epoch,
                                         batch.timestamp_of(record), batch.is_control, type_, message))  # fmt: skip
            info["corrupt"] += [(segment.path.name, p) for p in reader.corrupt_positions]
            if reader.truncated_tail:
                info["truncated"] = (segment.path.name, *reader.truncated_tail)
    return entries, info


def faults_of(cluster: Path) -> list[dict]:
    return json.loads((cluster / "faults.json").read_text())


def summary_of(cluster: Path) -> dict:
    return json.loads((cluster / "summary.json").read_text())


@pytest.fixture(scope="module")
def clean_cluster(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("sim")
    simulator.simulate(out, records=20_000, seed=42, segment_bytes=256 * 1024, diskless=True)
    return out / "cluster-0"


@pytest.fixture(scope="module")
def clean_read(clean_cluster):
    return read_cluster(clean_cluster)


# --- the batch encoder --------------------------------------------------------------------


def test_encode_batch_matches_record_batch():
    rng = random.Random(5)
    for _ in range(300):
        count = rng.randint(1, 40)
        values = [rng.randbytes(rng.choice((0, 1, 5, 63, 64, 200, 9000))) for _ in range(count)]
        keys = (
            [control_key(rng.randint(0, 6)) for _ in range(count)] if rng.random() < 0.3 else None
        )
        base, ts, epoch = rng.randint(0, 2**40), rng.randint(0, 2**45), rng.randint(0, 2**20)
        records = [
            Record(offset_delta=i, key=None if keys is None else keys[i], value=v)
            for i, v in enumerate(values)
        ]
        expected = RecordBatch.create(records, base_offset=base, base_timestamp=ts, partition_leader_epoch=epoch,
                                      control=keys is not None).encode()  # fmt: skip
        assert simulator.encode_batch(values, base, ts, epoch, keys) == expected
    noop = RecordBatch.create(
        [Record(value=simulator.NOOP_VALUE)],
        base_offset=77,
        base_timestamp=123456,
        partition_leader_epoch=9,
    )
    assert simulator.encode_noop_batch(77, 123456, 9) == noop.encode()


# --- a clean run --------------------------------------------------------------------------


def test_layout(clean_cluster):
    log_dir = clean_cluster / "__cluster_metadata-0"
    names = sorted(p.name for p in log_dir.iterdir())
    segments = [n for n in names if n.endswith(".log")]
    assert len(segments) > 1 and segments[0] == "00000000000000000000.log"
    assert all(len(n) == 24 and n[:20].isdigit() for n in segments)
    snapshots = [n for n in names if n.endswith(".checkpoint")]
    assert len(snapshots) == 1 and len(snapshots[0]) == len(
        "00000000000000000000-0000000000.checkpoint"
    )
    assert {"leader-epoch-checkpoint", "partition.metadata", "quorum-state"} <= set(names)
    assert (
        log_dir / "partition.metadata"
    ).read_text() == "version: 0\ntopic_id: AAAAAAAAAAAAAAAAAAAAAQ\n"
    assert {"bootstrap.checkpoint", "meta.properties", "faults.json", "summary.json"} <= {
        p.name for p in clean_cluster.iterdir()
    }
    assert faults_of(clean_cluster) == []
    # segments roll at about the configured size, never over it (one batch is far smaller)
    sizes = [(log_dir / s).stat().st_size for s in segments]
    assert all(size <= 256 * 1024 for size in sizes) and all(
        size > 200 * 1024 for size in sizes[:-1]
    )


def test_reads_back_record_for_record(clean_cluster, clean_read):
    entries, info = clean_read  # strict reader: every CRC valid
    summary = summary_of(clean_cluster)
    assert len(entries) == summary["records"] == 20_000
    assert [e.offset for e in entries] == list(range(20_000))
    assert info["corrupt"] == [] and info["truncated"] is None
    assert info["batches"] == summary["batches"]
    assert Counter(e.type for e in entries if not e.control) + Counter(
        "LeaderChangeMessage" for e in entries if e.type == "LEADER_CHANGE"
    ) == Counter(summary["recordTypes"])
    # segment names are the base offsets of their first batch
    for segment in list_segments(clean_cluster / "__cluster_metadata-0"):
        first = next(e for e in entries if e.file == segment.path.name)
        assert first.offset == segment.base_offset
    # timestamps and leader epochs never go back
    assert all(a.timestamp <= b.timestamp for a, b in zip(entries, entries[1:]))
    assert all(a.epoch <= b.epoch for a, b in zip(entries, entries[1:]))


def test_every_record_kind_is_there(clean_read):
    types = Counter(e.type for e in clean_read[0])
    for name in ("LEADER_CHANGE", "BeginTransactionRecord", "FeatureLevelRecord", "ZkMigrationStateRecord",
                 "EndTransactionRecord", "RegisterControllerRecord", "RegisterBrokerRecord",
                 "BrokerRegistrationChangeRecord", "TopicRecord", "PartitionRecord", "PartitionChangeRecord",
                 "RemoveTopicRecord", "ConfigRecord", "ProducerIdsRecord", "NoOpRecord",
                 "TopicPartitionToBatchCoordinatorMapping"):  # fmt: skip
        assert types[name] > 0, name
    assert types["NoOpRecord"] < 0.7 * len(clean_read[0])


def test_bootstrap_and_leader_epochs(clean_cluster, clean_read):
    entries, info = clean_read
    assert entries[0].type == "LEADER_CHANGE" and entries[0].epoch == 1
    assert [e.type for e in entries[1:5]] == [
        "BeginTransactionRecord",
        "FeatureLevelRecord",
        "ZkMigrationStateRecord",
        "EndTransactionRecord",
    ]
    assert entries[2].message.feature_level == simulator.METADATA_VERSION
    # every epoch opens with the new leader's LeaderChange control batch
    for epoch, (batch, _) in info["first_of_epoch"].items():
        assert batch.is_control and batch.control_type == kraft.LEADER_CHANGE, epoch
    leader_changes = [e for e in entries if e.type == "LEADER_CHANGE"]
    assert [e.epoch for e in leader_changes] == list(range(1, len(leader_changes) + 1))
    for e in leader_changes:
        voters = [v.voter_id for v in e.message.voters]
        granting = [v.voter_id for v in e.message.granting_voters]
        assert (
            e.message.leader_id in granting
            and set(granting) <= set(voters)
            and len(granting) > len(voters) // 2
        )
    # leader-epoch-checkpoint: version 0, count, "epoch startOffset" lines
    lines = (
        (clean_cluster / "__cluster_metadata-0" / "leader-epoch-checkpoint")
        .read_text()
        .splitlines()
    )
    assert lines[0] == "0" and int(lines[1]) == len(lines) - 2
    assert [tuple(map(int, line.split())) for line in lines[2:]] == [
        (e.epoch, e.offset) for e in leader_changes
    ]
    quorum = json.loads((clean_cluster / "__cluster_metadata-0" / "quorum-state").read_text())
    assert (
        quorum["leaderEpoch"] == leader_changes[-1].epoch
        and quorum["leaderId"] == leader_changes[-1].message.leader_id
    )
    # the bootstrap snapshot kafka-storage format writes
    with SnapshotReader(clean_cluster / "bootstrap.checkpoint") as reader:
        batches = [b for _, b in reader]
    assert (
        len(batches) == 3
        and kraft.decode_record_value(batches[1].records[0].value).message.feature_level
        == simulator.METADATA_VERSION
    )


def test_brokers_controllers_and_producer_ids(clean_read):
    entries = clean_read[0]
    epochs = {}
    next_pid = 0
    registered_controllers = set()
    for e in entries:
        m = e.message
        if e.type == "RegisterBrokerRecord":
            assert m.broker_epoch == e.offset  # Kafka gives a registration its offset as the epoch
            assert m.fenced and not m.in_controlled_shutdown
            assert m.broker_id not in epochs or m.broker_epoch > epochs[m.broker_id][0]
            epochs[m.broker_id] = (m.broker_epoch, m.incarnation_id)
        elif e.type == "BrokerRegistrationChangeRecord":
            assert epochs[m.broker_id][0] == m.broker_epoch
        elif e.type == "RegisterControllerRecord":
            registered_controllers.add(m.controller_id)
        elif e.type == "ProducerIdsRecord":
            assert m.next_producer_id == next_pid + simulator.PRODUCER_ID_BLOCK_SIZE
            assert m.broker_id in epochs and m.broker_epoch == epochs[m.broker_id][0]
            next_pid = m.next_producer_id
    incarnations = [e.message.incarnation_id for e in entries if e.type == "RegisterBrokerRecord"]
    assert len(set(incarnations)) == len(incarnations)
    assert len(incarnations) > len(epochs)  # brokers came back after restarts
    assert registered_controllers == {3000, 3001, 3002}


def test_topics_partitions_and_diskless(clean_read):
    entries = clean_read[0]
    live, names, removed, diskless, configs = {}, {}, set(), set(), {}
    recreated = 0
    coordinator_partitions = None
    for e in entries:
        m = e.message
        if e.type == "TopicRecord":
            assert m.topic_id not in live and m.topic_id not in removed and m.name not in names
            if any(n == m.name for n in removed_names(removed, entries)):
                recreated += 1
            live[m.topic_id] = {"name": m.name, "partitions": 0}
            names[m.name] = m.topic_id
        elif e.type == "PartitionRecord":
            topic = live[m.topic_id]
            assert m.partition_id == topic["partitions"]
            topic["partitions"] += 1
            assert (
                m.leader == m.replicas[0]
                and m.isr == m.replicas
                and len(set(m.replicas)) == len(m.replicas)
            )
            assert len(m.directories) == len(m.replicas)
        elif e.type == "PartitionChangeRecord":
            assert m.topic_id in live and 0 <= m.partition_id < live[m.topic_id]["partitions"]
            assert m.isr is not None or m.leader != -2
        elif e.type == "RemoveTopicRecord":
            topic = live.pop(m.topic_id)
            del names[topic["name"]]
            removed.add(m.topic_id)
        elif e.type == "ConfigRecord" and m.resource_type == 2:
            assert m.resource_name in names
            if m.name == "diskless.enable":
                diskless.add(names[m.resource_name])
        elif e.type == "TopicPartitionToBatchCoordinatorMapping":
            assert m.topic_id in diskless and m.topic_id in live
            assert 0 <= m.partition_index < live[m.topic_id]["partitions"]
            coordinator_partitions = live[names["__diskless-metadata"]]["partitions"]
            assert 0 <= m.batch_coordinator_partition_index < coordinator_partitions
    assert "__consumer_offsets" in names and live[names["__consumer_offsets"]]["partitions"] == 50
    assert removed and diskless and coordinator_partitions
    assert recreated > 0


def removed_names(removed: set, entries) -> set:
    cache = getattr(removed_names, "_cache", None)
    if cache is None or cache[0] is not entries:
        ids = {}
        for e in entries:
            if e.type == "TopicRecord":
                ids.setdefault(e.message.topic_id, e.message.name)
        removed_names._cache = cache = (entries, ids)
    return {cache[1][i] for i in removed}


def test_noops_every_half_second(clean_read):
    noops = [e.timestamp for e in clean_read[0] if e.type == "NoOpRecord"]
    gaps = Counter((b - a) // 100 for a, b in zip(noops, noops[1:]))
    assert gaps[5] > 0.8 * sum(gaps.values())  # 500-599 ms, quiet spells and elections aside


def test_snapshot_is_the_image_at_its_offset(clean_cluster, clean_read):
    entries = clean_read[0]
    log_dir = clean_cluster / "__cluster_metadata-0"
    (snapshot,) = list_snapshots(log_dir)
    last = entries[snapshot.end_offset - 1]
    assert snapshot.epoch == last.epoch
    with SnapshotReader(snapshot.path) as reader:
        batches = [b for _, b in reader]
        assert reader.has_header and reader.has_footer
    header = kraft.decode_control_record(
        batches[0].records[0].key, batches[0].records[0].value
    ).message
    assert header.last_contained_log_timestamp == last.timestamp
    assert [b.base_offset for b in batches] == [
        0,
        1,
        1 + sum(len(b.records) for b in batches[1:-1]),
    ] or len(batches) > 3
    assert all(b.partition_leader_epoch == snapshot.epoch for b in batches)
    types = [
        kraft.decode_record_value(r.value, "diskless").message.NAME for b in batches[1:-1] for r in b.records
    ]
    assert (
        types[:2] == ["FeatureLevelRecord", "ZkMigrationStateRecord"]
        and types[-1] == "ProducerIdsRecord"
    )


def test_snapshot_plus_tail_replays_to_the_full_log(clean_cluster):
    image = pytest.importorskip("kafka_meta_proto.kraft.image")
    log_dir = clean_cluster / "__cluster_metadata-0"
    from_snapshot = image.MetadataImage.from_log_dir(log_dir)  # strict: any replay problem raises
    full = image.MetadataImage()
    for segment in list_segments(log_dir):
        full.replay_segment(segment.path)
    assert from_snapshot.snapshot_id is not None
    for name in (
        "brokers",
        "controllers",
        "topics",
        "configs",
        "features",
        "producer_ids",
        "diskless",
        "zk_migration_state",
    ):
        assert getattr(from_snapshot, name) == getattr(full, name), name
    assert from_snapshot.offset == full.offset == 19_999


def test_dump_log_reads_every_file(clean_cluster):
    files = sorted((clean_cluster / "__cluster_metadata-0").glob("*.log")) + sorted(
        (clean_cluster / "__cluster_metadata-0").glob("*.checkpoint")
    ) + [clean_cluster / "bootstrap.checkpoint"]  # fmt: skip
    import io

    out, err = io.StringIO(), io.StringIO()
    assert dump.dump([str(f) for f in files], out, err) == 0
    assert (
        "Error at" not in out.getvalue()
        and "isvalid: false" not in out.getvalue()
        and err.getvalue() == ""
    )


# --- determinism, fleets, reruns -----------------------------------------------------------


def tree_bytes(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


def test_same_seed_same_bytes(tmp_path):
    simulator.simulate(tmp_path / "a", records=5_000, seed=9, clusters=2, faults=ALL_FAULTS)
    simulator.simulate(tmp_path / "b", records=5_000, seed=9, clusters=2, faults=ALL_FAULTS, jobs=2)
    a, b = tree_bytes(tmp_path / "a"), tree_bytes(tmp_path / "b")
    assert a == b and len(a) >= 2 * 9
    simulator.simulate(tmp_path / "c", records=5_000, seed=10, clusters=2, faults=ALL_FAULTS)
    assert (
        tree_bytes(tmp_path / "c")["cluster-0/__cluster_metadata-0/00000000000000000000.log"]
        != a["cluster-0/__cluster_metadata-0/00000000000000000000.log"]
    )
    # the clusters of a fleet differ from each other
    assert (
        a["cluster-0/__cluster_metadata-0/00000000000000000000.log"]
        != a["cluster-1/__cluster_metadata-0/00000000000000000000.log"]
    )


def test_rerun_replaces_the_previous_output(tmp_path):
    simulator.simulate(tmp_path, records=30_000, seed=1, segment_bytes=100_000)
    simulator.simulate(tmp_path, records=2_000, seed=1, segment_bytes=100_000)
    entries, _ = read_cluster(tmp_path / "cluster-0")
    assert len(entries) == 2_000
    assert len(list_snapshots(tmp_path / "cluster-0" / "__cluster_metadata-0")) == 1


@pytest.mark.parametrize("records", [1, 3, 10, 60, 300])
def test_tiny_logs(tmp_path, records):
    simulator.simulate(tmp_path, records=records, seed=2, faults=ALL_FAULTS)
    entries, _ = read_cluster(tmp_path / "cluster-0", skip_corrupt=True)
    assert len(entries) <= records  # the truncated tail may cut the only batch
    assert all(
        a.offset < b.offset for a, b in zip(entries, entries[1:])
    )  # a corrupt batch leaves a gap
    assert all(e.type == "LEADER_CHANGE" for e in entries[:1])
    assert summary_of(tmp_path / "cluster-0")["records"] == records
    simulator.simulate(tmp_path, records=records, seed=2)
    entries, _ = read_cluster(tmp_path / "cluster-0")
    assert len(entries) == records and entries[0].type == "LEADER_CHANGE"


def test_command_line(tmp_path, capsys):
    assert (
        cli.main(
            [
                "simulate",
                "--out",
                str(tmp_path),
                "--records",
                "3000",
                "--seed",
                "4",
                "--clusters",
                "2",
                "--brokers",
                "4",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "cluster-0" in out and "cluster-1" in out and "records/s" in out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cluster-0", "cluster-1"]
    entries, _ = read_cluster(tmp_path / "cluster-1")
    assert {e.message.broker_id for e in entries if e.type == "RegisterBrokerRecord"} == {
        1,
        2,
        3,
        4,
    }
    assert (
        cli.main(
            [
                "dump-log",
                "--json",
                *map(str, sorted((tmp_path / "cluster-0" / "__cluster_metadata-0").glob("*.log"))),
            ]
        )
        == 0
    )
    objects = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert len(objects) == 3000 and all(o["error"] is None for o in objects)
    with pytest.raises(SystemExit):
        cli.main(["simulate", "--out", str(tmp_path), "--fault", "no-such-fault"])


# --- planted faults ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def faulty(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("faulty")
    simulator.simulate(out, records=30_000, seed=8, faults=ALL_FAULTS, segment_bytes=512 * 1024)
    return out / "cluster-0"


def entry_at(entries: list[Entry], offset: int) -> Entry:
    found = [e for e in entries if e.offset == offset]
    assert len(found) == 1, offset
    return found[0]


def test_all_faults_planted_and_listed(faulty):
    faults = faults_of(faulty)
    assert sorted(f["fault"] for f in faults) == sorted(ALL_FAULTS)
    assert [f["offset"] for f in faults] == sorted(f["offset"] for f in faults)
    for f in faults:
        assert (faulty / f["file"]).is_file() and f["description"] == simulator.FAULTS[f["fault"]]
    assert summary_of(faulty)["faults"] == [f["fault"] for f in faults]


def test_corrupt_batch_fails_its_crc_where_faults_json_says(faulty):
    (fault,) = [f for f in faults_of(faulty) if f["fault"] == "corrupt-batch"]
    with pytest.raises(CorruptBatchError) as caught:
        read_cluster(faulty)
    assert (
        caught.value.position == fault["position"]
        and Path(caught.value.file).name == Path(fault["file"]).name
    )
    entries, info = read_cluster(faulty, skip_corrupt=True)
    assert info["corrupt"] == [(Path(fault["file"]).name, fault["position"])]
    offsets = {e.offset for e in entries}
    lost = set(range(fault["offset"], fault["lastOffset"] + 1))
    assert (
        not offsets & lost and fault["offset"] - 1 in offsets and fault["lastOffset"] + 1 in offsets
    )
    assert fault["position"] + 61 <= fault["bytePosition"] < fault["position"] + 12 + 61 + 10_000


def test_truncated_tail_where_faults_json_says(faulty):
    (fault,) = [f for f in faults_of(faulty) if f["fault"] == "truncated-tail"]
    path = faulty / fault["file"]
    assert path.name == list_segments(path.parent)[-1].path.name
    assert (
        path.stat().st_size == fault["position"] + fault["keptBytes"]
        and 0 < fault["keptBytes"] < fault["batchSize"]
    )
    entries, info = read_cluster(faulty, skip_corrupt=True)
    assert info["truncated"] == (path.name, fault["position"], fault["keptBytes"])
    assert entries[-1].offset == fault["offset"] - 1
    assert summary_of(faulty)["records"] == fault["lastOffset"] + 1


def test_semantic_faults_where_faults_json_says(faulty):
    entries, _ = read_cluster(faulty, skip_corrupt=True)
    faults = {f["fault"]: f for f in faults_of(faulty)}

    f = faults["overlapping-producer-ids"]
    e = entry_at(entries, f["offset"])
    assert (
        e.type == "ProducerIdsRecord"
        and e.file == Path(f["file"]).name
        and e.position == f["position"]
    )
    assert (
        e.message.next_producer_id == f["nextProducerId"] and e.message.broker_id == f["brokerId"]
    )
    previous = [x for x in entries if x.type == "ProducerIdsRecord" and x.offset < f["offset"]][-1]
    assert previous.message.next_producer_id == f["previousNextProducerId"]
    assert (
        0
        < e.message.next_producer_id - previous.message.next_producer_id
        < simulator.PRODUCER_ID_BLOCK_SIZE
    )
    assert f["block"][0] <= f["previousBlock"][1]  # the blocks overlap

    f = faults["reused-topic-id"]
    e = entry_at(entries, f["offset"])
    assert (
        e.type == "TopicRecord"
        and str(e.message.topic_id) == f["topicId"]
        and e.message.name == f["topic"]
    )
    first = entry_at(entries, f["firstCreatedAt"])
    assert first.type == "TopicRecord" and first.message.topic_id == e.message.topic_id
    removal = entry_at(entries, f["removedAt"])
    assert removal.type == "RemoveTopicRecord" and removal.message.topic_id == e.message.topic_id
    assert f["firstCreatedAt"] < f["removedAt"] < f["offset"]

    f = faults["epoch-regression"]
    e = entry_at(entries, f["offset"])
    assert (
        e.type == "RegisterBrokerRecord"
        and e.message.broker_id == f["brokerId"]
        and e.message.broker_epoch == f["brokerEpoch"]
    )
    before = [
        x
        for x in entries
        if x.type == "RegisterBrokerRecord"
        and x.message.broker_id == f["brokerId"]
        and x.offset < e.offset
    ][-1]
    assert before.message.broker_epoch == f["previousBrokerEpoch"] > f["brokerEpoch"]
    # nothing else deviates: every other registration has its offset as the epoch
    assert all(
        x.message.broker_epoch == x.offset
        for x in entries
        if x.type == "RegisterBrokerRecord" and x is not e
    )


@pytest.mark.parametrize("fault", ALL_FAULTS)
def test_each_fault_alone(tmp_path, fault):
    simulator.simulate(tmp_path, records=12_000, seed=3, faults=(fault,))
    cluster = tmp_path / "cluster-0"
    (entry,) = faults_of(cluster)
    assert entry["fault"] == fault
    entries, info = read_cluster(cluster, skip_corrupt=True)
    assert bool(info["corrupt"]) == (fault == "corrupt-batch")
    assert bool(info["truncated"]) == (fault == "truncated-tail")


# --- speed and memory -----------------------------------------------------------------------


def test_hundred_thousand_records_roll_segments(tmp_path):
    # (its speed is measured in bench/log_readers.py, not here)
    (result,) = simulator.simulate(tmp_path, records=100_000, seed=6)
    assert result.records == 100_000 and len(result.segments) > 1
    assert result.records_per_second > 0


@pytest.mark.slow
@pytest.mark.exhaustive
def test_million_records_in_constant_memory(tmp_path):
    code = (
        "import resource, sys; from kafka_meta_proto import simulator; "
        "simulator.simulate(sys.argv[1], records=int(sys.argv[2]), seed=1); "
        "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)"
    )
    peaks = []
    for records in (100_000, 1_000_000):
        done = subprocess.run([sys.executable, "-c", code, str(tmp_path / str(records)), str(records)],
                              check=True, capture_output=True, text=True)  # fmt: skip
        peaks.append(int(done.stdout.strip()))
    assert peaks[1] < peaks[0] * 1.5 + 20_000  # kB: ten times the records, about the same memory
    entries, info = read_cluster(tmp_path / "1000000" / "cluster-0")
    assert len(entries) == 1_000_000 and info["corrupt"] == []
