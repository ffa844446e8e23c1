"""Several coordinators in one process (``CoordinatorGroup``): FindCoordinator at any of them names
the coordinator a partition is mapped to, each refuses the partitions it does not own with
NOT_COORDINATOR, commits for several topics land in several coordinators with their own offsets,
logs and SQLite files, and one coordinator restarts while the others serve on."""

from __future__ import annotations

import asyncio
import contextlib

from diskless.helpers import T1, T2
from diskless.wire_client import Caller
from kafka_meta_proto import DISKLESS_REGISTRY
from kafka_meta_proto.client import connect
from kafka_meta_proto.diskless.group import CoordinatorGroup
from kafka_meta_proto.error_codes import ErrorCode as E

PLAIN = (0, -1, -1, -1)


def entry(topic, partition, key, at=0, count=10):
    return (topic, partition, key, at, 100, count, 5, *PLAIN)


@contextlib.asynccontextmanager
async def callers(group: CoordinatorGroup):
    """A Caller per running coordinator, by coordinator."""
    async with contextlib.AsyncExitStack() as stack:
        conns = [await stack.enter_async_context(await connect(host, port, registry=DISKLESS_REGISTRY))
                 for host, port in group.addresses]  # fmt: skip
        yield [Caller(conn) for conn in conns]


def run(coroutine):
    return asyncio.run(asyncio.wait_for(coroutine, 60))


def test_finds_are_routed_by_the_mapping(tmp_path):
    mapping = {T1: {0: 0, 1: 1, 2: 2}}

    async def scenario():
        async with CoordinatorGroup(tmp_path, 3, lambda: mapping, node_ids=lambda c: 10 + c) as group:
            ports = [port for _, port in group.addresses]
            async with callers(group) as call:
                for c in range(3):  # every coordinator answers for every partition alike
                    found = await call[c].find_coordinator([f"write:{T1}:0", f"read:{T1}:1", f"write:{T1}:2"])
                    assert [(node, port) for _, node, _, port in found] == [(10, ports[0]), (11, ports[1]), (12, ports[2])]
                unmapped = await call[0].find_coordinator([f"write:{T1}:3", f"read:{T2}:0"])
                assert [u[0] for u in unmapped] == [E.COORDINATOR_NOT_AVAILABLE] * 2
                mapping[T2] = {0: 2}  # a new mapping is seen at once
                assert (await call[0].find_coordinator([f"read:{T2}:0"]))[0][1] == 12

    run(scenario())


def test_each_coordinator_serves_only_its_partitions(tmp_path):
    mapping = {T1: {0: 0, 1: 1}, T2: {0: 1, 1: 0}}

    async def scenario():
        async with CoordinatorGroup(tmp_path, 2, lambda: mapping) as group:
            async with callers(group) as call:
                for c in range(2):  # a topic lives in each coordinator owning a partition of it
                    assert await call[c].init({T1: 2, T2: 2}) == [0, 0]
                # one object, batches of partitions of both coordinators, sent to coordinator 0
                answers = await call[0].commit(1, [entry(T1, 0, "o1"), entry(T1, 1, "o1", 100), entry(T2, 1, "o1", 200)])
                assert [(a[0], a[1]) for a in answers] == [(0, 0), (E.NOT_COORDINATOR, -1), (0, 0)]
                answers = await call[1].commit(1, [entry(T1, 1, "o2", count=4), entry(T2, 0, "o2", 100, count=7),
                                                   entry(T1, 0, "o2", 200)])  # fmt: skip
                assert [(a[0], a[1]) for a in answers] == [(0, 0), (0, 0), (E.NOT_COORDINATOR, -1)]
                assert await call[1].commit(1, [entry(T1, 1, "o3", count=2)]) == [(0, 4, -1, 0, False)]

                offsets = [(T1, 0, -1), (T1, 1, -1), (T2, 0, -1), (T2, 1, -1)]
                assert await call[0].list_offsets(offsets) == [
                    (0, -1, 10), (E.NOT_COORDINATOR, -1, -1), (E.NOT_COORDINATOR, -1, -1), (0, -1, 10)]  # fmt: skip
                assert await call[1].list_offsets(offsets) == [
                    (E.NOT_COORDINATOR, -1, -1), (0, -1, 6), (0, -1, 7), (E.NOT_COORDINATOR, -1, -1)]  # fmt: skip
                found = await call[1].find([(T1, 0, 0, 1000), (T1, 1, 4, 1000)], 10_000)
                assert [f[:2] for f in found] == [(0, E.NOT_COORDINATOR), (1, 0)]
                assert found[1][4:] == ("o3", 0, 100, 4, 5)
                assert await call[0].delete_records([(T1, 1, 2), (T1, 0, 5)]) == [E.NOT_COORDINATOR, 0]

        for c in range(2):  # each its own log and state
            assert (tmp_path / f"__diskless-metadata-{c}").is_dir()
            assert (tmp_path / f"batch-coordinator-{c}.sqlite").is_file()

    run(scenario())


def test_one_coordinator_restarts_while_the_others_serve(tmp_path):
    mapping = {T1: {0: 0, 1: 1}}

    async def scenario():
        async with CoordinatorGroup(tmp_path, 2, lambda: mapping) as group:
            before = group.addresses
            async with callers(group) as call:
                for c in range(2):
                    await call[c].init({T1: 2})
                await call[0].commit(1, [entry(T1, 0, "a")])
                await call[1].commit(1, [entry(T1, 1, "b", count=3)])
            await group.stop_coordinator(1)
            async with callers(group) as (call0,):
                missing = await call0.find_coordinator([f"write:{T1}:1"])
                assert missing[0][0] == E.COORDINATOR_NOT_AVAILABLE  # not served while it is down
                assert await call0.commit(1, [entry(T1, 0, "c", count=2)]) == [(0, 10, -1, 0, False)]
            await group.start_coordinator(1)
            assert group.addresses == before  # back on its port
            async with callers(group) as call:
                assert await call[1].list_offsets([(T1, 1, -1)]) == [(0, -1, 3)]  # its state kept
                assert await call[1].commit(1, [entry(T1, 1, "d")]) == [(0, 3, -1, 0, False)]
                assert await call[0].list_offsets([(T1, 0, -1)]) == [(0, -1, 12)]
                await group.restart(0)
            async with callers(group) as call:
                assert await call[0].list_offsets([(T1, 0, -1)]) == [(0, -1, 12)]

    run(scenario())
