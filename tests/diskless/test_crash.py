"""Crash safety: a ``batch-coordinator`` process killed with SIGKILL at random moments while
commits stream in comes back, on the same directory, with a state equal to its topic's (the
SQLite file against one rebuilt from the log alone); no acknowledged commit is lost or moved, and
none is applied twice."""

from __future__ import annotations

import asyncio
import random
import shutil
import signal

import pytest

from diskless.helpers import T1
from diskless.test_wire import entry, start_command
from diskless.wire_client import Caller
from kafka_meta_proto import DISKLESS_REGISTRY
from kafka_meta_proto.client import connect
from kafka_meta_proto.diskless import BatchCoordinator
from kafka_meta_proto.diskless.types import FindBatchRequest, TopicIdPartition

PARTITIONS = 3
WRITERS = 4  # concurrent connections committing


async def commit_until_killed(host, port, names, acknowledged, landed):
    """Each writer commits objects one after another until its connection dies; the answers
    that arrived are the acknowledged commits: object key -> [(partition, assigned offset)]."""

    async def writer(n):
        try:
            async with await connect(host, port, client_id=f"w{n}", registry=DISKLESS_REGISTRY) as conn:
                call = Caller(conn)
                while True:
                    key = f"obj-{next(names)}"
                    parts = random.sample(range(PARTITIONS), random.randint(1, PARTITIONS))
                    answers = await call.commit(1, [entry(T1, p, key, at=100 * i, count=1 + i) for i, p in enumerate(parts)])
                    assert all(a[0] == 0 for a in answers), answers
                    acknowledged[key] = [(p, a[1], 1 + i) for i, (p, a) in enumerate(zip(parts, answers))]
                    landed.set()
        except (ConnectionError, OSError, asyncio.IncompleteReadError, EOFError):
            return
        except Exception as e:  # the client's own error for a connection lost mid-call
            if "closed" not in str(e).lower() and "connection" not in str(e).lower():
                raise

    await asyncio.gather(*(writer(n) for n in range(WRITERS)))


def check_state(data, acknowledged, topic=None):
    """The SQLite state equals the log's, and holds every acknowledged commit where it was
    acknowledged, each object once, offsets without gaps. ``topic()``: the log when it is not
    the local one (read by read-only coordinators)."""
    rebuilt = data.parent / (data.name + "-rebuilt")
    shutil.rmtree(rebuilt, ignore_errors=True)
    if topic is None:
        shutil.copytree(data / "__diskless-metadata-0", rebuilt / "__diskless-metadata-0")
    options = {} if topic is None else {"read_only": True}
    with BatchCoordinator(data, topic=topic and topic(), **options) as c, \
            BatchCoordinator(rebuilt, topic=topic and topic(), **options) as from_log:  # fmt: skip
        assert c.store.snapshot() == from_log.store.snapshot()
        seen = {}
        for p in range(PARTITIONS):
            found = c.find_batches([FindBatchRequest(TopicIdPartition(T1, p), 0, 1 << 30)], 1 << 30)[0]
            expect = 0
            for info in found.batches:
                assert info.metadata.base_offset == expect  # gap-free, unique
                expect = info.metadata.last_offset + 1
                seen.setdefault(info.object_key, []).append(
                    (p, info.metadata.base_offset, info.metadata.last_offset - info.metadata.base_offset + 1))
            assert expect == found.high_watermark
    for key, batches in acknowledged.items():
        assert sorted(seen.get(key, [])) == sorted(batches), key  # not lost, not moved, not doubled
    shutil.rmtree(rebuilt)


def kill_rounds(tmp_path, rounds, seed, extra=(), topic=None):
    """``extra``: the command's options for a log elsewhere, ``topic``: that log (check_state)."""
    random.seed(seed)
    data = tmp_path / "coordinator"
    acknowledged: dict = {}
    names = iter(range(1 << 30))
    proc, host, port = start_command(data, *extra)

    async def init():
        async with await connect(host, port, client_id="init", registry=DISKLESS_REGISTRY) as conn:
            assert await Caller(conn).init({T1: PARTITIONS}) == [0]

    asyncio.run(init())
    for _ in range(rounds):

        async def round_():
            landed = asyncio.Event()  # the kill comes at a random moment after commits flow
            work = asyncio.ensure_future(commit_until_killed(host, port, names, acknowledged, landed))
            await asyncio.wait_for(landed.wait(), 60)
            await asyncio.sleep(random.uniform(0, 0.3))
            proc.send_signal(signal.SIGKILL)
            await asyncio.wait_for(work, 30)

        asyncio.run(round_())
        assert proc.wait(30) == -signal.SIGKILL
        proc.stdout.close()
        proc.stderr.close()
        check_state(data, acknowledged, topic)
        proc, host, port = start_command(data, *extra)
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(30) == 0
    assert len(acknowledged) > rounds  # commits did land between the kills
    check_state(data, acknowledged, topic)


def test_sigkill_during_commits_loses_nothing_acknowledged(tmp_path):
    kill_rounds(tmp_path, rounds=2, seed=1)


@pytest.mark.slow
def test_sigkill_during_commits_at_length(tmp_path):
    kill_rounds(tmp_path, rounds=25, seed=2)
