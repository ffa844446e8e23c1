"""DescribeGroups, ListGroups and DeleteGroups on the wire.

Each broker lists only the groups it coordinates (Kafka lists those of the ``__consumer_offsets``
partitions it leads); a group asked of the wrong broker is NOT_COORDINATOR in its own entry.
No authorizer runs here, so a DescribeGroups asking for authorized operations (v3+) gets every
operation a group has (Kafka's answer without an authorizer).
"""

from __future__ import annotations

from ...message import Message
from ...messages.delete_groups_request import DeleteGroupsRequest
from ...messages.delete_groups_response import DeletableGroupResult, DeleteGroupsResponse
from ...messages.describe_groups_request import DescribeGroupsRequest
from ...messages.describe_groups_response import (
    DescribedGroup,
    DescribedGroupMember,
    DescribeGroupsResponse,
)
from ...messages.list_groups_request import ListGroupsRequest
from ...messages.list_groups_response import ListedGroup, ListGroupsResponse
from ...server import RequestContext
from .admin import delete_group, describe_group, list_groups
from .service import NOT_COORDINATOR, BrokerGroups
from .state import NONE

FIRST_GROUP_ID_NOT_FOUND = 6  # DescribeGroups
FIRST_AUTHORIZED_OPERATIONS = 3
# the operations on a group (READ 3, DELETE 6, DESCRIBE 8, DESCRIBE_CONFIGS 10, ALTER_CONFIGS 11)
GROUP_OPERATIONS = sum(1 << op for op in (3, 6, 8, 10, 11))
NO_OPERATIONS = -(2**31)  # the field's default: not asked for


async def handle_describe(groups: BrokerGroups, request: RequestContext) -> Message:
    body = request.body
    assert isinstance(body, DescribeGroupsRequest)
    version = request.api_version
    asked_operations = version >= FIRST_AUTHORIZED_OPERATIONS and body.include_authorized_operations
    described = []
    for group_id in body.groups:
        if not groups.is_coordinator(group_id):
            described.append(DescribedGroup(group_id=group_id, error_code=NOT_COORDINATOR))
            continue
        d = describe_group(groups.engine, group_id)
        if version < FIRST_GROUP_ID_NOT_FOUND:  # a missing group was only "Dead" then
            d.error, d.error_message = NONE, None
        members = [
            DescribedGroupMember(
                member_id=m.member_id,
                group_instance_id=m.group_instance_id,
                client_id=m.client_id,
                client_host=m.client_host,
                member_metadata=m.metadata,
                member_assignment=m.assignment,
            )
            for m in d.members
        ]
        operations = GROUP_OPERATIONS if asked_operations and d.error == NONE else NO_OPERATIONS
        described.append(
            DescribedGroup(
                error_code=d.error,
                error_message=d.error_message,
                group_id=group_id,
                group_state=d.state,
                protocol_type=d.protocol_type,
                protocol_data=d.protocol_data,
                members=members,
                authorized_operations=operations,
            )
        )
    return DescribeGroupsResponse(groups=described)


async def handle_list(groups: BrokerGroups, request: RequestContext) -> Message:
    body = request.body
    assert isinstance(body, ListGroupsRequest)
    listed = [
        ListedGroup(
            group_id=g.group_id,
            protocol_type=g.protocol_type,
            group_state=g.state,
            group_type=g.group_type,
        )
        for g in list_groups(groups.engine, body.states_filter, body.types_filter)
        if groups.is_coordinator(g.group_id)
    ]
    return ListGroupsResponse(groups=listed)


async def handle_delete(groups: BrokerGroups, request: RequestContext) -> Message:
    body = request.body
    assert isinstance(body, DeleteGroupsRequest)
    results = []
    for group_id in dict.fromkeys(body.groups_names):  # each group once, in the order asked
        if groups.is_coordinator(group_id):
            error = delete_group(groups.engine, groups.offsets, group_id)
        else:
            error = NOT_COORDINATOR
        results.append(DeletableGroupResult(group_id=group_id, error_code=error))
    return DeleteGroupsResponse(results=results)
