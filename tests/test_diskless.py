"""The diskless batch-coordinator messages (schemas/diskless/, docs/diskless.md).

Every message and version gets bytes worked out by hand from the schema, field by field, and its
JSON form written out by hand; both are checked in both directions. The suites that run over
every message (round trips with the strategies, hostile input, the fuzzer) are checked to include
these messages, and the schema loader and the registry are checked to refuse a second claimant of
their api keys and record type.
"""

from __future__ import annotations

import importlib.util
import json
import re
import sys

import pytest

from conftest import ROOT, without_about
from codegen import jsonc
from codegen.spec import SchemaError, load_tree
from kafka_meta_proto import DISKLESS_REGISTRY, REGISTRY, DecodeError, kraft, protocol
from kafka_meta_proto.registry import DuplicateKeyError, Registry
from kafka_meta_proto.uuid import Uuid

# Two topic ids: their bytes, and Kafka's text form of them (URL-safe base64, no padding).
A_HEX, A = "00112233445566778899aabbccddeeff", "ABEiM0RVZneImaq7zN3u_w"
B_HEX, B = "f0e1d2c3b4a5968778695a4b3c2d1e0f", "8OHSw7Sllod4aVpLPC0eDw"
TS = "0000018bcfe56800"  # int64 1700000000000
NO_TAGS = "00"  # an empty tagged-field section (uvarint count 0)


def arr(n: int) -> str:
    """A compact array length: uvarint n + 1 (n < 127)."""
    return f"{n + 1:02x}"


def s(text: str) -> str:
    """A compact string: uvarint length + 1, then UTF-8 (length < 127)."""
    raw = text.encode()
    return f"{len(raw) + 1:02x}" + raw.hex()


# (message, version, JSON form, bytes as hex), every part of the bytes written out in order.
CASES = [
    ("InitDisklessTopicsRequest", 0,
     {"topics": [{"topicId": A, "numPartitions": 3}, {"topicId": B, "numPartitions": 1}]},
     arr(2)
     + A_HEX + "00000003" + NO_TAGS  # TopicId, NumPartitions
     + B_HEX + "00000001" + NO_TAGS
     + NO_TAGS),
    ("InitDisklessTopicsResponse", 0,
     {"responses": [{"topicId": A, "errorCode": 0}, {"topicId": B, "errorCode": 3}]},
     arr(2)
     + A_HEX + "0000" + NO_TAGS  # TopicId, ErrorCode
     + B_HEX + "0003" + NO_TAGS  # UNKNOWN_TOPIC_OR_PARTITION
     + NO_TAGS),
    ("CommitBatchesRequest", 0,
     {"brokerId": 2, "batches": [{"topics": [{"topicId": A, "partitions": [{
         "partitionIndex": 1, "objectKey": "wal/1", "byteOffset": 16, "size": 100, "baseOffset": 0,
         "lastOffset": 4, "batchMaxTimestamp": 1700000000000, "messageTimestampType": 0,
         "producerId": -1, "producerEpoch": -1, "baseSequence": -1, "lastSequence": -1}]}]}]},
     "00000002"  # BrokerId
     + arr(1)  # Batches
     + arr(1)  # Batches[0].Topics
     + A_HEX  # TopicId
     + arr(1)  # Partitions
     + "00000001"  # PartitionIndex
     + s("wal/1")  # ObjectKey
     + "00000010"  # ByteOffset (int32)
     + "0000000000000064"  # Size (int64)
     + "0000000000000000"  # BaseOffset
     + "0000000000000004"  # LastOffset
     + TS  # BatchMaxTimestamp
     + "00"  # MessageTimestampType (int8)
     + "ffffffffffffffff"  # ProducerId
     + "ffff"  # ProducerEpoch
     + "ffffffff" + "ffffffff"  # BaseSequence, LastSequence
     + NO_TAGS + NO_TAGS + NO_TAGS  # partition, topic, batch
     + NO_TAGS),
    ("CommitBatchesResponse", 0,
     {"topics": [{"topicId": A, "partitions": [
         {"partitionIndex": 1, "errorCode": 0, "assignedBaseOffset": 500,
          "logAppendTime": 1700000000000, "logStartOffset": 0, "isDuplicate": False},
         {"partitionIndex": 2, "errorCode": 0, "assignedBaseOffset": 7,
          "logAppendTime": -1, "logStartOffset": 5, "isDuplicate": True}]}]},
     arr(1) + A_HEX + arr(2)
     + "00000001" + "0000"  # PartitionIndex, ErrorCode
     + "00000000000001f4" + TS + "0000000000000000"  # AssignedBaseOffset, LogAppendTime, LogStartOffset
     + "00" + NO_TAGS  # IsDuplicate false
     + "00000002" + "0000"
     + "0000000000000007" + "ffffffffffffffff" + "0000000000000005"
     + "01" + NO_TAGS  # IsDuplicate true
     + NO_TAGS  # topic
     + NO_TAGS),
    ("DeleteDisklessTopicsRequest", 0,
     {"topics": [{"topicId": A}, {"topicId": B}]},
     arr(2) + A_HEX + NO_TAGS + B_HEX + NO_TAGS + NO_TAGS),
    ("DeleteDisklessTopicsResponse", 0,
     {"responses": [{"topicId": B, "errorCode": 0}]},
     arr(1) + B_HEX + "0000" + NO_TAGS + NO_TAGS),
    ("DeleteDisklessRecordsRequest", 0,
     {"topics": [{"topicId": A, "partitions": [{"partitionIndex": 0, "offset": 100},
                                                {"partitionIndex": 2, "offset": 7}]}]},
     arr(1) + A_HEX + arr(2)
     + "00000000" + "0000000000000064" + NO_TAGS  # PartitionIndex, Offset
     + "00000002" + "0000000000000007" + NO_TAGS
     + NO_TAGS + NO_TAGS),
    ("DeleteDisklessRecordsResponse", 0,
     {"responses": [{"topicId": A, "partitions": [{"partitionIndex": 0, "errorCode": 0},
                                                   {"partitionIndex": 2, "errorCode": 1}]}]},
     arr(1) + A_HEX + arr(2)
     + "00000000" + "0000" + NO_TAGS  # PartitionIndex, ErrorCode
     + "00000002" + "0001" + NO_TAGS  # OFFSET_OUT_OF_RANGE
     + NO_TAGS + NO_TAGS),
    ("FindDisklessBatchesRequest", 0,
     {"topics": [{"topicId": A, "partitions": [{"partitionIndex": 0, "offset": 42, "maxBytes": 1048576}]}],
      "maxBytes": 52428800},
     arr(1) + A_HEX + arr(1)
     + "00000000" + "000000000000002a" + "00100000" + NO_TAGS  # PartitionIndex, Offset, MaxBytes
     + NO_TAGS  # topic
     + "03200000"  # MaxBytes of the request, after Topics
     + NO_TAGS),
    ("FindDisklessBatchesResponse", 0,
     {"responses": [{"topicId": A, "partitions": [{
         "partitionIndex": 0, "errorCode": 0, "logStartOffset": 10, "highWatermark": 50,
         "objectKey": "wal/1", "byteOffset": 0, "size": 512, "baseOffset": 40, "lastOffset": 44,
         "batchMaxTimestamp": 1700000000000, "messageTimestampType": 1, "producerId": 7,
         "producerEpoch": 0, "baseSequence": 0, "lastSequence": 4}]}]},
     arr(1) + A_HEX + arr(1)
     + "00000000" + "0000"  # PartitionIndex, ErrorCode
     + "000000000000000a" + "0000000000000032"  # LogStartOffset, HighWatermark
     + s("wal/1")  # ObjectKey
     + "00000000"  # ByteOffset (int32)
     + "0000000000000200"  # Size (int64)
     + "0000000000000028" + "000000000000002c"  # BaseOffset, LastOffset
     + TS  # BatchMaxTimestamp
     + "01"  # MessageTimestampType (int8): log append time
     + "0000000000000007" + "0000"  # ProducerId, ProducerEpoch
     + "00000000" + "00000004"  # BaseSequence, LastSequence
     + NO_TAGS + NO_TAGS + NO_TAGS),
    ("ListDisklessOffsetsRequest", 0,
     {"topics": [{"topicId": A, "partitions": [{"partitionIndex": 0, "timestamp": -1},
                                                {"partitionIndex": 1, "timestamp": -2}]}]},
     arr(1) + A_HEX + arr(2)
     + "00000000" + "ffffffffffffffff" + NO_TAGS  # PartitionIndex, Timestamp (latest)
     + "00000001" + "fffffffffffffffe" + NO_TAGS  # earliest
     + NO_TAGS + NO_TAGS),
    ("ListDisklessOffsetsResponse", 0,
     {"responses": [{"topicId": A, "partitions": [{"partitionIndex": 0, "errorCode": 0,
                                                   "timestamp": -1, "offset": 50}]}]},
     arr(1) + A_HEX + arr(1)
     + "00000000" + "0000" + "ffffffffffffffff" + "0000000000000032"  # index, error, timestamp, offset
     + NO_TAGS + NO_TAGS + NO_TAGS),
    ("AssignPartitionToBatchCoordinatorRequest", 0,
     {"topics": [{"topicId": A, "partitions": [
         {"partitionIndex": 0, "batchCoordinatorPartitionIndex": 3},
         {"partitionIndex": 1, "batchCoordinatorPartitionIndex": 5}]}]},
     arr(1) + A_HEX + arr(2)
     + "00000000" + "00000003" + NO_TAGS  # PartitionIndex, BatchCoordinatorPartitionIndex
     + "00000001" + "00000005" + NO_TAGS
     + NO_TAGS + NO_TAGS),
    ("AssignPartitionToBatchCoordinatorResponse", 0,
     {"responses": [{"topicId": A, "partitions": [{"partitionIndex": 0, "errorCode": 0},
                                                   {"partitionIndex": 1, "errorCode": 3}]}]},
     arr(1) + A_HEX + arr(2)
     + "00000000" + "0000" + NO_TAGS  # PartitionIndex, ErrorCode
     + "00000001" + "0003" + NO_TAGS
     + NO_TAGS + NO_TAGS),
    ("TopicPartitionToBatchCoordinatorMapping", 0,
     {"partitionIndex": 4, "topicId": A, "batchCoordinatorPartitionIndex": 2},
     "00000004" + A_HEX + "00000002" + NO_TAGS),  # PartitionIndex, TopicId, coordinator partition
    # FindCoordinator v7: key type BATCH (3), key "operation:topicId:partition"; layout of v6.
    ("FindCoordinatorRequest", 7,
     {"keyType": 3, "coordinatorKeys": [f"write:{A}:0"]},
     "03" + arr(1) + s(f"write:{A}:0") + NO_TAGS),
    ("FindCoordinatorResponse", 7,
     {"throttleTimeMs": 0, "coordinators": [{"key": f"write:{A}:0", "nodeId": 1, "host": "broker-1",
                                             "port": 9092, "errorCode": 0, "errorMessage": None}]},
     "00000000" + arr(1)
     + s(f"write:{A}:0") + "00000001" + s("broker-1") + "00002384" + "0000"  # key, node, host, port, error
     + "00"  # ErrorMessage null (compact nullable string: 0)
     + NO_TAGS + NO_TAGS),
]  # fmt: skip

DISKLESS = sorted(name for name, *_ in CASES if not name.startswith("FindCoordinator"))
D = DISKLESS_REGISTRY
message_class = D.message_class  # these are the diskless registry's messages
IDS = [f"{name}-v{version}" for name, version, *_ in CASES]


def test_every_diskless_message_and_version_has_a_case():
    schemas = sorted(p.stem for p in (ROOT / "schemas" / "diskless").glob("*.json") if not p.stem.startswith("FindCoordinator"))
    assert DISKLESS == schemas and len(schemas) == 15
    for name in DISKLESS:
        assert list(message_class(name).versions()) == [0]


@pytest.mark.parametrize("name,version,data,hexed", CASES, ids=IDS)
def test_bytes_by_hand(name, version, data, hexed):
    cls = message_class(name)
    raw = bytes.fromhex(hexed)
    msg = cls.from_json(data, version)
    assert msg.encode(version) == raw
    assert msg.size(version) == len(raw)
    back = cls.decode(raw, version)
    assert back == msg
    assert back.to_json(version) == data
    assert json.loads(json.dumps(back.to_json(version))) == data  # plain JSON types only


@pytest.mark.parametrize("name,version,data,hexed", CASES, ids=IDS)
def test_every_cut_and_a_trailing_byte_are_decode_errors(name, version, data, hexed):
    cls = message_class(name)
    raw = bytes.fromhex(hexed)
    for end in range(len(raw)):
        with pytest.raises(DecodeError):
            cls.decode(raw[:end], version)
    with pytest.raises(DecodeError):
        cls.decode(raw + b"\x00", version)


def test_an_array_longer_than_the_input_is_refused_before_allocating():
    cls = message_class("InitDisklessTopicsRequest")
    with pytest.raises(DecodeError, match="topics"):
        cls.decode(bytes.fromhex("ffffffff07") + bytes.fromhex(A_HEX), 0)


def test_the_mapping_record_by_attribute_and_in_its_kraft_frame():
    Mapping = message_class("TopicPartitionToBatchCoordinatorMapping")
    rec = Mapping(
        partition_index=4, topic_id=Uuid(bytes.fromhex(A_HEX)), batch_coordinator_partition_index=2
    )
    assert D.record_class(29) is Mapping
    # frame version 1, record type 29, record version 0 (three uvarints), then the body
    value = bytes.fromhex("01" "1d" "00" "00000004" + A_HEX + "00000002" "00")
    assert kraft.encode_record_value(rec, 0) == value
    decoded = kraft.decode_record_value(value, D)
    assert kraft.decode_record_value(value, "diskless") == decoded
    assert decoded.message == rec
    assert decoded.type_name == "TOPIC_PARTITION_TO_BATCH_COORDINATOR_MAPPING"


def test_rpc_keys_listeners_and_headers():
    for key, name in enumerate(["InitDisklessTopics", "CommitBatches", "DeleteDisklessTopics",
                                "DeleteDisklessRecords", "FindDisklessBatches", "ListDisklessOffsets",
                                "AssignPartitionToBatchCoordinator"], start=93):  # fmt: skip
        request, response = D.request_class(key), D.response_class(key)
        assert (request.NAME, response.NAME) == (f"{name}Request", f"{name}Response")
        assert request.LISTENERS == (("controller",) if key == 99 else ("broker",))
        assert response.LISTENERS == ()
        assert request.LOWEST_FLEXIBLE_VERSION == response.LOWEST_FLEXIBLE_VERSION == 0


# -- the schemas are the design's JSON, with the repairs docs/diskless.md lists ---------------------

DESIGN = ROOT.parent / "shared" / "design" / "KIP-1164-diskless-batch-coordinator.txt"


def design_schemas() -> list[dict]:
    """The JSON blocks of the design text after R1-R3 (syntax), FindCoordinator's left out."""
    lines = DESIGN.read_text(encoding="utf-8").split("\n")
    blocks, start = [], None
    for i, line in enumerate(lines):
        if line == "{":
            start = i
        elif line == "}" and start is not None:
            blocks.append("\n".join(lines[start : i + 1]))
            start = None
    out = []
    for text in blocks:
        text = re.sub(r"\}\n(\s*\{ \"name\")", r"},\n\1", text)  # R1, R2: missing commas
        text = re.sub(r",(\s*\])", r"\1", text)  # R3: trailing comma
        schema = json.loads(jsonc.strip_comments(text))
        if schema["apiKey"] != 10:
            out.append(schema)
    return out


def test_schemas_are_the_design_json_with_the_listed_repairs():
    if not DESIGN.exists():
        pytest.skip(f"design text not present at {DESIGN}")
    ours = {
        (s["type"], s["apiKey"]): s
        for s in (jsonc.load(p) for p in (ROOT / "schemas" / "diskless").glob("*.json"))
        if s["apiKey"] != 10 or s["type"] == "metadata"
    }
    design = design_schemas()
    assert len(design) == len(ours) == 15
    for schema in design:
        want = without_about(schema)
        if schema["type"] in ("request", "response"):
            if schema["type"] == "response":
                del want["listeners"]  # R6
            base = "ListDisklessOffsets" if schema["apiKey"] == 98 else schema["name"]  # R4
            want["name"] = base + schema["type"].capitalize()  # R5
        got = without_about(ours[(schema["type"], schema["apiKey"])])
        assert json.dumps(got) == json.dumps(want), want["name"]  # key order too
        assert list(got) == list(want)


# -- the suites over every message cover these ----------------------------------------------------


def test_the_suites_over_every_message_include_them():
    import test_hostile_input
    import test_roundtrip

    roundtrip = {p.values for p in test_roundtrip.CASES}
    hostile = set(test_hostile_input.PAIRS)
    for name in DISKLESS:
        assert (f"diskless:{name}", 0) in roundtrip and (f"diskless:{name}", 0) in hostile, name
    assert 29 in test_hostile_input.RECORD_TYPES
    assert set(range(93, 100)) <= set(test_hostile_input.API_KEYS)


def test_fuzzer_on_the_diskless_messages(capsys):
    spec = importlib.util.spec_from_file_location("kmp_fuzz_diskless", ROOT / "tools" / "fuzz.py")
    fuzz = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = fuzz  # its dataclasses look the module up by name
    try:
        spec.loader.exec_module(fuzz)
        code = fuzz.main(
            ["--budget", "800", "--seed", "3", "--jobs", "1", "--quiet", "--only", *(f"diskless:{n}" for n in DISKLESS)]
        )
    finally:
        sys.modules.pop(spec.name, None)
    summary = capsys.readouterr().out.rstrip("\n").split("\n")[-1]
    inputs, clean, errors, other, slow = (
        int(w) for w in summary.replace(",", "").split() if w.isdigit()
    )
    assert (code, inputs, other) == (0, 800, 0), summary
    assert clean > 0 and errors > 0


# -- a second claimant of the diskless keys is refused --------------------------------------------

CLAIMANT = {"validVersions": "0", "flexibleVersions": "0+", "fields": []}


@pytest.mark.parametrize(
    "name,mtype,key,rule,owner",
    [
        ("UnregisterControllerRecord", "metadata", 29, "duplicate record type", "TopicPartitionToBatchCoordinatorMapping"),
        ("StreamsGroupTopologyDescriptionUpdateRequest", "request", 93, "duplicate api key", "InitDisklessTopicsRequest"),
        ("UnregisterControllerResponse", "response", 94, "duplicate api key", "CommitBatchesResponse"),
        ("OtherResponse", "response", 99, "duplicate api key", "AssignPartitionToBatchCoordinatorResponse"),
    ],
)  # fmt: skip
def test_schema_tree_refuses_a_second_claimant(tmp_path, name, mtype, key, rule, owner):
    (tmp_path / f"{name}.json").write_text(
        json.dumps({"apiKey": key, "type": mtype, "name": name, **CLAIMANT})
    )
    with pytest.raises(SchemaError) as info:
        load_tree([ROOT / "schemas" / "diskless", tmp_path])
    assert info.value.rule == rule and owner in str(info.value)


def test_kafka_and_the_design_cannot_be_one_tree():
    """Kafka 4.4 claims record type 29 and api keys 93-94: the design's schemas are a registry of
    their own (extending Kafka's), never one tree with Kafka's."""
    with pytest.raises(SchemaError) as info:
        load_tree([ROOT / "schemas" / "kafka", ROOT / "schemas" / "diskless"])
    assert info.value.rule in ("duplicate record type", "duplicate api key", "duplicate message name")


def test_registry_refuses_a_second_claimant():
    entries = [
        (name, "m", D.message_type(name), message_class(name).API_KEY, D.key_space(name))
        for name in D.own_names()
    ]
    Registry("pkg", entries)  # the shipped set is consistent
    with pytest.raises(
        DuplicateKeyError,
        match="record type 29 is claimed by both TopicPartitionToBatchCoordinatorMapping",
    ):
        Registry("pkg", entries + [("UnregisterControllerRecord", "u", "metadata", 29)])
    with pytest.raises(
        DuplicateKeyError, match="request api key 97 is claimed by both FindDisklessBatchesRequest"
    ):
        Registry("pkg", entries + [("OtherRequest", "o", "request", 97)])


# -- two registries: Kafka's numbers stay Kafka's ---------------------------------------------------


@pytest.mark.parametrize("name", ["FindCoordinatorRequest", "FindCoordinatorResponse"])
def test_find_coordinator_v7_is_kafkas_v6_layout_over_kafkas_versions(name):
    """The design's FindCoordinator speaks Kafka's versions 0-6 exactly as Kafka's registry does,
    and v7 with the layout of v6; Kafka's registry stops at 6."""
    from codegen.maintenance import merge

    kafka = jsonc.load(ROOT / "schemas" / "kafka" / f"{name}.json")
    design = jsonc.load(ROOT / "schemas" / "diskless" / f"{name}.json")
    assert REGISTRY.message_class(name).versions() == range(0, 7)
    assert D.message_class(name).versions() == range(0, 8)
    for v in range(7):
        assert merge.project(design, v) == merge.project(kafka, v), v
    assert merge.project(design, 7) == merge.project(kafka, 6)


def test_kafkas_registry_gives_the_clashing_numbers_kafkas_meanings():
    assert REGISTRY.request_class(93).NAME == "StreamsGroupTopologyDescriptionUpdateRequest"
    assert REGISTRY.request_class(94).NAME == "UnregisterControllerRequest"
    assert REGISTRY.response_class(94).NAME == "UnregisterControllerResponse"
    assert REGISTRY.record_class(29).NAME == "UnregisterControllerRecord"
    assert not set(range(95, 100)) & set(REGISTRY.api_keys())
    assert not set(DISKLESS) & set(REGISTRY.names())
    # the diskless registry: the design's meanings, and Kafka's for everything else
    assert [D.request_class(k).NAME for k in (93, 94)] == ["InitDisklessTopicsRequest", "CommitBatchesRequest"]
    assert D.record_class(29).NAME == "TopicPartitionToBatchCoordinatorMapping"
    assert D.request_class(1) is REGISTRY.request_class(1)
    assert D.message_class("RequestHeader") is REGISTRY.message_class("RequestHeader")
    assert D.record_class(2) is REGISTRY.record_class(2)


def test_the_design_bytes_read_with_kafkas_registry_name_both_meanings():
    commit = D.message_class("CommitBatchesRequest")(broker_id=7)
    frame = protocol.encode_request(commit, 0, correlation_id=3)
    assert protocol.decode_request(frame, registry=D).body == commit
    assert protocol.decode_request(frame, registry="diskless").body == commit
    with pytest.raises(DecodeError) as info:
        protocol.decode_request(frame)
    text = str(info.value)
    assert "UnregisterControllerRequest" in text and "CommitBatchesRequest" in text
    assert "DISKLESS_REGISTRY" in text and "--diskless" in text
    mapping = D.message_class("TopicPartitionToBatchCoordinatorMapping")(partition_index=4)
    value = kraft.encode_record_value(mapping, 0)
    with pytest.raises(DecodeError) as info:
        kraft.decode_record_value(value)
    assert "record type 29 is UnregisterControllerRecord" in str(info.value)
    assert "TopicPartitionToBatchCoordinatorMapping" in str(info.value)
    # and the other way round: Kafka 4.4's record read with the diskless registry
    unregister = REGISTRY.message_class("UnregisterControllerRecord")(controller_id=3000)
    with pytest.raises(DecodeError) as info:
        kraft.decode_record_value(kraft.encode_record_value(unregister, 0), D)
    assert "UnregisterControllerRecord" in str(info.value) and "--registry kafka" in str(info.value)
    # a number only the design uses: Kafka's registry has none, and says who has
    frame = protocol.encode_request(D.message_class("FindDisklessBatchesRequest")(), 0, correlation_id=1)
    with pytest.raises(DecodeError, match="api key 97 means nothing in the registry of Apache Kafka but FindDisklessBatchesRequest"):
        protocol.decode_request(frame)

