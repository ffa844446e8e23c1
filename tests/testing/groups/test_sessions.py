"""Heartbeats, session expiry and LeaveGroup over loopback, with a manual clock: a member that
stops heartbeating is removed when its session runs out, one that leaves is removed at once,
and the group rebalances without them (Empty when nobody is left)."""

from __future__ import annotations

import asyncio

import pytest

from kafka_meta_proto.testing.groups import EMPTY, STABLE
from testing.groups.loopback import (
    ILLEGAL_GENERATION,
    INVALID_GROUP_ID,
    MEMBER_ID_REQUIRED,
    NONE,
    REBALANCE_IN_PROGRESS,
    UNKNOWN_MEMBER_ID,
    LeaveGroupRequest,
    Member,
    run,
    serving_manually,
    close_all,
    settle,
    stable_group,
)


@pytest.mark.parametrize("version", [0, 1, 3, 4])  # aiokafka sends v1, kafka-python v4
def test_heartbeat_answers_by_state_generation_and_member(version):
    async def scenario():
        async with serving_manually() as (groups, server, clock):
            a, b = await stable_group(server, "g", 2, clock)
            assert await a.heartbeat(version) == NONE
            assert await a.heartbeat(version, generation=0) == ILLEGAL_GENERATION
            stranger = await Member.open(server, "g")
            stranger.member_id, stranger.generation = "nobody", 1
            assert await stranger.heartbeat(version) == UNKNOWN_MEMBER_ID
            elsewhere = await Member.open(server, "no-such-group")
            elsewhere.member_id = a.member_id
            assert await elsewhere.heartbeat(version) == UNKNOWN_MEMBER_ID
            empty = await Member.open(server, "")
            assert await empty.heartbeat(version) == INVALID_GROUP_ID
            rejoining = asyncio.ensure_future(a.join())
            await settle(lambda: groups.group("g").state == "PreparingRebalance")
            assert await b.heartbeat(version) == REBALANCE_IN_PROGRESS
            await asyncio.gather(rejoining, b.join())
            # in CompletingRebalance the new generation heartbeats, the old one is refused
            assert await b.heartbeat(version) == NONE and b.generation == 2
            assert await b.heartbeat(version, generation=1) == ILLEGAL_GENERATION
            await close_all(a, b, stranger, elsewhere, empty)

    run(scenario())


def test_a_member_whose_session_runs_out_is_removed_and_the_group_rebalances():
    async def scenario():
        async with serving_manually() as (groups, server, clock):
            alive, silent = await stable_group(server, "g", 2, clock)
            for _ in range(2):  # heartbeats keep one session going
                clock.advance(4_000)
                assert await alive.heartbeat() == NONE
            assert silent.member_id in groups.group("g").members
            clock.advance(4_000)  # the other's runs out at 10 s
            assert silent.member_id not in groups.group("g").members
            assert groups.group("g").state == "PreparingRebalance"
            assert await alive.heartbeat() == REBALANCE_IN_PROGRESS
            answer = await alive.join()
            assert (answer.generation_id, [m.member_id for m in answer.members]) == (
                2,
                [alive.member_id],
            )
            assert await silent.heartbeat() == UNKNOWN_MEMBER_ID
            clock.advance(10_000)  # and then the last one's
            await settle(lambda: groups.group("g").state == EMPTY)
            assert groups.group("g").generation_id == 3 and not groups.group("g").members
            await close_all(alive, silent)

    run(scenario())


def test_a_member_id_handed_out_expires_if_nobody_joins_with_it():
    async def scenario():
        async with serving_manually() as (groups, server, clock):
            m = await Member.open(server, "g")
            assert (await m.join_once()).error_code == MEMBER_ID_REQUIRED
            assert groups.group("g").pending_join == {m.member_id}
            clock.advance(10_000)
            assert groups.group("g").pending_join == set()
            assert (await m.join_once()).error_code == UNKNOWN_MEMBER_ID
            await m.close()

    run(scenario())


@pytest.mark.parametrize("version", [0, 1, 2, 3, 5])
def test_a_member_leaving_is_removed_and_the_others_rebalance(version):
    async def scenario():
        async with serving_manually() as (groups, server, clock):
            stays, goes = await stable_group(server, "g", 2, clock)
            left = await goes.leave(version)
            assert left.error_code == NONE
            if version >= 3:
                assert [(x.member_id, x.error_code) for x in left.members] == [(goes.member_id, 0)]
            assert goes.member_id not in groups.group("g").members
            assert await stays.heartbeat() == REBALANCE_IN_PROGRESS
            assert (await stays.join()).generation_id == 2
            await stays.sync({stays.member_id: b"everything"})
            assert groups.group("g").state == STABLE
            again = await goes.leave(version)  # not a member any more
            assert again.error_code == (NONE if version >= 3 else UNKNOWN_MEMBER_ID)
            if version >= 3:
                assert [x.error_code for x in again.members] == [UNKNOWN_MEMBER_ID]
            assert (await stays.leave(version)).error_code == NONE
            assert groups.group("g").state == EMPTY
            await close_all(stays, goes)

    run(scenario())


def test_leave_group_batched_members_by_member_id_and_by_instance_id():
    async def scenario():
        async with serving_manually() as (groups, server, clock):
            members = await stable_group(server, "g", 3, clock)
            static = await Member.open(server, "g", "static", instance="instance-1")
            rejoins = [asyncio.ensure_future(m.join()) for m in members]
            await static.join()
            await asyncio.gather(*rejoins)
            identity = LeaveGroupRequest.MemberIdentity
            request = LeaveGroupRequest(
                group_id="g",
                members=[
                    identity(member_id=members[0].member_id, reason="shutting down"),
                    identity(member_id="", group_instance_id="instance-1"),  # an admin's removal
                    identity(member_id="", group_instance_id="instance-9"),
                    identity(member_id="nobody"),
                ],
            )
            answer = await members[1].conn.send(request)
            assert answer.error_code == NONE
            assert [(x.member_id, x.group_instance_id, x.error_code) for x in answer.members] == [
                (members[0].member_id, None, NONE),
                ("", "instance-1", NONE),
                ("", "instance-9", UNKNOWN_MEMBER_ID),
                ("nobody", None, UNKNOWN_MEMBER_ID),
            ]
            assert set(groups.group("g").members) == {members[1].member_id, members[2].member_id}
            unknown = await members[1].conn.send(
                LeaveGroupRequest(group_id="gone", members=[identity(member_id="x")])
            )
            assert [x.error_code for x in unknown.members] == [UNKNOWN_MEMBER_ID]
            await close_all(*members, static)

    run(scenario())


def test_a_member_leaving_while_others_are_parked_in_join_completes_the_rebalance():
    async def scenario():
        async with serving_manually() as (groups, server, clock):
            a, b = await stable_group(server, "g", 2, clock)
            rejoining = asyncio.ensure_future(a.join())
            await settle(lambda: groups.group("g").state == "PreparingRebalance")
            await b.leave()  # the only member not yet rejoined goes: the join completes
            answer = await rejoining
            assert answer.generation_id == 2 and [m.member_id for m in answer.members] == [
                a.member_id
            ]
            await close_all(a, b)

    run(scenario())
