"""SyncGroup, Heartbeat and LeaveGroup, as Kafka's coordinator answers them.

- SyncGroup in CompletingRebalance parks the member until the leader's SyncGroup brings the
  assignment (then every parked member gets its part and the group is Stable); in Stable it
  answers the member's assignment at once; while a rebalance is being prepared it answers
  REBALANCE_IN_PROGRESS.
- Heartbeat keeps the session alive and says REBALANCE_IN_PROGRESS while the group prepares a
  rebalance (the member must rejoin), ILLEGAL_GENERATION for an old generation and
  UNKNOWN_MEMBER_ID for a member the group no longer has.
- LeaveGroup removes members by member id, or (an administrator's removal) a static member by
  its group.instance.id alone; the group then rebalances without them.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...error_codes import ErrorCode
from .rebalance import Rebalancer
from .state import (
    COMPLETING_REBALANCE,
    DEAD,
    EMPTY,
    NONE,
    PREPARING_REBALANCE,
    STABLE,
    UNKNOWN_MEMBER,
    ClassicGroup,
    JoinAnswer,
    SyncAnswer,
    SyncWaiter,
    complete_join,
)


@dataclass
class SyncRequest:
    group_id: str
    generation_id: int
    member_id: str
    group_instance_id: str | None
    protocol_type: str | None
    protocol_name: str | None
    assignments: dict[str, bytes]


def sync_group(engine: Rebalancer, request: SyncRequest, answer: SyncWaiter) -> None:
    """``answer`` is called once: now, or when the leader's assignment arrives."""
    if not request.group_id:
        return answer(SyncAnswer(error=ErrorCode.INVALID_GROUP_ID.value))
    group = engine.groups.get(request.group_id)
    if group is None or group.state == EMPTY:
        return answer(SyncAnswer(error=ErrorCode.UNKNOWN_MEMBER_ID.value))
    error = _sync_error(group, request)
    if error:
        return answer(SyncAnswer(error=error))
    member_id = request.member_id
    if group.state == PREPARING_REBALANCE:
        answer(SyncAnswer(error=ErrorCode.REBALANCE_IN_PROGRESS.value))
    elif group.state == COMPLETING_REBALANCE:
        group.members[member_id].awaiting_sync = answer
        group.pending_sync.discard(member_id)
        if group.is_leader(member_id):
            engine.assign(group, request.assignments)
            group.transition_to(STABLE, engine.now())
    else:  # Stable: the assignment this member already has
        group.pending_sync.discard(member_id)
        answer(
            SyncAnswer(
                protocol_type=group.protocol_type,
                protocol_name=group.protocol_name,
                assignment=group.members[member_id].assignment,
            )
        )


def _sync_error(group: ClassicGroup, request: SyncRequest) -> int:
    if group.state == DEAD:
        return ErrorCode.COORDINATOR_NOT_AVAILABLE.value
    error = group.member_error(request.member_id, request.group_instance_id)
    if error:
        return error
    if request.generation_id != group.generation_id:
        return ErrorCode.ILLEGAL_GENERATION.value
    if _differs(request.protocol_type, group.protocol_type) or _differs(
        request.protocol_name, group.protocol_name
    ):
        return ErrorCode.INCONSISTENT_GROUP_PROTOCOL.value
    return NONE


def _differs(asked: str | None, known: str | None) -> bool:
    return asked is not None and known is not None and asked != known


def heartbeat(
    engine: Rebalancer,
    group_id: str,
    member_id: str,
    group_instance_id: str | None,
    generation_id: int,
) -> int:
    """The Heartbeat's error code; a member in a live generation has its session renewed."""
    if not group_id:
        return ErrorCode.INVALID_GROUP_ID.value
    group = engine.groups.get(group_id)
    if group is None:
        return ErrorCode.UNKNOWN_MEMBER_ID.value
    if group.state == DEAD:
        return ErrorCode.COORDINATOR_NOT_AVAILABLE.value
    error = group.member_error(member_id, group_instance_id)
    if error:
        return error
    if generation_id != group.generation_id:
        return ErrorCode.ILLEGAL_GENERATION.value
    if group.state == EMPTY:
        return ErrorCode.UNKNOWN_MEMBER_ID.value
    engine.reschedule_heartbeat(group, group.members[member_id])
    if group.state == PREPARING_REBALANCE:
        return ErrorCode.REBALANCE_IN_PROGRESS.value
    return NONE


LeftMember = tuple[str, str | None, int]  # (member id, group instance id, error code)


def leave_group(
    engine: Rebalancer, group_id: str, leaving: list[tuple[str, str | None]]
) -> tuple[int, list[LeftMember]]:
    """(top-level error, one result per (member id, group instance id) asked to leave)."""
    if not group_id:
        return ErrorCode.INVALID_GROUP_ID.value, []
    group = engine.groups.get(group_id)
    if group is None:
        unknown = ErrorCode.UNKNOWN_MEMBER_ID.value
        return NONE, [(member_id, instance, unknown) for member_id, instance in leaving]
    if group.state == DEAD:
        return ErrorCode.COORDINATOR_NOT_AVAILABLE.value, []
    results = [(m, i, _leave_one(engine, group, m, i)) for m, i in leaving]
    if any(error == NONE for _, _, error in results):
        if group.state in (STABLE, COMPLETING_REBALANCE):
            engine.rebalance_or_complete_join(group)
        elif group.state == PREPARING_REBALANCE:
            engine.maybe_complete_join(group)
    return NONE, results


def _leave_one(
    engine: Rebalancer, group: ClassicGroup, member_id: str, instance: str | None
) -> int:
    if member_id == UNKNOWN_MEMBER:  # removal of a static member by its instance id
        known = group.static_members.get(instance) if instance is not None else None
        if known is None:
            return ErrorCode.UNKNOWN_MEMBER_ID.value
        _remove(engine, group, known)
        return NONE
    if member_id in group.pending_join:
        group.remove(member_id)
        engine.cancel_heartbeat(group, member_id)
        return NONE
    error = group.member_error(member_id, instance)
    if error == NONE:
        _remove(engine, group, member_id)
    return error


def _remove(engine: Rebalancer, group: ClassicGroup, member_id: str) -> None:
    engine.cancel_heartbeat(group, member_id)
    complete_join(group.members[member_id], JoinAnswer(error=ErrorCode.UNKNOWN_MEMBER_ID.value))
    group.remove(member_id)
