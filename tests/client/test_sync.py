"""The synchronous facade from plain code, against a loopback broker served from a thread of
its own."""

from __future__ import annotations

import asyncio
import threading

import pytest

from client.loopback import LoopbackBroker, answer_with
from kafka_meta_proto import message_class
from kafka_meta_proto.client import RequestTimedOut, sync

MetadataRequest = message_class("MetadataRequest")
MetadataResponse = message_class("MetadataResponse")


@pytest.fixture
def broker():
    """A loopback broker answering Metadata (cluster id "sync", brokers: itself) from a thread."""
    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()

    def metadata(event):
        if event.body.topics and event.body.topics[0].name == "slow":
            return None  # never answered
        me = MetadataResponse.MetadataResponseBroker(node_id=1, host="127.0.0.1", port=running.port)
        return MetadataResponse(cluster_id="sync", brokers=[me], controller_id=1)

    running = LoopbackBroker({3: answer_with(metadata)})
    asyncio.run_coroutine_threadsafe(running.__aenter__(), loop).result(10)
    yield running
    asyncio.run_coroutine_threadsafe(running.__aexit__(), loop).result(10)
    loop.call_soon_threadsafe(loop.stop)
    thread.join(10)


def test_sync_connection(broker):
    with sync.connect("127.0.0.1", broker.port, timeout=5) as conn:
        assert conn.api_versions[3][1] == MetadataRequest.versions()[-1]
        assert conn.send(MetadataRequest(topics=None)).cluster_id == "sync"
        exchange = conn.exchange(MetadataRequest(topics=None), 9)
        assert exchange.api_version == 9 and exchange.body.cluster_id == "sync"
        slow = MetadataRequest(topics=[MetadataRequest.MetadataRequestTopic(name="slow")])
        with pytest.raises(RequestTimedOut):
            conn.send(slow, timeout=0.1)
    with pytest.raises(RuntimeError, match="closed"):
        conn.send(MetadataRequest(topics=None))


def test_sync_cluster(broker):
    with sync.Cluster([("127.0.0.1", broker.port)], timeout=5) as cluster:
        assert list(cluster.brokers) == [1]
        assert cluster.send(MetadataRequest(topics=None)).controller_id == 1


def test_a_failed_connect_leaves_no_thread_behind():
    before = threading.active_count()
    with pytest.raises(OSError):
        sync.connect("127.0.0.1", 1, timeout=5)
    assert threading.active_count() == before
