"""A fault's error answer is shaped like the request, for every API: each topic and partition
(or group, or key) the request named comes back with the error, where the response carries an
error code, and the answer encodes at the request's version."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from kafka_meta_proto import message_class
from kafka_meta_proto.messages import REGISTRY
from kafka_meta_proto.strategies import messages
from kafka_meta_proto.testing.error_answers import error_response
from kafka_meta_proto.uuid import Uuid

ProduceRequest = message_class("ProduceRequest")
FetchRequest = message_class("FetchRequest")
ListOffsetsRequest = message_class("ListOffsetsRequest")
OffsetCommitRequest = message_class("OffsetCommitRequest")
NOT_LEADER = 6


def test_produce_names_every_partition_sent():
    data = [ProduceRequest.TopicProduceData(name="a", partition_data=[
                ProduceRequest.PartitionProduceData(index=i, records=None) for i in (0, 3)]),
            ProduceRequest.TopicProduceData(name="b", partition_data=[
                ProduceRequest.PartitionProduceData(index=1, records=None)])]  # fmt: skip
    answer = error_response(ProduceRequest(acks=-1, topic_data=data),
                            REGISTRY.response_class(0), 9, NOT_LEADER)  # fmt: skip
    assert [(t.name, [(p.index, p.error_code) for p in t.partition_responses])
            for t in answer.responses] == [("a", [(0, 6), (3, 6)]), ("b", [(1, 6)])]  # fmt: skip


def test_fetch_by_topic_id_carries_the_id_and_the_top_level_error():
    topic_id = Uuid.random()
    request = FetchRequest(topics=[FetchRequest.FetchTopic(topic_id=topic_id, partitions=[
        FetchRequest.FetchPartition(partition=2)])])  # fmt: skip
    answer = error_response(request, REGISTRY.response_class(1), 13, NOT_LEADER)
    (topic,) = answer.responses
    assert answer.error_code == NOT_LEADER and topic.topic_id == topic_id
    assert [(p.partition_index, p.error_code) for p in topic.partitions] == [(2, NOT_LEADER)]


def test_list_offsets_and_offset_commit_mirror_their_partitions():
    listed = error_response(ListOffsetsRequest(topics=[ListOffsetsRequest.ListOffsetsTopic(
        name="t", partitions=[ListOffsetsRequest.ListOffsetsPartition(partition_index=4)])]),
        REGISTRY.response_class(2), 8, NOT_LEADER)  # fmt: skip
    assert [(p.partition_index, p.error_code) for p in listed.topics[0].partitions] == [(4, 6)]
    committed = error_response(OffsetCommitRequest(group_id="g", topics=[
        OffsetCommitRequest.OffsetCommitRequestTopic(name="t", partitions=[
            OffsetCommitRequest.OffsetCommitRequestPartition(partition_index=1)])]),
        REGISTRY.response_class(8), 8, 16)  # fmt: skip
    assert [(p.partition_index, p.error_code) for p in committed.topics[0].partitions] == [(1, 16)]


def answers_at_every_version(request_of) -> int:
    """Build and encode the error answer of every API at every version; the number checked."""
    checked = 0
    for api_key in sorted(REGISTRY.api_keys()):
        request_class, response_class = REGISTRY.request_class(api_key), REGISTRY.response_class(api_key)
        for version in request_class.versions():
            if version in response_class.versions():
                answer = error_response(request_of(request_class, version), response_class, version, 7)
                response_class.decode(answer.encode(version), version)
                checked += 1
    return checked


def test_every_api_s_error_answer_to_a_plain_request_encodes_at_every_version():
    assert answers_at_every_version(lambda cls, version: cls()) > 350  # (api, version) pairs


PAIRS = [(key, version) for key in sorted(REGISTRY.api_keys())
         for version in REGISTRY.request_class(key).versions()
         if version in REGISTRY.response_class(key).versions()]  # fmt: skip


@pytest.mark.slow
@settings(max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.data())
def test_the_error_answer_to_a_generated_request_encodes_at_its_version(data):
    api_key, version = data.draw(st.sampled_from(PAIRS))
    request_class, response_class = REGISTRY.request_class(api_key), REGISTRY.response_class(api_key)
    request = data.draw(messages(request_class, version))
    answer = error_response(request, response_class, version, 7)
    response_class.decode(answer.encode(version), version)
