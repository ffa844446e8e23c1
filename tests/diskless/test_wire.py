"""The coordinator over the wire: FindCoordinator v7 with BATCH keys, the RPCs 93-98, bad requests
answered with per-partition codes on a connection that stays open, a read-only coordinator, and
the ``batch-coordinator`` command (its first line, a restart on the same directory, SIGTERM)."""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys

from diskless.helpers import T1, T2, Clock
from diskless.wire_client import served, talk
from kafka_meta_proto.diskless import BatchCoordinator
from kafka_meta_proto.diskless.service import Node, parse_batch_key
from kafka_meta_proto.error_codes import ErrorCode as E

PLAIN = (0, -1, -1, -1)  # create time, no producer: (ts type, producer id, epoch, base sequence)


def entry(topic, partition, key, at=0, size=100, count=10, ts=5, plain=PLAIN):
    return (topic, partition, key, at, size, count, ts, *plain)


def test_a_commit_a_find_and_the_offsets(tmp_path):
    async def scenario():
        with BatchCoordinator(tmp_path, clock=Clock(1000)) as c:
            async with served(c) as (call, _):
                assert await call.init({T1: 2}) == [0]
                assert await call.commit(3, [entry(T1, 0, "o", 0), entry(T1, 1, "o", 100, count=4), entry(T1, 0, "o", 200, count=2)]) == [
                    (0, 0, -1, 0, False), (0, 0, -1, 0, False), (0, 10, -1, 0, False)]  # fmt: skip
                found = await call.find([(T1, 0, 0, 1000), (T1, 1, 4, 1000)], 10_000)
                assert found == [(0, 0, 0, 12, "o", 0, 100, 0, 9), (0, 0, 0, 12, "o", 200, 100, 10, 11),
                                 (1, 0, 0, 4, "", -1, -1, -1, -1)]  # fmt: skip
                assert await call.list_offsets([(T1, 0, -2), (T1, 0, -1), (T1, 0, 3)]) == [(0, -1, 0), (0, -1, 12), (0, 5, 0)]
                assert await call.delete_records([(T1, 0, 10)]) == [0]
                assert await call.delete_topics([T1]) == [0]
                assert await call.find([(T1, 0, 0, 100)], 100) == [(0, E.UNKNOWN_TOPIC_ID, -1, -1, "", -1, -1, -1, -1)]

    asyncio.run(scenario())


def test_bad_requests_get_per_partition_codes_and_the_connection_stays(tmp_path):
    async def scenario():
        with BatchCoordinator(tmp_path) as c:
            async with served(c) as (call, _):
                await call.init({T1: 1})
                assert await call.init({T2: -1}) == [E.INVALID_PARTITIONS]
                answers = await call.commit(1, [entry(T2, 0, "o"), entry(T1, 5, "o"), entry(T1, 0, "o", size=-5),
                                                entry(T1, 0, "o", at=-1), entry(T1, 0, "o", count=0), entry(T1, 0, "o")])  # fmt: skip
                assert [a[0] for a in answers] == [E.UNKNOWN_TOPIC_ID, E.UNKNOWN_TOPIC_OR_PARTITION,
                                                   E.INVALID_REQUEST, E.INVALID_REQUEST, E.INVALID_REQUEST, 0]  # fmt: skip
                found = await call.find([(T1, 0, 11, 100), (T1, 0, -1, 100), (T1, 0, 0, -1), (T2, 0, 0, 1)], 100)
                assert [f[1] for f in found] == [E.OFFSET_OUT_OF_RANGE, E.OFFSET_OUT_OF_RANGE, E.INVALID_REQUEST, E.UNKNOWN_TOPIC_ID]
                assert await call.delete_records([(T1, 0, 11), (T1, 0, -2), (T2, 0, 0)]) == [
                    E.OFFSET_OUT_OF_RANGE, E.OFFSET_OUT_OF_RANGE, E.UNKNOWN_TOPIC_ID]  # fmt: skip
                assert await call.list_offsets([(T2, 0, -1), (T1, 0, -9)]) == [(E.UNKNOWN_TOPIC_ID, -1, -1), (E.UNSUPPORTED_VERSION, -1, -1)]
                assert await call.delete_topics([T2]) == [E.UNKNOWN_TOPIC_ID]
                assert await call.list_offsets([(T1, 0, -1)]) == [(0, -1, 10)]  # still served

    asyncio.run(scenario())


def test_find_coordinator_with_batch_keys(tmp_path):
    async def scenario():
        with BatchCoordinator(tmp_path / "leader") as leader:
            async with served(leader) as (call, service):
                host, port = service.server.addresses[0]
                write, read = f"write:{T1}:0", f"read:{T1}:3"
                assert await call.find_coordinator([write, read]) == [(0, 1, host, port)] * 2
                bad = await call.find_coordinator(["write:x", f"delete:{T1}:0", f"read:{T1}:-1", f"read:{T1}:x"])
                assert [b[0] for b in bad] == [E.INVALID_REQUEST] * 4
                # as Kafka's broker answers a share key below v6, and a key type it does not know
                assert (await call.find_coordinator([write], version=6))[0][0] == E.INVALID_REQUEST
                assert (await call.find_coordinator([write], key_type=4))[0][0] == E.INVALID_REQUEST
                assert (await call.find_coordinator([write], key_type=-1))[0][0] == E.INVALID_REQUEST
                assert (await call.find_coordinator(["group"], key_type=0))[0][0] == E.COORDINATOR_NOT_AVAILABLE
                with BatchCoordinator(tmp_path / "replica", follow=tmp_path / "leader") as replica:
                    async with served(replica, leader=Node(1, host, port)) as (rcall, rservice):
                        rhost, rport = rservice.server.addresses[0]
                        assert await rcall.find_coordinator([write, read]) == [(0, 1, host, port), (0, 1, rhost, rport)]
                    async with served(replica) as (rcall, _):  # a replica not told of its leader
                        assert (await rcall.find_coordinator([write]))[0][0] == E.COORDINATOR_NOT_AVAILABLE

    asyncio.run(scenario())


def test_a_read_only_coordinator_serves_reads_and_refuses_writes_with_not_coordinator(tmp_path):
    async def scenario():
        with BatchCoordinator(tmp_path / "leader") as leader, BatchCoordinator(tmp_path / "r", follow=tmp_path / "leader") as replica:
            async with served(leader) as (call, _), served(replica) as (rcall, _):
                await call.init({T1: 1})
                await call.commit(1, [entry(T1, 0, "o")])
                assert (await rcall.find([(T1, 0, 0, 100)], 100))[0][4] == "o"
                assert await rcall.list_offsets([(T1, 0, -1)]) == [(0, -1, 10)]
                assert await rcall.init({T2: 1}) == [E.NOT_COORDINATOR]
                assert [a[0] for a in await rcall.commit(1, [entry(T1, 0, "p")])] == [E.NOT_COORDINATOR]
                assert await rcall.delete_records([(T1, 0, 5)]) == [E.NOT_COORDINATOR]
                assert await rcall.delete_topics([T1]) == [E.NOT_COORDINATOR]
                assert await call.list_offsets([(T1, 0, -1)]) == [(0, -1, 10)]

    asyncio.run(scenario())


def test_parse_batch_key():
    assert parse_batch_key(f"write:{T1}:7") == ("write", T1, 7)


def start_command(data, *extra):
    proc = subprocess.Popen(
        [sys.executable, "-m", "kafka_meta_proto.cli", "batch-coordinator", "--listen", "127.0.0.1:0",
         "--data", str(data), *extra], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    host, port = proc.stdout.readline().strip().rsplit(":", 1)
    return proc, host, int(port)


def test_the_command_keeps_its_state_across_restarts_and_stops_on_sigterm(tmp_path):
    async def first(call):
        await call.init({T1: 1})
        return await call.commit(1, [entry(T1, 0, "o", count=3)])

    async def second(call):
        return await call.list_offsets([(T1, 0, -1)]), await call.find_coordinator([f"write:{T1}:0"])

    proc, host, port = start_command(tmp_path)
    assert asyncio.run(talk(host, port, first)) == [(0, 0, -1, 0, False)]
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(30) == 0 and proc.stderr.read() == ""
    proc, host, port = start_command(tmp_path, "--node-id", "5")
    offsets, coordinator = asyncio.run(talk(host, port, second))
    assert offsets == [(0, -1, 3)] and coordinator == [(0, 5, host, port)]
    proc.send_signal(signal.SIGINT)  # Ctrl-C
    assert proc.wait(30) == 0
