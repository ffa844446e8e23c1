"""OffsetCommit and OffsetFetch over loopback: commits from members checked against the group's
generation, simple commits (generation -1) from outside the group, every OffsetFetch shape
(one group, all partitions, batched groups, topic ids), and the broker's topic checks."""

from __future__ import annotations

import asyncio

import pytest

from kafka_meta_proto import message_class
from kafka_meta_proto.kraft.image import MetadataImage
from kafka_meta_proto.testing.groups import EMPTY, GroupCoordinator
from kafka_meta_proto.uuid import Uuid
from testing.groups.loopback import (
    GROUP_ID_NOT_FOUND,
    ILLEGAL_GENERATION,
    NONE,
    OFFSET_METADATA_TOO_LARGE,
    REBALANCE_IN_PROGRESS,
    UNKNOWN_MEMBER_ID,
    UNKNOWN_TOPIC_ID,
    UNKNOWN_TOPIC_OR_PARTITION,
    FENCED_INSTANCE_ID,
    Member,
    OffsetCommitRequest,
    OffsetFetchRequest,
    client,
    run,
    serving,
    serving_manually,
    close_all,
    settle,
    stable_group,
)

ORDERS = Uuid.random()


def image_with_orders() -> MetadataImage:
    image = MetadataImage()
    image.apply(message_class("TopicRecord")(name="orders", topic_id=ORDERS))
    for p in range(2):
        image.apply(
            message_class("PartitionRecord")(
                partition_id=p, topic_id=ORDERS, replicas=[0], isr=[0], leader=0
            )
        )
    return image


def commit(group_id, offsets, *, generation=-1, member_id="", instance=None, by_id=False):
    """An OffsetCommit of {(topic, partition): offset}, by topic id when ``by_id``."""
    topic_cls = OffsetCommitRequest.OffsetCommitRequestTopic
    part_cls = OffsetCommitRequest.OffsetCommitRequestPartition
    by_topic: dict = {}
    for (topic, partition), offset in offsets.items():
        by_topic.setdefault(topic, []).append(
            part_cls(partition_index=partition, committed_offset=offset, committed_leader_epoch=4,
                     committed_metadata=f"at {offset}")  # fmt: skip
        )
    topics = [
        topic_cls(topic_id=t, partitions=ps) if by_id else topic_cls(name=t, partitions=ps)
        for t, ps in by_topic.items()
    ]
    return OffsetCommitRequest(
        group_id=group_id,
        generation_id_or_member_epoch=generation,
        member_id=member_id,
        group_instance_id=instance,
        topics=topics,
    )


def errors(response) -> dict:
    return {
        (t.name or t.topic_id, p.partition_index): p.error_code
        for t in response.topics
        for p in t.partitions
    }


def fetch_v8(*groups):
    """OffsetFetch v8+ of [(group id, [(topic, [partitions])] or None)]."""
    group_cls = OffsetFetchRequest.OffsetFetchRequestGroup
    topics_cls = OffsetFetchRequest.OffsetFetchRequestTopics
    return OffsetFetchRequest(
        groups=[
            group_cls(
                group_id=g,
                topics=(
                    None
                    if ts is None
                    else [
                        (
                            topics_cls(topic_id=t, partition_indexes=ps)
                            if isinstance(t, Uuid)
                            else topics_cls(name=t, partition_indexes=ps)
                        )
                        for t, ps in ts
                    ]
                ),
            )
            for g, ts in groups
        ]
    )


def fetched(group_answer) -> dict:
    return {
        (t.name or t.topic_id, p.partition_index): (p.committed_offset, p.error_code)
        for t in group_answer.topics
        for p in t.partitions
    }


@pytest.mark.parametrize("version", [2, 5, 7, 8, 9])  # aiokafka v2, kafka-python v8
def test_members_commit_in_their_generation_and_nobody_else_does(version):
    async def scenario():
        async with serving_manually() as (groups, server, clock):
            a, b = await stable_group(server, "g", 2, clock)
            conn = a.conn
            ok = await conn.send(
                commit("g", {("t", 0): 10, ("t", 1): 11}, generation=1, member_id=a.member_id),
                version,
            )
            assert errors(ok) == {("t", 0): NONE, ("t", 1): NONE}
            assert groups.committed("g", "t", 0).offset == 10
            stale = await conn.send(
                commit("g", {("t", 0): 5}, generation=0, member_id=a.member_id), version
            )
            assert errors(stale) == {("t", 0): ILLEGAL_GENERATION}
            stranger = await conn.send(
                commit("g", {("t", 0): 5}, generation=1, member_id="who"), version
            )
            assert errors(stranger) == {("t", 0): UNKNOWN_MEMBER_ID}
            outsider = await conn.send(commit("g", {("t", 0): 5}), version)  # -1, no member
            assert errors(outsider) == {("t", 0): UNKNOWN_MEMBER_ID}
            missing = await conn.send(
                commit("nope", {("t", 0): 5}, generation=3, member_id="m"), version
            )
            expected = GROUP_ID_NOT_FOUND if version >= 9 else ILLEGAL_GENERATION
            assert errors(missing) == {("t", 0): expected}
            # a commit keeps the session alive, like a heartbeat
            clock.advance(9_000)
            await conn.send(
                commit("g", {("t", 0): 12}, generation=1, member_id=a.member_id), version
            )
            assert await b.heartbeat() == NONE  # b's session is renewed too
            clock.advance(9_000)
            assert a.member_id in groups.group("g").members
            assert groups.committed("g", "t", 0).offset == 12
            await close_all(a, b)

    run(scenario())


def test_commits_while_the_group_completes_a_rebalance_are_refused():
    async def scenario():
        async with serving_manually() as (groups, server, clock):
            m = await Member.open(server, "g")
            joining = asyncio.ensure_future(m.join())
            await settle(lambda: getattr(groups.group("g"), "members", None))
            clock.advance(100)
            await joining
            answer = await m.conn.send(
                commit("g", {("t", 0): 1}, generation=1, member_id=m.member_id), 9
            )
            assert errors(answer) == {("t", 0): REBALANCE_IN_PROGRESS}
            await m.close()

    run(scenario())


def test_a_simple_commit_creates_an_empty_group_and_is_fetched_back_at_every_version():
    async def scenario():
        async with serving() as (groups, server):
            conn = await client(server)
            offsets = {("a", 0): 5, ("a", 1): 6, ("b", 0): 7}
            committed = await conn.send(commit("simple", offsets), 8)
            assert set(errors(committed).values()) == {NONE}
            oldest = await conn.send(commit("v0", {("a", 0): 1}), 0)  # no generation at all
            assert errors(oldest) == {("a", 0): NONE} and groups.committed("v0", "a", 0).offset == 1
            group = groups.group("simple")
            assert group.state == EMPTY and group.protocol_type is None
            for version in range(1, 8):
                topic = OffsetFetchRequest.OffsetFetchRequestTopic
                asked = OffsetFetchRequest(
                    group_id="simple", topics=[topic(name="a", partition_indexes=[0, 1, 2])]
                )
                answer = await conn.send(asked, version)
                got = {
                    (t.name, p.partition_index): (p.committed_offset, p.metadata)
                    for t in answer.topics
                    for p in t.partitions
                }
                assert got == {("a", 0): (5, "at 5"), ("a", 1): (6, "at 6"), ("a", 2): (-1, "")}
                if version >= 5:
                    assert answer.topics[0].partitions[0].committed_leader_epoch == 4
                if version >= 2:  # null topics: everything the group committed
                    every = await conn.send(
                        OffsetFetchRequest(group_id="simple", topics=None), version
                    )
                    assert {
                        (t.name, p.partition_index) for t in every.topics for p in t.partitions
                    } == set(offsets)
            # unknown groups: -1 for what is asked, nothing for "all"
            nothing = await conn.send(fetch_v8(("ghost", [("a", [0])]), ("ghost", None)), 9)
            assert fetched(nothing.groups[0]) == {("a", 0): (-1, NONE)}
            assert nothing.groups[1].topics == [] and nothing.groups[1].error_code == NONE
            await conn.close()

    run(scenario())


def test_offset_fetch_v8_batches_groups_and_require_stable_changes_nothing():
    async def scenario():
        async with serving() as (groups, server):
            conn = await client(server)
            await conn.send(commit("one", {("t", 0): 1}), 9)
            await conn.send(commit("two", {("t", 0): 2, ("u", 3): 3}), 9)
            request = fetch_v8(("one", [("t", [0])]), ("two", None))
            for version, stable in ((8, False), (9, True)):
                request.require_stable = stable
                answer = await conn.send(request, version)
                assert [g.group_id for g in answer.groups] == ["one", "two"]
                assert fetched(answer.groups[0]) == {("t", 0): (1, NONE)}
                assert fetched(answer.groups[1]) == {("t", 0): (2, NONE), ("u", 3): (3, NONE)}
            await conn.close()

    run(scenario())


def test_metadata_over_the_limit_is_refused_per_partition():
    async def scenario():
        async with serving(GroupCoordinator(offset_metadata_max_bytes=8)) as (groups, server):
            conn = await client(server)
            part = OffsetCommitRequest.OffsetCommitRequestPartition
            topic = OffsetCommitRequest.OffsetCommitRequestTopic(
                name="t",
                partitions=[
                    part(partition_index=0, committed_offset=1, committed_metadata="12345678"),
                    part(partition_index=1, committed_offset=1, committed_metadata="123456789"),
                ],
            )
            answer = await conn.send(OffsetCommitRequest(group_id="g", topics=[topic]), 9)
            assert errors(answer) == {("t", 0): NONE, ("t", 1): OFFSET_METADATA_TOO_LARGE}
            assert groups.committed("g", "t", 1) is None
            await conn.close()

    run(scenario())


def test_topics_are_checked_against_the_brokers_image_and_ids_resolved_from_it():
    async def scenario():
        image = image_with_orders()
        async with serving(metadata_image=lambda: image) as (groups, server):
            conn = await client(server)
            by_name = await conn.send(
                commit("g", {("orders", 0): 3, ("orders", 7): 3, ("nope", 0): 3}), 9
            )
            assert errors(by_name) == {
                ("orders", 0): NONE,
                ("orders", 7): UNKNOWN_TOPIC_OR_PARTITION,
                ("nope", 0): UNKNOWN_TOPIC_OR_PARTITION,
            }
            stranger = Uuid.random()
            by_id = await conn.send(commit("g", {(ORDERS, 1): 4, (stranger, 0): 4}, by_id=True), 10)
            assert errors(by_id) == {(ORDERS, 1): NONE, (stranger, 0): UNKNOWN_TOPIC_ID}
            assert groups.committed("g", "orders", 1).offset == 4
            answer = await conn.send(
                fetch_v8(("g", [(ORDERS, [0, 1]), (stranger, [0])]), ("g", None)), 10
            )
            assert fetched(answer.groups[0]) == {
                (ORDERS, 0): (3, NONE),
                (ORDERS, 1): (4, NONE),
                (stranger, 0): (-1, UNKNOWN_TOPIC_ID),
            }
            assert fetched(answer.groups[1]) == {(ORDERS, 0): (3, NONE), (ORDERS, 1): (4, NONE)}
            await conn.close()

    run(scenario())


def test_a_static_member_commits_with_its_instance_id():
    async def scenario():
        async with serving_manually() as (groups, server, clock):
            m = await Member.open(server, "g", instance="i-1")
            joining = asyncio.ensure_future(m.join())
            await settle(lambda: getattr(groups.group("g"), "members", None))
            clock.advance(100)
            await joining
            await m.sync({m.member_id: b""})
            ok = await m.conn.send(
                commit("g", {("t", 0): 1}, generation=1, member_id=m.member_id, instance="i-1"), 9
            )
            assert errors(ok) == {("t", 0): NONE}
            fenced = await m.conn.send(
                commit("g", {("t", 0): 1}, generation=1, member_id="old", instance="i-1"), 9
            )
            assert errors(fenced) == {("t", 0): FENCED_INSTANCE_ID}
            await m.close()

    run(scenario())
