"""Static membership (group.instance.id) over loopback: a static member that comes back under a
new member id takes its instance's place without a rebalance, the old id is fenced, and a
static member is not dropped by a rebalance it misses (only its session removes it)."""

from __future__ import annotations

import asyncio

import pytest

from kafka_meta_proto.testing.groups import STABLE
from testing.groups.loopback import (
    FENCED_INSTANCE_ID,
    NONE,
    UNKNOWN_MEMBER_ID,
    Member,
    run,
    serving_manually,
    close_all,
    settle,
    stable_group,
)


async def static_pair(server, clock, version=None):
    """A Stable group of two static members; the first to join leads."""
    options = {"join_version": version, "rebalance_ms": 30_000, "session_ms": 60_000}
    a = await Member.open(server, "g", "a", instance="instance-a", **options)
    b = await Member.open(server, "g", "b", instance="instance-b", **options)
    joining = asyncio.gather(a.join(), b.join())
    while not joining.done():
        clock.advance(100)
        await asyncio.sleep(0.005)
    answers = await joining
    assert [x.error_code for x in answers] == [NONE, NONE]
    leader = a if a.leader else b
    assignment = {a.member_id: b"for a", b.member_id: b"for b"}
    await asyncio.gather(leader.sync(assignment), (b if leader is a else a).sync())
    return a, b


@pytest.mark.parametrize("version", [5, 7, 9])
def test_a_static_member_coming_back_replaces_its_old_id_without_a_rebalance(version):
    async def scenario():
        async with serving_manually() as (groups, server, clock):
            a, b = await static_pair(server, clock, version)
            assert a.member_id.startswith("instance-a-")  # an instance's ids carry its name
            old_id, leader_before = a.member_id, groups.group("g").leader_id
            back = await Member.open(
                server, "g", "a-again", instance="instance-a", join_version=version
            )
            answer = await back.join()  # no member id: a restart of instance-a
            group = groups.group("g")
            assert answer.error_code == NONE and answer.generation_id == 1
            assert group.state == STABLE and group.generation_id == 1
            assert group.static_members["instance-a"] == back.member_id != old_id
            was_leader = leader_before == old_id
            if version >= 9:  # a returning leader is told it leads but need not assign
                assert answer.skip_assignment == was_leader
                assert answer.leader == group.leader_id
                assert len(answer.members) == (2 if was_leader else 0)
            else:  # the previous leader id: the returning member never thinks it must assign
                assert answer.leader == leader_before and answer.members == []
            synced = await back.sync()
            assert (synced.error_code, synced.assignment) == (NONE, b"for a")
            # the old id is fenced now
            assert await a.heartbeat() == FENCED_INSTANCE_ID
            assert (await a.sync()).error_code == FENCED_INSTANCE_ID
            assert await b.heartbeat() == NONE
            await close_all(a, b, back)

    run(scenario())


def test_a_static_member_parked_in_join_is_fenced_when_its_instance_comes_back():
    async def scenario():
        async with serving_manually() as (groups, server, clock):
            a, b = await static_pair(server, clock)
            parked = asyncio.ensure_future(a.join(metadata=b"changed"))
            await settle(lambda: groups.group("g").state == "PreparingRebalance")
            back = await Member.open(server, "g", "a-again", instance="instance-a")
            joining = asyncio.ensure_future(back.join(metadata=b"changed"))
            fenced = await parked
            assert (fenced.error_code, fenced.member_id) == (FENCED_INSTANCE_ID, a.member_id)
            await b.join()
            answer = await joining
            assert answer.error_code == NONE and answer.generation_id == 2
            await close_all(a, b, back)

    run(scenario())


def test_a_static_member_missing_a_rebalance_stays_until_its_session_ends():
    async def scenario():
        async with serving_manually() as (groups, server, clock):
            a, b = await static_pair(server, clock)
            dynamic = await Member.open(server, "g", "dynamic", rebalance_ms=1_000)
            joining = asyncio.ensure_future(dynamic.join())
            await settle(lambda: groups.group("g").state == "PreparingRebalance")
            rejoin_b = asyncio.ensure_future(b.join())
            await settle(lambda: groups.group("g").awaiting_join_count() == 2)
            clock.advance(30_000)  # the rebalance timeout: a did not rejoin, but it is static
            answers = await asyncio.gather(joining, rejoin_b)
            assert {x.generation_id for x in answers} == {2}
            assert a.member_id in groups.group("g").members
            clock.advance(60_000)  # its session of 60 s (from the new generation) runs out
            assert a.member_id not in groups.group("g").members
            assert await a.heartbeat() == UNKNOWN_MEMBER_ID
            await close_all(a, b, dynamic)

    run(scenario())


def test_a_static_member_with_an_unknown_instance_or_a_wrong_member_id_is_refused():
    async def scenario():
        async with serving_manually() as (groups, server, clock):
            (member,) = await stable_group(server, "g", 1, clock)
            wrong = await Member.open(server, "g", instance="instance-x")
            wrong.member_id, wrong.generation = member.member_id, 1
            assert await wrong.heartbeat() == UNKNOWN_MEMBER_ID  # no such instance
            await close_all(member, wrong)

    run(scenario())
