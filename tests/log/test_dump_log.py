"""kafka-meta-proto dump-log: Kafka's DumpLogSegments text, exactly, and the --json form.

The golden files in tests/log/golden/ were written by hand from Kafka's format and from the bytes
of the real files (read with struct and the crc32c package, record values decoded by hand); they
were not produced by this tool.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from kafka_meta_proto import DISKLESS_REGISTRY, cli, kraft, message_class
from kafka_meta_proto.tools import dump
from kafka_meta_proto.log import CompressionType, Record, RecordBatch, TimestampType, control_key
from kafka_meta_proto.uuid import Uuid

from .reference import KRAFT_LOGS, file_params, jsonl, needs_reference, real_log_files

GOLDEN = Path(__file__).parent / "golden"

BOOTSTRAP = "renoagilsaputra__kafka/722ee80223f9/data/bootstrap.checkpoint"
SHORT_SEGMENT = (
    "codecrafters-io__kafka-tester/018f9bc8ee33/internal/test_helpers/pass_all/"
    "kraft-combined-logs/__cluster_metadata-0/00000000000000000000.log"
)
LEADER_CHANGE_SEGMENT = (
    "codecrafters-io__kafka-tester/0873daebd31a/internal/test_helpers/pass_all/"
    "kraft-combined-logs/__cluster_metadata-0/00000000000000000000.log"
)
SNAPSHOT = "renoagilsaputra__kafka/722ee80223f9/data/__cluster_metadata-0/00000000000000007111-0000000001.checkpoint"


def run_dump(paths, **options) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    status = dump.dump([str(p) for p in paths], out, err, **options)
    return status, out.getvalue(), err.getvalue()


def is_metadata_file(path: Path) -> bool:
    """The real files hold cluster metadata, except the user topic segments (foo-0)."""
    return "__cluster_metadata-0" in path.parts or path.name == "bootstrap.checkpoint"


# --- golden text ---------------------------------------------------------------------------


@needs_reference
@pytest.mark.parametrize(
    "relative, golden, skip",
    [
        (BOOTSTRAP, "bootstrap_checkpoint.txt", False),
        (BOOTSTRAP, "bootstrap_checkpoint.skip-record-metadata.txt", True),
        (SHORT_SEGMENT, "codecrafters_segment.txt", False),
        (SHORT_SEGMENT, "codecrafters_segment.skip-record-metadata.txt", True),
        (LEADER_CHANGE_SEGMENT, "codecrafters_segment_leader_changes.txt", False),
    ],
)
def test_dump_matches_golden_text(relative, golden, skip, monkeypatch):
    monkeypatch.chdir(KRAFT_LOGS)  # the golden "Dumping" line names the file relative to kraft-logs
    status, out, _ = run_dump([relative], skip_record_metadata=skip)
    assert out == (GOLDEN / golden).read_text(encoding="utf-8")
    assert status == 0


@needs_reference
def test_command_line_prints_the_golden_text(monkeypatch, capsys):
    monkeypatch.chdir(KRAFT_LOGS)
    assert cli.main(["dump-log", BOOTSTRAP, SHORT_SEGMENT]) == 0
    out, err = capsys.readouterr()
    expected = (GOLDEN / "bootstrap_checkpoint.txt").read_text() + (
        GOLDEN / "codecrafters_segment.txt"
    ).read_text()
    assert out == expected
    # Kafka reports a gap in the offsets on stderr, after all files, with the absolute path (of
    # the working directory as the system gives it, links resolved).
    assert err == f"Non-consecutive offsets in {Path.cwd() / SHORT_SEGMENT}\n  4 is followed by 34\n"


@needs_reference
def test_files_option_takes_a_comma_separated_list(monkeypatch, capsys):
    monkeypatch.chdir(KRAFT_LOGS)
    assert (
        cli.main(
            [
                "dump-log",
                "--cluster-metadata-decoder",
                "--skip-record-metadata",
                "--files",
                f"{BOOTSTRAP},{SHORT_SEGMENT}",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert (
        out
        == (GOLDEN / "bootstrap_checkpoint.skip-record-metadata.txt").read_text()
        + (GOLDEN / "codecrafters_segment.skip-record-metadata.txt").read_text()
    )


@needs_reference
def test_snapshot_heading_names_end_offset_and_epoch():
    status, out, err = run_dump([KRAFT_LOGS / SNAPSHOT])
    lines = out.splitlines()
    assert lines[0] == f"Dumping {KRAFT_LOGS / SNAPSHOT}"
    assert lines[1] == "Snapshot end offset: 7111, epoch: 1"
    assert lines[3].endswith(
        'SnapshotHeader {"version":0,"lastContainedLogTimestamp":1754474509545}'
    )
    assert lines[-1].endswith('SnapshotFooter {"version":0}')
    assert status == 0 and err == ""


# --- every real file -------------------------------------------------------------------------


def _reference_batches() -> dict[Path, list[dict]]:
    """The batches of kraft_batches.jsonl (split out of the real files by the reference tooling).

    A source is ``owner/repo@commit:path``; the file lives at ``owner__repo/<commit[:12]>/path``.
    """
    batches: dict[Path, list[dict]] = {}
    for entry in jsonl("kraft_batches.jsonl"):
        repo, rest = entry["source"].split("@", 1)
        commit, relative = rest.split(":", 1)
        batches.setdefault(
            KRAFT_LOGS / repo.replace("/", "__") / commit[:12] / relative, []
        ).append(entry)
    return batches


@pytest.mark.parametrize("path", file_params())
def test_every_real_file_dumps_completely(path):
    status, out, err = run_dump([path])
    lines = out.splitlines()
    batch_lines = [line for line in lines if line.startswith("baseOffset: ")]
    record_lines = [line for line in lines if line.startswith("| offset: ")]
    assert batch_lines and all(line.endswith("isvalid: true") for line in batch_lines)
    counts = [int(line.split(" count: ")[1].split()[0]) for line in batch_lines]
    assert len(record_lines) == sum(counts)
    assert "invalid bytes" not in out
    if is_metadata_file(path):
        assert status == 0
        assert "Error at" not in out
        for line in record_lines:
            assert " payload: {" in line or " LeaderChange: {" in line or " Snapshot" in line
    else:  # user data: every value is reported as undecodable, as Kafka does, without stopping
        assert status == 1
        assert all(" payload: Error at " in line for line in record_lines)


@pytest.mark.parametrize("path", file_params())
def test_every_real_file_as_json(path):
    status, out, _ = run_dump([path], as_json=True)
    objects = [json.loads(line) for line in out.splitlines()]
    assert objects
    offsets = [o["offset"] for o in objects]
    assert offsets == sorted(offsets)
    if is_metadata_file(path):
        assert status == 0
        assert all(o["error"] is None and o["type"] and o["crcValid"] for o in objects)
        # the same records and payloads as the text form
        _, text, _ = run_dump([path])
        payloads = [
            line.split(" payload: ", 1)[1] for line in text.splitlines() if " payload: " in line
        ]
        data_objects = [o for o in objects if not o["control"]]
        assert len(payloads) == len(data_objects)
        for payload, obj in zip(payloads, data_objects):
            assert json.loads(payload) == {
                "type": obj["type"],
                "version": obj["version"],
                "data": obj["data"],
            }


@needs_reference
def test_batch_lines_agree_with_the_reference_batches():
    by_file = _reference_batches()
    assert set(by_file) <= set(real_log_files()) and len(by_file) >= 12
    for path, entries in by_file.items():
        _, out, _ = run_dump([path])
        lines = {
            int(line.split(" position: ")[1].split()[0]): line
            for line in out.splitlines()
            if line.startswith("baseOffset: ")
        }
        for entry in entries:
            line = lines[entry["byte_offset"]]
            size = len(entry["hex"]) // 2
            assert line.startswith(
                f"baseOffset: {entry['base_offset']} lastOffset: {entry['base_offset'] + entry['record_count'] - 1} count: {entry['record_count']} "
            )
            assert f" isControl: {'true' if entry['control'] else 'false'} " in line
            assert f" size: {size} " in line and line.endswith(
                f"crc: {int(entry['hex'][34:42], 16)} isvalid: true"
            )


@needs_reference
def test_json_form_of_the_bootstrap_snapshot(monkeypatch, capsys):
    monkeypatch.chdir(KRAFT_LOGS)
    assert cli.main(["dump-log", "--json", BOOTSTRAP]) == 0
    objects = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    common = {"file": BOOTSTRAP, "leaderEpoch": 0, "crcValid": True, "error": None}
    assert objects == [
        {**common, "position": 0, "batchBaseOffset": 0, "offset": 0, "timestamp": 1754470894249, "control": True,
         "type": "SNAPSHOT_HEADER", "version": 0, "data": {"version": 0, "lastContainedLogTimestamp": 0}},
        {**common, "position": 83, "batchBaseOffset": 1, "offset": 1, "timestamp": 1754470894276, "control": False,
         "type": "FEATURE_LEVEL_RECORD", "version": 0, "data": {"name": "metadata.version", "featureLevel": 14}},
        {**common, "position": 174, "batchBaseOffset": 2, "offset": 2, "timestamp": 1754470894277, "control": True,
         "type": "SNAPSHOT_FOOTER", "version": 0, "data": {"version": 0}},
    ]  # fmt: skip
    assert list(objects[0]) == ["file", "position", "batchBaseOffset", "offset", "timestamp", "leaderEpoch",
                                "control", "crcValid", "type", "version", "data", "error"]  # fmt: skip


# --- synthetic files: the corners of the format ------------------------------------------------


def metadata_value(schema: str, version: int, /, **fields) -> bytes:
    return kraft.encode_record_value(message_class(schema)(**fields), version)


def write(tmp_path, name: str, batches: list[RecordBatch]) -> Path:
    path = tmp_path / name
    path.write_bytes(b"".join(b.encode() for b in batches))
    return path


TOPIC_ID = Uuid.from_string("MvDxzVmcRsaTz33bUuRU6A")


def test_truncated_tail_is_reported_like_kafka(tmp_path):
    good = RecordBatch.create(
        [Record(value=metadata_value("TopicRecord", 0, name="t", topic_id=TOPIC_ID))],
        base_offset=5,
        base_timestamp=1000,
    )
    tail = good.encode()
    path = tmp_path / "00000000000000000005.log"
    path.write_bytes(tail + tail[:30])
    status, out, _ = run_dump([path])
    assert out.splitlines()[1] == "Log starting offset: 5"
    assert out.splitlines()[-1] == "Found 30 invalid bytes at the end of 00000000000000000005.log"
    assert status == 1
    # --max-bytes cuts the file as Kafka's slice does, and then says nothing about the rest
    status, out, _ = run_dump([path], max_bytes=len(tail) + 10)
    assert "invalid bytes" not in out and out.count("baseOffset: ") == 1


def test_crc_mismatch_shows_isvalid_false_and_the_records(tmp_path):
    batch = RecordBatch.create(
        [Record(value=metadata_value("TopicRecord", 0, name="abc", topic_id=TOPIC_ID))],
        base_timestamp=1000,
    )
    data = bytearray(batch.encode())
    data[-5] ^= 0x01  # inside the topic id: the record still decodes
    path = tmp_path / "00000000000000000000.log"
    path.write_bytes(bytes(data))
    status, out, _ = run_dump([path])
    lines = out.splitlines()
    assert lines[2].endswith(f"crc: {int.from_bytes(data[17:21], 'big')} isvalid: false")
    assert '"type":"TOPIC_RECORD"' in lines[3]
    assert status == 1
    obj = json.loads(run_dump([path], as_json=True)[1])
    assert obj["crcValid"] is False and obj["type"] == "TOPIC_RECORD"


def test_batch_line_fields(tmp_path):
    records = [Record(offset_delta=i, timestamp_delta=10 * i, key=b"k" if i == 1 else None,
                      value=metadata_value("NoOpRecord", 0), headers=[("h1", b"x"), ("h2", None)] if i == 2 else [])
               for i in range(3)]  # fmt: skip
    batch = RecordBatch.create(
        records, base_offset=100, base_timestamp=5000, producer_id=42, producer_epoch=3,
        base_sequence=2**31 - 2, partition_leader_epoch=7, transactional=True, compression=CompressionType.GZIP,
    )  # fmt: skip
    path = write(tmp_path, "00000000000000000100.log", [batch])
    status, out, _ = run_dump([path])
    lines = out.splitlines()
    crc = int.from_bytes(path.read_bytes()[17:21], "big")
    size = path.stat().st_size
    assert lines[2] == (
        "baseOffset: 100 lastOffset: 102 count: 3 baseSequence: 2147483646 lastSequence: 0 producerId: 42 "
        "producerEpoch: 3 partitionLeaderEpoch: 7 isTransactional: true isControl: false "
        f"deleteHorizonMs: OptionalLong.empty position: 0 CreateTime: 5020 size: {size} magic: 2 "
        f"compresscodec: gzip crc: {crc} isvalid: true"
    )
    noop = ' payload: {"type":"NO_OP_RECORD","version":0,"data":{}}'
    assert (
        lines[3]
        == "| offset: 100 CreateTime: 5000 keySize: -1 valueSize: 4 sequence: 2147483646 headerKeys: []"
        + noop
    )
    assert (
        lines[4]
        == "| offset: 101 CreateTime: 5010 keySize: 1 valueSize: 4 sequence: 2147483647 headerKeys: []"
        + noop
    )
    assert (
        lines[5]
        == "| offset: 102 CreateTime: 5020 keySize: -1 valueSize: 4 sequence: 0 headerKeys: [h1,h2]"
        + noop
    )
    assert status == 0


def test_log_append_time_and_delete_horizon(tmp_path):
    batch = RecordBatch.create([Record(value=metadata_value("NoOpRecord", 0))], base_timestamp=700,
                               timestamp_type=TimestampType.LOG_APPEND_TIME)  # fmt: skip
    batch.max_timestamp = 900
    batch.attributes |= 0x40  # delete horizon: baseTimestamp holds it
    path = write(tmp_path, "00000000000000000000.log", [batch])
    lines = run_dump([path])[1].splitlines()
    assert "deleteHorizonMs: OptionalLong[700] position: 0 LogAppendTime: 900 " in lines[2]
    assert lines[3].startswith("| offset: 0 LogAppendTime: 900 keySize: -1")


def control_batch(type_id: int, value: bytes, base_offset: int = 0, **options) -> RecordBatch:
    return RecordBatch.create([Record(key=control_key(type_id), value=value)], base_offset=base_offset,
                              base_timestamp=1, control=True, **options)  # fmt: skip


def test_every_control_record_type(tmp_path):
    voters = message_class("VotersRecord")
    voter = voters.Voter(voter_id=3000, voter_directory_id=TOPIC_ID, endpoints=[voters.Endpoint(name="CONTROLLER", host="c0", port=9093)],
                         kraft_version_feature=voters.KRaftVersionFeature(min_supported_version=0, max_supported_version=1))  # fmt: skip
    leader_change = message_class("LeaderChangeMessage")
    batches = [
        control_batch(0, b"\x00\x00\x00\x00\x00\x05", 0, transactional=True, producer_id=9, producer_epoch=1),
        control_batch(1, b"\x00\x00\x00\x00\x00\x06", 1, transactional=True, producer_id=9, producer_epoch=1),
        control_batch(2, leader_change(version=0, leader_id=3000, voters=[leader_change.Voter(voter_id=3000)],
                                       granting_voters=[leader_change.Voter(voter_id=3000)]).encode(0), 2),
        control_batch(5, message_class("KRaftVersionRecord")(version=0, kraft_version=1).encode(0), 3),
        control_batch(6, voters(version=0, voters=[voter]).encode(0), 4),
        control_batch(9, b"", 5),
    ]  # fmt: skip
    path = write(tmp_path, "00000000000000000000.log", batches)
    status, out, _ = run_dump([path])
    tails = [
        line.split("headerKeys: []", 1)[1] for line in out.splitlines() if line.startswith("| ")
    ]
    assert tails == [
        " endTxnMarker: ABORT coordinatorEpoch: 5",
        " endTxnMarker: COMMIT coordinatorEpoch: 6",
        ' LeaderChange: {"version":0,"leaderId":3000,"voters":[{"voterId":3000}],"grantingVoters":[{"voterId":3000}]}',
        ' KRaftVersion {"version":0,"kRaftVersion":1}',
        ' KRaftVoters {"version":0,"voters":[{"voterId":3000,"voterDirectoryId":"MvDxzVmcRsaTz33bUuRU6A",'
        '"endpoints":[{"name":"CONTROLLER","host":"c0","port":9093}],'
        '"kRaftVersionFeature":{"minSupportedVersion":0,"maxSupportedVersion":1}}]}',
        " controlType: UNKNOWN(9)",
    ]
    assert status == 1  # the unknown control type
    # skip-record-metadata: Kafka prints an empty line for each control record
    assert run_dump([path], skip_record_metadata=True)[1].splitlines()[3] == ""


def test_undecodable_value_becomes_kafkas_error_payload(tmp_path):
    batch = RecordBatch.create(
        [Record(value=b"\x01\x02\x00\x99"), Record(offset_delta=1, value=b"\x07\x02\x00")],
        base_offset=8,
        base_timestamp=1,
    )
    path = write(tmp_path, "00000000000000000008.log", [batch])
    status, out, _ = run_dump([path])
    record_lines = [line for line in out.splitlines() if line.startswith("| ")]
    assert record_lines[0].split(" payload: ")[1].startswith("Error at 8, skipping. ")
    assert (
        record_lines[1]
        .split(" payload: ")[1]
        .startswith("Error at 9, skipping. unknown metadata frame version 7")
    )
    assert status == 1
    objects = [json.loads(line) for line in run_dump([path], as_json=True)[1].splitlines()]
    assert [o["type"] for o in objects] == [None, None] and all(o["error"] for o in objects)


def test_malformed_records_are_reported_and_the_next_batch_is_read(tmp_path):
    first = bytearray(
        RecordBatch.create([Record(value=b"\x01\x14\x00\x00")], base_timestamp=1).encode()
    )
    first[-7] = 0x7F  # the record's length varint now runs past the batch
    second = RecordBatch.create(
        [Record(value=b"\x01\x14\x00\x00")], base_offset=1, base_timestamp=2
    ).encode()
    path = tmp_path / "00000000000000000000.log"
    path.write_bytes(bytes(first) + second)
    status, out, err = run_dump([path])
    lines = out.splitlines()
    assert lines[2].startswith("baseOffset: 0 ") and lines[2].endswith("isvalid: false")
    assert lines[3].startswith("baseOffset: 1 ")
    assert lines[4].startswith("| offset: 1 ")
    assert "position 0:" in err and status == 1


def test_unknown_files_and_missing_files(tmp_path):
    (tmp_path / "00000000000000000000.index").write_bytes(b"")
    status, out, err = run_dump([tmp_path / "00000000000000000000.index", tmp_path / "nope.log"])
    assert status == 1
    assert f"Ignoring unknown file {tmp_path / '00000000000000000000.index'}" in err
    assert "Cannot read" in err and "nope.log" in err


def test_empty_segment(tmp_path):
    path = tmp_path / "00000000000000000042.log"
    path.write_bytes(b"")
    assert run_dump([path]) == (0, f"Dumping {path}\nLog starting offset: 42\n", "")


# --- JSON text as Jackson writes it -----------------------------------------------------------


@pytest.mark.parametrize(
    "value, text",
    [(100.0, "100.0"), (0.001, "0.001"), (0.0001, "1.0E-4"), (1e7, "1.0E7"), (12345678.9, "1.23456789E7"),
     (9999999.0, "9999999.0"), (1.5e-5, "1.5E-5"), (-2.5, "-2.5"), (0.0, "0.0"), (-0.0, "-0.0"), (1e22, "1.0E22"),
     (123.456, "123.456"), (float("nan"), "NaN"), (float("inf"), "Infinity")],
)  # fmt: skip
def test_java_double(value, text):
    assert dump.java_double(value) == text


def test_kafka_json_quirks():
    assert (
        dump.kafka_json({"a": "é\x01\n\\u0001", "b": [1, None, True]})
        == '{"a":"é\\u0001\\n\\\\u0001","b":[1,null,true]}'
    )
    assert (
        dump.kafka_json({"x": 1, "_unknownTaggedFields": [{"tag": 9, "data": "AA=="}]}) == '{"x":1}'
    )
    assert (
        dump.kafka_json({"value": 1e7, "n": float("nan")}, has_floats=True)
        == '{"value":1.0E7,"n":"NaN"}'
    )


def test_client_quota_value_is_written_as_java_does(tmp_path):
    quota = message_class("ClientQuotaRecord")
    value = kraft.encode_record_value(
        quota(entity=[quota.EntityData(entity_type="user", entity_name="alice")], key="producer_byte_rate", value=1048576.0, remove=False), 0
    )  # fmt: skip
    path = write(
        tmp_path,
        "00000000000000000000.log",
        [RecordBatch.create([Record(value=value)], base_timestamp=1)],
    )
    out = run_dump([path])[1]
    assert '"key":"producer_byte_rate","value":1048576.0,"remove":false}}' in out


def test_diskless_mapping_record_payload(tmp_path):
    """Record type 29 of the diskless design: Kafka's type name from the message name, the fields
    in schema order (partition index first)."""
    mapping = DISKLESS_REGISTRY.message_class("TopicPartitionToBatchCoordinatorMapping")
    topic = Uuid(bytes.fromhex("00112233445566778899aabbccddeeff"))
    value = kraft.encode_record_value(
        mapping(partition_index=4, topic_id=topic, batch_coordinator_partition_index=2), 0
    )
    path = write(tmp_path, "00000000000000000000.log", [RecordBatch.create([Record(value=value)], base_timestamp=1)])
    want = (' payload: {"type":"TOPIC_PARTITION_TO_BATCH_COORDINATOR_MAPPING","version":0,"data":'
            '{"partitionIndex":4,"topicId":"ABEiM0RVZneImaq7zN3u_w","batchCoordinatorPartitionIndex":2}}\n')  # fmt: skip
    assert run_dump([path], registry="diskless")[1].endswith(want)
    # Kafka's registry (the default) reads type 29 as Kafka 4.4's record, and says what else it can be
    status, out, _ = run_dump([path])
    assert status == 1 and " payload: Error at 0, skipping. UnregisterControllerRecord v0" in out
    assert "TopicPartitionToBatchCoordinatorMapping in the registry of the diskless" in out
    # a marker beside the file chooses the diskless registry
    (tmp_path / "kafka-meta-proto.registry").write_text("diskless\n")
    assert run_dump([path])[1].endswith(want)


def test_a_crc_mismatch_is_said_once_on_stderr_with_where(tmp_path, capsys):
    from kafka_meta_proto.log.batch import Record, RecordBatch

    first = RecordBatch.create([Record(value=b"a")], base_offset=0).encode()
    second = bytearray(RecordBatch.create([Record(value=b"b")], base_offset=1).encode())
    second[30] ^= 0x01  # in its base timestamp: the CRC no longer matches, the records still parse
    path = tmp_path / f"{0:020d}.log"
    path.write_bytes(first + bytes(second))
    assert cli.main(["dump-log", "--print-data-log", "--deep-iteration", str(path)]) == 1
    out, err = capsys.readouterr()
    assert "isvalid: false" in out
    assert err == f"Error in {path}: 1 batch(es) fail their CRC check, the first at position {len(first)}\n"


def test_a_few_large_records_are_streamed_past_the_eager_byte_bound(tmp_path, monkeypatch):
    # Three records of 1 MiB values, the eager bound lowered to 1.5 MiB: the batch is read whole
    # until the second value passes it, then streamed; a count one off shows the records read
    # and then the problem (a batch read whole would show none of them).
    from kafka_meta_proto.log.header import MIN_BATCH_LENGTH, pack_header, seal
    from kafka_meta_proto.log.compression import compress
    from kafka_meta_proto.log.records import encode_records
    from kafka_meta_proto.tools import dump_batches

    monkeypatch.setattr(dump_batches, "EAGER_BYTES", 3 << 19)
    records = [Record(offset_delta=i, value=bytes([i]) * (1 << 20)) for i in range(3)]
    for count, shown in ((3, 3), (4, 3), (2, 2)):
        payload = compress(CompressionType.ZSTD, encode_records(records))
        header = pack_header(0, MIN_BATCH_LENGTH + len(payload), 0, CompressionType.ZSTD, count - 1,
                             0, 0, -1, -1, -1, count)  # fmt: skip
        path = tmp_path / "00000000000000000000.log"
        path.write_bytes(seal(header, payload))
        status, out, err = run_dump([path])
        assert sum(line.startswith("| offset: ") for line in out.splitlines()) == shown, count
        assert ("position 0:" in err) == (count != 3), err  # (status 1 anyway: the values are no metadata)
