"""The audits on one fleet, audited in a single Spark run:

- the built-in sample (simulator logs): a clean cluster and one cluster per planted fault; each
  fault is found by its audit, at the offset faults.json gives, and by no other audit;
- hand-made clusters (tests/pipeline/logs.py), each breaking one rule the simulator does not
  plant, found by exactly the check for that rule;
- damaged and partial histories: findings that lost or missing records could explain come out
  as "unverifiable", not as violations.
"""

from __future__ import annotations

import json
import os

import pyarrow.dataset as ds
import pytest

from kafka_meta_proto.pipeline import sample

from .logs import (
    Cluster, change, config, mapping, noop, partition, partition_change, producer_ids, register, remove,
    snapshot_bytes, topic, uuid,
)  # fmt: skip

SAMPLE_RECORDS = 18_000  # 3000 per cluster: every fault gets planted
FAULT_AUDITS = {
    "overlapping-producer-ids": ("producer-ids", "overlapping block"),
    "reused-topic-id": ("topic-ids", "topic id reused"),
    "epoch-regression": ("brokers", "epoch not increasing"),
    "corrupt-batch": ("log", "crc mismatch"),
    "truncated-tail": ("log", "truncated tail"),
}


def _corrupt_last(c: Cluster) -> None:
    base, data = c.batches[-1]
    c.batches[-1] = (base, data[:-3] + bytes([data[-3] ^ 0x5A]) + data[-2:])


def synthetic(root) -> dict[str, tuple[set, set]]:
    """Write the hand-made clusters; return name -> (expected violations, expected unverifiable)."""
    cases = {}

    def case(c: Cluster, violations=(), unverifiable=(), after=None):
        path = c.write(root)
        if after:
            after(path)
        cases[c.name] = (set(violations), set(unverifiable))

    case(Cluster("hand-clean").healthy())

    c = Cluster("pid-unregistered").healthy()
    c.records(producer_ids(9, 5, 3000))
    case(c, {("producer-ids", "broker not at current epoch")})

    c = Cluster("pid-stale-epoch").healthy()
    old = c.brokers[1]
    new = c.next_offset
    c.records(register(1, new, incarnation=1))
    c.records(change(1, new, fenced=-1))
    c.records(producer_ids(1, old, 3000))
    case(c, {("producer-ids", "broker not at current epoch")})

    c = Cluster("pid-overlap").healthy()
    c.records(producer_ids(1, c.brokers[1], 2500))
    case(c, {("producer-ids", "overlapping block")})

    c = Cluster("topic-recreated-live").healthy()
    c.records(topic("orders", uuid(20)), partition(uuid(20), 0))
    case(c, {("topic-ids", "name re-created while live")})

    c = Cluster("topic-unknown").healthy()
    c.records(partition_change(uuid(77), 0))
    case(c, {("topic-ids", "unknown topic id")})

    c = Cluster("topic-removed-ref").healthy()
    c.records(remove(uuid(2)))
    c.records(partition_change(uuid(2), 0))
    case(c, {("topic-ids", "removed topic id")})

    c = Cluster("topic-reused").healthy()
    c.records(remove(uuid(2)))
    c.records(topic("payments", uuid(2)), partition(uuid(2), 0))
    case(c, {("topic-ids", "topic id reused")})

    c = Cluster("broker-double-unfence").healthy()
    c.records(change(1, c.brokers[1], fenced=-1))
    case(c, {("brokers", "illegal transition")})

    c = Cluster("broker-wrong-epoch").healthy()
    c.records(change(2, c.brokers[2] + 100, fenced=1))
    case(c, {("brokers", "illegal transition")})

    c = Cluster("broker-same-epoch").healthy()
    c.records(register(1, c.brokers[1], incarnation=1))
    case(c, {("brokers", "epoch not increasing"), ("brokers", "incarnation changed")})

    c = Cluster("diskless-unknown-partition").healthy()
    c.records(mapping(uuid(3), 5, 1))
    case(c, {("diskless", "mapping of unknown partition")})

    c = Cluster("diskless-not-diskless").healthy()
    c.records(mapping(uuid(2), 0, 1))
    case(c, {("diskless", "mapping of non-diskless topic")})

    c = Cluster("diskless-range").healthy()
    c.records(mapping(uuid(3), 0, 7))
    case(c, {("diskless", "coordinator out of range")})

    c = Cluster("diskless-conflict").healthy()
    c.records(mapping(uuid(3), 0, 1), mapping(uuid(3), 0, 3))
    case(c, {("diskless", "conflicting mappings")})

    c = Cluster("diskless-unmapped").healthy()
    c.records(topic("dl2", uuid(4)), config("dl2", "diskless.enable", "true"), partition(uuid(4), 0), partition(uuid(4), 1),
              step_ms=600_000)  # fmt: skip
    c.records(noop())
    case(c, {("diskless", "unmapped partition")})

    c = Cluster("log-epoch").healthy()
    c.records(noop(), epoch=0)
    case(c, {("log", "leader epoch regression")})

    c = Cluster("log-gap").healthy()
    c.next_offset += 5
    c.records(noop())
    case(c, {("log", "offset gap")})

    c = Cluster("log-duplicate").healthy()
    c.next_offset -= 1
    c.records(noop())
    case(c, {("log", "duplicate offsets")})

    c = Cluster("log-segment-name").healthy()
    c.roll(name=f"{c.next_offset - 1:020d}.log")
    c.records(noop())
    case(c, {("log", "segment name")})

    c = Cluster("log-record-offsets").healthy()
    c.records(noop(), noop(), deltas=[0, 2])
    case(c, {("log", "record offsets")})

    c = Cluster("log-undecodable").healthy()
    c.records(raw_values=[b"\x01\x63\x00\x00"])  # metadata record type 99: no such type
    case(c, {("log", "undecodable record")})

    c = Cluster("log-unreadable").healthy()
    c.raw(b"\x00" * 40 + b"not a record batch at all " * 4)
    c.records(noop())
    case(c, {("log", "unreadable bytes")})

    def no_footer(path):
        (path / "__cluster_metadata-0" / "00000000000000000010-0000000001.checkpoint").write_bytes(
            snapshot_bytes([noop()], footer=False)
        )

    case(Cluster("log-snapshot-frame").healthy(), {("log", "snapshot frame")}, after=no_footer)

    def cut(path):
        segment = path / "__cluster_metadata-0" / "00000000000000000000.log"
        segment.write_bytes(segment.read_bytes()[:-10])

    case(Cluster("log-truncated").healthy(), {("log", "truncated tail")}, after=cut)

    c = Cluster("damaged").healthy()
    c.records(topic("late", uuid(9)), partition(uuid(9), 0))
    _corrupt_last(c)
    c.records(partition_change(uuid(9), 0))
    case(c, {("log", "crc mismatch")}, {("topic-ids", "unknown topic id")})

    def snapshot_only(path):
        directory = path / "__cluster_metadata-0"
        for f in directory.iterdir():
            f.unlink()
        image = [register(1, 5, fenced=False), topic("orders", uuid(2)), partition(uuid(2), 0), producer_ids(-1, -1, 2000)]
        (directory / "00000000000000000040-0000000002.checkpoint").write_bytes(snapshot_bytes(image, epoch=2))

    case(Cluster("snapshot-only").healthy(), after=snapshot_only)

    c = Cluster("partial")
    c.next_offset = 100
    c.segment_starts = [100]
    c.records(partition_change(uuid(2), 0))
    c.records(noop())
    case(c, unverifiable={("topic-ids", "unknown topic id")})
    return cases


@pytest.fixture(scope="module")
def fleet(spark, tmp_path_factory):
    from kafka_meta_proto.pipeline.job import run_audit

    root = tmp_path_factory.mktemp("fleet")
    logs = root / "logs"
    results = sample.write_sample(logs, records=SAMPLE_RECORDS, clusters=6, jobs=1)
    cases = synthetic(logs)
    out = root / "out"
    report = run_audit([str(logs)], str(out), spark=spark, progress=False)
    violations = ds.dataset(out / "violations", format="parquet", partitioning="hive").to_table().to_pylist()
    faults = {r.name: r.faults for r in results}
    return report, violations, faults, cases, out


def findings(violations, cluster, status="violation"):
    return [v for v in violations if v["cluster"] == cluster and v["status"] == status]


def test_clean_sample_cluster_has_no_findings(fleet):
    report, violations, faults, _, _ = fleet
    assert faults["cluster-0"] == []
    assert [v for v in violations if v["cluster"] == "cluster-0"] == []


@pytest.mark.parametrize("fault", sorted(FAULT_AUDITS))
def test_each_planted_fault_is_found_by_its_audit_alone(fleet, fault):
    report, violations, faults, _, _ = fleet
    cluster = next(f"cluster-{i}" for i, planted in enumerate(sample.SAMPLE_FAULTS) if fault in planted)
    planted = faults[cluster]
    assert [f["fault"] for f in planted] == [fault], planted
    audit, check = FAULT_AUDITS[fault]
    found = findings(violations, cluster)
    assert {(v["audit"], v["check"]) for v in found} == {(audit, check)}, found
    assert [v["offset"] for v in found] == [planted[0]["offset"]]
    assert found[0]["file"] == planted[0]["file"]
    assert report.audits[audit]["clusters"].count(cluster) == 1


def test_quarantined_records_are_counted(fleet):
    report, _, faults, _, _ = fleet
    files = {(f.cluster, f.file): f for f in report.files}
    corrupt = faults["cluster-4"][0]
    truncated = faults["cluster-5"][0]
    assert files[("cluster-4", corrupt["file"])].records_reported == corrupt["records"]
    assert files[("cluster-4", corrupt["file"])].issues == {"corrupt batch": 1}
    assert files[("cluster-5", truncated["file"])].records_reported == truncated["lostRecords"]
    assert files[("cluster-5", truncated["file"])].issues == {"truncated tail": 1}
    assert all(f.balanced for f in report.files), [f for f in report.files if not f.balanced]
    assert report.balanced


def test_sample_log_records_match_the_simulator(fleet):
    report, _, faults, _, out = fleet
    for cluster, planted in faults.items():
        summary = json.loads((out.parent / "logs" / cluster / "summary.json").read_text())
        segments = [f for f in report.files if f.cluster == cluster and f.kind == "segment"]
        assert sum(f.records_read for f in segments) == summary["records"]
        lost = sum(f.get("records", f.get("lostRecords", 0)) for f in planted
                   if f["fault"] in ("corrupt-batch", "truncated-tail"))  # fmt: skip
        assert sum(f.records_written for f in segments) == summary["records"] - lost


def test_hand_made_clusters(fleet):
    _, violations, _, cases, _ = fleet
    problems = []
    for name, (expected, unverifiable) in sorted(cases.items()):
        got = {(v["audit"], v["check"]) for v in findings(violations, name)}
        doubtful = {(v["audit"], v["check"]) for v in findings(violations, name, "unverifiable")}
        if got != expected or doubtful != unverifiable:
            problems.append(f"{name}: violations {sorted(got)} (want {sorted(expected)}), "
                            f"unverifiable {sorted(doubtful)} (want {sorted(unverifiable)})")  # fmt: skip
    assert not problems, "\n".join(problems)


def test_violation_tables_and_report(fleet):
    report, violations, _, _, out = fleet
    for audit, found in report.audits.items():  # one partition of the violations table per audit
        assert (out / "violations" / f"audit={audit}").is_dir() == bool(found["violations"] or found["unverifiable"])
    assert report.violations == sum(1 for v in violations if v["status"] == "violation")
    for name in ("records", "batches", "quarantine", "files", "typed"):
        assert (out / name).is_dir()
    text = (out / "report.txt").read_text()
    assert "every record accounted for" in text
    data = json.loads((out / "report.json").read_text())
    assert data["balanced"] and data["violations"] == report.violations
    assert os.path.getsize(out / "report.json") > 0
