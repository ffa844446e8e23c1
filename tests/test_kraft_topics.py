"""The topic transitions of kraft.topics, which the image and the audit both apply: the life each
record leaves a topic id in and the problem it finds."""

from __future__ import annotations

import pytest

from kafka_meta_proto.kraft.topics import (
    ADD_PARTITION,
    CHANGE_PARTITION,
    CREATE,
    LIVE,
    MAP_PARTITION,
    NEVER_CREATED,
    REMOVE,
    REMOVED,
    REMOVED_TOPIC,
    UNKNOWN_PARTITION,
    UNKNOWN_TOPIC,
    apply_topic,
    topic_problem,
)

ALL_OPS = [CREATE, REMOVE, ADD_PARTITION, CHANGE_PARTITION, MAP_PARTITION]


@pytest.mark.parametrize("life", [NEVER_CREATED, LIVE, REMOVED])
def test_a_topic_record_is_never_a_problem_and_makes_the_id_live(life):
    assert apply_topic(life, CREATE) == (LIVE, None)
    assert apply_topic(life, CREATE, has_partition=False) == (LIVE, None)


@pytest.mark.parametrize("op", [REMOVE, ADD_PARTITION, CHANGE_PARTITION, MAP_PARTITION])
def test_naming_an_id_that_is_not_live_is_a_problem_that_tells_never_from_removed(op):
    assert topic_problem(NEVER_CREATED, op) == UNKNOWN_TOPIC
    assert topic_problem(REMOVED, op) == REMOVED_TOPIC
    assert topic_problem(LIVE, op) is None


def test_a_removal_leaves_the_id_removed_even_when_it_was_a_problem():
    assert apply_topic(LIVE, REMOVE) == (REMOVED, None)
    assert apply_topic(NEVER_CREATED, REMOVE) == (REMOVED, UNKNOWN_TOPIC)
    assert apply_topic(REMOVED, REMOVE) == (REMOVED, REMOVED_TOPIC)


@pytest.mark.parametrize("life", [NEVER_CREATED, LIVE, REMOVED])
def test_partition_records_leave_the_life_as_it_was(life):
    for op in (ADD_PARTITION, CHANGE_PARTITION, MAP_PARTITION):
        assert apply_topic(life, op)[0] == life


def test_a_change_or_mapping_needs_the_partition_and_an_addition_does_not():
    assert topic_problem(LIVE, CHANGE_PARTITION, has_partition=False) == UNKNOWN_PARTITION
    assert topic_problem(LIVE, MAP_PARTITION, has_partition=False) == UNKNOWN_PARTITION
    assert topic_problem(LIVE, ADD_PARTITION, has_partition=False) is None
    # the topic's life is judged first
    assert topic_problem(REMOVED, CHANGE_PARTITION, has_partition=False) == REMOVED_TOPIC


def test_the_ops_and_problems_are_distinct():
    assert len(set(ALL_OPS)) == len(ALL_OPS)
    assert len({UNKNOWN_TOPIC, REMOVED_TOPIC, UNKNOWN_PARTITION}) == 3


def test_a_partition_change_keeps_or_replaces_the_leader_and_bumps_the_epochs():
    from kafka_meta_proto.kraft.rules import NO_LEADER, NO_LEADER_CHANGE, leadership_after_change

    # no leader named: the leader and its epoch stay, the partition epoch moves
    assert leadership_after_change(3, 5, 9, NO_LEADER_CHANGE) == (3, 5, 10)
    # naming a leader, even the same one or none, starts a new leader epoch
    assert leadership_after_change(3, 5, 9, 3) == (3, 6, 10)
    assert leadership_after_change(3, 5, 9, 4) == (4, 6, 10)
    assert leadership_after_change(3, 5, 9, NO_LEADER) == (NO_LEADER, 6, 10)
