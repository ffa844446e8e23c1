"""Kafka itself in the test loop: one oracle process per Kafka release line, started on first use.

Without Java, Maven or Kafka's jars these tests skip and say which piece is missing; under
KAFKA_META_PROTO_REQUIRE_KAFKA=1 (CI) a missing piece fails them instead."""

from __future__ import annotations

import sys

import pytest

from conftest import ROOT, need_kafka

sys.path.insert(0, str(ROOT / "tools"))
import kafka_oracle  # noqa: E402

RELEASES = kafka_oracle.releases()


class Oracles:
    """The running oracles of this test session, by release."""

    def __init__(self):
        self._running: dict[str, kafka_oracle.Oracle] = {}
        self._defined: dict[str, dict[str, range]] = {}

    def get(self, release: str) -> kafka_oracle.Oracle:
        if release not in self._running:
            need_kafka(release)
            self._running[release] = kafka_oracle.Oracle(release)
        return self._running[release]

    def defined(self, release: str) -> dict[str, range]:
        """The messages Kafka ``release`` defines, with their versions."""
        if release not in self._defined:
            self._defined[release] = self.get(release).messages()
        return self._defined[release]

    def close(self) -> None:
        for oracle in self._running.values():
            oracle.close()


@pytest.fixture(scope="session")
def oracles():
    running = Oracles()
    yield running
    running.close()
