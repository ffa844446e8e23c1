"""OffsetCommit and OffsetFetch on the wire.

Before the coordinator sees a commit, the broker checks its topics as Kafka's broker does
against its metadata: a topic or partition it does not know is UNKNOWN_TOPIC_OR_PARTITION;
from version 10 topics come by id, and an id the image does not have is UNKNOWN_TOPIC_ID. A
broker registered without a metadata image takes every topic name as it comes and knows no
topic id.

OffsetFetch answers one group before version 8 (its error at the top level from version 2, on
each partition asked before that) and a batch of groups from version 8, each with its own error.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ...error_codes import ErrorCode
from ...kraft.image import MetadataImage
from ...message import Message
from ...messages.offset_commit_request import OffsetCommitRequest
from ...messages.offset_commit_response import (
    OffsetCommitResponse,
    OffsetCommitResponsePartition,
    OffsetCommitResponseTopic,
)
from ...messages.offset_fetch_request import OffsetFetchRequest
from ...messages.offset_fetch_response import (
    OffsetFetchResponse,
    OffsetFetchResponseGroup,
    OffsetFetchResponsePartition,
    OffsetFetchResponsePartitions,
    OffsetFetchResponseTopic,
    OffsetFetchResponseTopics,
)
from ...server import RequestContext
from ...uuid import Uuid
from .offsets import (
    CommitRequest,
    CommittedOffset,
    OffsetToCommit,
    commit_offsets,
    fetch_offsets,
)
from .service import NOT_COORDINATOR, BrokerGroups
from .state import NONE

FIRST_TOPIC_IDS = 10  # OffsetCommit and OffsetFetch
FIRST_BATCHED_FETCH = 8
FIRST_TOP_LEVEL_FETCH_ERROR = 2
UNKNOWN_TOPIC_ID = ErrorCode.UNKNOWN_TOPIC_ID.value
UNKNOWN_TOPIC_OR_PARTITION = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION.value


class TopicView:
    """Topic names and ids as the broker's metadata image has them (None: anything goes)."""

    def __init__(self, image: MetadataImage | None):
        self.image = image

    def name_of(self, topic_id: Uuid) -> str | None:
        topic = self.image.topics.get(topic_id) if self.image is not None else None
        return topic.name if topic is not None else None

    def id_of(self, name: str) -> Uuid | None:
        topic = self.image.topic(name) if self.image is not None else None
        return topic.id if topic is not None else None

    def has(self, name: str, partition: int) -> bool:
        if self.image is None:
            return True
        topic = self.image.topic(name)
        return topic is not None and partition in topic.partitions


async def handle_offset_commit(groups: BrokerGroups, request: RequestContext) -> Message:
    body = request.body
    assert isinstance(body, OffsetCommitRequest)
    by_id = request.api_version >= FIRST_TOPIC_IDS
    view = TopicView(groups.image())
    errors: dict[tuple[int, int], int] = {}  # (topic index, partition index) -> error
    valid: list[tuple[tuple[int, int], OffsetToCommit]] = []
    for t, topic in enumerate(body.topics):
        name = view.name_of(topic.topic_id) if by_id else topic.name
        for p, part in enumerate(topic.partitions):
            if name is None:
                errors[t, p] = UNKNOWN_TOPIC_ID
            elif not view.has(name, part.partition_index):
                errors[t, p] = UNKNOWN_TOPIC_OR_PARTITION
            else:
                offset = (
                    name,
                    part.partition_index,
                    part.committed_offset,
                    part.committed_leader_epoch,
                    part.committed_metadata,
                )
                valid.append(((t, p), offset))
    if valid:
        if groups.is_coordinator(body.group_id):
            commit = CommitRequest(
                body.group_id,
                body.generation_id_or_member_epoch,
                body.member_id,
                body.group_instance_id,
                request.api_version,
                [offset for _, offset in valid],
            )
            outcome = commit_offsets(groups.engine, groups.offsets, commit)
        else:
            outcome = [NOT_COORDINATOR] * len(valid)
        errors.update(zip((where for where, _ in valid), outcome))
    topics = [
        OffsetCommitResponseTopic(
            name=topic.name,
            topic_id=topic.topic_id,
            partitions=[
                OffsetCommitResponsePartition(
                    partition_index=part.partition_index, error_code=errors[t, p]
                )
                for p, part in enumerate(topic.partitions)
            ],
        )
        for t, topic in enumerate(body.topics)
    ]
    return OffsetCommitResponse(topics=topics)


@dataclass
class Row:
    """One partition of an OffsetFetch answer."""

    partition: int
    offset: int = -1
    leader_epoch: int = -1
    metadata: str | None = ""
    error: int = NONE


# (name, topic id, rows)
FetchedTopic = tuple[str, Uuid, list[Row]]
Asked = list[tuple[str, Uuid, list[int]]] | None  # (name, topic id, partitions); None: all


async def handle_offset_fetch(groups: BrokerGroups, request: RequestContext) -> Message:
    body = request.body
    assert isinstance(body, OffsetFetchRequest)
    version = request.api_version
    by_id = version >= FIRST_TOPIC_IDS
    if version < FIRST_BATCHED_FETCH:
        asked: Asked = None
        if body.topics is not None:
            asked = [(t.name, Uuid.ZERO_UUID, list(t.partition_indexes)) for t in body.topics]
        error, topics = fetch_group(groups, body.group_id, asked, by_id=False)
        if error and version < FIRST_TOP_LEVEL_FETCH_ERROR:  # no top-level error yet
            topics = [(n, i, [Row(p, error=error) for p in ps]) for n, i, ps in asked or []]
        return OffsetFetchResponse(error_code=error, topics=list(_old_topics(topics)))
    answers = []
    for group in body.groups:
        asked = None
        if group.topics is not None:
            asked = [(t.name, t.topic_id, list(t.partition_indexes)) for t in group.topics]
        error, topics = fetch_group(groups, group.group_id, asked, by_id=by_id)
        answers.append(
            OffsetFetchResponseGroup(
                group_id=group.group_id, error_code=error, topics=list(_new_topics(topics))
            )
        )
    return OffsetFetchResponse(groups=answers)


def fetch_group(
    groups: BrokerGroups, group_id: str, asked: Asked, *, by_id: bool
) -> tuple[int, list[FetchedTopic]]:
    """(group error, topics) for one group of an OffsetFetch."""
    if not groups.is_coordinator(group_id):
        return NOT_COORDINATOR, []
    view = TopicView(groups.image())
    if asked is None:
        found = []
        for name, offsets in fetch_offsets(groups.engine, groups.offsets, group_id, None):
            topic_id = view.id_of(name) if by_id else Uuid.ZERO_UUID
            if topic_id is not None:  # by id, a topic gone from the image is left out
                found.append((name, topic_id, offsets))
        return NONE, [(n, i, _rows(offsets)) for n, i, offsets in found]
    answered: list[FetchedTopic] = []
    for name, topic_id, partitions in asked:
        resolved = view.name_of(topic_id) if by_id else name
        if resolved is None:
            answered.append((name, topic_id, [Row(p, error=UNKNOWN_TOPIC_ID) for p in partitions]))
            continue
        ((_, offsets),) = fetch_offsets(
            groups.engine, groups.offsets, group_id, [(resolved, partitions)]
        )
        answered.append((name, topic_id, _rows(offsets)))
    return NONE, answered


def _rows(offsets: Iterable[tuple[int, CommittedOffset | None]]) -> list[Row]:
    return [
        Row(p) if c is None else Row(p, c.offset, c.leader_epoch, c.metadata) for p, c in offsets
    ]


def _partition(r: Row) -> dict[str, Any]:
    return {
        "partition_index": r.partition,
        "committed_offset": r.offset,
        "committed_leader_epoch": r.leader_epoch,
        "metadata": r.metadata,
        "error_code": r.error,
    }


def _old_topics(topics: list[FetchedTopic]) -> Iterable[OffsetFetchResponseTopic]:
    for name, _, rows in topics:
        partitions = [OffsetFetchResponsePartition(**_partition(r)) for r in rows]
        yield OffsetFetchResponseTopic(name=name, partitions=partitions)


def _new_topics(topics: list[FetchedTopic]) -> Iterable[OffsetFetchResponseTopics]:
    for name, topic_id, rows in topics:
        partitions = [OffsetFetchResponsePartitions(**_partition(r)) for r in rows]
        yield OffsetFetchResponseTopics(name=name, topic_id=topic_id, partitions=partitions)
