"""The metadata audit (``pipeline``, its diskless checks) over the log of a diskless fake cluster's
controller: with every partition of its diskless topics mapped through
AssignPartitionToBatchCoordinator, it finds nothing; a twin cluster whose controller was made to
commit mappings the request refuses (bypassing it) is caught, which shows the audit reads the
controller's mappings. (Its unmapped-partition check allows a topic five minutes of log time,
which a test cluster does not live.) Slow: a Spark job."""

from __future__ import annotations

import asyncio

import pytest

from kafka_meta_proto.diskless_messages.topic_partition_to_batch_coordinator_mapping import (
    TopicPartitionToBatchCoordinatorMapping as Mapping,
)
from kafka_meta_proto.testing.cluster import FakeCluster

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def spark():
    pytest.importorskip("pyspark", reason="pyspark is not installed (pip install 'kafka-meta-proto[spark]')")
    from kafka_meta_proto.pipeline.spark import java_available, session

    if not java_available():
        pytest.skip("Spark needs Java: no java on PATH and no JAVA_HOME")
    spark = session("local[2]", app_name="diskless audit test",
                    conf={"spark.sql.shuffle.partitions": "2", "spark.ui.enabled": "false"})  # fmt: skip
    yield spark
    spark.stop()


async def diskless_cluster(data_dir, bypass: bool) -> None:
    """Two coordinators, two diskless topics mapped through the controller, one plain topic, a
    snapshot in the middle; with ``bypass``, two mappings the controller would refuse."""
    async with FakeCluster(brokers=1, data_dir=data_dir, diskless=True, coordinators=2) as cluster:
        events = await cluster.create_diskless_topic("events", partitions=3)
        cluster.controller.snapshot()
        await cluster.create_diskless_topic("clicks", partitions=2)
        await cluster.assign_coordinators("events", {2: 1})
        await cluster.create_topic("plain")
        if bypass:
            plain = cluster.image.topic("plain").id
            cluster.controller.commit([(Mapping(partition_index=0, topic_id=plain, batch_coordinator_partition_index=0), 0)])
            cluster.controller.commit([(Mapping(partition_index=1, topic_id=events, batch_coordinator_partition_index=7), 0)])


def test_the_audit_finds_nothing_in_a_mapped_cluster_and_the_bypassed_mappings(spark, tmp_path):
    from kafka_meta_proto.pipeline.job import run_audit

    logs = tmp_path / "logs"
    asyncio.run(diskless_cluster(logs / "mapped", bypass=False))
    asyncio.run(diskless_cluster(logs / "bypassed", bypass=True))
    report = run_audit([str(logs)], str(tmp_path / "out"), spark=spark, progress=False)

    assert sorted(report.clusters) == ["bypassed/controller", "mapped/controller"]
    # read with the registry the controller's marker names: type 29 is the mapping
    assert report.types["TOPIC_PARTITION_TO_BATCH_COORDINATOR_MAPPING"]["records"] > 0
    assert report.balanced
    assert [a for a, found in report.audits.items() if "mapped/controller" in found["clusters"]] == []
    found = {(e["audit"], e["check"], e["cluster"], e["status"]) for e in report.examples}
    assert found == {("diskless", "mapping of non-diskless topic", "bypassed/controller", "violation"),
                     ("diskless", "coordinator out of range", "bypassed/controller", "violation")}  # fmt: skip
    assert report.violations == 2
