"""Joining and syncing over loopback: member ids, generations, the leader and its members, the
protocol vote, SyncGroup waiting for the leader, rebalances as members come and go, and the
errors of a JoinGroup or SyncGroup that cannot be served."""

from __future__ import annotations

import asyncio

import pytest

from kafka_meta_proto.testing.groups import (
    COMPLETING_REBALANCE,
    STABLE,
    GroupCoordinator,
)
from testing.groups.loopback import (
    GROUP_MAX_SIZE_REACHED,
    ILLEGAL_GENERATION,
    INCONSISTENT_GROUP_PROTOCOL,
    INVALID_GROUP_ID,
    INVALID_SESSION_TIMEOUT,
    MEMBER_ID_REQUIRED,
    NONE,
    REBALANCE_IN_PROGRESS,
    UNKNOWN_MEMBER_ID,
    Member,
    run,
    serving,
    serving_manually,
    close_all,
    settle,
    stable_group,
)


# kafka-python (v7), aiokafka (v5), librdkafka and Java 4.x (v9), and the oldest versions
@pytest.mark.parametrize("version", [0, 1, 3, 4, 5, 7, 9])
def test_a_lone_member_joins_leads_and_gets_its_assignment(version):
    async def scenario():
        async with serving() as (groups, server):
            member = await Member.open(server, "g", "solo", join_version=version)
            first = await member.join_once()
            if version >= 4:  # a member id first, then the join proper
                assert first.error_code == MEMBER_ID_REQUIRED
                assert first.member_id.startswith("solo-") and first.generation_id == -1
                assert groups.group("g").state == "Empty"
                joined = await member.join_once()
                assert joined.member_id == first.member_id
            else:
                joined = first
            assert joined.error_code == NONE and joined.generation_id == 1
            assert joined.leader == joined.member_id == member.member_id
            assert joined.protocol_name == "range"
            assert [(m.member_id, m.metadata) for m in joined.members] == [
                (member.member_id, b"meta")
            ]
            assert groups.group("g").state == COMPLETING_REBALANCE
            synced = await member.sync({member.member_id: b"all of it"})
            assert (synced.error_code, synced.assignment) == (NONE, b"all of it")
            assert groups.group("g").state == STABLE
            if version >= 7:
                assert joined.protocol_type == "consumer"
            await member.close()

    run(scenario())


def test_followers_wait_in_sync_until_the_leader_brings_the_assignment():
    async def scenario():
        async with serving() as (groups, server):
            members = [await Member.open(server, "g", f"c{i}") for i in range(3)]
            answers = await asyncio.gather(*(m.join() for m in members))
            assert {a.generation_id for a in answers} == {1}
            assert len({a.leader for a in answers}) == 1
            (leader,) = [m for m in members if m.leader]
            followers = [m for m in members if not m.leader]
            # only the leader is told the members
            assert [len(a.members) for a in answers] == [3 if m.leader else 0 for m in members]
            waiting = [asyncio.ensure_future(f.sync()) for f in followers]
            await asyncio.sleep(0.05)
            assert not any(w.done() for w in waiting)
            assignment = {m.member_id: f"part of {m.member_id}".encode() for m in members}
            del assignment[followers[1].member_id]  # a member the leader left out gets nothing
            led = await leader.sync(assignment)
            done = await asyncio.gather(*waiting)
            assert led.assignment == assignment[leader.member_id]
            assert done[0].assignment == assignment[followers[0].member_id]
            assert (done[1].error_code, done[1].assignment) == (NONE, b"")
            assert groups.group("g").state == STABLE
            # in Stable, a SyncGroup answers the member's assignment at once
            again = await followers[0].sync()
            assert again.assignment == assignment[followers[0].member_id]
            await close_all(*members)

    run(scenario())


def test_the_protocol_is_chosen_by_vote_among_those_every_member_supports():
    async def scenario():
        async with serving() as (groups, server):
            a = await Member.open(server, "g", "a")
            b = await Member.open(server, "g", "b")
            c = await Member.open(server, "g", "c")
            answers = await asyncio.gather(
                a.join(("roundrobin", "range", "sticky")),
                b.join(("range", "roundrobin")),
                c.join(("range", "roundrobin")),
            )
            assert {x.protocol_name for x in answers} == {"range"}
            leader_answer = next(x for x in answers if x.members)
            metadata = {m.member_id: m.metadata for m in leader_answer.members}
            assert set(metadata) == {a.member_id, b.member_id, c.member_id}
            # a member sharing no protocol with the group is refused
            d = await Member.open(server, "g", "d")
            refused = await d.join(("cooperative-sticky",))
            assert refused.error_code == INCONSISTENT_GROUP_PROTOCOL
            await close_all(a, b, c, d)

    run(scenario())


def test_a_member_coming_triggers_a_rebalance_and_everyone_rejoins_in_a_new_generation():
    async def scenario():
        async with serving() as (groups, server):
            first, second = await stable_group(server, "g", 2)
            newcomer = await Member.open(server, "g", "late")
            joining = asyncio.ensure_future(newcomer.join())
            await settle(lambda: groups.group("g").state == "PreparingRebalance")
            # the members learn of it by heartbeat, and their SyncGroup is too late
            assert await first.heartbeat() == REBALANCE_IN_PROGRESS
            assert (await second.sync()).error_code == REBALANCE_IN_PROGRESS
            answers = await asyncio.gather(first.join(), second.join(), joining)
            assert {a.generation_id for a in answers} == {2}
            assert {a.error_code for a in answers} == {NONE}
            assert len(groups.group("g").members) == 3
            await close_all(first, second, newcomer)

    run(scenario())


def test_members_that_do_not_rejoin_are_dropped_at_the_rebalance_timeout():
    async def scenario():
        async with serving_manually() as (groups, server, clock):
            options = {"session_ms": 60_000, "rebalance_ms": 30_000}
            stayer, leaver = await stable_group(server, "g", 2, clock, **options)
            rejoining = asyncio.ensure_future(stayer.join())
            await settle(lambda: groups.group("g").state == "PreparingRebalance")
            clock.advance(29_999)
            await asyncio.sleep(0.02)
            assert not rejoining.done()
            clock.advance(1)
            answer = await rejoining
            assert answer.error_code == NONE and answer.generation_id == 2
            assert [m.member_id for m in answer.members] == [stayer.member_id]
            assert await leaver.heartbeat() == UNKNOWN_MEMBER_ID
            await close_all(stayer, leaver)

    run(scenario())


def test_a_stable_follower_rejoining_with_the_same_metadata_gets_the_current_generation():
    async def scenario():
        async with serving() as (groups, server):
            members = await stable_group(server, "g", 2)
            follower = next(m for m in members if not m.leader)
            again = await follower.join()
            assert (again.error_code, again.generation_id, again.members) == (NONE, 1, [])
            assert groups.group("g").state == STABLE
            # new metadata, though, is a rebalance
            leader = next(m for m in members if m.leader)
            answers = await asyncio.gather(follower.join(metadata=b"new"), leader.join())
            assert {a.generation_id for a in answers} == {2}
            await close_all(*members)

    run(scenario())


def test_join_and_sync_errors():
    async def scenario():
        groups = GroupCoordinator(max_size=1)
        async with serving(groups) as (_, server):
            m = await Member.open(server, "")
            assert (await m.join()).error_code == INVALID_GROUP_ID
            m = await Member.open(server, "g")
            assert (await m.join(session_ms=5999)).error_code == INVALID_SESSION_TIMEOUT
            assert (await m.join(session_ms=1_800_001)).error_code == INVALID_SESSION_TIMEOUT
            ghost = await Member.open(server, "nowhere")
            ghost.member_id = "made-up"
            assert (await ghost.join()).error_code == UNKNOWN_MEMBER_ID
            assert (await ghost.sync(generation=1)).error_code == UNKNOWN_MEMBER_ID
            (only,) = await stable_group(server, "g", 1)
            assert (await only.sync(generation=7)).error_code == ILLEGAL_GENERATION
            full = await Member.open(server, "g", "second")
            assert (await full.join()).error_code == GROUP_MAX_SIZE_REACHED
            await close_all(m, ghost, only, full)

    run(scenario())
