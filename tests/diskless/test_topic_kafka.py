"""The coordinator with its partition in a Kafka topic (``diskless.kafka_topic``), against the
in-process fake cluster: the topic created as documented, commits, restarts with and without the
data directory, a read-only follower, a retried append written once, a crash between the append
and SQLite, the command killed with SIGKILL during commits, and a second writer whose batches are
void."""

from __future__ import annotations

import asyncio
import shutil
import signal
import subprocess
import sys

import pytest

from diskless.helpers import T1, Clock, batch
from diskless.test_crash import kill_rounds
from diskless.test_restart import P0, populate
from diskless.test_wire import entry, start_command
from diskless.wire_client import served, talk
from kafka_meta_proto.diskless import BatchCoordinator
from kafka_meta_proto.diskless.coordinator import state_file
from kafka_meta_proto.diskless.kafka_topic import KafkaTopic, TopicError
from kafka_meta_proto.diskless.store import Store
from kafka_meta_proto.diskless.topic_log import TOPIC, partition_dir
from kafka_meta_proto.diskless.types import FindBatchRequest
from kafka_meta_proto.error_codes import ErrorCode as E
from kafka_meta_proto.messages import ProduceRequest
from kafka_meta_proto.testing.threaded import RunningCluster


@pytest.fixture
def cluster():
    with RunningCluster(brokers=1) as running:
        yield running


def bootstrap(cluster):
    return [(host, int(port)) for host, port in (a.rsplit(":", 1) for a in cluster.bootstrap.split(","))]


def coordinator(cluster, data, **options):
    return BatchCoordinator(data, topic=KafkaTopic(bootstrap(cluster)), clock=Clock(), **options)


def end_of_topic(cluster, partition=0):
    with KafkaTopic(bootstrap(cluster), partition) as topic:
        return topic.high_watermark()


def found(c, offset):
    return [(b.object_key, b.metadata.base_offset) for b in c.find_batches([FindBatchRequest(P0, offset, 10_000)], 10_000)[0].batches]


def test_the_topic_is_created_as_written_down():
    with RunningCluster(brokers=3) as cluster, KafkaTopic(bootstrap(cluster), 2) as topic:
        topic.create()
        image = cluster.image
        created = image.topic(TOPIC)
        assert len(created.partitions) == 3  # enough for partition 2
        assert {len(p.replicas) for p in created.partitions.values()} == {3}
        config = cluster.brokers[0].topic_config(TOPIC)
        assert (config["cleanup.policy"], config["min.insync.replicas"]) == ("delete", "2")
        assert (config["retention.ms"], config["retention.bytes"]) == ("-1", "-1")
        topic.create()  # there already: nothing to do


def test_commits_go_to_the_topic_and_a_restart_keeps_the_state(cluster, tmp_path):
    with coordinator(cluster, tmp_path) as c:
        populate(c)
        before = c.store.snapshot()
    assert not partition_dir(tmp_path, 0).exists()  # no local log: the topic holds it
    assert end_of_topic(cluster) == 7  # one record a change: the topic, five commits, a deletion
    with coordinator(cluster, tmp_path) as c:
        assert c.store.snapshot() == before and c.catch_up() == 0
        assert c.commit_file("next", 1, 100, [batch(P0, 3, producer=(4, 0, 15))])[0].assigned_base_offset == 15
        assert c.commit_file("dup", 1, 100, [batch(P0, 3, producer=(4, 0, 12))])[0].is_duplicate
    assert end_of_topic(cluster) == 9


def test_a_coordinator_that_lost_its_data_directory_is_rebuilt_from_the_topic(cluster, tmp_path):
    with coordinator(cluster, tmp_path / "a") as c:
        populate(c)
        before = c.store.snapshot()
    shutil.rmtree(tmp_path / "a")
    with coordinator(cluster, tmp_path / "a") as c:
        assert c.store.snapshot() == before
        assert c.commit_file("after", 1, 100, [batch(P0, 2)])[0].assigned_base_offset == 15


def test_a_state_claiming_more_than_the_topic_holds_is_rebuilt(cluster, tmp_path):
    with BatchCoordinator(tmp_path / "local", clock=Clock()) as c:  # a longer log's state
        populate(c)
        populate(c)
    with coordinator(cluster, tmp_path / "a") as c:
        populate(c)
        before = c.store.snapshot()
    shutil.copy(state_file(tmp_path / "local", 0), state_file(tmp_path / "a", 0))
    with coordinator(cluster, tmp_path / "a") as c:
        assert c.store.snapshot() == before


def test_a_read_only_coordinator_follows_the_topic_and_refuses_writes(cluster, tmp_path):
    with coordinator(cluster, tmp_path / "leader") as leader, \
            coordinator(cluster, tmp_path / "replica", read_only=True) as replica:  # fmt: skip
        populate(leader)
        assert found(replica, 6) == [("o2", 6), ("o3", 9), ("o4", 12)]
        assert replica.store.snapshot() == leader.store.snapshot()
        assert replica.commit_file("x", 1, 100, [batch(P0)])[0].error == E.NOT_COORDINATOR
        leader.commit_file("more", 1, 100, [batch(P0, 2)])
        assert found(replica, 15) == [("more", 15)]
    assert end_of_topic(cluster) == 8  # the replica wrote nothing


def test_a_read_only_coordinator_started_before_the_topic_exists_waits_for_it(cluster, tmp_path):
    with coordinator(cluster, tmp_path / "replica", read_only=True) as replica:
        assert replica.store.snapshot()["topics"] == [] and cluster.image.topic(TOPIC) is None
        with coordinator(cluster, tmp_path / "leader") as leader:
            populate(leader)
            assert found(replica, 12) == [("o4", 12)]


def test_the_command_without_a_cluster_to_reach_says_so(tmp_path):
    run = subprocess.run(
        [sys.executable, "-m", "kafka_meta_proto.cli", "batch-coordinator", "--listen", "127.0.0.1:0",
         "--data", str(tmp_path), "--bootstrap", "127.0.0.1:1"], capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert (run.returncode, run.stdout) == (1, "")
    assert "no bootstrap address answered: 127.0.0.1:1" in run.stderr


def test_a_read_only_coordinator_serves_reads_over_the_wire(cluster, tmp_path):
    async def scenario(leader, replica):
        async with served(leader) as (call, _), served(replica) as (rcall, _):
            assert await call.init({T1: 1}) == [0]
            assert await call.commit(1, [entry(T1, 0, "o", count=4)]) == [(0, 0, -1, 0, False)]
            assert await rcall.list_offsets([(T1, 0, -1)]) == [(0, -1, 4)]
            assert [a[0] for a in await rcall.commit(1, [entry(T1, 0, "p")])] == [E.NOT_COORDINATOR]

    with coordinator(cluster, tmp_path / "leader") as leader, \
            coordinator(cluster, tmp_path / "replica", read_only=True) as replica:  # fmt: skip
        asyncio.run(scenario(leader, replica))


def test_an_append_retried_after_a_lost_answer_is_written_once(cluster, tmp_path):
    with coordinator(cluster, tmp_path) as c:
        c.topic.request_timeout = 0.3  # the first Produce is answered late: sent again
        cluster.faults.delay(ProduceRequest, 1.0)
        populate(c)
        # seven appends, the first sent again (more than once if a retry queued behind it)
        assert len(cluster.faults.requests(ProduceRequest)) > 7
        before = c.store.snapshot()
    asyncio.run(asyncio.sleep(1.0))  # every late one has been served by now: duplicates
    assert end_of_topic(cluster) == 7
    with coordinator(cluster, tmp_path / "fresh") as c:
        assert c.store.snapshot() == before


def test_records_appended_but_not_applied_are_applied_once_at_restart(cluster, tmp_path, monkeypatch):
    with coordinator(cluster, tmp_path) as c:
        populate(c)

        def crash(position):  # the process dies after the append, before SQLite commits
            raise SystemExit("killed")

        monkeypatch.setattr(c.store, "commit", crash)
        with pytest.raises(SystemExit):
            c.commit_file("late", 1, 100, [batch(P0, 4)])
        monkeypatch.undo()
        c.store.close()
    store = Store(state_file(tmp_path, 0))
    assert store.offsets(T1, 0) == (6, 15)  # SQLite lacks the commit; the topic has it
    store.close()
    with coordinator(cluster, tmp_path) as c:
        assert found(c, 15) == [("late", 15)]
        again = c.store.snapshot()
    with coordinator(cluster, tmp_path) as c:
        assert c.store.snapshot() == again  # not applied twice


def test_a_second_writer_voids_the_stale_ones_batches(cluster, tmp_path):
    with coordinator(cluster, tmp_path / "a") as first:
        populate(first)
        with coordinator(cluster, tmp_path / "b") as second:  # caught up, then writes
            second.commit_file("by-second", 1, 100, [batch(P0, 2)])
        with pytest.raises(TopicError, match="another coordinator wrote"):
            first.commit_file("by-first", 1, 100, [batch(P0, 5)])
        with pytest.raises(OSError, match="restart it"):  # and it writes no more
            first.commit_file("again", 1, 100, [batch(P0, 5)])
    assert end_of_topic(cluster) == 9  # the void batch is in the topic...
    with coordinator(cluster, tmp_path / "fresh") as c:  # ...and skipped by every reader
        assert found(c, 15) == [("by-second", 15)]
    with coordinator(cluster, tmp_path / "a") as first:  # restarted, it catches up and goes on
        assert first.commit_file("by-first", 1, 100, [batch(P0, 5)])[0].assigned_base_offset == 17


def test_the_command_keeps_its_state_in_the_cluster(cluster, tmp_path):
    async def first(call):
        await call.init({T1: 1})
        return await call.commit(1, [entry(T1, 0, "o", count=3)])

    async def second(call):
        return await call.list_offsets([(T1, 0, -1)])

    options = ("--bootstrap", cluster.bootstrap)
    proc, host, port = start_command(tmp_path / "data", *options)
    assert asyncio.run(talk(host, port, first)) == [(0, 0, -1, 0, False)]
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(30) == 0 and proc.stderr.read() == ""
    shutil.rmtree(tmp_path / "data")  # the state comes back from the topic
    proc, host, port = start_command(tmp_path / "data", *options)
    assert asyncio.run(talk(host, port, second)) == [(0, -1, 3)]
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(30) == 0


@pytest.mark.slow  # killed and restarted rounds: about 4 s
def test_sigkill_during_commits_loses_nothing_acknowledged(cluster, tmp_path):
    kill_rounds(tmp_path, rounds=2, seed=3, extra=("--bootstrap", cluster.bootstrap),
                topic=lambda: KafkaTopic(bootstrap(cluster)))  # fmt: skip
