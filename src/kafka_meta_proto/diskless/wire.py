"""The RPCs 93-98 of the diskless registry as calls of ``BatchCoordinator``, and back.

CommitBatches carries one batch per partition entry, each naming its object: the entries are
grouped by object key (in the order keys first appear), each object's size taken as the end of
its furthest batch (the request has no size field), and all objects committed in one log batch.
Its answer has one topic entry per ``Batches[]`` and topic of the request, partitions in request
order. FindDisklessBatches answers one partition entry per batch found; a partition with no
batch to give (an error, or an offset at the high watermark) gets one entry with its error, log
start offset and high watermark, an empty object key and -1 in the batch fields.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from ..diskless_messages import REGISTRY as DISKLESS_REGISTRY
from ..message import Message
from .coordinator import BatchCoordinator, Decide, ObjectBatches
from .store import LOG_APPEND_TIME
from .types import CommitBatchRequest, CommitBatchResponse, CreateTopicAndPartitionsRequest
from .types import DeleteRecordsRequest, FindBatchRequest, FindBatchResponse, ListOffsetsRequest
from .types import TopicIdPartition

# runs a write decision to its durable answer (GroupCommitter.write)
Write = Callable[[Decide], Awaitable[Any]]
_ = DISKLESS_REGISTRY.message_class
InitResponse = _("InitDisklessTopicsResponse")
CommitResponse = _("CommitBatchesResponse")
DeleteTopicsResponse = _("DeleteDisklessTopicsResponse")
DeleteRecordsResponse = _("DeleteDisklessRecordsResponse")
FindResponse = _("FindDisklessBatchesResponse")
ListResponse = _("ListDisklessOffsetsResponse")


async def init_topics(coordinator: BatchCoordinator, write: Write, request: Message) -> Message:
    asked = [CreateTopicAndPartitionsRequest(t.topic_id, "", t.num_partitions) for t in request.topics]
    errors = await write(coordinator.create_decision(asked))
    Result = InitResponse.InitDisklessTopicResult
    return InitResponse(responses=[
        Result(topic_id=t.topic_id, error_code=e) for t, e in zip(request.topics, errors)
    ])  # fmt: skip


async def delete_topics(coordinator: BatchCoordinator, write: Write, request: Message) -> Message:
    errors = await write(coordinator.delete_topics_decision([t.topic_id for t in request.topics]))
    Result = DeleteTopicsResponse.DeleteDisklessTopicResult
    return DeleteTopicsResponse(responses=[
        Result(topic_id=t.topic_id, error_code=e) for t, e in zip(request.topics, errors)
    ])  # fmt: skip


def _commit_request(topic_id: object, p: Message) -> CommitBatchRequest:
    return CommitBatchRequest(
        TopicIdPartition(topic_id, p.partition_index), p.byte_offset, p.size, p.base_offset,  # type: ignore[arg-type]
        p.last_offset, p.batch_max_timestamp, p.message_timestamp_type, p.producer_id,
        p.producer_epoch, p.base_sequence, p.last_sequence,
    )  # fmt: skip


async def commit_batches(coordinator: BatchCoordinator, write: Write, request: Message) -> Message:
    entries = [(t.topic_id, p) for b in request.batches for t in b.topics for p in t.partitions]
    by_key: dict[str, list[int]] = {}  # object key -> indexes of its entries
    for index, (_, p) in enumerate(entries):
        by_key.setdefault(p.object_key, []).append(index)
    objects: list[ObjectBatches] = []
    for key, indexes in by_key.items():
        batches = [_commit_request(*entries[i]) for i in indexes]
        size = max(max(b.byte_offset, 0) + max(b.size, 0) for b in batches)
        objects.append((key, request.broker_id, size, batches))
    answers: list[CommitBatchResponse | None] = [None] * len(entries)
    committed = await write(coordinator.commit_decision(objects))
    for indexes, results in zip(by_key.values(), committed):
        for i, result in zip(indexes, results):
            answers[i] = result
    Topic = CommitResponse.CommitBatchesTopicResults
    Partition = CommitResponse.CommitBatchesTopicPartitionResults
    topics, at = [], 0
    for b in request.batches:
        for t in b.topics:
            partitions = []
            for p in t.partitions:
                a = answers[at]
                assert a is not None
                at += 1
                partitions.append(Partition(
                    partition_index=p.partition_index, error_code=a.error,
                    assigned_base_offset=a.assigned_base_offset, log_append_time=a.log_append_time,
                    log_start_offset=a.log_start_offset, is_duplicate=a.is_duplicate,
                ))  # fmt: skip
            topics.append(Topic(topic_id=t.topic_id, partitions=partitions))
    return CommitResponse(topics=topics)


async def delete_records(coordinator: BatchCoordinator, write: Write, request: Message) -> Message:
    asked = [DeleteRecordsRequest(TopicIdPartition(t.topic_id, p.partition_index), p.offset)
             for t in request.topics for p in t.partitions]  # fmt: skip
    answers = iter(await write(coordinator.delete_records_decision(asked)))
    Result = DeleteRecordsResponse.DeleteDisklessRecordsResult
    Partition = DeleteRecordsResponse.DeleteDisklessPartitionRecordsResult
    return DeleteRecordsResponse(responses=[
        Result(topic_id=t.topic_id, partitions=[
            Partition(partition_index=p.partition_index, error_code=next(answers).error)
            for p in t.partitions
        ]) for t in request.topics
    ])  # fmt: skip


def _found_entries(p: Message, answer: FindBatchResponse) -> list[Message]:
    Partition = FindResponse.FindDisklessBatchTopicPartitionResult
    common = dict(partition_index=p.partition_index, error_code=answer.error,
                  log_start_offset=answer.log_start_offset, high_watermark=answer.high_watermark)  # fmt: skip
    if not answer.batches:
        return [Partition(**common, object_key="", byte_offset=-1, size=-1, base_offset=-1,
                          last_offset=-1, batch_max_timestamp=-1, message_timestamp_type=-1,
                          producer_id=-1, producer_epoch=-1, base_sequence=-1, last_sequence=-1)]  # fmt: skip
    entries = []
    for info in answer.batches:
        m = info.metadata
        stamp = m.log_append_timestamp if m.timestamp_type == LOG_APPEND_TIME else m.batch_max_timestamp
        entries.append(Partition(
            **common, object_key=info.object_key, byte_offset=m.byte_offset, size=m.byte_size,
            base_offset=m.base_offset, last_offset=m.last_offset, batch_max_timestamp=stamp,
            message_timestamp_type=m.timestamp_type, producer_id=m.producer_id,
            producer_epoch=m.producer_epoch, base_sequence=m.base_sequence,
            last_sequence=m.last_sequence,
        ))  # fmt: skip
    return entries


async def find_batches(coordinator: BatchCoordinator, write: Write, request: Message) -> Message:
    asked = [FindBatchRequest(TopicIdPartition(t.topic_id, p.partition_index), p.offset, p.max_bytes)
             for t in request.topics for p in t.partitions]  # fmt: skip
    answers = iter(coordinator.find_batches(asked, request.max_bytes))
    Result = FindResponse.FindDisklessBatchTopicResult
    return FindResponse(responses=[
        Result(topic_id=t.topic_id, partitions=[
            entry for p in t.partitions for entry in _found_entries(p, next(answers))
        ]) for t in request.topics
    ])  # fmt: skip


async def list_offsets(coordinator: BatchCoordinator, write: Write, request: Message) -> Message:
    asked = [ListOffsetsRequest(TopicIdPartition(t.topic_id, p.partition_index), p.timestamp)
             for t in request.topics for p in t.partitions]  # fmt: skip
    answers = iter(coordinator.list_offsets(asked))
    Result = ListResponse.ListDisklessOffsetsTopicResult
    Partition = ListResponse.ListDisklessOffsetsTopicPartitionResult

    def entry(p: Message) -> Message:
        a = next(answers)
        return Partition(partition_index=p.partition_index, error_code=a.error,
                         timestamp=a.timestamp, offset=a.offset)  # fmt: skip

    return ListResponse(responses=[
        Result(topic_id=t.topic_id, partitions=[entry(p) for p in t.partitions]) for t in request.topics
    ])  # fmt: skip


Call = Callable[[BatchCoordinator, Write, Message], Awaitable[Message]]
# api key -> the function answering it
CALLS: dict[int, Call] = {93: init_topics, 94: commit_batches, 95: delete_topics, 96: delete_records,
         97: find_batches, 98: list_offsets}  # fmt: skip
