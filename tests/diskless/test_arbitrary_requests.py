"""Any well-formed request of the RPCs 93-98, whatever its values, is answered with a response of
its own kind carrying per-entry error codes, and the connection stays open: no handler fails on
it (a failing handler is logged and answered UNKNOWN_SERVER_ERROR, which would be a bug here).

Requests are drawn by ``kafka_meta_proto.strategies``, then steered so that they reach past the
first checks: most topic ids become a known topic's, partition indexes and object keys are drawn
from a few, so that draws hit real partitions, commit the same key twice, and so on. Each example
sends a few requests in a row to one coordinator, so later ones see what earlier ones changed."""

from __future__ import annotations

import asyncio
import dataclasses
import logging

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from diskless.helpers import T1, T2
from diskless.wire_client import served
from kafka_meta_proto import DISKLESS_REGISTRY
from kafka_meta_proto.diskless import BatchCoordinator
from kafka_meta_proto.error_codes import ErrorCode as E
from kafka_meta_proto.strategies import messages

RPCS = [DISKLESS_REGISTRY.request_class(key) for key in range(93, 99)]
PARTITIONS = 3  # the known topic's partitions; drawn indexes go one past them
KEYS = ["a", "b", ""]


def _steer(value, data) -> None:
    """Point a drawn request's topic ids, partitions and object keys at a few known values."""
    if not dataclasses.is_dataclass(value):
        return
    for f in dataclasses.fields(value):
        item = getattr(value, f.name)
        if f.name == "topic_id":
            setattr(value, f.name, data.draw(st.sampled_from([T1, T1, T1, T2, item])))
        elif f.name == "partition_index":
            setattr(value, f.name, data.draw(st.integers(-1, PARTITIONS)))
        elif f.name == "object_key":
            setattr(value, f.name, data.draw(st.sampled_from(KEYS)))
        elif isinstance(item, list):
            for element in item:
                _steer(element, data)


def _error_codes(value):
    """Every error code in an answer, at any depth."""
    if not dataclasses.is_dataclass(value):
        return
    for f in dataclasses.fields(value):
        item = getattr(value, f.name)
        if f.name == "error_code":
            yield item
        elif isinstance(item, list):
            for element in item:
                yield from _error_codes(element)


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_any_request_is_answered_with_codes_and_the_connection_stays(
    tmp_path_factory, caplog, data
):
    requests = data.draw(st.lists(st.sampled_from(RPCS), min_size=1, max_size=5))
    drawn = []
    for cls in requests:
        request = data.draw(messages(cls, 0))
        _steer(request, data)
        drawn.append(request)
    caplog.clear()

    async def scenario():
        with BatchCoordinator(tmp_path_factory.mktemp("c")) as coordinator:
            async with served(coordinator) as (call, _):
                assert await call.init({T1: PARTITIONS}) == [0]
                for request in drawn:
                    answer = await call.conn.send(request, 0)
                    assert type(answer).__name__ == type(request).__name__.replace(
                        "Request", "Response"
                    )
                    codes = list(_error_codes(answer))
                    assert E.UNKNOWN_SERVER_ERROR not in codes, (request, answer)
                    assert all(
                        code in E._value2member_map_ for code in codes
                    ), codes  # Kafka's codes only
                # the connection still serves
                assert len(await call.list_offsets([(T1, 0, -2)])) == 1

    with caplog.at_level(logging.WARNING, logger="kafka_meta_proto.server"):
        asyncio.run(scenario())
    assert not caplog.records, [r.getMessage() for r in caplog.records]
