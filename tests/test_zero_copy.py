"""Zero-copy fields: ``records`` fields (and bytes fields marked ``zeroCopy``) decode as read-only
memoryview slices of the input, as Kafka hands out a slice of its buffer, and behave as bytes
everywhere else: equality, encoding, size, JSON, pickle and copy."""

from __future__ import annotations

import copy
import pickle

import pytest

import kafka_meta_proto
from kafka_meta_proto.uuid import Uuid

FetchResponse = kafka_meta_proto.message_class("FetchResponse")
ProduceRequest = kafka_meta_proto.message_class("ProduceRequest")
Topic = FetchResponse.FetchableTopicResponse
Partition = FetchResponse.PartitionData

BLOBS = [bytes(range(256)) * 40, b"", b"\x00" * 7]


def fetch_response() -> FetchResponse:
    parts = [Partition(partition_index=i, high_watermark=100 + i, records=blob) for i, blob in enumerate(BLOBS)]
    parts.append(Partition(partition_index=9, records=None))
    return FetchResponse(responses=[Topic(topic_id=Uuid.random(), partitions=parts)])


@pytest.mark.parametrize("version", [4, 11, 12, 16])
def test_records_are_slices_of_the_input(version):
    msg = fetch_response()
    if version < 13:
        msg.responses[0].topic = "t"
    data = msg.encode(version)
    back = FetchResponse.decode(data, version)
    got = [p.records for p in back.responses[0].partitions]
    for value, blob in zip(got, BLOBS):
        assert type(value) is memoryview and value.readonly and value.obj is data
        assert value == blob and bytes(value) == blob
    assert got[-1] is None
    assert back.encode(version) == data and back.size(version) == len(data)
    assert FetchResponse.from_json(back.to_json(version), version).encode(version) == data


def test_decoded_values_pickle_and_copy_as_bytes():
    data = fetch_response().encode(12)
    back = FetchResponse.decode(data, 12)
    for clone in (pickle.loads(pickle.dumps(back)), copy.deepcopy(back)):
        assert clone == back
        for p in clone.responses[0].partitions[: len(BLOBS)]:
            assert type(p.records) is bytes
    shallow = copy.copy(back.responses[0].partitions[0])
    assert type(shallow.records) is bytes and shallow == back.responses[0].partitions[0]


def test_produce_request_records_too():
    req = ProduceRequest(acks=-1, timeout_ms=1000, topic_data=[
        ProduceRequest.TopicProduceData(name="t", partition_data=[
            ProduceRequest.PartitionProduceData(index=0, records=b"batch" * 100)])])  # fmt: skip
    data = req.encode(9)
    back = ProduceRequest.decode(data, 9)
    records = back.topic_data[0].partition_data[0].records
    assert type(records) is memoryview and records.obj is data and records == b"batch" * 100
    assert back == req and back.encode(9) == data


def test_a_bytearray_input_is_copied_once_then_sliced():
    data = bytearray(fetch_response().encode(12))
    back = FetchResponse.decode(data, 12)
    records = back.responses[0].partitions[0].records
    assert type(records) is memoryview and records == BLOBS[0]
    data[:] = b"\x00" * len(data)  # the decoded message does not share the caller's buffer
    assert records == BLOBS[0]
