"""Committed offsets, as Kafka's ``OffsetMetadataManager`` keeps them for classic groups.

- OffsetCommit from a group member is checked against the group: the member must be known
  (UNKNOWN_MEMBER_ID, FENCED_INSTANCE_ID) and of the current generation (ILLEGAL_GENERATION);
  while the group completes a rebalance the answer is REBALANCE_IN_PROGRESS. A commit renews
  the member's session in Stable and PreparingRebalance.
- A commit with generation -1 and no member (the admin client, or a consumer that assigns its
  partitions itself) is accepted when the group is Empty, and creates the group (Empty, no
  protocol type) when it does not exist. A member's generation for a group that does not exist
  is ILLEGAL_GENERATION, GROUP_ID_NOT_FOUND from version 9.
- Metadata longer than ``offset.metadata.max.bytes`` is refused per partition
  (OFFSET_METADATA_TOO_LARGE).
- OffsetFetch of a group that does not exist answers -1 for each partition asked (and nothing
  when all are asked). No transactions run here, so no offset is ever pending and
  require_stable changes nothing.

Offsets are kept until their group is deleted: the retention of ``offsets.retention.minutes``
is not applied.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...error_codes import ErrorCode
from .rebalance import Rebalancer
from .state import COMPLETING_REBALANCE, DEAD, EMPTY, NONE, PREPARING_REBALANCE, STABLE

# OffsetCommit from version 9 says GROUP_ID_NOT_FOUND where it said ILLEGAL_GENERATION
FIRST_GROUP_ID_NOT_FOUND = 9


@dataclass(frozen=True)
class CommittedOffset:
    offset: int
    leader_epoch: int  # -1: none given
    metadata: str
    commit_timestamp_ms: float


# (topic, partition, offset, leader epoch, metadata)
OffsetToCommit = tuple[str, int, int, int, "str | None"]


@dataclass
class CommitRequest:
    group_id: str
    generation_id: int
    member_id: str
    group_instance_id: str | None
    api_version: int
    offsets: list[OffsetToCommit]


class OffsetStore:
    """group -> topic -> partition -> the committed offset, in commit order."""

    def __init__(self) -> None:
        self._groups: dict[str, dict[str, dict[int, CommittedOffset]]] = {}

    def put(self, group_id: str, topic: str, partition: int, committed: CommittedOffset) -> None:
        self._groups.setdefault(group_id, {}).setdefault(topic, {})[partition] = committed

    def get(self, group_id: str, topic: str, partition: int) -> CommittedOffset | None:
        return self._groups.get(group_id, {}).get(topic, {}).get(partition)

    def of_group(self, group_id: str) -> dict[str, dict[int, CommittedOffset]]:
        return self._groups.get(group_id, {})

    def delete_group(self, group_id: str) -> None:
        self._groups.pop(group_id, None)


def commit_offsets(engine: Rebalancer, store: OffsetStore, request: CommitRequest) -> list[int]:
    """One error code per offset of ``request.offsets``, in order."""
    error = _commit_error(engine, request)
    if error:
        return [error] * len(request.offsets)
    group = engine.groups[request.group_id]
    if group.state in (STABLE, PREPARING_REBALANCE):
        engine.reschedule_heartbeat(group, group.members[request.member_id])
    now = engine.now()
    limit = engine.settings.offset_metadata_max_bytes
    errors = []
    for topic, partition, offset, epoch, metadata in request.offsets:
        if metadata is not None and len(metadata) > limit:
            errors.append(ErrorCode.OFFSET_METADATA_TOO_LARGE.value)
            continue
        committed = CommittedOffset(offset, epoch, metadata or "", now)
        store.put(request.group_id, topic, partition, committed)
        errors.append(NONE)
    return errors


def _commit_error(engine: Rebalancer, request: CommitRequest) -> int:
    """Kafka's validation of a commit against its group (which it may create)."""
    group = engine.groups.get(request.group_id)
    generation = request.generation_id
    if group is None:
        if generation >= 0:
            if request.api_version >= FIRST_GROUP_ID_NOT_FOUND:
                return ErrorCode.GROUP_ID_NOT_FOUND.value
            return ErrorCode.ILLEGAL_GENERATION.value
        group = engine.create(request.group_id)  # a "simple" group, for offsets only
    if group.state == DEAD:
        return ErrorCode.COORDINATOR_NOT_AVAILABLE.value
    if generation < 0 and group.state == EMPTY:
        return NONE
    if generation >= 0 or request.member_id or request.group_instance_id is not None:
        error = group.member_error(request.member_id, request.group_instance_id)
        if error:
            return error
        if generation != group.generation_id:
            return ErrorCode.ILLEGAL_GENERATION.value
    elif group.state != EMPTY:  # no member, no generation: only while nobody is in the group
        return ErrorCode.UNKNOWN_MEMBER_ID.value
    if group.state == COMPLETING_REBALANCE:
        return ErrorCode.REBALANCE_IN_PROGRESS.value
    return NONE


# (topic, [(partition, committed offset or None)])
FetchedTopic = tuple[str, list[tuple[int, "CommittedOffset | None"]]]


def fetch_offsets(
    engine: Rebalancer,
    store: OffsetStore,
    group_id: str,
    topics: list[tuple[str, list[int]]] | None,
) -> list[FetchedTopic]:
    """The committed offsets of the partitions asked, or of every partition (``topics`` None)."""
    group = engine.groups.get(group_id)
    known = group is not None and group.state != DEAD
    if topics is None:
        if not known:
            return []
        return [(topic, list(by.items())) for topic, by in store.of_group(group_id).items()]
    fetched: list[FetchedTopic] = []
    for topic, partitions in topics:
        found = [(p, store.get(group_id, topic, p) if known else None) for p in partitions]
        fetched.append((topic, found))
    return fetched
