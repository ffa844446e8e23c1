"""The oracle itself: it answers every request, errors included, and the comparison built on it
notices a difference."""

from __future__ import annotations

import dataclasses
import math

import pytest

import differential
import kafka_meta_proto
from interop.conftest import RELEASES

ApiVersionsRequest = kafka_meta_proto.message_class("ApiVersionsRequest")


@pytest.mark.parametrize("release", RELEASES)
def test_errors_come_back_as_data(oracles, release):
    kafka = oracles.get(release)
    answers = kafka.call_many(
        [
            {"op": "encode", "name": "NoSuchMessage", "version": 0, "data": {}},
            {"op": "decode", "name": "ApiVersionsRequest", "version": 3, "hex": "05"},  # truncated
            {"op": "decode", "name": "ApiVersionsRequest", "version": 3, "hex": "zz"},  # not hex
            {"op": "frobnicate"},
            {"op": "info", "name": "ApiVersionsRequest"},  # still answering after all of that
        ]
    )
    assert [a["ok"] for a in answers] == [False, False, False, False, True]
    assert "NoSuchMessage" in answers[0]["error"]
    assert answers[4]["lowest"] == 0 and answers[4]["highest"] >= 3


@pytest.mark.parametrize("release", RELEASES)
def test_kafka_keeps_unknown_tags_and_reports_what_it_read(oracles, release):
    kafka = oracles.get(release)
    message = ApiVersionsRequest(
        client_software_name="kmp",
        client_software_version="1",
        unknown_tagged_fields=((7, b"\x01\x02"),),
    )
    body = message.encode(3)
    answer = kafka.decode("ApiVersionsRequest", 3, body + b"\xee")  # a byte past the message
    assert answer["consumed"] == len(body)
    assert answer["reencoded"] == body
    assert answer["data"]["_unknownTaggedFields"] == [{"tag": 7, "data": "AQI="}]
    assert kafka.encode("ApiVersionsRequest", 3, message.to_json(3)) == body


@pytest.mark.parametrize("release", RELEASES)
def test_records_fields_show_the_bytes_read(oracles, release):
    """Kafka's converters print records as empty; the oracle shows what Kafka holds."""
    kafka = oracles.get(release)
    FetchResponse = kafka_meta_proto.message_class("FetchResponse")
    fixed = differential.fixed_examples(FetchResponse, 12)["high"]
    answer = kafka.decode("FetchResponse", 12, fixed.encode(12))
    assert differential.same_json(
        differential.canonical(answer["data"]), differential.canonical(fixed.to_json(12))
    )
    assert answer["data"]["responses"][0]["partitions"][0]["records"] != ""


@pytest.mark.parametrize("release", RELEASES)
def test_the_comparison_notices_a_wrong_byte(oracles, release, monkeypatch):
    kafka = oracles.get(release)
    good = ApiVersionsRequest(client_software_name="a", client_software_version="b")
    assert differential.compare(kafka, ApiVersionsRequest, 3, {"good": good}) == []

    def one_byte_off(self, version):
        body = bytearray(ApiVersionsRequest.encode(self, version))
        body[1] ^= 0x01  # "a" becomes "`"
        return bytes(body)

    Wrong = dataclasses.make_dataclass("Wrong", [], bases=(ApiVersionsRequest,), slots=True)
    monkeypatch.setattr(Wrong, "encode", one_byte_off)
    failures = differential.compare(
        kafka, ApiVersionsRequest, 3, {"wrong": Wrong(client_software_name="a")}
    )
    assert any("bytes differ" in f for f in failures)
    assert any("Kafka reads other values" in f for f in failures)


def test_fixed_examples_carry_the_hard_values():
    FetchRequest = kafka_meta_proto.message_class("FetchRequest")
    examples = differential.fixed_examples(FetchRequest, 15)
    assert set(examples) == {"defaults", "low", "high", "nulls"}
    high, low, nulls = examples["high"], examples["low"], examples["nulls"]
    assert high.replica_state.replica_epoch == 2**63 - 1 and low.replica_state.replica_epoch == -(
        2**63
    )
    assert len(high.topics) == 2 and len(high.topics[0].partitions) == 2
    assert any(ord(c) > 0xFFFF for c in high.rack_id)  # non-BMP text
    assert high.unknown_tagged_fields and high.topics[0].unknown_tagged_fields
    assert nulls.topics == [] and nulls.cluster_id is None and nulls.rack_id == "𝄞"
    BrokerRegistrationRequest = kafka_meta_proto.message_class("BrokerRegistrationRequest")
    assert differential.fixed_examples(BrokerRegistrationRequest, 0)["nulls"].rack is None
    ClientQuotaRecord = kafka_meta_proto.message_class("ClientQuotaRecord")
    floats = {k: v.value for k, v in differential.fixed_examples(ClientQuotaRecord, 0).items()}
    assert math.isnan(floats["high"]) and math.isinf(floats["nulls"])
    assert floats["low"] == 0.0 and math.copysign(1, floats["low"]) == -1
