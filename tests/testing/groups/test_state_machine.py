"""The classic protocol as a state machine, driven by hypothesis: members (dynamic and static,
at old and new JoinGroup versions) join, sync, heartbeat and leave in any order while time
passes, straight on the coordinator's engine (no sockets), and Kafka's invariants hold after
every step:

- one leader per generation, and the generation only grows;
- every waiting request is answered at most once, and a successful JoinGroup answer carries
  the generation the group was in;
- an Empty group has no members; a group in CompletingRebalance or Stable has members and its
  leader is one of them; every member of a Stable group has its assignment;
- the group's indexes agree: static members and members to sync are members.
"""

from __future__ import annotations

from hypothesis import event
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from kafka_meta_proto.testing.groups import GroupCoordinator, ManualClock
from kafka_meta_proto.testing.groups.joining import JoinRequest, join_group
from kafka_meta_proto.testing.groups.membership import (
    SyncRequest,
    heartbeat,
    leave_group,
    sync_group,
)
from kafka_meta_proto.testing.groups.state import (
    COMPLETING_REBALANCE,
    EMPTY,
    STABLE,
    JoinAnswer,
    SyncAnswer,
)

from tiers import stateful_twins

GROUP = "g"
MEMBER_ID_REQUIRED = 79


class Client:
    """What one consumer knows of its membership."""

    def __init__(self, name: str, instance: str | None, version: int):
        self.name, self.instance, self.version = name, instance, version
        self.member_id, self.generation = "", -1
        self.join_parked = self.sync_parked = False
        self.leader_members: list[str] = []  # the members the leader was given, if it leads


class GroupProtocol(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.clock = ManualClock()
        self.groups = GroupCoordinator(clock=self.clock)
        self.engine = self.groups.engine
        self.clients = [
            Client("c0", None, 9),
            Client("c1", None, 5),
            Client("c2", None, 3),  # no MEMBER_ID_REQUIRED before v4
            Client("c3", "instance-3", 9),
        ]
        self.leaders: dict[int, str] = {}  # generation -> the client every answer named leader
        self.owner: dict[str, str] = {}  # member id -> the client it was handed to
        self.last_generation = 0

    def _answered_join(self, client: Client):
        calls = []

        def waiter(answer: JoinAnswer) -> None:
            calls.append(answer)
            assert len(calls) == 1, "a JoinGroup answered twice"
            client.join_parked = False
            if answer.member_id:
                client.member_id = answer.member_id
            if answer.error == 0:
                group = self.engine.groups[GROUP]
                assert answer.generation_id == group.generation_id
                # a static member keeps leading under a new member id: leaders are clients
                self.owner.update((m, member.client_id) for m, member in group.members.items())
                leader = self.owner[answer.leader]
                seen = self.leaders.setdefault(answer.generation_id, leader)
                assert seen == leader, "two leaders in one generation"
                client.generation = answer.generation_id
                client.leader_members = [m for m, _, _ in answer.members]

        return waiter

    def _answered_sync(self, client: Client):
        calls = []

        def waiter(answer: SyncAnswer) -> None:
            calls.append(answer)
            assert len(calls) == 1, "a SyncGroup answered twice"
            client.sync_parked = False

        return waiter

    @rule(i=st.integers(0, 3), metadata=st.sampled_from([b"a", b"b"]))
    def join(self, i: int, metadata: bytes) -> None:
        client = self.clients[i]
        if client.join_parked:
            return
        client.join_parked = True
        request = JoinRequest(
            group_id=GROUP,
            member_id=client.member_id,
            group_instance_id=client.instance,
            session_timeout_ms=10_000,
            rebalance_timeout_ms=20_000,
            protocol_type="consumer",
            protocols=[("range", metadata), ("roundrobin", b"")],
            client_id=client.name,
            client_host="/127.0.0.1",
            api_version=client.version,
        )
        join_group(self.engine, request, self._answered_join(client))

    @rule(i=st.integers(0, 3))
    def sync(self, i: int) -> None:
        client = self.clients[i]
        if client.sync_parked or client.generation < 0:
            return
        client.sync_parked = True
        assignment = {m: f"{m}@{client.generation}".encode() for m in client.leader_members}
        request = SyncRequest(GROUP, client.generation, client.member_id, client.instance,
                              "consumer", None, assignment)  # fmt: skip
        sync_group(self.engine, request, self._answered_sync(client))

    @rule()
    def everyone_syncs(self) -> None:
        for i in range(len(self.clients)):
            self.sync(i)

    @rule(i=st.integers(0, 3))
    def beat(self, i: int) -> None:
        client = self.clients[i]
        heartbeat(self.engine, GROUP, client.member_id, client.instance, client.generation)

    @rule(i=st.integers(0, 3))
    def leave(self, i: int) -> None:
        client = self.clients[i]
        leave_group(self.engine, GROUP, [(client.member_id, client.instance)])

    @rule(ms=st.sampled_from([0, 100, 1_000, 5_000, 11_000, 21_000]))
    def time_passes(self, ms: int) -> None:
        self.clock.advance(ms)

    @precondition(lambda self: GROUP in self.engine.groups)
    @invariant()
    def kafka_invariants_hold(self) -> None:
        group = self.engine.groups[GROUP]
        event(f"group {group.state}")
        assert group.generation_id >= self.last_generation, "the generation went back"
        self.last_generation = group.generation_id
        members = group.members
        if group.state == EMPTY:
            assert not members and group.protocol_name is None
        if group.state in (COMPLETING_REBALANCE, STABLE):
            assert members and group.leader_id in members and group.protocol_name == "range"
        if group.state == STABLE:
            missing = [m for m, member in members.items() if not member.assignment]
            assert not missing, f"members of a Stable group without assignment: {missing}"
        assert (group.leader_id is None) == (not members)
        assert set(group.static_members.values()) <= set(members)
        assert group.pending_sync <= set(members)
        assert not (group.pending_join & set(members))

    def teardown(self) -> None:
        self.groups.close()


# A share of the runs in the fast suite, all 100 in the slow tier.
test_the_classic_protocol_keeps_kafkas_invariants, test_the_classic_protocol_keeps_kafkas_invariants_sweep = (
    stateful_twins(GroupProtocol, 25, 100, stateful_step_count=60)
)
