"""DescribeGroups, ListGroups and DeleteGroups, as Kafka's coordinator answers them.

- A group described in Stable carries its protocol and each member's metadata; in any other
  state the members come without metadata. A group that does not exist is described as Dead
  (with GROUP_ID_NOT_FOUND from DescribeGroups version 6, as KIP-1043 has it).
- ListGroups filters by state (case-insensitive) and by type; every group here is "classic".
- DeleteGroups deletes an Empty group and its offsets; one with members is NON_EMPTY_GROUP, one
  that does not exist GROUP_ID_NOT_FOUND.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ...error_codes import ErrorCode
from .offsets import OffsetStore
from .rebalance import Rebalancer
from .state import DEAD, EMPTY, NONE, STABLE

CLASSIC = "classic"  # the group type ListGroups reports from version 5


@dataclass
class DescribedMember:
    member_id: str
    group_instance_id: str | None
    client_id: str
    client_host: str
    metadata: bytes
    assignment: bytes


@dataclass
class Description:
    group_id: str
    error: int = NONE
    error_message: str | None = None
    state: str = DEAD
    protocol_type: str = ""
    protocol_data: str = ""  # the chosen protocol, in Stable only
    members: list[DescribedMember] = field(default_factory=list)


def describe_group(engine: Rebalancer, group_id: str) -> Description:
    group = engine.groups.get(group_id)
    if group is None:
        message = f"Group {group_id} not found."
        return Description(group_id, ErrorCode.GROUP_ID_NOT_FOUND.value, message)
    stable = group.state == STABLE and group.protocol_name is not None
    protocol = group.protocol_name if stable else None
    members = [
        DescribedMember(
            m.member_id,
            m.group_instance_id,
            m.client_id,
            m.client_host,
            m.metadata(protocol) if protocol is not None else b"",
            m.assignment,
        )
        for m in group.members.values()
    ]
    return Description(
        group_id,
        state=group.state,
        protocol_type=group.protocol_type or "",
        protocol_data=protocol or "",
        members=members,
    )


@dataclass(frozen=True)
class Listed:
    group_id: str
    protocol_type: str
    state: str
    group_type: str = CLASSIC


def list_groups(engine: Rebalancer, states: list[str], types: list[str]) -> list[Listed]:
    wanted_states = {s.strip().lower() for s in states}
    wanted_types = {t.lower() for t in types}
    return [
        Listed(group.group_id, group.protocol_type or "", group.state)
        for group in engine.groups.values()
        if (not wanted_states or group.state.lower() in wanted_states)
        and (not wanted_types or CLASSIC in wanted_types)
    ]


def delete_group(engine: Rebalancer, store: OffsetStore, group_id: str) -> int:
    group = engine.groups.get(group_id)
    if group is None or group.state == DEAD:
        return ErrorCode.GROUP_ID_NOT_FOUND.value
    if group.state != EMPTY:
        return ErrorCode.NON_EMPTY_GROUP.value
    store.delete_group(group_id)
    engine.delete(group)
    return NONE
