"""Property tests over every message and every version, with the strategies we ship.

The default run takes every message at its lowest and highest version and at its first flexible
one (where the encoding changes most); the other versions run under ``-m slow``."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings

from conftest import shipped_class, shipped_names
from kafka_meta_proto.strategies import messages

def sampled_versions(cls) -> set[int]:
    versions = list(cls.versions())
    flexible = [v for v in versions if cls.is_flexible(v)]
    return {versions[0], versions[-1], *flexible[:1]}


CASES = [
    pytest.param(
        name, v, id=f"{name}-v{v}", marks=() if v in sampled_versions(shipped_class(name)) else pytest.mark.slow
    )
    for name in shipped_names()
    for v in shipped_class(name).versions()
]


@pytest.mark.parametrize("name,version", CASES)
def test_round_trip(name: str, version: int):
    cls = shipped_class(name)

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
