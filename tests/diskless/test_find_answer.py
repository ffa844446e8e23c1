"""The FindDisklessBatches answer written straight from the store's rows (``find_answer``) is
byte for byte what the generated response class encodes from the plugin interface's answer,
over a seeded sweep of finds: several topics and partitions, errors (unknown topic or partition,
offsets out of range, negative limits), empty partitions, partitions the coordinator does not own,
both timestamp types, idempotent batches and plain ones, object keys short, long and not ASCII,
budget cuts, and request limits of 0 and -1. The statement it sends walks the offset index."""

from __future__ import annotations

import asyncio
import random

import pytest

from diskless.helpers import T1, T2, Clock, batch
from diskless.test_store_queries import plans
from kafka_meta_proto.diskless import BatchCoordinator, find_answer, wire
from kafka_meta_proto.diskless.reads import FoundRows
from kafka_meta_proto.diskless.store import LOG_APPEND_TIME
from kafka_meta_proto.diskless.types import CreateTopicAndPartitionsRequest, DeleteRecordsRequest
from kafka_meta_proto.diskless.types import FindBatchRequest, FindBatchResponse, TopicIdPartition
from kafka_meta_proto.diskless_messages import find_diskless_batches_request as find_req
from kafka_meta_proto.diskless_messages import find_diskless_batches_response as find_res
from kafka_meta_proto.error_codes import ErrorCode as E
from kafka_meta_proto.uuid import Uuid

UNKNOWN = Uuid(bytes(range(100, 116)))
PARTITIONS = {T1: 4, T2: 2}  # T1's partition 3 and T2's partition 1 stay empty


def object_key(rng: random.Random, n: int) -> str:
    """A key of its own for commit ``n``: short, not ASCII, or around 126 bytes (the last one
    with a one-byte length), or longer."""
    shape = rng.choice(["o", "object-é-ü", 126, 127, 128, "long/" * 40])
    return f"{shape}-{n}" if isinstance(shape, str) else f"{n:02d}-".ljust(shape, "k")


@pytest.fixture(scope="module")
def coordinator(tmp_path_factory):
    """Batches of every kind in T1's partitions 0-2 and T2's partition 0; log start moved up in
    T1's partition 1 (finds below it are out of range)."""
    rng = random.Random(31)
    clock = Clock()
    with BatchCoordinator(tmp_path_factory.mktemp("find") / "c", clock=clock) as c:
        c.create_topic_and_partitions([CreateTopicAndPartitionsRequest(t, "", n) for t, n in PARTITIONS.items()])
        sequences: dict[TopicIdPartition, int] = {}
        for n in range(60):
            clock.now += rng.randrange(1, 1000)
            batches = []
            for tp in rng.sample([TopicIdPartition(T1, 0), TopicIdPartition(T1, 1), TopicIdPartition(T1, 2),
                                  TopicIdPartition(T2, 0)], rng.randrange(1, 4)):  # fmt: skip
                count = rng.randrange(1, 20)
                producer = None
                if rng.random() < 0.5:  # an idempotent producer of its own per partition
                    producer = (1000 + tp.partition, 3, sequences.get(tp, 0))
                    sequences[tp] = sequences.get(tp, 0) + count
                batches.append(batch(tp, count, byte_offset=len(batches) * 5000, size=rng.randrange(1, 5000),
                                     max_timestamp=rng.randrange(-1, 10**12), timestamp_type=rng.randrange(2),
                                     producer=producer))  # fmt: skip
            answers = c.commit_file(object_key(rng, n), 1, 20_000, batches)
            assert all(a.error == E.NONE for a in answers)
        assert c.delete_records([DeleteRecordsRequest(TopicIdPartition(T1, 1), 25)])[0].error == E.NONE
        yield c


def reference_entries(p, answer: FindBatchResponse) -> list:
    """The generated classes' entries for one partition's answer (one entry a batch, or one
    without a batch), as the wire answered before it wrote the bytes itself."""
    Partition = find_res.FindDisklessBatchTopicPartitionResult
    common = dict(partition_index=p.partition_index, error_code=answer.error,
                  log_start_offset=answer.log_start_offset, high_watermark=answer.high_watermark)  # fmt: skip
    if not answer.batches:
        return [Partition(**common, object_key="", byte_offset=-1, size=-1, base_offset=-1, last_offset=-1,
                          batch_max_timestamp=-1, message_timestamp_type=-1, producer_id=-1,
                          producer_epoch=-1, base_sequence=-1, last_sequence=-1)]  # fmt: skip
    entries = []
    for info in answer.batches:
        m = info.metadata
        stamp = m.log_append_timestamp if m.timestamp_type == LOG_APPEND_TIME else m.batch_max_timestamp
        entries.append(Partition(
            **common, object_key=info.object_key, byte_offset=m.byte_offset, size=m.byte_size,
            base_offset=m.base_offset, last_offset=m.last_offset, batch_max_timestamp=stamp,
            message_timestamp_type=m.timestamp_type, producer_id=m.producer_id,
            producer_epoch=m.producer_epoch, base_sequence=m.base_sequence, last_sequence=m.last_sequence,
        ))  # fmt: skip
    return entries


def reference_answer(c: BatchCoordinator, request, owns) -> bytes:
    """The answer through the plugin interface and the generated response class."""
    asked = [(t.topic_id, p) for t in request.topics for p in t.partitions]
    mine = [FindBatchRequest(TopicIdPartition(t, p.partition_index), p.offset, p.max_bytes)
            for t, p in asked if owns(t, p.partition_index)]  # fmt: skip
    found = iter(c.find_batches(mine, request.max_bytes) if mine else [])
    answers = iter([next(found) if owns(t, p.partition_index) else FindBatchResponse(E.NOT_COORDINATOR, [])
                    for t, p in asked])  # fmt: skip
    body = find_res.FindDisklessBatchesResponse(responses=[
        find_res.FindDisklessBatchTopicResult(topic_id=t.topic_id, partitions=[
            entry for p in t.partitions for entry in reference_entries(p, next(answers))
        ]) for t in request.topics
    ])  # fmt: skip
    return body.encode(0)


def random_find(rng: random.Random, c: BatchCoordinator):
    """A request of 1-3 topics (now and then an unknown one) of 1-4 partitions each, with
    offsets around each partition's range and limits from -1 to more than all of it."""
    limits = [-1, 0, 1, 100, 4000, 20_000, 1 << 20]
    topics = []
    for topic_id in rng.sample([T1, T2, UNKNOWN], rng.randrange(1, 4)):
        partitions = []
        for _ in range(rng.randrange(1, 5)):
            index = rng.randrange(PARTITIONS.get(topic_id, 1) + 1)  # one past the last too
            offsets = c.find_batches([FindBatchRequest(TopicIdPartition(topic_id, index), 0, 0)], 0)[0]
            offset = rng.randrange(offsets.log_start_offset - 2, offsets.high_watermark + 3)
            partitions.append(find_req.FindDisklessBatchTopicPartition(
                partition_index=index, offset=offset, max_bytes=rng.choice(limits)))  # fmt: skip
        topics.append(find_req.FindDisklessBatchTopic(topic_id=topic_id, partitions=partitions))
    return find_req.FindDisklessBatchesRequest(topics=topics, max_bytes=rng.choice(limits))


def test_the_answer_written_from_rows_is_the_generated_classes_bytes(coordinator):
    rng = random.Random(97)
    seen = {"batches": 0, "cut": 0, "errors": set(), "not owned": 0, "long keys": 0, "idempotent": 0, "types": set()}
    for n in range(400):
        request = random_find(rng, coordinator)
        refused = {(t.topic_id, p.partition_index) for t in request.topics for p in t.partitions if rng.random() < 0.2}
        owns = lambda topic, partition: (topic, partition) not in refused  # noqa: E731
        body = asyncio.run(wire.find_batches(coordinator, None, request, owns))
        assert (body.api_key, body.version, body.flexible) == (97, 0, True)
        expected = reference_answer(coordinator, request, owns)
        assert body.data == expected, f"find {n}: {request}"
        decoded = find_res.FindDisklessBatchesResponse.decode(body.data, 0)
        entries = [e for t in decoded.responses for e in t.partitions]
        seen["batches"] += sum(e.size >= 0 for e in entries)
        seen["errors"] |= {e.error_code for e in entries}
        seen["not owned"] += sum(e.error_code == E.NOT_COORDINATOR for e in entries)
        seen["long keys"] += sum(len(e.object_key.encode()) > 126 for e in entries)
        seen["types"] |= {e.message_timestamp_type for e in entries}
        seen["idempotent"] += sum(e.producer_id >= 0 for e in entries)
        last_of_each = {(t.topic_id, e.partition_index): e for t in decoded.responses for e in t.partitions}
        seen["cut"] += sum(e.size >= 0 and e.last_offset + 1 < e.high_watermark for e in last_of_each.values())
    # the sweep reached what it is meant to cover
    assert seen["batches"] > 500 and seen["cut"] > 100 and seen["not owned"] > 100
    assert seen["long keys"] > 100 and seen["idempotent"] > 100
    assert seen["types"] == {-1, 0, 1}
    assert seen["errors"] == {E.NONE, E.NOT_COORDINATOR, E.UNKNOWN_TOPIC_ID, E.UNKNOWN_TOPIC_OR_PARTITION,
                              E.OFFSET_OUT_OF_RANGE, E.INVALID_REQUEST}  # fmt: skip


def test_an_answer_with_no_topic_and_a_topic_with_no_partition(coordinator):
    for topics in ([], [(T1, [])]):
        body = find_answer.encoded(topics)
        generated = find_res.FindDisklessBatchesResponse(responses=[
            find_res.FindDisklessBatchTopicResult(topic_id=t, partitions=[]) for t, _ in topics])  # fmt: skip
        assert body.data == generated.encode(0)


def test_an_empty_partition_and_one_read_to_its_end_answer_one_entry_without_a_batch(coordinator):
    empty = FoundRows(E.NONE, [], 0, 0)
    body = find_answer.encoded([(T1, [(3, empty)])])
    (entry,) = find_res.FindDisklessBatchesResponse.decode(body.data, 0).responses[0].partitions
    assert (entry.partition_index, entry.error_code, entry.log_start_offset, entry.high_watermark) == (3, 0, 0, 0)
    assert (entry.object_key, entry.size, entry.message_timestamp_type, entry.last_sequence) == ("", -1, -1, -1)


def test_the_wire_statement_walks_the_offset_index_without_sorting(coordinator):
    request = find_req.FindDisklessBatchesRequest(topics=[find_req.FindDisklessBatchTopic(
        topic_id=T1, partitions=[find_req.FindDisklessBatchTopicPartition(partition_index=0, offset=3, max_bytes=1 << 20)])],
        max_bytes=1 << 20)  # fmt: skip
    found = plans(coordinator.reader, lambda: asyncio.run(wire.find_batches(coordinator, None, request, lambda t, p: True)))
    assert [plan for sql, plan in found.items() if "FROM batches" in sql] == [
        ["SEARCH batches USING INDEX batches_by_offset (topic_id=? AND partition=? AND last_offset>?)"]
    ]
