"""The pytest fixtures of the in-process cluster, found by pytest through the package's
``pytest11`` entry point once the package is installed:

- ``fake_kafka``: a started 3-broker ``RunningCluster`` (synchronous calls, any client), stopped
  after the test;
- ``fake_kafka_factory``: ``fake_kafka_factory(brokers=1, **options)`` starts one with the
  options of ``FakeCluster``; every cluster it started is stopped after the test.

Each cluster keeps its logs in the test's own temporary directory, so a failing test leaves them
to look at (``kafka-meta-proto dump-log``, or Kafka's own tools).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:  # imported when a fixture is used: pytest loads this module in every session
    from .threaded import RunningCluster


@pytest.fixture
def fake_kafka_factory(tmp_path: Path) -> Iterator[Callable[..., RunningCluster]]:
    """Start in-process Kafka clusters: ``fake_kafka_factory(brokers=3, **FakeCluster options)``;
    each is stopped after the test."""
    from .threaded import RunningCluster

    started: list[RunningCluster] = []

    def start(brokers: int = 3, **options: Any) -> RunningCluster:
        options.setdefault("data_dir", tmp_path / f"fake-kafka-{len(started)}")
        cluster = RunningCluster(brokers=brokers, **options)
        cluster.start()
        started.append(cluster)
        return cluster

    yield start
    for cluster in reversed(started):
        cluster.stop()


@pytest.fixture
def fake_kafka(fake_kafka_factory: Callable[..., RunningCluster]) -> RunningCluster:
    """A started in-process Kafka cluster of 3 brokers (``.bootstrap`` for clients)."""
    return fake_kafka_factory()
