"""JoinGroup, SyncGroup, Heartbeat and LeaveGroup on the wire: each request read at its version,
handed to the coordinator, and its answer written as Kafka writes it at that version.

Versions matter in a few places: JoinGroup v0 has no rebalance timeout (the session timeout
stands for it); the protocol name is "" for none before JoinGroup v7 and null from it;
SyncGroup from v5 must name the protocol type and name (INCONSISTENT_GROUP_PROTOCOL without);
LeaveGroup before v3 names one member and answers its error at the top level.
"""

from __future__ import annotations

from functools import partial

from ...message import Message
from ...messages.heartbeat_request import HeartbeatRequest
from ...messages.heartbeat_response import HeartbeatResponse
from ...messages.join_group_request import JoinGroupRequest
from ...messages.join_group_response import JoinGroupResponse, JoinGroupResponseMember
from ...messages.leave_group_request import LeaveGroupRequest
from ...messages.leave_group_response import LeaveGroupResponse, MemberResponse
from ...messages.sync_group_request import SyncGroupRequest
from ...messages.sync_group_response import SyncGroupResponse
from ...server import RequestContext
from .joining import JoinRequest, error_answer, invalid_join, join_group
from .membership import SyncRequest, heartbeat, leave_group, sync_group
from .service import NOT_COORDINATOR, BrokerGroups, client_host
from .state import JoinAnswer, SyncAnswer

FIRST_NULLABLE_PROTOCOL_NAME = 7  # JoinGroup
FIRST_MANDATORY_SYNC_PROTOCOL = 5  # SyncGroup
FIRST_BATCHED_LEAVE = 3  # LeaveGroup
INCONSISTENT_GROUP_PROTOCOL = 23


async def handle_join(groups: BrokerGroups, request: RequestContext) -> Message:
    body = request.body
    assert isinstance(body, JoinGroupRequest)
    version = request.api_version
    invalid = invalid_join(groups.engine.settings, body.group_id, body.session_timeout_ms)
    if invalid is not None:
        return join_response(error_answer(invalid, body.member_id), version)
    if not groups.is_coordinator(body.group_id):
        return join_response(JoinAnswer(error=NOT_COORDINATOR), version)
    join = JoinRequest(
        group_id=body.group_id,
        member_id=body.member_id,
        group_instance_id=body.group_instance_id,
        session_timeout_ms=body.session_timeout_ms,
        rebalance_timeout_ms=body.rebalance_timeout_ms if version >= 1 else body.session_timeout_ms,
        protocol_type=body.protocol_type,
        protocols=[(p.name, p.metadata) for p in body.protocols],
        client_id=request.client_id or "",
        client_host=client_host(request),
        api_version=version,
    )
    answer = await groups.wait_for(partial(join_group, groups.engine, join))
    return join_response(answer or JoinAnswer(error=NOT_COORDINATOR), version)


def elsewhere(groups: BrokerGroups, group_id: str) -> bool:
    """NOT_COORDINATOR, after Kafka's check of the group id itself (empty: INVALID_GROUP_ID)."""
    return bool(group_id) and not groups.is_coordinator(group_id)


def join_response(answer: JoinAnswer, version: int) -> JoinGroupResponse:
    name = answer.protocol_name
    name = (name or None) if version >= FIRST_NULLABLE_PROTOCOL_NAME else (name or "")
    return JoinGroupResponse(
        error_code=answer.error,
        generation_id=answer.generation_id,
        protocol_type=answer.protocol_type,
        protocol_name=name,
        leader=answer.leader,
        skip_assignment=answer.skip_assignment,
        member_id=answer.member_id,
        members=[
            JoinGroupResponseMember(member_id=m, group_instance_id=i, metadata=metadata)
            for m, i, metadata in answer.members
        ],
    )


async def handle_sync(groups: BrokerGroups, request: RequestContext) -> Message:
    body = request.body
    assert isinstance(body, SyncGroupRequest)
    if request.api_version >= FIRST_MANDATORY_SYNC_PROTOCOL and (
        body.protocol_type is None or body.protocol_name is None
    ):
        return sync_response(SyncAnswer(error=INCONSISTENT_GROUP_PROTOCOL))
    if elsewhere(groups, body.group_id):
        return sync_response(SyncAnswer(error=NOT_COORDINATOR))
    sync = SyncRequest(
        group_id=body.group_id,
        generation_id=body.generation_id,
        member_id=body.member_id,
        group_instance_id=body.group_instance_id,
        protocol_type=body.protocol_type,
        protocol_name=body.protocol_name,
        assignments={a.member_id: a.assignment for a in body.assignments},
    )
    answer = await groups.wait_for(partial(sync_group, groups.engine, sync))
    return sync_response(answer or SyncAnswer(error=NOT_COORDINATOR))


def sync_response(answer: SyncAnswer) -> SyncGroupResponse:
    return SyncGroupResponse(
        error_code=answer.error,
        protocol_type=answer.protocol_type,
        protocol_name=answer.protocol_name,
        assignment=answer.assignment,
    )


async def handle_heartbeat(groups: BrokerGroups, request: RequestContext) -> Message:
    body = request.body
    assert isinstance(body, HeartbeatRequest)
    if elsewhere(groups, body.group_id):
        return HeartbeatResponse(error_code=NOT_COORDINATOR)
    error = heartbeat(
        groups.engine, body.group_id, body.member_id, body.group_instance_id, body.generation_id
    )
    return HeartbeatResponse(error_code=error)


async def handle_leave(groups: BrokerGroups, request: RequestContext) -> Message:
    body = request.body
    assert isinstance(body, LeaveGroupRequest)
    batched = request.api_version >= FIRST_BATCHED_LEAVE
    if elsewhere(groups, body.group_id):
        return LeaveGroupResponse(error_code=NOT_COORDINATOR)
    if batched:
        leaving = [(m.member_id, m.group_instance_id) for m in body.members]
    else:
        leaving = [(body.member_id, None)]
    error, results = leave_group(groups.engine, body.group_id, leaving)
    if not batched:  # one member: its error, unless the whole request failed
        return LeaveGroupResponse(error_code=error or (results[0][2] if results else 0))
    members = [
        MemberResponse(member_id=m, group_instance_id=i, error_code=e) for m, i, e in results
    ]
    return LeaveGroupResponse(error_code=error, members=members)
