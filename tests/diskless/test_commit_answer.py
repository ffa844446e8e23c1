"""The CommitBatches answer written straight from the coordinator's answers (``commit_answer``) is
byte for byte what the generated response class encodes from the same answers: any number of
topics and partitions, every field at its extremes, duplicates and errors; and over the wire a
commit's answer decodes to the coordinator's own answers, in request order."""

from __future__ import annotations

import asyncio

from hypothesis import example, given, settings
from hypothesis import strategies as st

from diskless.helpers import START, T1, T2, Clock
from kafka_meta_proto.diskless import BatchCoordinator, commit_answer, wire
from kafka_meta_proto.diskless.types import CommitBatchResponse, CreateTopicAndPartitionsRequest
from kafka_meta_proto.diskless_messages import commit_batches_request as commit_req
from kafka_meta_proto.diskless_messages import commit_batches_response as commit_res
from kafka_meta_proto.error_codes import ErrorCode as E
from kafka_meta_proto.uuid import Uuid

INT64 = st.integers(-(2**63), 2**63 - 1)
ANSWERS = st.builds(
    CommitBatchResponse, st.integers(-(2**15), 2**15 - 1), INT64, INT64, INT64, st.booleans()
)
TOPICS = st.lists(
    st.tuples(
        st.binary(min_size=16, max_size=16).map(Uuid),
        st.lists(st.tuples(st.integers(-(2**31), 2**31 - 1), ANSWERS), max_size=12),
    ),
    max_size=4,
)


def reference(topics: list[commit_answer.Topic]) -> bytes:
    return commit_res.CommitBatchesResponse(topics=[
        commit_res.CommitBatchesTopicResults(topic_id=topic_id, partitions=[
            commit_res.CommitBatchesTopicPartitionResults(
                partition_index=index, error_code=a.error, assigned_base_offset=a.assigned_base_offset,
                log_append_time=a.log_append_time, log_start_offset=a.log_start_offset,
                is_duplicate=a.is_duplicate)
            for index, a in partitions
        ]) for topic_id, partitions in topics
    ]).encode(0)  # fmt: skip


# 127 partitions and more: the compact array's length takes a second byte
MANY = [(Uuid(bytes(16)), [(n, CommitBatchResponse(E.NONE, n, -1, 0, n % 2 == 0)) for n in range(130)])]


@settings(max_examples=50, deadline=None)
@given(TOPICS)
@example(MANY)
def test_the_answer_written_directly_is_the_generated_classes_bytes(topics):
    body = commit_answer.encoded(topics)
    assert (body.api_key, body.version, body.flexible) == (94, 0, True)
    assert body.data == reference(topics)


def entry(index: int, key: str, base: int = 0, count: int = 10, **fields: int) -> commit_req.CommitBatchesTopicPartition:
    return commit_req.CommitBatchesTopicPartition(
        partition_index=index, object_key=key, byte_offset=fields.get("byte_offset", 0), size=100,
        base_offset=base, last_offset=base + count - 1, batch_max_timestamp=START, message_timestamp_type=0,
        producer_id=fields.get("producer_id", -1), producer_epoch=fields.get("producer_epoch", -1),
        base_sequence=fields.get("base_sequence", -1), last_sequence=fields.get("last_sequence", -1),
    )  # fmt: skip


def test_a_commit_over_the_wire_answers_every_entry_in_request_order(tmp_path):
    """Two objects across two Batches[] and topics, a partition not owned, an unknown topic and a
    duplicate: the encoded answer decodes to what each entry was answered."""
    unknown = Uuid(bytes(range(100, 116)))
    producer = {"producer_id": 7, "producer_epoch": 0, "base_sequence": 0, "last_sequence": 9}

    async def write(decide):
        return coordinator._write(decide)

    def owns(topic_id: Uuid, partition: int) -> bool:
        return partition != 3

    def commit(request: commit_req.CommitBatchesRequest) -> commit_res.CommitBatchesResponse:
        body = asyncio.run(wire.commit_batches(coordinator, write, request, owns))
        return commit_res.CommitBatchesResponse.decode(body.data, 0)

    with BatchCoordinator(tmp_path, clock=Clock()) as coordinator:
        coordinator.create_topic_and_partitions([CreateTopicAndPartitionsRequest(T1, "", 4),
                                                 CreateTopicAndPartitionsRequest(T2, "", 1)])  # fmt: skip
        request = commit_req.CommitBatchesRequest(broker_id=1, batches=[
            commit_req.Batches(topics=[
                commit_req.CommitBatchesTopic(topic_id=T1, partitions=[
                    entry(2, "a", **producer), entry(3, "a"), entry(0, "b", count=4)]),
                commit_req.CommitBatchesTopic(topic_id=unknown, partitions=[entry(0, "a")]),
            ]),
            commit_req.Batches(topics=[
                commit_req.CommitBatchesTopic(topic_id=T2, partitions=[entry(0, "b", byte_offset=100)]),
            ]),
        ])  # fmt: skip
        first = commit(request)
        assert [t.topic_id for t in first.topics] == [T1, unknown, T2]
        assert [[(p.partition_index, p.error_code, p.assigned_base_offset, p.is_duplicate) for p in t.partitions]
                for t in first.topics] == [
            [(2, E.NONE, 0, False), (3, E.NOT_COORDINATOR, -1, False), (0, E.NONE, 0, False)],
            [(0, E.UNKNOWN_TOPIC_ID, -1, False)],
            [(0, E.NONE, 0, False)],
        ]  # fmt: skip
        again = commit_req.CommitBatchesRequest(broker_id=1, batches=[commit_req.Batches(topics=[
            commit_req.CommitBatchesTopic(topic_id=T1, partitions=[entry(2, "c", **producer)])])])  # fmt: skip
        [duplicate] = commit(again).topics[0].partitions
        assert (duplicate.error_code, duplicate.assigned_base_offset, duplicate.is_duplicate) == (E.NONE, 0, True)
