"""The compiled codec's programs, derived from the field tables (kafka_meta_proto.layouts): grouped
as the Python codecs are (one program per distinct layout, shared by the versions that share a
Python writer), each in the extension's format. What they do is held to the Python codecs by
tests/test_codec_differential.py."""

from __future__ import annotations

import pytest

from conftest import shipped_class, shipped_names
from kafka_meta_proto.layouts import programs
from kafka_meta_proto.messages.create_topics_request import CreateTopicsRequest
from kafka_meta_proto.messages.fetch_snapshot_request import (
    FetchSnapshotRequest,
    PartitionSnapshot,
    SnapshotId,
    TopicSnapshot,
)
from kafka_meta_proto.uuid import Uuid


def _groups(by_version: dict[int, object]) -> list[list[int]]:
    """The versions that share one object, as sorted lists."""
    shared: dict[int, list[int]] = {}
    for version, thing in sorted(by_version.items()):
        shared.setdefault(id(thing), []).append(version)
    return sorted(shared.values())


def _all_programs(program: tuple, into: dict[int, tuple]) -> dict[int, tuple]:
    """Every program reachable from one, by identity."""
    if id(program) not in into:
        into[id(program)] = program
        for step in program[2]:
            if step[4] is not None:
                _all_programs(step[4], into)
        for tagged in program[3]:
            if tagged[5] is not None:
                _all_programs(tagged[5], into)
    return into


@pytest.mark.parametrize("name", shipped_names())
def test_versions_share_a_program_as_they_share_a_writer(name):
    cls = shipped_class(name)
    derived = programs(cls)
    assert sorted(derived) == sorted(cls._WRITERS)
    assert _groups(dict(derived)) == _groups(cls._WRITERS)
    for version, program in derived.items():
        assert program[0] is cls
        assert program[1] == (cls.LOWEST_FLEXIBLE_VERSION is not None and version >= cls.LOWEST_FLEXIBLE_VERSION)


def test_no_two_programs_of_a_message_are_alike():
    found = {}
    for program in programs(CreateTopicsRequest).values():
        _all_programs(program, found)
    # eight versions, three layouts of the message; two of each struct it holds
    assert len(found) == 9
    assert len({repr(p) for p in found.values()}) == 9


def test_a_program_in_the_extensions_format():
    snapshot_id = (
        SnapshotId,
        True,
        (("end_offset", "q", True, False, None), ("epoch", "i", True, False, None)),
        (),
        (),
    )
    partition_v0 = (
        PartitionSnapshot,
        True,
        (
            ("partition", "i", True, False, None),
            ("current_leader_epoch", "i", True, False, None),
            ("snapshot_id", "S", True, False, snapshot_id),
            ("position", "q", True, False, None),
        ),
        (),
        (("replica_directory_id", Uuid.ZERO_UUID, False),),
    )
    partition_v1 = partition_v0[:3] + (
        ((0, "replica_directory_id", "u", True, False, None, Uuid.ZERO_UUID),),
        (),
    )
    topic = (TopicSnapshot, True, (("name", "s", True, False, None), ("partitions", "[S", True, False, None)), (), ())
    message_steps = (
        ("replica_id", "i", True, False, None),
        ("max_bytes", "i", True, False, None),
        ("topics", "[S", True, False, None),
    )
    derived = programs(FetchSnapshotRequest)
    for version, partition in ((0, partition_v0), (1, partition_v1)):
        program = derived[version]
        assert program[:2] == (FetchSnapshotRequest, True)
        assert program[2][:2] == message_steps[:2]
        assert program[3] == ((0, "cluster_id", "s", True, True, None, None),) and program[4] == ()
        topic_program = program[2][2][4]
        assert topic_program[:2] == topic[:2] and topic_program[3:] == topic[3:]
        assert topic_program[2][0] == topic[2][0]
        assert topic_program[2][1][4] == partition

