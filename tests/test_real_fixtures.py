"""Bytes real software wrote (../shared/kafka-reference/real/*.jsonl), decoded and re-encoded exactly.

Every request/response entry becomes one test, named ``file:line:api vN kind``:

- an API we do not ship would be skipped, naming the API (every API is shipped: none is);
- full frames go through protocol.decode_request / decode_response (responses take the api key and
  version from the line), body-only entries through the class (after ``body_offset`` bytes, which
  hold the flexible header's empty tag section in kafkajs data); either must read to the last byte,
  and header and body re-encoded must give the same bytes again;
- entries documented as broken must be rejected with DecodeError or UnsupportedVersionError and
  nothing else: every line of codecrafters_negative.jsonl, a request whose version no schema has,
  and lines whose ``note`` says NON-STANDARD or INVALID. Two negative scenarios are well-formed at
  this layer and say so below.

Record batches and KRaft records (kind batch/record) belong to the log tests (tests/log/).
``python tools/fixture_report.py`` runs this module and prints the pass counts per file.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from kafka_meta_proto import REGISTRY, protocol
from kafka_meta_proto.errors import DecodeError, UnsupportedVersionError

REFERENCE = Path(__file__).resolve().parents[1].parent / "shared" / "kafka-reference"
REAL = REFERENCE / "real"

if not REAL.is_dir():
    pytest.skip(f"second check on recorded data: ../shared's real traffic not present at {REFERENCE}", allow_module_level=True)

RPC_KINDS = ("request", "response")
NEGATIVE_FILE = "codecrafters_negative.jsonl"
REJECTED = (DecodeError, UnsupportedVersionError)

# The codecrafters tester sends ApiVersions v4 (every supported-version ApiVersions request in
# codecrafters.jsonl is v4); the negative lines that carry no api key or version are its replies.
CODECRAFTERS_API_VERSIONS_VERSION = 4

# Entries that decode but re-encode to different bytes, with the reason: none today. Every positive
# entry of the shipped APIs is canonical. Add ("file", line): "why" here if that ever changes.
NON_CANONICAL: dict[tuple[str, int], str] = {}

# Entries Kafka's own reader refuses although the capture does not say so, with the reason (checked
# against kafka-clients 4.3.1's generated classes): we must refuse them the same way.
KAFKA_REJECTS: dict[tuple[str, int], str] = {
    ("sarama.jsonl", 154): "Sarama's empty DescribeLogDirs v2 response writes compact length 0 (null) "
    "for the non-nullable Results array; Kafka: 'non-nullable field results was serialized as null'",
    ("sarama.jsonl", 158): "the same null Results array in the v4 response",
}


@dataclass(frozen=True)
class Entry:
    file: str
    line: int
    raw: dict

    @property
    def api(self) -> str:
        return self.raw["api"]

    @property
    def kind(self) -> str:
        return self.raw["kind"]

    @property
    def version(self) -> int | None:
        return self.raw.get("version")

    @property
    def api_key(self) -> int | None:
        return self.raw.get("api_key")

    @property
    def data(self) -> bytes:
        return bytes.fromhex(self.raw["hex"])

    @property
    def framing(self) -> str:
        return self.raw["framing"]

    @property
    def note(self) -> str:
        return self.raw.get("note", "")

    @property
    def full_frame(self) -> bool:
        # "full frame: int32 size + ..." and the negative file's "truncated (N bytes)" dumps of one.
        return self.framing.startswith(("full frame", "truncated"))

    @property
    def header_only(self) -> bool:
        return self.api in ("RequestHeader", "ResponseHeader")

    @property
    def id(self) -> str:
        version = "?" if self.version is None else self.version
        return f"{self.file}:{self.line}:{self.api} v{version} {self.kind}"

    @property
    def scenario(self) -> str | None:
        match = re.search(r"scenario (\w+)", self.raw.get("origin", ""))
        return match.group(1) if match else None

    @property
    def documented_invalid(self) -> bool:
        return self.file == NEGATIVE_FILE or self.note.startswith(("NON-STANDARD", "INVALID"))

    def message_class(self):
        """The class for this entry, or None when we do not ship the API."""
        try:
            if self.header_only:
                return REGISTRY.message_class(self.api)
            if self.api_key is None:
                return REGISTRY.message_class(self.api + self.kind.capitalize())
            lookup = REGISTRY.request_class if self.kind == "request" else REGISTRY.response_class
            return lookup(self.api_key)
        except KeyError:
            return None


def load_entries() -> list[Entry]:
    entries = []
    for path in sorted(REAL.glob("*.jsonl")):
        for number, text in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if text.strip():
                entries.append(Entry(path.name, number, json.loads(text)))
    return entries


ENTRIES = load_entries()
RPC_ENTRIES = [e for e in ENTRIES if e.kind in RPC_KINDS]


# -- Checks ---------------------------------------------------------------------------------------


def decode_frame(entry: Entry, version: int | None = None):
    """protocol.decode_request / decode_response on a full frame."""
    if entry.kind == "request":
        return protocol.decode_request(entry.data)
    cls = entry.message_class()
    return protocol.decode_response(
        entry.data, cls.API_KEY, entry.version if version is None else version
    )


def check_frame_round_trip(entry: Entry):
    data = entry.data
    msg = decode_frame(entry)
    body = msg.body
    if entry.kind == "request":
        key, version = msg.api_key, msg.api_version
        assert (key, version) == (entry.api_key, entry.version)
        hv = protocol.request_header_version(key, version)
    else:
        key, version = entry.api_key, entry.version
        hv = protocol.response_header_version(key, version)
    if "correlation_id" in entry.raw:
        assert msg.correlation_id == entry.raw["correlation_id"]
    header_bytes = msg.header.encode(hv)
    body_bytes = body.encode(version)
    assert msg.header.size(hv) == len(header_bytes)
    assert body.size(version) == len(body_bytes)
    assert protocol.frame(header_bytes + body_bytes) == data
    if not msg.header.unknown_tagged_fields:  # encode_* build a plain header
        if entry.kind == "request":
            again = protocol.encode_request(body, version, msg.correlation_id, msg.header.client_id)
        else:
            again = protocol.encode_response(body, version, msg.correlation_id)
        assert again == data
    return body, version


def check_body_round_trip(entry: Entry, cls):
    data, version = entry.data, entry.version
    offset = entry.raw.get("body_offset", 0)
    if offset:
        # kafkajs keeps the flexible header's tag section in front of the body: it must be empty.
        assert cls.is_flexible(version)
        assert data[:offset] == b"\x00"
    msg = cls.decode(data[offset:], version)
    again, end = cls.decode_from(data, version, offset)
    assert again == msg and end == len(data)
    encoded = msg.encode(version)
    assert msg.size(version) == len(encoded)
    assert data[:offset] + encoded == data
    return msg, version


def check_json_round_trip(msg, version):
    text = json.dumps(msg.to_json(version))
    assert type(msg).from_json(json.loads(text), version) == msg


def check_rejected(entry: Entry, cls):
    """The entry's bytes must raise DecodeError or UnsupportedVersionError, nothing else."""
    with pytest.raises(REJECTED):
        decode_entry(entry, cls)


def decode_entry(entry: Entry, cls, version: int | None = None):
    version = entry.version if version is None else version
    if entry.full_frame:
        return decode_frame(entry, version)
    return cls.decode(entry.data[entry.raw.get("body_offset", 0) :], version)


def check_only_clean_errors_at_every_version(entry: Entry, cls):
    """Whatever version a client expected, the bytes decode or fail with our errors only."""
    if entry.kind == "request" and entry.full_frame:
        versions = [None]  # the frame names its own version
    else:
        versions = list(cls.versions()) + [cls.HIGHEST_VERSION + 1]
    for v in versions:
        try:
            decode_entry(entry, cls, v)
        except REJECTED:
            pass


def _negative_version(entry: Entry) -> int:
    return CODECRAFTERS_API_VERSIONS_VERSION if entry.version is None else entry.version


def check_correlation_id_mismatch(entry: Entry, cls):
    # A well-formed ApiVersions v4 reply whose only fault is its correlation id (0), which does not
    # match the tester's request. Frames cannot know the request; the caller compares the ids.
    resp = decode_frame(entry, _negative_version(entry))
    assert resp.correlation_id == entry.raw["correlation_id"] == 0
    assert protocol.encode_response(resp.body, _negative_version(entry), 0) == entry.data


def check_record_batch_checksum_fail(entry: Entry, cls):
    # The Fetch response is well-formed; the corruption is inside its records (opaque bytes at this
    # layer): the first record batch's CRC-32C does not match. The log reader must catch it.
    log = pytest.importorskip("kafka_meta_proto.log")
    resp = decode_frame(entry)
    records = resp.body.responses[0].partitions[0].records
    assert records
    with pytest.raises(log.CorruptBatchError):
        log.decode_batch(records, 0)


# Negative scenarios whose bytes are valid at the protocol layer, with what makes them negative.
WELL_FORMED_NEGATIVES = {
    "correlation_id_mismatch": check_correlation_id_mismatch,
    "recordbatch_checksum_fail": check_record_batch_checksum_fail,
}


# -- Tests ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("entry", [pytest.param(e, id=e.id) for e in RPC_ENTRIES])
def test_real_entry(entry: Entry, record_property):
    cls = entry.message_class()
    if cls is None:
        record_property("check", "skipped")
        suffix = " (a documented-invalid entry)" if entry.documented_invalid else ""
        pytest.skip(f"{entry.api} (api key {entry.api_key}) is not shipped{suffix}")

    if entry.documented_invalid:
        check_only_clean_errors_at_every_version(entry, cls)
        special = WELL_FORMED_NEGATIVES.get(entry.scenario) if entry.file == NEGATIVE_FILE else None
        if special is not None:
            record_property("check", "well-formed negative caught by its own check")
            special(entry, cls)
        else:
            record_property("check", "rejected")
            if entry.version is None:
                entry = Entry(
                    entry.file, entry.line, {**entry.raw, "version": _negative_version(entry)}
                )
            check_rejected(entry, cls)
        return

    if (entry.file, entry.line) in KAFKA_REJECTS:
        record_property("check", "rejected, as Kafka rejects it")
        with pytest.raises(DecodeError):
            decode_entry(entry, cls)
        return

    if entry.version not in cls.versions():
        # e.g. the codecrafters ApiVersions v1698 and v15281 requests: the frame is intact, the
        # version is one no schema defines.
        record_property("check", "rejected")
        with pytest.raises(UnsupportedVersionError):
            decode_entry(entry, cls)
        return

    record_property("check", "round trip")
    if entry.full_frame:
        body, version = check_frame_round_trip(entry)
    else:
        body, version = check_body_round_trip(entry, cls)
    if (entry.file, entry.line) in NON_CANONICAL:
        pytest.fail(
            f"listed as non-canonical but re-encodes identically: {NON_CANONICAL[(entry.file, entry.line)]}"
        )
    check_json_round_trip(body, version)


def _find(file: str, line: int) -> Entry:
    (entry,) = [e for e in ENTRIES if (e.file, e.line) == (file, line)]
    return entry


def test_java_admin_client_request_header():
    # "request header v2 only (api_key=18 ApiVersions, api_version=3, correlation 0,
    # client_id adminclient-1, empty tagged fields)"
    entry = _find("kafka-protocol-rs.jsonl", 2)
    assert entry.api == "RequestHeader" and entry.version == 2
    header = entry.message_class().decode(entry.data, 2)
    assert (header.request_api_key, header.request_api_version, header.correlation_id) == (18, 3, 0)
    assert header.client_id == "adminclient-1" and header.unknown_tagged_fields == ()
    # ClientId keeps its int16 length in the flexible header v2.
    assert entry.data[8:10] == b"\x00\x0d"


def test_unsupported_version_request_and_its_v0_reply():
    # The broker answers an ApiVersions request of a version it does not know with a v0 body.
    request, reply = _find("codecrafters.jsonl", 3), _find("codecrafters.jsonl", 4)
    assert request.version == 1698 and reply.version == 0
    with pytest.raises(UnsupportedVersionError):
        protocol.decode_request(request.data)
    resp = protocol.decode_response(reply.data, 18, 0)
    assert resp.correlation_id == request.raw["correlation_id"]
    assert resp.body.error_code == 35  # UNSUPPORTED_VERSION


def test_documented_invalid_entries_are_the_known_ones():
    flagged = {
        (e.file, e.line) for e in RPC_ENTRIES if e.documented_invalid and e.file != NEGATIVE_FILE
    }
    assert flagged == {("kafkajs.jsonl", 18), ("sarama.jsonl", 41)}
    assert {e.scenario for e in RPC_ENTRIES if e.file == NEGATIVE_FILE and e.scenario} >= set(
        WELL_FORMED_NEGATIVES
    )


# How many RPC entries per file have a shipped class: a registry that lost a class would turn its
# tests into skips, so the coverage is pinned here.
EXPECTED_COVERED = {
    "codecrafters.jsonl": (274, 274),
    "codecrafters_negative.jsonl": (13, 13),
    "kafka-protocol-rs.jsonl": (2, 2),
    "kafkajs.jsonl": (189, 189),
    "sarama.jsonl": (316, 316),
}


def test_coverage_of_the_real_entries():
    got = {}
    for entry in RPC_ENTRIES:
        covered, total = got.get(entry.file, (0, 0))
        got[entry.file] = (covered + (entry.message_class() is not None), total + 1)
    assert got == EXPECTED_COVERED
    # Everything else in real/ is a record batch or a KRaft record, covered by tests/log.
    assert {e.kind for e in ENTRIES if e.kind not in RPC_KINDS} <= {"batch", "record"}
