"""The worker-side decoder and the input listing, without Spark: byte ranges, damaged files, the
record accounting, windows read through pyarrow.fs, cluster names and replay plans."""

from __future__ import annotations

import json

import pyarrow as pa
import pytest

from kafka_meta_proto import kraft, simulator
from kafka_meta_proto.log import source
from kafka_meta_proto.pipeline import decode, inputs
from kafka_meta_proto.pipeline.decode import BATCH, ISSUE, RECORD, decode_unit
from kafka_meta_proto.pipeline.inputs import Unit, discover, stream_plan
from kafka_meta_proto.pipeline.job import pack_units
from kafka_meta_proto.pipeline.local import count_paths

from .logs import Cluster, noop, snapshot_bytes, topic, uuid


@pytest.fixture(scope="module")
def sim(tmp_path_factory):
    root = tmp_path_factory.mktemp("sim")
    simulator.simulate(root, records=4000, seed=11, clusters=1, faults=("corrupt-batch", "truncated-tail"),
                       segment_bytes=150_000)  # fmt: skip
    return root


def rows(unit: dict) -> list[tuple]:
    out = []
    for batch in decode_unit(unit, batch_rows=500):
        assert batch.schema == decode.ARROW_SCHEMA
        for r in batch.to_pylist():
            out.append((r["kind"], r["position"], r["offset"], r["batch_offset"], r["payload"], r["issue"], r["records_lost"]))
    return sorted(out, key=_order)


def _order(row: tuple) -> tuple:
    return tuple(-1 if v is None else v for v in row[:4])


def whole(f) -> dict:
    return Unit(0, f.cluster, f.file, f.uri, f.kind, 0, f.size, f.size).row()


@pytest.mark.parametrize("chunk", [997, 9_999, 64 << 10])
def test_byte_ranges_cover_each_file_exactly_once(sim, chunk):
    for f in discover([str(sim)]).files:
        want = rows(whole(f))
        got = []
        for start, end in inputs.chunk_ranges(f.size, chunk):
            got += rows(Unit(0, f.cluster, f.file, f.uri, f.kind, start, end, f.size).row())
        assert sorted(got, key=_order) == want, (f.file, chunk)


def test_windows_read_through_pyarrow_fs_give_the_same_rows(sim, monkeypatch):
    files = discover([str(sim)]).files
    local = {f.file: rows(whole(f)) for f in files}
    monkeypatch.setattr(source, "is_local", lambda uri: False)
    monkeypatch.setattr(source, "WINDOW", 4096)
    for f in files:
        unit = whole(f)
        unit["uri"] = "file://" + f.uri
        assert rows(unit) == local[f.file], f.file


def test_faults_are_quarantined_and_counted(sim):
    faults = {f["fault"]: f for f in json.loads((sim / "cluster-0" / "faults.json").read_text())}
    counts = count_paths([str(sim)])
    issues = {(file, issue): (position, lost) for _, file, issue, position, lost in counts.issues}
    corrupt, cut = faults["corrupt-batch"], faults["truncated-tail"]
    assert issues[(corrupt["file"], "corrupt batch")] == (corrupt["position"], corrupt["records"])
    assert issues[(cut["file"], "truncated tail")] == (cut["position"], cut["lostRecords"])
    for key, announced in counts.announced.items():
        assert announced == counts.records[key] + counts.lost[key], key
    summary = json.loads((sim / "cluster-0" / "summary.json").read_text())
    segments = sum(n for (c, f), n in counts.announced.items() if f.endswith(".log"))
    assert segments == summary["records"]


def test_damage_of_every_kind(tmp_path):
    c = Cluster("damaged").healthy()
    c.records(raw_values=[b"\x01\x63\x00\x00", b"\x01\x02\x00\x00"])  # unknown type 99; a TopicRecord cut short
    c.raw(b"\x00" * 30 + b"no batch here" * 3)
    c.records(topic("after-garbage", uuid(40)))
    path = c.write(tmp_path) / "__cluster_metadata-0" / "00000000000000000000.log"
    data = path.read_bytes()
    path.write_bytes(data + data[:40])  # a tail too short for a batch header
    counts = count_paths([str(tmp_path)])
    kinds = sorted((issue, lost) for _, _, issue, _, lost in counts.issues)
    assert kinds == [("truncated tail", 1), ("undecodable record", 1), ("undecodable record", 1), ("unreadable bytes", None)]
    key = ("damaged", "__cluster_metadata-0/00000000000000000000.log")
    assert counts.announced[key] == counts.records[key] + counts.lost[key]
    assert counts.types["TOPIC_RECORD"] == 4  # the one after the garbage too


def test_decode_value_agrees_with_kraft(sim):
    seen = set()
    for batch in decode.decode_units(u.row() for u in discover([str(sim)]).units()):
        if batch.column("kind")[0].as_py() != RECORD:
            continue
        for r in batch.to_pylist():
            if r["record_type"] is None or r["type_name"] in seen:
                continue
            seen.add(r["type_name"])
            assert r["type_name"] == kraft.record_type_name(kraft.REGISTRY.record_class(r["record_type"]).NAME)
    assert {"TOPIC_RECORD", "PARTITION_RECORD", "REGISTER_BROKER_RECORD", "PRODUCER_IDS_RECORD"} <= seen
    value = kraft.encode_record_value(*topic("t", uuid(5)))
    record_type, version, name, payload = decode.decode_value(value)
    rec = kraft.decode_record_value(value)
    assert (record_type, version, name) == (rec.record_type, rec.version, rec.type_name)
    assert json.loads(payload) == rec.message.to_json(rec.version)


def test_clusters_and_files_are_found(tmp_path):
    fleet = tmp_path / "fleet"
    for name in ("a", "b"):
        Cluster(name).healthy().write(fleet)
    (fleet / "a" / "bootstrap.checkpoint").write_bytes(snapshot_bytes([noop()], epoch=0))
    (fleet / "a" / "__cluster_metadata-0" / "00000000000000000000.index").write_bytes(b"")
    (fleet / "a" / "__cluster_metadata-0" / "00000000000000000007.log.deleted").write_bytes(b"")
    (fleet / "a" / "orders-0").mkdir()
    (fleet / "a" / "orders-0" / "00000000000000000000.log").write_bytes(b"")
    (fleet / "c").mkdir()
    (fleet / "c" / "bootstrap.checkpoint").write_bytes(snapshot_bytes([noop()], epoch=0))

    inv = discover([str(fleet)])
    assert sorted(inv.clusters) == ["a", "b", "c"]
    assert sorted((f.cluster, f.file, f.kind) for f in inv.files) == [
        ("a", "__cluster_metadata-0/00000000000000000000.log", "segment"),
        ("a", "bootstrap.checkpoint", "bootstrap"),
        ("b", "__cluster_metadata-0/00000000000000000000.log", "segment"),
        ("c", "bootstrap.checkpoint", "bootstrap"),
    ]
    # one cluster given directly, or its log directory, or one file: named after the cluster directory
    assert sorted(discover([str(fleet / "b")]).clusters) == ["b"]
    assert sorted(discover([str(fleet / "b" / "__cluster_metadata-0")]).clusters) == ["b"]
    single = fleet / "a" / "__cluster_metadata-0" / "00000000000000000000.log"
    assert [(f.cluster, f.file) for f in discover([str(single)]).files] == [("a", "__cluster_metadata-0/00000000000000000000.log")]
    with pytest.raises(FileNotFoundError):
        discover([str(tmp_path / "missing")])


def test_replay_plans():
    def f(name, kind, **facts):
        return inputs.InputFile("c", name, name, kind, 1, **facts)

    log0 = f("00000000000000000000.log", "segment", base_offset=0)
    log9 = f("00000000000000000900.log", "segment", base_offset=900)
    snap = f("00000000000000000900-0000000003.checkpoint", "snapshot", end_offset=900, epoch=3)
    old = f("00000000000000000400-0000000002.checkpoint", "snapshot", end_offset=400, epoch=2)
    assert stream_plan("c", [log0, log9, snap]) == inputs.StreamPlan("c", None, 0, True)
    assert stream_plan("c", [log9, snap, old]) == inputs.StreamPlan("c", snap.file, 900, True)
    assert stream_plan("c", [snap, old]) == inputs.StreamPlan("c", snap.file, None, True)
    assert stream_plan("c", [log9, old]) == inputs.StreamPlan("c", None, 900, False)


def test_units_are_packed_evenly():
    units = [Unit(i, "c", str(i), str(i), "segment", 0, size, size) for i, size in enumerate([90, 10, 40, 40, 30, 30, 20, 20])]
    bins = pack_units(units, 4)
    assert sorted(u.unit for b in bins for u in b) == list(range(8))
    loads = sorted(sum(u.end - u.start for u in b) for b in bins)
    assert loads == [60, 60, 70, 90]
    assert len(pack_units(units[:2], 4)) == 2


def test_the_output_schema_matches_spark_ddl():
    assert [f.name for f in decode.ARROW_SCHEMA] == [c for c, _, _ in decode.COLUMNS]
    assert decode.SPARK_DDL.startswith("`kind` TINYINT, `cluster` STRING")
    empty = pa.RecordBatch.from_pylist([], schema=decode.ARROW_SCHEMA)
    assert empty.num_rows == 0 and {RECORD, BATCH, ISSUE} == {0, 1, 2}


# --- batches larger than a row buffer: streamed --------------------------------------------

NOOP = b"\x14\x00\x00\x00\x01\x08\x01\x14\x00\x00\x00"  # a NoOpRecord at offset delta 0


def _records(count: int, start: int = 0) -> bytes:
    """``count`` NoOpRecord records at offset deltas ``start``... (one or two bytes each)."""
    from kafka_meta_proto.log.records import Record, encode_records

    return encode_records([Record(offset_delta=start + i, value=b"\x01\x14\x00\x00") for i in range(count)])


def _batch_file(tmp_path, records: bytes, count: int, codec) -> dict:
    from kafka_meta_proto.log.compression import compress
    from kafka_meta_proto.log.header import MIN_BATCH_LENGTH, pack_header, seal

    payload = compress(codec, records)
    header = pack_header(0, MIN_BATCH_LENGTH + len(payload), 0, int(codec), count - 1, 0, 0,
                         -1, -1, -1, count)  # fmt: skip
    path = tmp_path / "00000000000000000000.log"
    path.write_bytes(seal(header, payload))
    size = path.stat().st_size
    return {"cluster": "c", "file": path.name, "kind": "log", "uri": str(path), "start": 0, "end": size}


def _kinds(unit: dict, batch_rows: int) -> tuple[dict, list[dict]]:
    """Rows per kind, and the ISSUE rows, checking every Arrow batch's size."""
    counts = {RECORD: 0, BATCH: 0, ISSUE: 0}
    issues = []
    for batch in decode_unit(unit, batch_rows=batch_rows):
        assert batch.num_rows <= batch_rows
        kind = batch.column("kind")[0].as_py()
        counts[kind] += batch.num_rows
        if kind == ISSUE:
            issues += batch.to_pylist()
    return counts, issues


@pytest.mark.parametrize("codec", [0, 1, 4], ids=["none", "gzip", "zstd"])
def test_a_batch_of_many_records_is_decoded_in_bounded_arrow_batches(tmp_path, codec):
    count = 120_000  # past the all-records readers' reach only if they were asked to build it
    unit = _batch_file(tmp_path, _records(count), count, codec)
    counts, issues = _kinds(unit, batch_rows=5000)
    assert counts == {RECORD: count, BATCH: 1, ISSUE: 0}, issues[:3]
    (batch,) = [b for b in decode_unit(unit, batch_rows=10 ** 6) if b.column("kind")[0].as_py() == BATCH]
    assert batch.column("offsets_ok").to_pylist() == [True]
    assert batch.column("records_count").to_pylist() == [count]


def test_a_large_batch_cut_short_keeps_the_rows_handed_on_and_counts_the_rest_lost(tmp_path):
    count, held = 30_000, 29_990  # the header says 10 more records than the batch holds
    unit = _batch_file(tmp_path, _records(held), count, 4)
    counts, issues = _kinds(unit, batch_rows=1000)
    (issue,) = issues
    assert issue["issue"] == "malformed batch" and issue["records_lost"] == count - held
    assert "fewer records than the count" in issue["detail"] and f"after {held} records" in issue["detail"]
    assert counts[RECORD] == held  # every record read has its row
    assert counts[BATCH] == 1


def test_a_small_malformed_batch_is_one_damage_row_as_before(tmp_path):
    unit = _batch_file(tmp_path, _records(99), 100, 4)
    counts, issues = _kinds(unit, batch_rows=1000)
    assert counts == {RECORD: 0, BATCH: 1, ISSUE: 1}
    assert issues[0]["issue"] == "malformed batch" and issues[0]["records_lost"] == 100
