"""Fetch sessions (KIP-227) kept as Kafka's FetchSession and FetchSessionCache keep them.

What a Fetch request's ``session_id`` and ``session_epoch`` ask for:

- id 0, epoch -1: a full fetch without a session (the answer's session id is 0);
- id 0, epoch 0: a full fetch that opens a session of the partitions named (the answer carries
  the new id; when the cache is full the oldest session makes room, a simplification of Kafka's
  eviction by privilege and age);
- id N, epoch -1: closes session N; the fetch is served in full, without a session;
- id N, epoch 0: closes session N and opens a new one;
- id N, epoch E > 0: an incremental fetch: the session's partitions, updated by those named and
  less the forgotten ones. An unknown id is FETCH_SESSION_ID_NOT_FOUND, an epoch other than the
  session's next one INVALID_FETCH_SESSION_EPOCH (top-level errors, nothing else answered).
  Its answer names only the partitions with news: records, an error, or a high watermark, last
  stable offset or log start offset other than the session last sent.

Partitions are keyed by topic id from Fetch v13 (topic names before); a session opened by names
and continued by ids, or the reverse, is FETCH_SESSION_TOPIC_ID_ERROR, as Kafka answers.
"""

from __future__ import annotations

import random
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from ...error_codes import ErrorCode

MAX_SESSIONS = 1000  # Kafka's max.incremental.fetch.session.cache.slots
INITIAL_EPOCH = 0
FINAL_EPOCH = -1
MAX_EPOCH = (1 << 31) - 1

PartitionKey = tuple[Any, int]  # (topic name or topic id, partition index)


@dataclass
class CachedPartition:
    """What a session remembers of a partition: what to fetch and what was last answered."""

    fetch_offset: int
    max_bytes: int
    current_leader_epoch: int = -1
    high_watermark: int = -1
    last_stable_offset: int = -1
    log_start_offset: int = -1

    def has_news(self, answer: Any) -> bool:
        """Whether an incremental answer must name this partition (remembering what it sent)."""
        news = bool(answer.records) or answer.error_code != 0
        for name in ("high_watermark", "last_stable_offset", "log_start_offset"):
            if getattr(self, name) != getattr(answer, name):
                setattr(self, name, getattr(answer, name))
                news = True
        return news


@dataclass
class FetchSession:
    id: int
    epoch: int  # the epoch the next request must carry
    uses_topic_ids: bool
    # (topic name or topic id, partition index) -> what the session holds of it
    partitions: OrderedDict[tuple[Any, int], CachedPartition] = field(default_factory=OrderedDict)


class SessionError(Exception):
    def __init__(self, code: int):
        super().__init__(ErrorCode.for_code(code).name)
        self.code = code


def next_epoch(epoch: int) -> int:
    return 1 if epoch >= MAX_EPOCH else epoch + 1


class FetchSessions:
    """The sessions of one broker."""

    def __init__(self, max_sessions: int = MAX_SESSIONS):
        self.max_sessions = max_sessions
        self.sessions: OrderedDict[int, FetchSession] = OrderedDict()

    def context(self, session_id: int, epoch: int, uses_topic_ids: bool) -> FetchSession | None:
        """The session this request continues or opens (None for a sessionless fetch);
        SessionError for an unknown session or a wrong epoch."""
        if epoch in (INITIAL_EPOCH, FINAL_EPOCH):
            if session_id:
                self.sessions.pop(session_id, None)
            return self._open(uses_topic_ids) if epoch == INITIAL_EPOCH else None
        session = self.sessions.get(session_id)
        if session is None:
            raise SessionError(ErrorCode.FETCH_SESSION_ID_NOT_FOUND)
        if session.epoch != epoch:
            raise SessionError(ErrorCode.INVALID_FETCH_SESSION_EPOCH)
        if session.uses_topic_ids != uses_topic_ids:
            raise SessionError(ErrorCode.FETCH_SESSION_TOPIC_ID_ERROR)
        session.epoch = next_epoch(epoch)
        self.sessions.move_to_end(session_id)
        return session

    def _open(self, uses_topic_ids: bool) -> FetchSession:
        while len(self.sessions) >= self.max_sessions:
            self.sessions.popitem(last=False)
        session_id = 0
        while session_id == 0 or session_id in self.sessions:
            session_id = random.randint(1, MAX_EPOCH)
        session = FetchSession(session_id, next_epoch(INITIAL_EPOCH), uses_topic_ids)
        self.sessions[session_id] = session
        return session

    def clear(self) -> None:
        self.sessions.clear()
