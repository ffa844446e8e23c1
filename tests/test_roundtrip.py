"""Property tests over every message and every version, with the strategies we ship."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings

from kafka_meta_proto import REGISTRY, message_class
from kafka_meta_proto.strategies import messages

CASES = [
    pytest.param(name, v, id=f"{name}-v{v}")
    for name in REGISTRY.names()
    for v in message_class(name).versions()
]


@pytest.mark.parametrize("name,version", CASES)
def test_round_trip(name: str, version: int):
    cls = message_class(name)

    @settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    @given(messages(cls, version))
    def check(msg):
        data = msg.encode(version)
        assert msg.size(version) == len(data)
        back = cls.decode(data, version)
        assert back == msg
        assert back.encode(version) == data
        assert cls.from_json(msg.to_json(version), version) == msg

    check()
