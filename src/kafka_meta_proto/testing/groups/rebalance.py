"""The rebalance of classic groups, as Kafka's group coordinator runs it (the classic part of
``GroupMetadataManager``): preparing a rebalance, completing the join phase into a new
generation, handing the assignment out, and the deadlines around them.

- A group that leaves Empty waits ``initial_rebalance_delay_ms`` (Kafka's
  ``group.initial.rebalance.delay.ms``) for more members, again after each new one, up to the
  rebalance timeout; any other rebalance completes as soon as every member has rejoined, or at
  the rebalance timeout, which drops the dynamic members that did not rejoin.
- A member is expired when its session timeout passes without a heartbeat, unless it is parked
  in JoinGroup or SyncGroup; a new member gets ``new_member_join_timeout_ms`` instead.
- Members that do not send SyncGroup within the rebalance timeout are removed, and the group
  rebalances again.

Nothing is written to a log: Kafka's appends of group metadata always succeed here, so its
answers are given at once where Kafka would give them after the append.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ...error_codes import ErrorCode
from .clock import Timer
from .state import (
    COMPLETING_REBALANCE,
    DEAD,
    EMPTY,
    NONE,
    PREPARING_REBALANCE,
    STABLE,
    ClassicGroup,
    JoinAnswer,
    Member,
    SyncAnswer,
    complete_join,
    complete_sync,
)

UNKNOWN_MEMBER_ID = ErrorCode.UNKNOWN_MEMBER_ID.value


@dataclass(frozen=True)
class GroupSettings:
    """The broker settings the classic protocol reads (Kafka's names in the comments)."""

    # group.initial.rebalance.delay.ms: Kafka's default is 3000; small here so tests run fast
    initial_rebalance_delay_ms: int = 100
    min_session_timeout_ms: int = 6000  # group.min.session.timeout.ms
    max_session_timeout_ms: int = 1_800_000  # group.max.session.timeout.ms
    max_size: int = 2**31 - 1  # group.max.size
    new_member_join_timeout_ms: int = 300_000  # Kafka's fixed 5 minutes for a new member
    offset_metadata_max_bytes: int = 4096  # offset.metadata.max.bytes


class Rebalancer:
    """Every classic group of the cluster, and what moves them from one generation to the
    next. Answers go to the waiters parked on the members (``state.Member.awaiting_*``)."""

    def __init__(self, settings: GroupSettings, timer: Timer):
        self.settings = settings
        self.timer = timer
        self.groups: dict[str, ClassicGroup] = {}

    def now(self) -> float:
        return self.timer.clock.now_ms()

    def create(self, group_id: str) -> ClassicGroup:
        group = self.groups[group_id] = ClassicGroup(group_id, self.now())
        return group

    def delete(self, group: ClassicGroup) -> None:
        """Drop an Empty group: it is Dead to anyone still holding it."""
        group.transition_to(DEAD, self.now())
        self.timer.cancel(("join", group.group_id))
        self.timer.cancel(("sync", group.group_id))
        del self.groups[group.group_id]

    def _later(
        self, key: str, group: ClassicGroup, delay_ms: float, action: Callable[[ClassicGroup], None]
    ) -> None:
        """Run ``action`` on the group after ``delay_ms``, if the group is still there."""
        group_id = group.group_id

        def fire() -> None:
            current = self.groups.get(group_id)
            if current is not None:
                action(current)

        self.timer.schedule((key, group_id), delay_ms, fire)

    # --- sessions ------------------------------------------------------------------------

    def reschedule_heartbeat(
        self, group: ClassicGroup, member: Member, timeout_ms: float | None = None
    ) -> None:
        delay = member.session_timeout_ms if timeout_ms is None else timeout_ms
        self.expire_later(group, member.member_id, delay)

    def expire_later(self, group: ClassicGroup, member_id: str, delay_ms: float) -> None:
        """Expire ``member_id`` after ``delay_ms`` unless heard from before (a member handed
        its id by MEMBER_ID_REQUIRED is expected back within its session timeout too)."""
        self._later(f"heartbeat {member_id}", group, delay_ms, lambda g: self.expire(g, member_id))

    def cancel_heartbeat(self, group: ClassicGroup, member_id: str) -> None:
        self.timer.cancel((f"heartbeat {member_id}", group.group_id))

    def expire(self, group: ClassicGroup, member_id: str) -> None:
        """The session of ``member_id`` ran out."""
        if group.state == DEAD:
            return
        if member_id in group.pending_join:
            group.remove(member_id)
            if group.state == PREPARING_REBALANCE and group.all_joined():
                self.complete_join(group)
            return
        member = group.members.get(member_id)
        if member is not None and not member.has_satisfied_heartbeat():
            self.remove_member(group, member)

    def remove_member(self, group: ClassicGroup, member: Member) -> None:
        """Drop a failed member; a JoinGroup it has parked learns it is unknown now."""
        complete_join(member, JoinAnswer(error=UNKNOWN_MEMBER_ID))
        group.remove(member.member_id)
        if group.state in (STABLE, COMPLETING_REBALANCE):
            self.rebalance_or_complete_join(group)
        elif group.state == PREPARING_REBALANCE and group.all_joined():
            self.complete_join(group)

    # --- the join phase ------------------------------------------------------------------

    def rebalance_or_complete_join(self, group: ClassicGroup) -> None:
        if group.can_rebalance():
            self.prepare_rebalance(group)
        else:
            self.maybe_complete_join(group)

    def prepare_rebalance(self, group: ClassicGroup) -> None:
        if group.state == COMPLETING_REBALANCE:  # members waiting in SyncGroup rejoin
            self.propagate_error(group, ErrorCode.REBALANCE_IN_PROGRESS.value)
        group.pending_sync.clear()
        self.timer.cancel(("sync", group.group_id))
        initial = group.state == EMPTY
        if initial:
            delay = self.settings.initial_rebalance_delay_ms
            remaining = max(group.rebalance_timeout_ms() - delay, 0)
            self._later(
                "join", group, delay, lambda g: self._initial_delay_over(g, delay, remaining)
            )
        group.transition_to(PREPARING_REBALANCE, self.now())
        if not initial:
            if group.all_joined():
                self.complete_join(group)
            else:
                self._later("join", group, group.rebalance_timeout_ms(), self._join_timed_out)

    def _initial_delay_over(self, group: ClassicGroup, delay: int, remaining: int) -> None:
        if group.new_member_added and remaining != 0:  # someone came: wait a little longer
            group.new_member_added = False
            next_delay = min(self.settings.initial_rebalance_delay_ms, remaining)
            left = max(remaining - delay, 0)
            self._later(
                "join", group, next_delay, lambda g: self._initial_delay_over(g, next_delay, left)
            )
        else:
            self._join_timed_out(group)

    def _join_timed_out(self, group: ClassicGroup) -> None:
        if group.state == PREPARING_REBALANCE:
            self.complete_join(group)

    def maybe_complete_join(self, group: ClassicGroup) -> None:
        """Complete the join phase if every member is in, outside the initial rebalance."""
        if group.state != PREPARING_REBALANCE or group.previous_state == EMPTY:
            return
        if group.all_joined():
            self.complete_join(group)

    def complete_join(self, group: ClassicGroup) -> None:
        """The next generation: drop the dynamic members that did not rejoin, choose the
        protocol, answer every JoinGroup (the leader gets the members) and wait for SyncGroup."""
        self.timer.cancel(("join", group.group_id))
        for member in list(group.members.values()):
            if member.awaiting_join is None and member.group_instance_id is None:
                group.remove(member.member_id)
                self.cancel_heartbeat(group, member.member_id)
        if group.state == DEAD:
            return
        if not group.elect_joined_leader() and group.members:
            # nobody rejoined: wait again, until sessions remove the silent members
            self._later("join", group, group.rebalance_timeout_ms(), self._join_timed_out)
            return
        group.init_next_generation(self.now())
        if group.state == EMPTY:
            return
        for member in list(group.members.values()):
            answer = group.join_answer(member.member_id, members=group.is_leader(member.member_id))
            complete_join(member, answer)
            self.reschedule_heartbeat(group, member)
            member.is_new = False
            group.pending_sync.add(member.member_id)
        generation = group.generation_id
        self._later(
            "sync",
            group,
            group.rebalance_timeout_ms(),
            lambda g: self._sync_timed_out(g, generation),
        )

    # --- the sync phase ------------------------------------------------------------------

    def _sync_timed_out(self, group: ClassicGroup, generation: int) -> None:
        if generation != group.generation_id or not group.pending_sync:
            return
        if group.state in (COMPLETING_REBALANCE, STABLE):
            for member_id in list(group.pending_sync):
                group.remove(member_id)
                self.cancel_heartbeat(group, member_id)
            self.prepare_rebalance(group)

    def assign(self, group: ClassicGroup, assignment: dict[str, bytes]) -> None:
        """The leader's assignment: every member gets its part (empty if it has none)."""
        for member in group.members.values():
            member.assignment = assignment.get(member.member_id, b"")
        self._propagate(group, NONE)

    def propagate_error(self, group: ClassicGroup, error: int) -> None:
        for member in group.members.values():
            member.assignment = b""
        self._propagate(group, error)

    def _propagate(self, group: ClassicGroup, error: int) -> None:
        ok = error == NONE
        for member in group.members.values():
            answer = SyncAnswer(
                error=error,
                protocol_type=group.protocol_type if ok else None,
                protocol_name=group.protocol_name if ok else None,
                assignment=member.assignment,
            )
            if complete_sync(member, answer):
                self.reschedule_heartbeat(group, member)
