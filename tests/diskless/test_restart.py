"""Restarts: the state comes back from SQLite and the log; a lost or stale SQLite file, or one of
an older schema, is rebuilt from the log; records appended but not applied (a crash between the
two) are applied once; a batch cut by a crash is dropped; a read-only coordinator follows the
leader's log and refuses writes."""

from __future__ import annotations

import sqlite3

import pytest

from diskless.helpers import START, T1, Clock, batch
from kafka_meta_proto.diskless import BatchCoordinator
from kafka_meta_proto.diskless.coordinator import state_file
from kafka_meta_proto.diskless.store import SCHEMA_VERSION, Store
from kafka_meta_proto.diskless.topic_log import partition_dir
from kafka_meta_proto.diskless.types import (
    CommitBatchResponse,
    CreateTopicAndPartitionsRequest,
    DeleteRecordsRequest,
    FindBatchRequest,
    TopicIdPartition,
)
from kafka_meta_proto.error_codes import ErrorCode as E
from kafka_meta_proto.log import list_segments
from kafka_meta_proto.log.plain_batch import encode_plain_batch

P0 = TopicIdPartition(T1, 0)


def populate(c: BatchCoordinator) -> None:
    c.create_topic_and_partitions([CreateTopicAndPartitionsRequest(T1, "t", 2)])
    for n in range(5):
        c.commit_file(f"o{n}", 1, 200, [batch(P0, 3, producer=(4, 0, 3 * n)), batch(TopicIdPartition(T1, 1), 2, byte_offset=100)])
    c.delete_records([DeleteRecordsRequest(P0, 6)])


def test_a_restart_keeps_the_state(tmp_path):
    with BatchCoordinator(tmp_path, clock=Clock()) as c:
        populate(c)
        before = c.store.snapshot()
    with BatchCoordinator(tmp_path, clock=Clock()) as c:
        assert c.store.snapshot() == before
        assert c.catch_up() == 0
        # and it goes on where it stopped, the producer's state included
        assert c.commit_file("next", 1, 100, [batch(P0, 3, producer=(4, 0, 15))])[0].assigned_base_offset == 15
        assert c.commit_file("dup", 1, 100, [batch(P0, 3, producer=(4, 0, 12))])[0].is_duplicate


@pytest.mark.parametrize("damage", ["deleted", "from another log"])
def test_a_missing_or_stale_state_file_is_rebuilt_from_the_log(tmp_path, damage):
    with BatchCoordinator(tmp_path / "a", clock=Clock()) as c:
        populate(c)
        before = c.store.snapshot()
    if damage == "deleted":
        for f in tmp_path.joinpath("a").glob("batch-coordinator-0.sqlite*"):
            f.unlink()
    else:  # SQLite of a longer log, next to a shorter one
        with BatchCoordinator(tmp_path / "b", clock=Clock()) as other:
            populate(other)
            populate(other)
        for f in tmp_path.joinpath("a").glob("batch-coordinator-0.sqlite*"):
            f.unlink()
        for f in tmp_path.joinpath("b").glob("batch-coordinator-0.sqlite*"):
            f.rename(tmp_path / "a" / f.name)
    with BatchCoordinator(tmp_path / "a", clock=Clock()) as c:
        assert c.store.snapshot() == before


def test_a_state_file_of_an_older_schema_is_rebuilt_from_the_log(tmp_path):
    path = state_file(tmp_path, 0)
    with BatchCoordinator(tmp_path, clock=Clock()) as c:
        populate(c)  # deletes the producer's first two batches
        before = c.store.snapshot()
    with BatchCoordinator(tmp_path, clock=Clock()):
        pass
    inode = path.stat().st_ino
    with BatchCoordinator(tmp_path, clock=Clock()) as c:  # a current file is kept as it is
        assert path.stat().st_ino == inode and not c.store.outdated
    db = sqlite3.connect(path)  # as a file of schema 0 was: no producer_batches table
    db.executescript("DROP TABLE producer_batches; PRAGMA user_version = 0;")
    db.close()
    with BatchCoordinator(tmp_path, clock=Clock()) as c:
        assert c.store.snapshot() == before and c.store.schema_version == SCHEMA_VERSION
        # the producer's state came back from the log: a retry of a deleted batch is a duplicate
        [dup] = c.commit_file("dup", 1, 100, [batch(P0, 3, producer=(4, 0, 0))])
        assert dup == CommitBatchResponse(E.NONE, 0, START, 6, True)
        [gap] = c.commit_file("gap", 1, 100, [batch(P0, 3, producer=(4, 0, 16))])
        assert gap.error == E.OUT_OF_ORDER_SEQUENCE_NUMBER


def test_records_appended_but_not_applied_are_applied_once_at_restart(tmp_path, monkeypatch):
    with BatchCoordinator(tmp_path, clock=Clock()) as c:
        populate(c)

        def crash(position):  # the process dies after the fsync, before SQLite commits
            raise SystemExit("killed")

        monkeypatch.setattr(c.store, "commit", crash)
        with pytest.raises(SystemExit):
            c.commit_file("late", 1, 100, [batch(P0, 4)])
        monkeypatch.undo()
        c.store.close()  # as the process's end does: the open transaction is lost
    store = Store(state_file(tmp_path, 0))
    assert store.offsets(T1, 0) == (6, 15)  # SQLite lacks the commit; the log has it
    store.close()
    with BatchCoordinator(tmp_path, clock=Clock()) as c:
        answer = c.find_batches([FindBatchRequest(P0, 15, 1000)], 1000)[0]
        assert [(b.object_key, b.metadata.base_offset) for b in answer.batches] == [("late", 15)]
        assert answer.high_watermark == 19
        again = c.store.snapshot()
    with BatchCoordinator(tmp_path, clock=Clock()) as c:
        assert c.store.snapshot() == again  # not applied twice


def test_a_batch_cut_by_a_crash_is_dropped_and_the_log_goes_on(tmp_path):
    with BatchCoordinator(tmp_path, clock=Clock()) as c:
        populate(c)
        before = c.store.snapshot()
    segment = list_segments(partition_dir(tmp_path, 0))[-1].path
    whole = segment.stat().st_size
    with open(segment, "ab") as f:
        f.write(encode_plain_batch([b"x" * 50], 15, 0, 0)[:40])  # the start of a batch, cut
    with BatchCoordinator(tmp_path, clock=Clock()) as c:
        assert c.store.snapshot() == before
        assert segment.stat().st_size == whole  # the cut batch is gone from the log
        assert c.commit_file("after", 1, 100, [batch(P0, 1)])[0].assigned_base_offset == 15
    for f in tmp_path.glob("batch-coordinator-0.sqlite*"):
        f.unlink()
    with BatchCoordinator(tmp_path, clock=Clock()) as c:  # the whole log replays cleanly
        assert c.find_batches([FindBatchRequest(P0, 15, 100)], 100)[0].batches[0].object_key == "after"


def test_a_read_only_coordinator_follows_the_leader_and_refuses_writes(tmp_path):
    with BatchCoordinator(tmp_path / "leader", clock=Clock()) as leader:
        with BatchCoordinator(tmp_path / "replica", follow=tmp_path / "leader") as replica:
            assert replica.read_only and replica.store.snapshot()["batches"] == []
            populate(leader)
            assert replica.find_batches([FindBatchRequest(P0, 6, 1000)], 1000)[0].high_watermark == 15
            assert replica.store.snapshot() == leader.store.snapshot()
            assert replica.commit_file("x", 1, 100, [batch(P0)])[0].error == E.NOT_COORDINATOR
            assert replica.create_topic_and_partitions([CreateTopicAndPartitionsRequest(T1, "t", 3)]) == [E.NOT_COORDINATOR]
            assert replica.delete_records([DeleteRecordsRequest(P0, 9)])[0].error == E.NOT_COORDINATOR
            assert replica.delete_topics([T1]) == [E.NOT_COORDINATOR]
            with pytest.raises(PermissionError):
                replica.delete_files(["o1"])
            leader.commit_file("more", 1, 100, [batch(P0, 2)])
            assert [b.object_key for b in replica.find_batches([FindBatchRequest(P0, 15, 100)], 100)[0].batches] == ["more"]
        with BatchCoordinator(tmp_path / "replica", follow=tmp_path / "leader") as replica:  # its own state survives too
            assert replica.catch_up() == 0 and replica.store.snapshot() == leader.store.snapshot()
    assert state_file(tmp_path / "replica", 0).exists()
    assert not partition_dir(tmp_path / "replica", 0).exists()  # it writes no log of its own
