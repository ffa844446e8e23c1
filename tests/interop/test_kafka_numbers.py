"""Kafka 4.4's own bytes for the numbers it shares with the diskless design (api keys 93 and 94,
metadata record type 29) read, with the default registry, as the messages Kafka means; the
diskless registry names the clash instead of misreading them."""

from __future__ import annotations

import pytest

import kafka_meta_proto
from interop.conftest import RELEASES
from kafka_meta_proto import DISKLESS_REGISTRY, DecodeError, kraft, protocol
from kafka_meta_proto.tools import dump

NEWEST = RELEASES[-1]
# (message, version, Kafka's JSON form of a value)
REQUESTS = [
    ("UnregisterControllerRequest", 0, {"controllerId": 3001}),
    ("StreamsGroupTopologyDescriptionUpdateRequest", 0, None),
]
RESPONSES = [
    ("UnregisterControllerResponse", 0, None),
    ("StreamsGroupTopologyDescriptionUpdateResponse", 0, None),
]


def _kafka_body(oracles, name: str, version: int, data: dict | None) -> tuple[bytes, dict]:
    """Kafka's bytes for a value of ``name`` (our example's JSON form when ``data`` is None)."""
    if data is None:
        data = kafka_meta_proto.message_class(name)().to_json(version)
    return oracles.get(NEWEST).encode(name, version, data), data


def _kafka_header(oracles, name: str, version: int, fields: dict) -> bytes:
    return oracles.get(NEWEST).encode(name, version, fields)


@pytest.mark.parametrize("name,version,data", REQUESTS, ids=[r[0] for r in REQUESTS])
def test_kafka_request_frames_read_as_kafkas_messages(oracles, name, version, data):
    cls = kafka_meta_proto.message_class(name)
    body, data = _kafka_body(oracles, name, version, data)
    header = _kafka_header(oracles, "RequestHeader", 2, {"requestApiKey": cls.API_KEY, "requestApiVersion": version,
                                                         "correlationId": 41, "clientId": "kafka-4.4"})  # fmt: skip
    frame = protocol.frame(header + body)
    request = protocol.decode_request(frame)
    assert type(request.body) is cls and request.body.to_json(version) == data
    assert (request.correlation_id, request.header.client_id) == (41, "kafka-4.4")
    assert protocol.encode_request(request.body, version, 41, "kafka-4.4") == frame
    with pytest.raises(DecodeError, match=f"api key {cls.API_KEY} is .* but {cls.NAME}"):
        protocol.decode_request(frame, registry=DISKLESS_REGISTRY)


@pytest.mark.parametrize("name,version,data", RESPONSES, ids=[r[0] for r in RESPONSES])
def test_kafka_response_frames_read_as_kafkas_messages(oracles, name, version, data):
    cls = kafka_meta_proto.message_class(name)
    body, data = _kafka_body(oracles, name, version, data)
    frame = protocol.frame(_kafka_header(oracles, "ResponseHeader", 1, {"correlationId": 41}) + body)
    response = protocol.decode_response(frame, cls.API_KEY, version)
    assert type(response.body) is cls and response.body.to_json(version) == data
    assert protocol.encode_response(response.body, version, 41) == frame


def test_kafka_unregister_controller_record(oracles):
    body = oracles.get(NEWEST).encode("UnregisterControllerRecord", 0, {"controllerId": 3002})
    value = bytes([1, 29, 0]) + body  # frame version 1, record type 29, version 0
    record = kraft.decode_record_value(value)
    assert record.message.NAME == "UnregisterControllerRecord" and record.message.controller_id == 3002
    assert dump.payload_text(value, 0) == '{"type":"UNREGISTER_CONTROLLER_RECORD","version":0,"data":{"controllerId":3002}}'
    with pytest.raises(DecodeError, match="record type 29 is TopicPartitionToBatchCoordinatorMapping"):
        kraft.decode_record_value(value, DISKLESS_REGISTRY)
