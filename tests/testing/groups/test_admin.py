"""DescribeGroups, ListGroups, DeleteGroups and FindCoordinator over loopback, NOT_COORDINATOR
from a broker that does not coordinate the group (every API), and a broker's release, which
answers the requests parked on it."""

from __future__ import annotations

import asyncio

import pytest

from kafka_meta_proto.testing.groups import GroupCoordinator, ManualClock, coordinator_of
from kafka_meta_proto.testing.groups.find_coordinator import java_hash, offsets_partition
from testing.groups.loopback import (
    COORDINATOR_NOT_AVAILABLE,
    GROUP_ID_NOT_FOUND,
    INCONSISTENT_GROUP_PROTOCOL,
    INVALID_GROUP_ID,
    INVALID_SESSION_TIMEOUT,
    INVALID_REQUEST,
    NON_EMPTY_GROUP,
    NONE,
    NOT_COORDINATOR,
    DeleteGroupsRequest,
    DescribeGroupsRequest,
    FindCoordinatorRequest,
    HeartbeatRequest,
    JoinGroupRequest,
    LeaveGroupRequest,
    ListGroupsRequest,
    OffsetCommitRequest,
    OffsetFetchRequest,
    SyncGroupRequest,
    client,
    protocols,
    run,
    serving,
    serving_manually,
    close_all,
    settle,
    stable_group,
)
from kafka_meta_proto.server import Server

GROUP_OPERATIONS = 3400  # READ, DELETE, DESCRIBE, DESCRIBE_CONFIGS, ALTER_CONFIGS


@pytest.mark.parametrize("version", [0, 3, 4, 5, 6])
def test_describe_groups_in_each_state(version):
    async def scenario():
        async with serving_manually() as (groups, server, clock):
            a, b = await stable_group(server, "g", 2, clock)
            conn = await client(server)
            await conn.send(_commit("simple"), 9)  # an empty commit would create nothing
            asked = DescribeGroupsRequest(groups=["g", "simple", "missing"])
            asked.include_authorized_operations = version >= 3
            stable, simple, missing = (await conn.send(asked, version)).groups
            assert (stable.group_state, stable.protocol_type, stable.protocol_data) == (
                "Stable",
                "consumer",
                "range",
            )
            described = {m.member_id: m for m in stable.members}
            assert set(described) == {a.member_id, b.member_id}
            member = described[a.member_id]
            assert (member.client_id, member.client_host) == ("client-0", "/127.0.0.1")
            assert (member.member_metadata, member.member_assignment) == (
                b"meta",
                a.member_id.encode(),
            )
            if version >= 3:
                assert stable.authorized_operations == GROUP_OPERATIONS
                # a group in error gets none; before v6 a missing group is no error
                missing_operations = -(2**31) if version >= 6 else GROUP_OPERATIONS
                assert missing.authorized_operations == missing_operations
            assert (simple.group_state, simple.protocol_type, simple.members) == ("Empty", "", [])
            assert (missing.group_id, missing.group_state) == ("missing", "Dead")
            if version >= 6:
                assert missing.error_code == GROUP_ID_NOT_FOUND
                assert missing.error_message == "Group missing not found."
            else:
                assert missing.error_code == NONE
            # outside Stable the members come without their metadata
            rejoining = asyncio.ensure_future(a.join())
            await settle(lambda: groups.group("g").state == "PreparingRebalance")
            (preparing,) = (await conn.send(DescribeGroupsRequest(groups=["g"]), version)).groups
            assert preparing.group_state == "PreparingRebalance" and preparing.protocol_data == ""
            assert {m.member_metadata for m in preparing.members} == {b""}
            await asyncio.gather(rejoining, b.join())
            await close_all(a, b, conn)

    run(scenario())


@pytest.mark.parametrize("version", [0, 3, 4, 5])
def test_list_groups_filters_by_state_and_type(version):
    async def scenario():
        async with serving_manually() as (groups, server, clock):
            members = await stable_group(server, "g", 1, clock)
            conn = await client(server)
            await conn.send(_commit("simple"), 9)  # an empty commit would create nothing
            listed = await conn.send(ListGroupsRequest(), version)
            got = {(g.group_id, g.protocol_type) for g in listed.groups}
            assert listed.error_code == NONE and got == {("g", "consumer"), ("simple", "")}
            if version >= 4:
                assert {g.group_id: g.group_state for g in listed.groups} == {
                    "g": "Stable",
                    "simple": "Empty",
                }
                empty = await conn.send(ListGroupsRequest(states_filter=[" EMPTY "]), version)
                assert [g.group_id for g in empty.groups] == ["simple"]
            if version >= 5:
                assert {g.group_type for g in listed.groups} == {"classic"}
                classic = await conn.send(ListGroupsRequest(types_filter=["Classic"]), version)
                assert len(classic.groups) == 2
                consumer = await conn.send(ListGroupsRequest(types_filter=["consumer"]), version)
                assert consumer.groups == []
            await close_all(*members, conn)

    run(scenario())


def test_delete_groups_deletes_empty_groups_and_their_offsets_only():
    async def scenario():
        async with serving_manually() as (groups, server, clock):
            members = await stable_group(server, "busy", 1, clock)
            conn = await client(server)
            await conn.send(_commit("idle"), 9)
            assert groups.committed("idle", "t", 0).offset == 9
            for version in (0, 2, 3):
                answer = await conn.send(
                    DeleteGroupsRequest(groups_names=["idle", "busy", "missing", "idle"]), version
                )
                results = [(r.group_id, r.error_code) for r in answer.results]
                expected_idle = NONE if version == 0 else GROUP_ID_NOT_FOUND
                assert results == [
                    ("idle", expected_idle),
                    ("busy", NON_EMPTY_GROUP),
                    ("missing", GROUP_ID_NOT_FOUND),
                ]
            assert groups.group("idle") is None and groups.committed("idle", "t", 0) is None
            fetched = await conn.send(OffsetFetchRequest(group_id="idle", topics=None), 7)
            assert fetched.topics == []
            await close_all(*members, conn)

    run(scenario())


def _commit(group_id: str) -> OffsetCommitRequest:
    part = OffsetCommitRequest.OffsetCommitRequestPartition(partition_index=0, committed_offset=9)
    return OffsetCommitRequest(
        group_id=group_id,
        topics=[OffsetCommitRequest.OffsetCommitRequestTopic(name="t", partitions=[part])],
    )


def test_every_group_api_says_not_coordinator_on_the_wrong_broker():
    async def scenario():
        async with serving(is_coordinator=lambda group_id: group_id != "elsewhere") as (
            groups,
            server,
        ):
            conn = await client(server)
            sends = [
                JoinGroupRequest(
                    group_id="elsewhere",
                    session_timeout_ms=10_000,
                    protocol_type="consumer",
                    protocols=protocols("range"),
                ),
                SyncGroupRequest(
                    group_id="elsewhere",
                    generation_id=1,
                    member_id="m",
                    protocol_type="consumer",
                    protocol_name="range",
                ),
                HeartbeatRequest(group_id="elsewhere", generation_id=1, member_id="m"),
            ]
            for request in sends:
                for version in (0, request.versions()[-1]):
                    assert (await conn.send(request, version)).error_code == NOT_COORDINATOR
            leave = LeaveGroupRequest(
                group_id="elsewhere", members=[LeaveGroupRequest.MemberIdentity(member_id="m")]
            )
            assert (await conn.send(leave)).error_code == NOT_COORDINATOR
            assert (
                await conn.send(LeaveGroupRequest(group_id="elsewhere", member_id="m"), 0)
            ).error_code == NOT_COORDINATOR
            committed = await conn.send(_commit("elsewhere"), 9)
            assert [p.error_code for t in committed.topics for p in t.partitions] == [
                NOT_COORDINATOR
            ]
            topic = OffsetFetchRequest.OffsetFetchRequestTopic(name="t", partition_indexes=[0])
            old = await conn.send(OffsetFetchRequest(group_id="elsewhere", topics=[topic]), 1)
            assert [p.error_code for t in old.topics for p in t.partitions] == [NOT_COORDINATOR]
            assert (
                await conn.send(OffsetFetchRequest(group_id="elsewhere", topics=[topic]), 7)
            ).error_code == NOT_COORDINATOR
            group = OffsetFetchRequest.OffsetFetchRequestGroup
            batched = await conn.send(
                OffsetFetchRequest(
                    groups=[
                        group(group_id="elsewhere", topics=None),
                        group(group_id="here", topics=None),
                    ]
                ),
                9,
            )
            assert [g.error_code for g in batched.groups] == [NOT_COORDINATOR, NONE]
            described = await conn.send(DescribeGroupsRequest(groups=["elsewhere"]))
            assert described.groups[0].error_code == NOT_COORDINATOR
            deleted = await conn.send(DeleteGroupsRequest(groups_names=["elsewhere"]))
            assert deleted.results[0].error_code == NOT_COORDINATOR
            await conn.send(_commit("here"), 9)
            await conn.send(_commit("elsewhere"), 9)
            assert groups.group("elsewhere") is None  # refused, so never created
            listed = await conn.send(ListGroupsRequest())
            assert [g.group_id for g in listed.groups] == ["here"]
            await conn.close()

    run(scenario())


def test_what_kafka_checks_before_finding_the_coordinator_comes_first():
    async def scenario():
        async with serving(is_coordinator=lambda group_id: False) as (groups, server):
            conn = await client(server)
            join = JoinGroupRequest(
                group_id="", session_timeout_ms=10_000, protocol_type="consumer"
            )
            assert (await conn.send(join)).error_code == INVALID_GROUP_ID
            join.group_id, join.session_timeout_ms = "g", 10
            assert (await conn.send(join)).error_code == INVALID_SESSION_TIMEOUT
            sync = SyncGroupRequest(group_id="g", generation_id=1, member_id="m")  # no protocol
            assert (await conn.send(sync, 5)).error_code == INCONSISTENT_GROUP_PROTOCOL
            assert (await conn.send(sync, 4)).error_code == NOT_COORDINATOR
            beat = HeartbeatRequest(group_id="", generation_id=1, member_id="m")
            assert (await conn.send(beat)).error_code == INVALID_GROUP_ID
            await conn.close()

    run(scenario())


def test_release_answers_the_parked_joins_not_coordinator_and_keeps_the_members():
    async def scenario():
        clock = ManualClock()
        groups = GroupCoordinator(clock=clock)
        async with serving(groups) as (_, first):
            async with serving(groups) as (_, second):
                a, b = await stable_group(first, "g", 2, clock)
                parked = asyncio.ensure_future(a.join())
                await settle(lambda: groups.group("g").state == "PreparingRebalance")
                groups.release(first)
                answer = await parked
                assert answer.error_code == NOT_COORDINATOR
                assert a.member_id in groups.group("g").members
                # both find the new coordinator and finish the rebalance there
                a.conn, b.conn = await client(second), await client(second)
                answers = await asyncio.gather(a.join(), b.join())
                assert {x.generation_id for x in answers} == {2}
                await close_all(a, b)

    run(scenario())


def test_the_coordinator_of_a_group_follows_kafkas_offsets_partition():
    # String.hashCode values as Java computes them
    assert java_hash("") == 0 and java_hash("a") == 97 and java_hash("group") == 98629247
    assert java_hash("consumer-group-with-a-long-name") == -1157546098
    assert offsets_partition("group") == 98629247 % 50
    assert offsets_partition("consumer-group-with-a-long-name") == 1157546098 % 50
    live = [2, 0, 1]
    assert coordinator_of("group", live) == sorted(live)[offsets_partition("group") % 3]
    assert coordinator_of("group", []) is None
    chosen = {coordinator_of(f"group-{i}", live) for i in range(50)}
    assert chosen == {0, 1, 2}  # groups spread over the brokers


@pytest.mark.parametrize("version", [0, 1, 2, 3, 4, 5, 6])
def test_find_coordinator_at_every_version(version):
    async def scenario():
        brokers = [(0, "127.0.0.1", 9092), (1, "127.0.0.1", 9093), (2, "127.0.0.1", 9094)]
        server = Server()
        server.handle(
            FindCoordinatorRequest, GroupCoordinator.find_coordinator_handler(lambda: brokers)
        )
        async with server.listening(("127.0.0.1", 0)):
            conn = await client(server)
            expected = brokers[coordinator_of("my-group", [0, 1, 2])]
            if version >= 4:
                answer = await conn.send(
                    FindCoordinatorRequest(key_type=0, coordinator_keys=["my-group", "other"]),
                    version,
                )
                found = [
                    (c.key, c.node_id, c.host, c.port, c.error_code) for c in answer.coordinators
                ]
                assert found[0] == ("my-group", *expected, NONE)
                assert found[1][0] == "other" and found[1][4] == NONE
                txn = await conn.send(
                    FindCoordinatorRequest(key_type=1, coordinator_keys=["tx"]), version
                )
                assert [(c.error_code, c.node_id) for c in txn.coordinators] == [
                    (COORDINATOR_NOT_AVAILABLE, -1)
                ]
                share = await conn.send(
                    FindCoordinatorRequest(key_type=2, coordinator_keys=["s:x:0"]), version
                )
                assert share.coordinators[0].error_code == INVALID_REQUEST
            else:
                answer = await conn.send(FindCoordinatorRequest(key="my-group"), version)
                assert (answer.node_id, answer.host, answer.port, answer.error_code) == (
                    *expected,
                    NONE,
                )
                if version >= 1:
                    assert answer.error_message == "NONE"
                    txn = await conn.send(FindCoordinatorRequest(key="tx", key_type=1), version)
                    assert (txn.error_code, txn.node_id, txn.host, txn.port) == (
                        COORDINATOR_NOT_AVAILABLE,
                        -1,
                        "",
                        -1,
                    )
                    assert txn.error_message == "The coordinator is not available."
            await conn.close()

    run(scenario())


def test_find_coordinator_without_live_brokers():
    async def scenario():
        server = Server()
        server.handle(FindCoordinatorRequest, GroupCoordinator.find_coordinator_handler(lambda: []))
        async with server.listening(("127.0.0.1", 0)):
            conn = await client(server)
            answer = await conn.send(FindCoordinatorRequest(key="g"), 3)
            assert (answer.error_code, answer.node_id) == (COORDINATOR_NOT_AVAILABLE, -1)
            await conn.close()

    run(scenario())
