"""Real Kafka clusters for the tests, started once for this folder from Kafka's published jars:
the newest 4.x release as one controller and two brokers (separate processes), and a single
combined node of the 3.9 line for the versions Kafka 4.0 removed.

They skip naming the missing piece when Java or Kafka's jars are absent, and fail instead under
KAFKA_META_PROTO_REQUIRE_KAFKA=1. Node logs stay in pytest's temporary directory; a failing test's
report names it."""

from __future__ import annotations

import sys

import pytest

from conftest import ROOT, need_kafka

sys.path.insert(0, str(ROOT / "tools"))
import kafka_cluster  # noqa: E402
import kafka_shell  # noqa: E402
import kafka_oracle  # noqa: E402
from cluster import helpers  # noqa: E402  (it imports kafka_cluster)

NEWEST, OLDEST = kafka_oracle.releases()[-1], kafka_oracle.releases()[0]
STARTED: list[kafka_cluster.KafkaCluster] = []


def _start(tmp_path_factory, release: str, combined: bool) -> kafka_cluster.KafkaCluster:
    need_kafka(release)
    workdir = tmp_path_factory.mktemp(f"kafka-{release}")
    # Small segments and snapshot thresholds, so a short test session rolls and snapshots the log.
    settings = {
        "metadata.log.segment.bytes": str(8 << 20),
        "metadata.log.max.record.bytes.between.snapshots": "20000",
    }
    cluster = kafka_cluster.KafkaCluster(release, workdir, combined=combined, settings=settings)
    STARTED.append(cluster)
    cluster.start()
    return cluster


# Package scope: the clusters stop when the tests of this folder are done, not at the session's end.
@pytest.fixture(scope="package")
def cluster(tmp_path_factory):
    """Kafka NEWEST: controller 1, brokers 2 and 3."""
    running = _start(tmp_path_factory, NEWEST, combined=False)
    yield running
    running.stop()


@pytest.fixture(scope="package")
def old_cluster(tmp_path_factory):
    """Kafka OLDEST (3.9 line): node 1, controller and broker at once."""
    running = _start(tmp_path_factory, OLDEST, combined=True)
    yield running
    running.stop()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.failed and STARTED:
        report.sections.append(
            ("Kafka logs", "\n".join(f"Kafka {c.release}: {c.workdir}" for c in STARTED))
        )


def pytest_terminal_summary(terminalreporter):
    for c in STARTED:
        if c.startup_seconds:
            terminalreporter.write_line(
                f"Kafka {c.release} cluster ({len(c.nodes)} node(s)) started in {c.startup_seconds:.1f} s; logs in {c.workdir}"
            )
    exchanged = helpers.EXCHANGED
    if exchanged:
        by_api = ", ".join(f"{name.removesuffix('Request')} v{version}: {count}"
                           for (name, version), count in sorted(exchanged.items()))  # fmt: skip
        terminalreporter.write_line(
            f"Requests exchanged with Kafka: {sum(exchanged.values())} ({by_api})"
        )
    for name, lines, different in kafka_shell.COMPARISONS:
        terminalreporter.write_line(
            f"Kafka's metadata shell and ours on {name}: {lines} lines compared, {different} differ (named)"
        )
