"""The ``batch-coordinator`` command with its partition in a real Kafka cluster (``--bootstrap``):
it creates ``__diskless-metadata``, commits there, and comes back with its state after a restart
on the same directory and after losing the directory (rebuilt from the topic)."""

from __future__ import annotations

import asyncio
import shutil
import signal

import pytest

from diskless.helpers import T1
from diskless.test_wire import entry, start_command
from diskless.wire_client import Caller
from kafka_meta_proto import DISKLESS_REGISTRY
from kafka_meta_proto.client import connect, sync
from kafka_meta_proto.diskless.topic_log import TOPIC
from kafka_meta_proto.messages import DescribeConfigsRequest

pytestmark = [pytest.mark.cluster, pytest.mark.slow]  # a real Kafka cluster


def talk(host, port, work):
    async def call():
        async with await connect(host, port, client_id="t", registry=DISKLESS_REGISTRY) as conn:
            return await work(Caller(conn))

    return asyncio.run(asyncio.wait_for(call(), 120))


def stop(proc):
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(60) == 0, proc.stderr.read()


def topic_configs(cluster):
    resource = DescribeConfigsRequest.DescribeConfigsResource(resource_type=2, resource_name=TOPIC)
    with sync.connect(*cluster.bootstrap[0]) as conn:
        answer = conn.send(DescribeConfigsRequest(resources=[resource]))
    return {c.name: c.value for c in answer.results[0].configs}


def test_commit_restart_and_find_with_the_topic_in_kafka(cluster, tmp_path):
    async def commit(call):
        assert await call.init({T1: 1}) == [0]
        return await call.commit(1, [entry(T1, 0, "o1", count=3), entry(T1, 0, "o2", at=300, count=4)])

    async def find(call):
        return await call.find([(T1, 0, 3, 1 << 20)], 1 << 20)

    bootstrap = ",".join(f"{host}:{port}" for host, port in cluster.bootstrap)
    proc, host, port = start_command(tmp_path / "data", "--bootstrap", bootstrap)
    assert [a[:2] for a in talk(host, port, commit)] == [(0, 0), (0, 3)]
    stop(proc)
    configs = topic_configs(cluster)
    assert (configs["cleanup.policy"], configs["retention.ms"], configs["min.insync.replicas"]) == ("delete", "-1", "1")
    expected = [(0, 0, 0, 7, "o2", 300, 100, 3, 6)]  # partition, error, log start, high watermark, the batch
    for lose_data in (False, True):
        if lose_data:
            shutil.rmtree(tmp_path / "data")
        proc, host, port = start_command(tmp_path / "data", "--bootstrap", bootstrap)
        assert talk(host, port, find) == expected
        stop(proc)
