"""Fetch (v4-18) for consumers: by topic name, by topic id from v13, in sessions
(``fetch_sessions``), long-polled.

Each partition is read as Kafka's ReplicaManager.readFromLocalLog reads it: the checks of
``leadership`` (a follower may serve a consumer from v11, as KIP-392 allows; before that only the
leader), then OFFSET_OUT_OF_RANGE for a fetch offset below the log start offset or past the log
end offset, then whole batches from the fetch offset up to the high watermark (the last stable
offset under read_committed: the same, no transactions being served), at most the partition's
``partition_max_bytes`` and what is left of the request's ``max_bytes``, except that the first
partition to return data returns at least one whole batch, however large. A refused partition
answers -1 for its high watermark, last stable offset and log start offset.

The answer waits, as a DelayedFetch does, while ``max_wait_ms`` has not passed, fewer than
``min_bytes`` are ready, no partition has an error and the request named any partition; every
append to this broker's partitions (and every metadata change) ends the wait to look again.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from ...error_codes import ErrorCode
from ...message import Message
from ...messages.fetch_request import FetchRequest
from ...messages.fetch_response import FetchResponse
from ...server import RequestContext
from . import versioned
from ...uuid import Uuid
from .fetch_sessions import CachedPartition, FetchSession, PartitionKey, SessionError
from .leadership import node_endpoints, serve

if TYPE_CHECKING:
    from .broker import Broker

VERSIONS = (4, 18)
READ_COMMITTED = 1
Answer = FetchResponse.PartitionData


def register(broker: Broker) -> None:
    versioned.serve(broker, FetchRequest, handle_fetch, VERSIONS)


async def handle_fetch(broker: Broker, request: RequestContext) -> Message:
    body: Any = request.body
    by_id = request.api_version >= 13
    try:
        session = broker.fetch_sessions.context(body.session_id, body.session_epoch, by_id)
    except SessionError as exc:
        return FetchResponse(error_code=exc.code, session_id=0)
    asked = requested(body, by_id)
    incremental = session is not None and body.session_epoch > 0
    if session is not None:
        update_session(session, asked, body, by_id, incremental)
        asked = dict(session.partitions)
    deadline = time.monotonic() + body.max_wait_ms / 1000
    while True:
        answers = read_all(broker, asked, body, request.api_version)
        ready = sum(len(a.records or b"") for _, a in answers)
        waiting = deadline - time.monotonic()
        if (body.max_wait_ms <= 0 or ready >= body.min_bytes or waiting <= 0 or not answers
                or any(a.error_code for _, a in answers) or not broker.running):  # fmt: skip
            break
        await broker.wait_for_change(waiting)
    if session is not None:  # what the session last answered, remembered; news only if incremental
        answers = [(key, a) for key, a in answers
                   if _has_news(session, key, a) or not incremental]  # fmt: skip
    return respond(broker, answers, by_id, session, request.api_version)


def _has_news(session: FetchSession, key: PartitionKey, answer: Any) -> bool:
    cached = session.partitions.get(key)  # None: forgotten by a later request meanwhile
    return cached is not None and cached.has_news(answer)


def requested(body: Any, by_id: bool) -> dict[PartitionKey, CachedPartition]:
    """The partitions the request names, in its order."""
    asked = {}
    for topic in body.topics:
        name = topic.topic_id if by_id else topic.topic
        for p in topic.partitions:
            asked[(name, p.partition)] = CachedPartition(p.fetch_offset, p.partition_max_bytes,
                                                         p.current_leader_epoch)  # fmt: skip
    return asked


def update_session(session: FetchSession, asked: dict[PartitionKey, CachedPartition], body: Any,
                   by_id: bool, incremental: bool) -> None:  # fmt: skip
    """Add or update the partitions named, drop the forgotten ones."""
    for key, wanted in asked.items():
        cached = session.partitions.get(key)
        if cached is None:
            session.partitions[key] = wanted
        else:
            cached.fetch_offset, cached.max_bytes = wanted.fetch_offset, wanted.max_bytes
            cached.current_leader_epoch = wanted.current_leader_epoch
    if incremental:
        for forgotten in body.forgotten_topics_data:
            name = forgotten.topic_id if by_id else forgotten.topic
            for index in forgotten.partitions:
                session.partitions.pop((name, index), None)


def read_all(broker: Broker, asked: dict[PartitionKey, CachedPartition], body: Any,
             version: int) -> list[tuple[PartitionKey, Any]]:  # fmt: skip
    budget = body.max_bytes
    answers = []
    for key, wanted in asked.items():
        answer = read_partition(broker, key, wanted, budget, version, first=budget == body.max_bytes)
        budget -= len(answer.records or b"")
        if body.isolation_level == READ_COMMITTED and not answer.error_code:
            answer.aborted_transactions = []  # none: no transactions are served
        answers.append((key, answer))
    return answers


def read_partition(broker: Broker, key: PartitionKey, wanted: CachedPartition, budget: int,
                   version: int, *, first: bool) -> Any:  # fmt: skip
    name, index = key
    by_id = isinstance(name, Uuid)
    topic = broker.topic(topic_id=name) if by_id else broker.topic(name)
    served = serve(broker, topic, index, wanted.current_leader_epoch, leader_only=version < 11)
    if topic is None and by_id:
        return _refused(index, ErrorCode.UNKNOWN_TOPIC_ID, None)
    if served.error:
        return _refused(index, served.error, served.registration if version >= 12 else None)
    partition = served.partition
    assert partition is not None
    if not partition.log_start_offset <= wanted.fetch_offset <= partition.log_end_offset:
        return _refused(index, ErrorCode.OFFSET_OUT_OF_RANGE, None)
    limit = max(0, min(wanted.max_bytes, budget))
    records = partition.read(wanted.fetch_offset, limit, at_least_one=first)
    return Answer(partition_index=index, high_watermark=partition.high_watermark,
                  last_stable_offset=partition.high_watermark,
                  log_start_offset=partition.log_start_offset, records=records,
                  aborted_transactions=None)  # fmt: skip


def _refused(index: int, code: int, registration: Any) -> Any:
    answer = Answer(partition_index=index, error_code=code, high_watermark=-1,
                    last_stable_offset=-1, log_start_offset=-1, records=b"",
                    aborted_transactions=None)  # fmt: skip
    if registration is not None and code in (ErrorCode.NOT_LEADER_OR_FOLLOWER,
                                             ErrorCode.FENCED_LEADER_EPOCH):  # fmt: skip
        answer.current_leader = FetchResponse.LeaderIdAndEpoch(
            leader_id=registration.leader, leader_epoch=registration.leader_epoch)
    return answer


def respond(broker: Broker, answers: list[tuple[PartitionKey, Any]], by_id: bool,
            session: FetchSession | None, version: int) -> Message:  # fmt: skip
    topics: dict[Any, Any] = {}
    for (name, _), answer in answers:
        topic = topics.get(name)
        if topic is None:
            topic = topics[name] = FetchResponse.FetchableTopicResponse(
                topic="" if by_id else name, topic_id=name if by_id else Uuid.ZERO_UUID)
        topic.partitions.append(answer)
    leaders = {a.current_leader.leader_id for _, a in answers if a.current_leader.leader_id >= 0}
    endpoints = node_endpoints(broker, leaders, FetchResponse.NodeEndpoint) if version >= 16 else []
    return FetchResponse(session_id=session.id if session is not None else 0,
                         responses=list(topics.values()), node_endpoints=endpoints)  # fmt: skip
