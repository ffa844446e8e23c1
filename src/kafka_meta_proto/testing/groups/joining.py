"""JoinGroup, as Kafka's coordinator answers it (``classicGroupJoin`` and what it calls).

- From version 4 a dynamic member that comes without a member id is handed one with
  MEMBER_ID_REQUIRED and joins again with it (it must do so within its session timeout).
- A static member (group.instance.id) that comes without a member id takes over its instance's
  membership under a new id: the old id is fenced (FENCED_INSTANCE_ID). In a Stable group whose
  protocol stays the same, no rebalance follows: it gets the current generation back (from
  version 9 the leader is told to skip the assignment; before, the answer names the previous
  leader id, so the returning leader does not assign).
- An existing member rejoining a Stable group with the same metadata gets the current
  generation; a leader rejoining, or anyone with new metadata, starts a rebalance.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...error_codes import ErrorCode
from .rebalance import GroupSettings, Rebalancer
from .state import (
    COMPLETING_REBALANCE,
    DEAD,
    EMPTY,
    PREPARING_REBALANCE,
    STABLE,
    UNKNOWN_MEMBER,
    ClassicGroup,
    JoinAnswer,
    JoinWaiter,
    Member,
    Protocols,
    complete_join,
    new_member_id,
)

# JoinGroup versions: from 4 a new dynamic member needs a member id first; from 9 a static
# leader coming back may be told to skip the assignment
FIRST_MEMBER_ID_REQUIRED = 4
FIRST_SKIP_ASSIGNMENT = 9


@dataclass
class JoinRequest:
    group_id: str
    member_id: str
    group_instance_id: str | None
    session_timeout_ms: int
    rebalance_timeout_ms: int
    protocol_type: str
    protocols: Protocols
    client_id: str
    client_host: str
    api_version: int


def join_group(engine: Rebalancer, request: JoinRequest, answer: JoinWaiter) -> None:
    """Join ``request``'s member; ``answer`` is called once, now or when the join completes."""
    invalid = invalid_join(engine.settings, request.group_id, request.session_timeout_ms)
    if invalid is not None:
        return answer(error_answer(invalid, request.member_id))
    unknown = request.member_id == UNKNOWN_MEMBER
    group = engine.groups.get(request.group_id)
    if group is None:
        if not unknown:  # a member id for a group that is not there
            return answer(error_answer(ErrorCode.UNKNOWN_MEMBER_ID, request.member_id))
        group = engine.create(request.group_id)
    if not _accepts(engine, group, request.member_id):
        group.remove(request.member_id)
        return answer(error_answer(ErrorCode.GROUP_MAX_SIZE_REACHED, UNKNOWN_MEMBER))
    refusal = _refusal(group, request)
    if refusal is not None:
        return answer(error_answer(refusal, request.member_id))
    if unknown:
        _join_new(engine, group, request, answer)
    elif request.member_id in group.pending_join:
        _add_member(engine, group, request, request.member_id, answer)
    else:
        _join_existing(engine, group, request, answer)


def invalid_join(
    settings: GroupSettings, group_id: str, session_timeout_ms: int
) -> ErrorCode | None:
    """What Kafka refuses before the group is looked at (or its coordinator found)."""
    if not group_id:
        return ErrorCode.INVALID_GROUP_ID
    if not settings.min_session_timeout_ms <= session_timeout_ms <= settings.max_session_timeout_ms:
        return ErrorCode.INVALID_SESSION_TIMEOUT
    return None


def error_answer(error: ErrorCode, member_id: str) -> JoinAnswer:
    return JoinAnswer(error=error.value, member_id=member_id)


def _accepts(engine: Rebalancer, group: ClassicGroup, member_id: str) -> bool:
    """Whether the group has room (group.max.size) for this member."""
    limit = engine.settings.max_size
    member = group.members.get(member_id)
    if group.state == PREPARING_REBALANCE:
        awaiting = member is not None and member.awaiting_join is not None
        return awaiting or group.awaiting_join_count() < limit
    if group.state in (COMPLETING_REBALANCE, STABLE):
        return member is not None or len(group.members) < limit
    return True


def _refusal(group: ClassicGroup, request: JoinRequest) -> ErrorCode | None:
    if group.state == DEAD:  # deleted under the member: find the coordinator and try again
        return ErrorCode.COORDINATOR_NOT_AVAILABLE
    if not group.supports(request.protocol_type, request.protocols):
        return ErrorCode.INCONSISTENT_GROUP_PROTOCOL
    return None


def _join_new(
    engine: Rebalancer, group: ClassicGroup, request: JoinRequest, answer: JoinWaiter
) -> None:
    member_id = new_member_id(request.client_id, request.group_instance_id)
    instance = request.group_instance_id
    if instance is not None:
        existing = group.static_members.get(instance)
        if existing is not None:
            _replace_static(engine, group, request, existing, member_id, answer)
        else:
            _add_member(engine, group, request, member_id, answer)
    elif request.api_version >= FIRST_MEMBER_ID_REQUIRED:
        group.pending_join.add(member_id)
        engine.expire_later(group, member_id, request.session_timeout_ms)
        answer(error_answer(ErrorCode.MEMBER_ID_REQUIRED, member_id))
    else:
        _add_member(engine, group, request, member_id, answer)


def _join_existing(
    engine: Rebalancer, group: ClassicGroup, request: JoinRequest, answer: JoinWaiter
) -> None:
    member_id = request.member_id
    error = group.member_error(member_id, request.group_instance_id)
    if error:
        return answer(JoinAnswer(error=error, member_id=member_id))
    member = group.members[member_id]
    same = member.matches(request.protocols)
    if group.state == COMPLETING_REBALANCE and same:
        # it missed the answer of this generation: give it again
        answer(group.join_answer(member_id, members=group.is_leader(member_id)))
    elif group.state == STABLE and same and not group.is_leader(member_id):
        answer(group.join_answer(member_id, members=False))
    elif group.state in (PREPARING_REBALANCE, COMPLETING_REBALANCE, STABLE):
        _update_member(engine, group, member, request, answer)
    else:  # Empty with members cannot be; Kafka answers the same
        answer(error_answer(ErrorCode.UNKNOWN_MEMBER_ID, member_id))


def _update_member(
    engine: Rebalancer,
    group: ClassicGroup,
    member: Member,
    request: JoinRequest,
    answer: JoinWaiter,
) -> None:
    group.update(
        member, request.protocols, request.rebalance_timeout_ms, request.session_timeout_ms, answer
    )
    engine.rebalance_or_complete_join(group)


def _add_member(
    engine: Rebalancer,
    group: ClassicGroup,
    request: JoinRequest,
    member_id: str,
    answer: JoinWaiter,
) -> None:
    member = Member(
        member_id=member_id,
        group_instance_id=request.group_instance_id,
        client_id=request.client_id,
        client_host=request.client_host,
        rebalance_timeout_ms=request.rebalance_timeout_ms,
        session_timeout_ms=request.session_timeout_ms,
        protocol_type=request.protocol_type,
        protocols=request.protocols,
        awaiting_join=answer,
        is_new=True,
    )
    if group.state == PREPARING_REBALANCE and group.previous_state == EMPTY:
        group.new_member_added = True  # the initial rebalance waits a little longer
    group.add(member)
    # a new member cannot heartbeat yet; its parked JoinGroup expires after a longer while
    engine.reschedule_heartbeat(group, member, engine.settings.new_member_join_timeout_ms)
    engine.rebalance_or_complete_join(group)


def _replace_static(
    engine: Rebalancer,
    group: ClassicGroup,
    request: JoinRequest,
    old_id: str,
    new_id: str,
    answer: JoinWaiter,
) -> None:
    assert request.group_instance_id is not None
    previous_leader = group.leader_id or ""
    member = group.replace_static(request.group_instance_id, old_id, new_id)
    engine.reschedule_heartbeat(group, member)
    group.update(
        member, request.protocols, request.rebalance_timeout_ms, request.session_timeout_ms, answer
    )
    if group.state == STABLE:
        if group.protocol_name != group.select_protocol():
            return engine.rebalance_or_complete_join(group)
        if request.api_version >= FIRST_SKIP_ASSIGNMENT:
            leader = group.is_leader(new_id)
            complete_join(member, group.join_answer(new_id, members=leader, skip=leader))
        else:
            back = group.join_answer(new_id, members=False)
            back.leader = previous_leader
            complete_join(member, back)
    elif group.state == COMPLETING_REBALANCE:
        # the leader may already have assigned under the old id: assign again
        engine.prepare_rebalance(group)
    else:
        engine.maybe_complete_join(group)
