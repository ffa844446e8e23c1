"""Several coordinators on the fake cluster (``FakeCluster(diskless=True, coordinators=P)``): the
partitions mapped through the controller (AssignPartitionToBatchCoordinator), FindCoordinator
answered from a broker's image, commits for several topics in several coordinators, one
coordinator restarted, and ``fake-cluster --diskless``."""

from __future__ import annotations

import asyncio
import contextlib
import signal
import subprocess
import sys

import pytest

from diskless.wire_client import Caller
from kafka_meta_proto import DISKLESS_REGISTRY
from kafka_meta_proto.client import connect
from kafka_meta_proto.error_codes import ErrorCode as E
from kafka_meta_proto.kraft.image import MetadataImage
from kafka_meta_proto.testing.cluster import FakeCluster
from kafka_meta_proto.testing.diskless import DisklessError

PLAIN = (0, -1, -1, -1)


def entry(topic, partition, key, at=0, count=10):
    return (topic, partition, key, at, 100, count, 5, *PLAIN)


def run(coroutine):
    return asyncio.run(asyncio.wait_for(coroutine, 120))


@contextlib.asynccontextmanager
async def caller(address):
    async with await connect(*address, registry=DISKLESS_REGISTRY) as conn:
        yield Caller(conn)


async def route(cluster, topic, partition) -> tuple[str, int]:
    """Where a ``write:`` key for the partition leads, asked at coordinator 0 as a broker would."""
    async with caller(cluster.coordinators.addresses[0]) as call:
        ((error, _, host, port),) = await call.find_coordinator([f"write:{topic}:{partition}"])
    assert error == 0
    return host, port


def test_mapping_routing_commits_and_a_restart(tmp_path):
    async def scenario():
        async with FakeCluster(brokers=2, data_dir=tmp_path, diskless=True, coordinators=3) as cluster:
            group = cluster.coordinators
            assert len(cluster.image.topic("__diskless-metadata").partitions) == 3
            events = await cluster.create_diskless_topic("events", partitions=4)
            clicks = await cluster.create_diskless_topic("clicks", partitions=2)
            for broker in cluster.brokers.values():  # every broker's image has the mapping
                assert broker.image.diskless == {events: {0: 0, 1: 1, 2: 2, 3: 0}, clicks: {0: 0, 1: 1}}
            await cluster.assign_coordinators("clicks", {1: 2})  # moved through the controller
            assert cluster.image.diskless[clicks] == {0: 0, 1: 2}

            addresses = group.addresses
            routed = {(t, p): await route(cluster, t, p) for t, n in ((events, 4), (clicks, 2)) for p in range(n)}
            assert routed == {(events, 0): addresses[0], (events, 1): addresses[1], (events, 2): addresses[2],
                              (events, 3): addresses[0], (clicks, 0): addresses[0], (clicks, 1): addresses[2]}  # fmt: skip

            # each batch sent where FindCoordinator leads; a second round continues the offsets
            for round_ in range(2):
                for (topic, partition), address in routed.items():
                    async with caller(address) as call:
                        answer = await call.commit(0, [entry(topic, partition, f"{topic}-{partition}-{round_}")])
                    assert answer[0][:2] == (0, 10 * round_)
            async with caller(addresses[1]) as call:  # the wrong coordinator for events-0
                assert (await call.commit(0, [entry(events, 0, "x")]))[0][0] == E.NOT_COORDINATOR
                assert (await call.list_offsets([(events, 0, -1)]))[0][0] == E.NOT_COORDINATOR

            # the coordinators' state changes are in the cluster's topic, not beside their SQLite:
            # coordinator 2 restarted without its SQLite file rebuilds its state from there
            state = tmp_path / "diskless"
            assert not list(state.glob("__diskless-metadata-*"))
            assert sorted(p.parent.name for p in tmp_path.glob("broker-*/__diskless-metadata-2"))
            await group.stop_coordinator(2)
            sqlite_files = list(state.glob("batch-coordinator-2.sqlite*"))
            assert sqlite_files
            for path in sqlite_files:
                path.unlink()
            await group.start_coordinator(2)
            assert group.addresses == addresses
            async with caller(addresses[2]) as call:
                assert await call.list_offsets([(events, 2, -1), (clicks, 1, -1)]) == [(0, -1, 20), (0, -1, 20)]
                assert (await call.commit(0, [entry(clicks, 1, "after")]))[0][:2] == (0, 20)

            await cluster.create_topic("plain")
            with pytest.raises(DisklessError, match="INVALID_TOPIC_EXCEPTION"):  # not diskless
                await cluster.assign_coordinators("plain", {0: 0})
        # the controller's log, read as the tools read it (its registry marker): the mappings
        image = MetadataImage.from_log_dir(tmp_path / "controller" / "__cluster_metadata-0")
        assert image.diskless == {events: {0: 0, 1: 1, 2: 2, 3: 0}, clicks: {0: 0, 1: 2}}

    run(scenario())


def test_a_cluster_without_diskless_has_no_coordinators():
    async def scenario():
        async with FakeCluster(brokers=1) as cluster:
            with pytest.raises(RuntimeError, match="diskless"):
                cluster.coordinators
            assert cluster.image.topic("__diskless-metadata") is None

    run(scenario())


@pytest.mark.timeout(120)
def test_the_command_prints_the_coordinators_second():
    process = subprocess.Popen([sys.executable, "-m", "kafka_meta_proto.cli", "fake-cluster", "--brokers", "1",
                                "--diskless", "--coordinators", "2"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip
    try:
        process.stdout.readline()  # the bootstrap servers
        coordinators = [(host, int(port)) for host, _, port in
                        (part.rpartition(":") for part in process.stdout.readline().strip().split(","))]  # fmt: skip

        async def ask():
            async with caller(coordinators[1]) as call:
                return await call.find_coordinator(["write:AAAAAAAAAAAAAAAAAAAAAA:0"])

        assert len(coordinators) == 2
        assert asyncio.run(ask())[0][0] == E.COORDINATOR_NOT_AVAILABLE  # nothing mapped yet
    finally:
        process.send_signal(signal.SIGTERM)
        out, err = process.communicate(timeout=60)
    assert process.returncode == 0, err
    assert out == ""
