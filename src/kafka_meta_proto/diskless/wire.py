"""The RPCs 93-98 of the diskless registry as calls of ``BatchCoordinator``, and back.

CommitBatches carries one batch per partition entry, each naming its object: the entries are
grouped by object key (in the order keys first appear), each object's size taken as the end of
its furthest batch (the request has no size field), and all objects committed in one log batch.
Its answer has one topic entry per ``Batches[]`` and topic of the request, partitions in request
order. FindDisklessBatches answers one partition entry per batch found; a partition with no
batch to give (an error, or an offset at the high watermark) gets one entry with its error, log
start offset and high watermark, an empty object key and -1 in the batch fields. Both answers
are written straight from the coordinator's answers and the store's rows (``commit_answer``,
``find_answer``), not built from message objects.

Each call is told which partitions its coordinator owns (``owns``; with several coordinators,
each owns the partitions mapped to it): an entry of a partition it does not own is answered
NOT_COORDINATOR without reaching the coordinator, the others as usual.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from ..diskless_messages import commit_batches_request as commit_req
from ..diskless_messages import delete_diskless_records_request as delete_records_req
from ..diskless_messages import delete_diskless_records_response as delete_records_res
from ..diskless_messages import delete_diskless_topics_request as delete_topics_req
from ..diskless_messages import delete_diskless_topics_response as delete_topics_res
from ..diskless_messages import find_diskless_batches_request as find_req
from ..diskless_messages import init_diskless_topics_request as init_req
from ..diskless_messages import init_diskless_topics_response as init_res
from ..diskless_messages import list_diskless_offsets_request as list_req
from ..diskless_messages import list_diskless_offsets_response as list_res
from ..error_codes import ErrorCode
from ..message import Message
from ..server import EncodedBody
from ..uuid import Uuid
from . import commit_answer, find_answer
from .coordinator import BatchCoordinator, Decide, ObjectBatches
from .reads import FoundRows
from .store import FOUND_WIRE_COLUMNS
from .types import CommitBatchRequest, CommitBatchResponse, CreateTopicAndPartitionsRequest
from .types import DeleteRecordsRequest, DeleteRecordsResponse, FindBatchRequest
from .types import ListOffsetsRequest, ListOffsetsResponse, TopicIdPartition

# runs a write decision to its durable answer (GroupCommitter.write)
Write = Callable[[Decide], Awaitable[Any]]
# whether the coordinator owns a partition (topic id, partition index)
Owns = Callable[[Uuid, int], bool]
NOT_COORDINATOR = ErrorCode.NOT_COORDINATOR
NOT_OWNED = CommitBatchResponse(NOT_COORDINATOR)  # a commit's answer for a partition not owned
_Asked = TypeVar("_Asked")
_Answer = TypeVar("_Answer")


async def _owned_only(
    asked: list[_Asked], owned: list[bool], answer: Callable[[list[_Asked]], Awaitable[list[_Answer]]],
    refused: Callable[[_Asked], _Answer],
) -> list[_Answer]:
    """The answers to ``asked``, in order: ``answer`` gives those of the owned entries (it is not
    called when there are none), ``refused`` the others'."""
    mine = [a for a, own in zip(asked, owned) if own]
    answers = iter(await answer(mine) if mine else [])
    return [next(answers) if own else refused(a) for a, own in zip(asked, owned)]


def _owned(owns: Owns, asked: list[Any]) -> list[bool]:
    return [owns(a.topic_id_partition.topic_id, a.topic_id_partition.partition) for a in asked]


async def init_topics(
    coordinator: BatchCoordinator, write: Write, request: init_req.InitDisklessTopicsRequest, owns: Owns
) -> Message:
    asked = [CreateTopicAndPartitionsRequest(t.topic_id, "", t.num_partitions) for t in request.topics]
    errors = await write(coordinator.create_decision(asked))
    return init_res.InitDisklessTopicsResponse(responses=[
        init_res.InitDisklessTopicResult(topic_id=t.topic_id, error_code=e)
        for t, e in zip(request.topics, errors)
    ])  # fmt: skip


async def delete_topics(
    coordinator: BatchCoordinator, write: Write, request: delete_topics_req.DeleteDisklessTopicsRequest,
    owns: Owns,
) -> Message:
    errors = await write(coordinator.delete_topics_decision([t.topic_id for t in request.topics]))
    return delete_topics_res.DeleteDisklessTopicsResponse(responses=[
        delete_topics_res.DeleteDisklessTopicResult(topic_id=t.topic_id, error_code=e)
        for t, e in zip(request.topics, errors)
    ])  # fmt: skip


def _commit_request(topic_id: Uuid, p: commit_req.CommitBatchesTopicPartition) -> CommitBatchRequest:
    return CommitBatchRequest(
        TopicIdPartition(topic_id, p.partition_index), p.byte_offset, p.size, p.base_offset,
        p.last_offset, p.batch_max_timestamp, p.message_timestamp_type, p.producer_id,
        p.producer_epoch, p.base_sequence, p.last_sequence,
    )  # fmt: skip


async def commit_batches(
    coordinator: BatchCoordinator, write: Write, request: commit_req.CommitBatchesRequest, owns: Owns
) -> EncodedBody:
    asked: list[CommitBatchRequest | None] = []  # in request order; None: not this coordinator's
    by_key: dict[str, list[int]] = {}  # object key -> indexes of its entries in ``asked``
    for b in request.batches:
        for t in b.topics:
            topic_id = t.topic_id
            for p in t.partitions:
                if owns(topic_id, p.partition_index):
                    by_key.setdefault(p.object_key, []).append(len(asked))
                    asked.append(_commit_request(topic_id, p))
                else:
                    asked.append(None)
    objects: list[ObjectBatches] = []
    for key, indexes in by_key.items():
        batches: list[CommitBatchRequest] = [asked[i] for i in indexes]  # type: ignore[misc]
        size = max(max(b.byte_offset, 0) + max(b.size, 0) for b in batches)
        objects.append((key, request.broker_id, size, batches))
    answers = [NOT_OWNED] * len(asked)
    committed = await write(coordinator.commit_decision(objects)) if objects else []
    for indexes, results in zip(by_key.values(), committed):
        for index, result in zip(indexes, results):
            answers[index] = result
    topics: list[commit_answer.Topic] = []
    answered = iter(answers)
    for b in request.batches:
        for t in b.topics:
            topics.append((t.topic_id, [(p.partition_index, next(answered)) for p in t.partitions]))
    return commit_answer.encoded(topics)


async def delete_records(
    coordinator: BatchCoordinator, write: Write, request: delete_records_req.DeleteDisklessRecordsRequest,
    owns: Owns,
) -> Message:
    asked = [DeleteRecordsRequest(TopicIdPartition(t.topic_id, p.partition_index), p.offset)
             for t in request.topics for p in t.partitions]  # fmt: skip

    async def delete(mine: list[DeleteRecordsRequest]) -> list[DeleteRecordsResponse]:
        return list(await write(coordinator.delete_records_decision(mine)))

    refused = lambda _: DeleteRecordsResponse(NOT_COORDINATOR)  # noqa: E731
    answers = iter(await _owned_only(asked, _owned(owns, asked), delete, refused))
    return delete_records_res.DeleteDisklessRecordsResponse(responses=[
        delete_records_res.DeleteDisklessRecordsResult(topic_id=t.topic_id, partitions=[
            delete_records_res.DeleteDisklessPartitionRecordsResult(
                partition_index=p.partition_index, error_code=next(answers).error)
            for p in t.partitions
        ]) for t in request.topics
    ])  # fmt: skip


async def find_batches(
    coordinator: BatchCoordinator, write: Write, request: find_req.FindDisklessBatchesRequest, owns: Owns
) -> EncodedBody:
    asked = [FindBatchRequest(TopicIdPartition(t.topic_id, p.partition_index), p.offset, p.max_bytes)
             for t in request.topics for p in t.partitions]  # fmt: skip

    async def find(mine: list[FindBatchRequest]) -> list[FoundRows]:
        return coordinator.found_rows(mine, request.max_bytes, FOUND_WIRE_COLUMNS)

    refused = lambda _: FoundRows(NOT_COORDINATOR, [])  # noqa: E731
    answers = iter(await _owned_only(asked, _owned(owns, asked), find, refused))
    return find_answer.encoded([
        (t.topic_id, [(p.partition_index, next(answers)) for p in t.partitions]) for t in request.topics
    ])  # fmt: skip


async def list_offsets(
    coordinator: BatchCoordinator, write: Write, request: list_req.ListDisklessOffsetsRequest, owns: Owns
) -> Message:
    asked = [ListOffsetsRequest(TopicIdPartition(t.topic_id, p.partition_index), p.timestamp)
             for t in request.topics for p in t.partitions]  # fmt: skip

    async def list_(mine: list[ListOffsetsRequest]) -> list[ListOffsetsResponse]:
        return coordinator.list_offsets(mine)

    def refused(a: ListOffsetsRequest) -> ListOffsetsResponse:
        return ListOffsetsResponse(NOT_COORDINATOR, a.topic_id_partition)

    answers = iter(await _owned_only(asked, _owned(owns, asked), list_, refused))

    def entry(p: list_req.ListDisklessOffsetsTopicPartition) -> list_res.ListDisklessOffsetsTopicPartitionResult:
        a = next(answers)
        return list_res.ListDisklessOffsetsTopicPartitionResult(
            partition_index=p.partition_index, error_code=a.error, timestamp=a.timestamp, offset=a.offset)  # fmt: skip

    return list_res.ListDisklessOffsetsResponse(responses=[
        list_res.ListDisklessOffsetsTopicResult(topic_id=t.topic_id, partitions=[entry(p) for p in t.partitions])
        for t in request.topics
    ])  # fmt: skip


# (coordinator, write, request, owns) -> the response (or its body encoded already); the request
# is the api key's request class
Call = Callable[[BatchCoordinator, Write, Any, Owns], Awaitable["Message | EncodedBody"]]
# api key -> the function answering it
CALLS: dict[int, Call] = {93: init_topics, 94: commit_batches, 95: delete_topics, 96: delete_records,
                          97: find_batches, 98: list_offsets}  # fmt: skip
