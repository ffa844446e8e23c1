"""A classic group and its members, as Kafka's ``ClassicGroup`` and ``ClassicGroupMember`` keep
them: the state and its allowed transitions, the generation, the leader, the static members by
group.instance.id, the members still to join (MEMBER_ID_REQUIRED was sent to them) and to sync,
the protocol vote, and the answers parked for members waiting in JoinGroup or SyncGroup.

Only bookkeeping lives here; what a request does to a group is ``rebalance``, ``joining`` and
``membership``.
"""

from __future__ import annotations

import dataclasses
import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from ...error_codes import ErrorCode

EMPTY = "Empty"
PREPARING_REBALANCE = "PreparingRebalance"
COMPLETING_REBALANCE = "CompletingRebalance"
STABLE = "Stable"
DEAD = "Dead"
STATES = (EMPTY, PREPARING_REBALANCE, COMPLETING_REBALANCE, STABLE, DEAD)

# state -> the states it may be entered from (ClassicGroupState's table)
VALID_PREVIOUS = {
    EMPTY: {PREPARING_REBALANCE},
    PREPARING_REBALANCE: {STABLE, COMPLETING_REBALANCE, EMPTY},
    COMPLETING_REBALANCE: {PREPARING_REBALANCE},
    STABLE: {COMPLETING_REBALANCE},
    DEAD: {STABLE, PREPARING_REBALANCE, COMPLETING_REBALANCE, EMPTY, DEAD},
}

UNKNOWN_MEMBER = ""  # the member id of a member that has none yet
NONE = 0


@dataclass
class JoinAnswer:
    """What a JoinGroup gets back, before it is put in a response of the request's version."""

    error: int = NONE
    member_id: str = UNKNOWN_MEMBER
    generation_id: int = -1
    protocol_type: str | None = None
    protocol_name: str | None = None
    leader: str = ""
    # (member id, group instance id, metadata): for the leader only
    members: list[tuple[str, str | None, bytes]] = field(default_factory=list)
    skip_assignment: bool = False


@dataclass
class SyncAnswer:
    error: int = NONE
    protocol_type: str | None = None
    protocol_name: str | None = None
    assignment: bytes = b""


JoinWaiter = Callable[[JoinAnswer], None]
SyncWaiter = Callable[[SyncAnswer], None]
Protocols = list[tuple[str, bytes]]  # (name, metadata), in the member's order of preference


@dataclass
class Member:
    member_id: str
    group_instance_id: str | None
    client_id: str
    client_host: str
    rebalance_timeout_ms: int
    session_timeout_ms: int
    protocol_type: str
    protocols: Protocols
    assignment: bytes = b""
    awaiting_join: JoinWaiter | None = None
    awaiting_sync: SyncWaiter | None = None
    is_new: bool = False  # joined but not yet through a completed join phase

    def metadata(self, protocol: str) -> bytes:
        for name, metadata in self.protocols:
            if name == protocol:
                return metadata
        raise ValueError(f"member {self.member_id} does not support protocol {protocol}")

    def vote(self, candidates: set[str]) -> str:
        """The first protocol of this member's list that every member supports."""
        return next(name for name, _ in self.protocols if name in candidates)

    def matches(self, protocols: Protocols) -> bool:
        return protocols == self.protocols

    def has_satisfied_heartbeat(self) -> bool:
        # A member parked in JoinGroup or SyncGroup is alive; a new one can still expire.
        if self.is_new:
            return False
        return self.awaiting_join is not None or self.awaiting_sync is not None


def new_member_id(client_id: str, group_instance_id: str | None) -> str:
    """Kafka's form: the instance id (static) or the client id, a dash and a random UUID."""
    return f"{group_instance_id if group_instance_id is not None else client_id}-{uuid.uuid4()}"


class ClassicGroup:
    """One group's membership; its methods keep the counts and indexes consistent."""

    def __init__(self, group_id: str, now_ms: float):
        self.group_id = group_id
        self.state = EMPTY
        self.previous_state: str | None = None
        self.state_timestamp_ms = now_ms
        self.generation_id = 0
        self.protocol_type: str | None = None
        self.protocol_name: str | None = None
        self.leader_id: str | None = None
        self.members: dict[str, Member] = {}
        self.static_members: dict[str, str] = {}  # group instance id -> member id
        self.pending_join: set[str] = set()  # handed a member id, not yet joined with it
        self.pending_sync: set[str] = set()  # joined this generation, not yet synced
        self.new_member_added = False  # during the initial rebalance's delay
        self._supported: Counter[str] = Counter()

    def __repr__(self) -> str:
        return (
            f"<ClassicGroup {self.group_id} {self.state} generation {self.generation_id}, "
            f"{len(self.members)} members>"
        )

    # --- state ---------------------------------------------------------------------------

    def transition_to(self, state: str, now_ms: float) -> None:
        if self.state not in VALID_PREVIOUS[state]:
            raise RuntimeError(f"group {self.group_id}: no transition from {self.state} to {state}")
        self.previous_state, self.state = self.state, state
        self.state_timestamp_ms = now_ms

    def can_rebalance(self) -> bool:
        return self.state in VALID_PREVIOUS[PREPARING_REBALANCE]

    def is_leader(self, member_id: str) -> bool:
        return self.leader_id == member_id

    # --- members -------------------------------------------------------------------------

    def add(self, member: Member) -> None:
        if member.group_instance_id is not None:
            self.static_members[member.group_instance_id] = member.member_id
        if not self.members:
            self.protocol_type = member.protocol_type
        if self.leader_id is None:
            self.leader_id = member.member_id
        self.members[member.member_id] = member
        self._supported.update(name for name, _ in member.protocols)
        self.pending_join.discard(member.member_id)

    def remove(self, member_id: str) -> None:
        member = self.members.pop(member_id, None)
        if member is not None:
            self._supported.subtract(name for name, _ in member.protocols)
            if member.group_instance_id is not None:
                self.static_members.pop(member.group_instance_id, None)
        if self.is_leader(member_id):
            self.leader_id = next(iter(self.members), None)
        self.pending_join.discard(member_id)
        self.pending_sync.discard(member_id)

    def update(
        self,
        member: Member,
        protocols: Protocols,
        rebalance_ms: int,
        session_ms: int,
        waiter: JoinWaiter | None,
    ) -> None:
        self._supported.subtract(name for name, _ in member.protocols)
        member.protocols = protocols
        self._supported.update(name for name, _ in protocols)
        member.rebalance_timeout_ms = rebalance_ms
        member.session_timeout_ms = session_ms
        member.awaiting_join = waiter

    def replace_static(self, instance_id: str, old_id: str, new_id: str) -> Member:
        """The static member ``old_id`` becomes ``new_id``; whoever waits as the old one is
        fenced (FENCED_INSTANCE_ID)."""
        old = self.members.pop(old_id)
        fenced = ErrorCode.FENCED_INSTANCE_ID.value
        complete_join(old, JoinAnswer(error=fenced, member_id=old_id))
        complete_sync(old, SyncAnswer(error=fenced))
        new = dataclasses.replace(
            old, member_id=new_id, awaiting_join=None, awaiting_sync=None, is_new=False
        )
        self.members[new_id] = new
        if self.is_leader(old_id):
            self.leader_id = new_id
        self.static_members[instance_id] = new_id
        return new

    def member_error(self, member_id: str, group_instance_id: str | None) -> int:
        """UNKNOWN_MEMBER_ID or FENCED_INSTANCE_ID when the pair names no current member."""
        if group_instance_id is not None:
            known = self.static_members.get(group_instance_id)
            if known is None:
                return ErrorCode.UNKNOWN_MEMBER_ID.value
            if known != member_id:
                return ErrorCode.FENCED_INSTANCE_ID.value
        return NONE if member_id in self.members else ErrorCode.UNKNOWN_MEMBER_ID.value

    def awaiting_join_count(self) -> int:
        return sum(1 for m in self.members.values() if m.awaiting_join is not None)

    def all_joined(self) -> bool:
        return self.awaiting_join_count() == len(self.members) and not self.pending_join

    def rebalance_timeout_ms(self) -> int:
        return max((m.rebalance_timeout_ms for m in self.members.values()), default=0)

    # --- protocols -----------------------------------------------------------------------

    def supports(self, protocol_type: str, protocols: Protocols) -> bool:
        if self.state == EMPTY:
            return bool(protocol_type) and bool(protocols)
        size = len(self.members)
        return self.protocol_type == protocol_type and any(
            self._supported[name] == size for name, _ in protocols
        )

    def select_protocol(self) -> str:
        """The protocol every member supports with the most first-choice votes."""
        size = len(self.members)
        candidates = {name for name, count in self._supported.items() if count == size}
        votes = Counter(member.vote(candidates) for member in self.members.values())
        return votes.most_common(1)[0][0]

    def init_next_generation(self, now_ms: float) -> None:
        self.generation_id += 1
        if self.members:
            self.protocol_name = self.select_protocol()
            self.transition_to(COMPLETING_REBALANCE, now_ms)
        else:
            self.protocol_name = None
            self.transition_to(EMPTY, now_ms)
        self.pending_sync.clear()

    def elect_joined_leader(self) -> bool:
        """Keep a leader that rejoined, else pick a member that did; False if none did."""
        leader = self.members.get(self.leader_id) if self.leader_id is not None else None
        if leader is None:
            return False
        if leader.awaiting_join is not None:
            return True
        for member in self.members.values():
            if member.awaiting_join is not None:
                self.leader_id = member.member_id
                return True
        return False

    def join_members(self) -> list[tuple[str, str | None, bytes]]:
        """What the leader receives: every member with its metadata for the chosen protocol."""
        assert self.protocol_name is not None
        return [
            (m.member_id, m.group_instance_id, m.metadata(self.protocol_name))
            for m in self.members.values()
        ]

    def join_answer(self, member_id: str, *, members: bool, skip: bool = False) -> JoinAnswer:
        """The current generation as a successful JoinGroup answer for ``member_id``."""
        return JoinAnswer(
            member_id=member_id,
            generation_id=self.generation_id,
            protocol_type=self.protocol_type,
            protocol_name=self.protocol_name,
            leader=self.leader_id or "",
            members=self.join_members() if members else [],
            skip_assignment=skip,
        )


def complete_join(member: Member, answer: JoinAnswer) -> bool:
    waiter, member.awaiting_join = member.awaiting_join, None
    if waiter is None:
        return False
    waiter(answer)
    return True


def complete_sync(member: Member, answer: SyncAnswer) -> bool:
    waiter, member.awaiting_sync = member.awaiting_sync, None
    if waiter is None:
        return False
    waiter(answer)
    return True
