"""Group commit: writes that arrive together share one log batch and one fsync, each still gets
its own answer (a decision that raises fails alone), and reads while a group is being synced see
only what was committed before it."""

from __future__ import annotations

import asyncio
import threading

import pytest

from diskless.helpers import T1, T2, Clock, batch
from kafka_meta_proto.diskless import BatchCoordinator
from kafka_meta_proto.diskless.group_commit import GroupCommitter
from kafka_meta_proto.diskless.store import Store
from kafka_meta_proto.diskless_messages.diskless_topic_record import DisklessTopicRecord as TopicRecord
from kafka_meta_proto.diskless.types import CreateTopicAndPartitionsRequest, FindBatchRequest, TopicIdPartition
from kafka_meta_proto.log import list_segments
from kafka_meta_proto.log.segment import SegmentReader

P0 = TopicIdPartition(T1, 0)


def log_batches(c: BatchCoordinator) -> int:
    return sum(1 for segment in list_segments(c.log_dir) for _ in SegmentReader(segment.path))


def test_writes_arriving_together_share_one_batch(tmp_path):
    async def scenario(c):
        group = GroupCommitter(c)
        await group.write(c.create_decision([CreateTopicAndPartitionsRequest(T1, "t", 1)]))
        answers = await asyncio.gather(*(
            group.write(c.commit_decision([(f"o{n}", 1, 100, [batch(P0, 2)])])) for n in range(20)
        ))  # fmt: skip
        return group.groups, [a[0][0].assigned_base_offset for a in answers]

    with BatchCoordinator(tmp_path, clock=Clock()) as c:
        groups, offsets = asyncio.run(scenario(c))
        assert sorted(offsets) == list(range(0, 40, 2))
        assert groups == log_batches(c) < 21  # the commits did not each take a batch
    with BatchCoordinator(tmp_path, clock=Clock()) as c:  # and all of it is in the log
        assert c.find_batches([FindBatchRequest(P0, 0, 1 << 20)], 1 << 20)[0].high_watermark == 40


def test_a_failing_decision_fails_alone(tmp_path):
    def broken(emit):
        emit(object())  # not a record: the store refuses it
        return "never"

    async def scenario(c):
        group = GroupCommitter(c)
        await group.write(c.create_decision([CreateTopicAndPartitionsRequest(T1, "t", 1)]))
        return await asyncio.gather(
            group.write(c.commit_decision([("a", 1, 100, [batch(P0, 3)])])),
            group.write(broken),
            group.write(c.commit_decision([("b", 1, 100, [batch(P0, 3)])])),
            return_exceptions=True,
        )

    with BatchCoordinator(tmp_path, clock=Clock()) as c:
        first, failed, second = asyncio.run(scenario(c))
        assert isinstance(failed, ValueError)
        assert (first[0][0].assigned_base_offset, second[0][0].assigned_base_offset) == (0, 3)


def test_a_failing_decision_leaves_no_change(tmp_path):
    """What a decision applied before it raised is undone, and is not in the log either."""

    def half_done(emit):
        emit(TopicRecord(topic_id=T2, num_partitions=3))
        raise RuntimeError("changed its mind")

    async def scenario(c):
        group = GroupCommitter(c)
        await group.write(c.create_decision([CreateTopicAndPartitionsRequest(T1, "t", 1)]))
        return await asyncio.gather(
            group.write(half_done),
            group.write(c.commit_decision([("a", 1, 100, [batch(P0, 3)])])),
            return_exceptions=True,
        )

    with BatchCoordinator(tmp_path, clock=Clock()) as c:
        failed, committed = asyncio.run(scenario(c))
        assert isinstance(failed, RuntimeError) and committed[0][0].assigned_base_offset == 0
        assert c.store.num_partitions(T2) is None
    with BatchCoordinator(tmp_path, clock=Clock()) as c:  # rebuilt from the log alone
        c.store.close()
        c.store = Store(tmp_path / "rebuilt.sqlite")
        c.catch_up()
        assert c.store.num_partitions(T2) is None and c.store.offsets(T1, 0) == (0, 3)


def test_reads_during_the_fsync_see_only_what_is_committed(tmp_path, monkeypatch):
    syncing, release = threading.Event(), threading.Event()

    async def scenario(c):
        group = GroupCommitter(c)
        await group.write(c.create_decision([CreateTopicAndPartitionsRequest(T1, "t", 1)]))
        real_sync = c.sync

        def slow_sync():
            syncing.set()
            release.wait(10)
            real_sync()

        monkeypatch.setattr(c, "sync", slow_sync)
        write = asyncio.ensure_future(group.write(c.commit_decision([("o", 1, 100, [batch(P0, 5)])])))
        await asyncio.get_running_loop().run_in_executor(None, syncing.wait, 10)
        during = c.find_batches([FindBatchRequest(P0, 0, 1000)], 1000)[0].high_watermark
        release.set()
        await write
        after = c.find_batches([FindBatchRequest(P0, 0, 1000)], 1000)[0].high_watermark
        return during, after

    with BatchCoordinator(tmp_path, clock=Clock()) as c:
        assert asyncio.run(scenario(c)) == (0, 5)


def test_a_failed_fsync_stops_the_writes_until_a_restart(tmp_path, monkeypatch):
    with BatchCoordinator(tmp_path, clock=Clock()) as c:
        c.create_topic_and_partitions([CreateTopicAndPartitionsRequest(T1, "t", 1)])

        def disk_gone():
            raise OSError("I/O error")

        monkeypatch.setattr(c.appender, "sync", disk_gone)
        with pytest.raises(OSError):
            c.commit_file("o", 1, 100, [batch(P0)])
        monkeypatch.undo()
        with pytest.raises(OSError, match="restart"):
            c.commit_file("p", 1, 100, [batch(P0)])
    with BatchCoordinator(tmp_path, clock=Clock()) as c:  # the log decides: "o" was written
        assert c.commit_file("p", 1, 100, [batch(P0)])[0].assigned_base_offset == 10
