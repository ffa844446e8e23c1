"""The fake cluster's broker answers any well-formed request of any API it serves, whatever its
values, without a handler failing (a failing handler is logged; where the response has no error
code the connection is closed): Kafka's broker answers such requests with error codes. The same
requests also go through the proxy before it, passing bodies unread and decoding them for its
log: it must relay every one without an error of its own.

Requests are drawn by ``kafka_meta_proto.strategies`` at a version the broker serves, then
steered so that they reach past the first checks: names, ids and partitions point at the one
topic the cluster has, groups at a few ids, and every wait is short, so that long polls and
rebalances end within the example. Each request goes on a connection of its own."""

from __future__ import annotations

import asyncio
import dataclasses
import io
import logging

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kafka_meta_proto import message_class
from kafka_meta_proto.client import ConnectionClosed, connect
from kafka_meta_proto.messages import REGISTRY
from kafka_meta_proto.strategies import messages
from kafka_meta_proto.proxy import Proxy
from kafka_meta_proto.testing.threaded import CALL_TIMEOUT, RunningCluster

pytestmark = pytest.mark.timeout(300)
TOPIC = "t"
PARTITIONS = 3
ANSWER_WITHIN = 10.0  # seconds: every wait below is steered under a second
# fields that name the topic, by their names in Kafka's schemas
TOPIC_NAMES = {"name", "topic", "topic_name"}
GROUPS = {"group_id", "group_instance_id", "transactional_id"}
WAITS = {"max_wait_ms", "timeout_ms", "session_timeout_ms", "rebalance_timeout_ms",
         "transaction_timeout_ms"}  # fmt: skip
ApiVersionsRequest = message_class("ApiVersionsRequest")


@pytest.fixture(scope="module", params=["broker", "passing proxy", "logging proxy"])
def cluster(request):
    """The running cluster, with ``target``: its broker's address, or a proxy's before it."""
    with RunningCluster(brokers=1) as running:
        running.create_topic(TOPIC, partitions=PARTITIONS)
        if request.param == "broker":
            running.target = running.addresses[0]
            yield running
            return
        log = io.StringIO() if request.param == "logging proxy" else None
        proxy = Proxy(("127.0.0.1", 0), running.addresses[0], log=log)
        on_its_loop = running._loop  # the proxy runs beside the cluster, on its thread
        asyncio.run_coroutine_threadsafe(proxy.start(), on_its_loop).result(CALL_TIMEOUT)
        running.target = proxy.address
        yield running
        asyncio.run_coroutine_threadsafe(proxy.close(), on_its_loop).result(CALL_TIMEOUT)


@pytest.fixture(scope="module")
def served(cluster):
    """(request class, versions) of every API the broker serves, from its ApiVersions answer."""

    async def ask():
        async with await connect(*cluster.target) as conn:
            return await conn.send(ApiVersionsRequest(), 3)

    answer = asyncio.run(ask())
    found = []
    for key in answer.api_keys:
        cls = REGISTRY.request_class(key.api_key)
        versions = [v for v in range(key.min_version, key.max_version + 1) if v in cls.versions()]
        if versions:
            found.append((cls, versions))
    return found


def _steer(value, version, data, topic_id) -> None:
    """Point a drawn request at the cluster's topic and a few groups; make every wait short
    (fields the version has, only)."""
    if not dataclasses.is_dataclass(value):
        return
    for f in type(value)._FIELDS:
        if not f.present(version):
            continue
        item = getattr(value, f.name)
        if f.name in TOPIC_NAMES and isinstance(item, str):
            setattr(value, f.name, data.draw(st.sampled_from([TOPIC, TOPIC, item])))
        elif f.name == "topic_id":
            setattr(value, f.name, data.draw(st.sampled_from([topic_id, topic_id, item])))
        elif f.name in ("partition_index", "partition", "index"):
            setattr(value, f.name, data.draw(st.integers(-1, PARTITIONS)))
        elif f.name in GROUPS and isinstance(item, str):
            setattr(value, f.name, data.draw(st.sampled_from(["g", "h", item])))
        elif f.name in WAITS:
            setattr(value, f.name, data.draw(st.integers(-1, 500)))
        elif f.name == "acks":  # acks=0 has no answer to wait for
            setattr(value, f.name, data.draw(st.sampled_from([-1, 1])))
        elif isinstance(item, list):
            for element in item:
                _steer(element, version, data, topic_id)


@settings(max_examples=100, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])  # fmt: skip
@given(data=st.data())
def test_any_request_is_answered_without_a_handler_failing(cluster, served, caplog, data):
    cls, versions = data.draw(st.sampled_from(served), label="api")
    version = data.draw(st.sampled_from(versions), label="version")
    request = data.draw(messages(cls, version))
    if cluster.image.topic(TOPIC) is None:  # an earlier example deleted it
        cluster.create_topic(TOPIC, partitions=PARTITIONS)
    _steer(request, version, data, cluster.image.topic(TOPIC).id)
    caplog.clear()

    async def send():
        async with await connect(*cluster.target) as conn:
            try:
                return await asyncio.wait_for(conn.send(request, version), ANSWER_WITHIN)
            except ConnectionClosed:
                return None  # Kafka too closes some connections (checked in the log below)

    with caplog.at_level(logging.WARNING, logger="kafka_meta_proto"):
        answer = asyncio.run(send())
    failures = [
        r.getMessage()
        for r in caplog.records
        if r.levelno >= logging.ERROR or "failed" in r.getMessage()
    ]
    assert not failures, (version, request, failures)
    if answer is not None:
        assert type(answer).__name__ == cls.__name__.replace("Request", "Response")
