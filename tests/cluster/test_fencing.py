"""The KRaft controller's broker life cycle on a live cluster: a broker stopped hard is fenced
when its heartbeats stop; started again it registers with a new epoch and is unfenced. Then the
whole story is read back from the controller's metadata log with our own reader."""

from __future__ import annotations

import pytest

from cluster.helpers import connect, copy_metadata_log, listed_brokers, log_files, send, wait_for
from kafka_meta_proto import message_class
from kafka_meta_proto.tools import dump

DescribeClusterRequest = message_class("DescribeClusterRequest")

pytestmark = [pytest.mark.cluster, pytest.mark.slow]  # real Kafka clusters: minutes

VICTIM = 3


def fenced_flags(cluster) -> dict[int, bool]:
    """Broker id -> fenced, as DescribeCluster v2 (fenced brokers included) reports them."""
    with connect("127.0.0.1", cluster.node(2).port) as conn:
        body = send(conn, DescribeClusterRequest(include_fenced_brokers=True), 2).body
    assert body.error_code == 0 and body.cluster_id == cluster.cluster_id
    return {b.broker_id: b.is_fenced for b in body.brokers}


def test_fenced_then_registered_again(cluster, tmp_path):
    assert wait_for(lambda: listed_brokers(cluster, 2) >= {2, 3}, "both brokers listed")
    assert fenced_flags(cluster) == {2: False, 3: False}
    cluster.stop_node(VICTIM, hard=True)
    wait_for(
        lambda: VICTIM not in listed_brokers(cluster, 2), f"broker {VICTIM} fenced", timeout=60
    )
    assert fenced_flags(cluster) == {2: False, 3: True}
    cluster.start_node(VICTIM)
    wait_for(lambda: VICTIM in listed_brokers(cluster, 2), f"broker {VICTIM} back", timeout=90)
    assert fenced_flags(cluster) == {2: False, 3: False}

    # The metadata log tells the same story, in order.
    events = []
    for path in log_files(copy_metadata_log(cluster, tmp_path)):
        if path.suffix != ".log":
            continue
        for obj in dump.iter_json_records(str(path)):
            data = obj.get("data") or {}
            if data.get("brokerId", data.get("id")) != VICTIM:  # Fence/UnfenceBrokerRecord say "id"
                continue
            kind = obj["type"]
            if kind == "REGISTER_BROKER_RECORD":
                events.append(("registered", data["brokerEpoch"]))
            elif kind == "FENCE_BROKER_RECORD" or (
                kind == "BROKER_REGISTRATION_CHANGE_RECORD" and data.get("fenced") == 1
            ):
                events.append(("fenced", data["epoch"] if "epoch" in data else data["brokerEpoch"]))
            elif kind == "UNFENCE_BROKER_RECORD" or (
                kind == "BROKER_REGISTRATION_CHANGE_RECORD" and data.get("fenced") == -1
            ):
                events.append(
                    ("unfenced", data["epoch"] if "epoch" in data else data["brokerEpoch"])
                )
    registrations = [epoch for kind, epoch in events if kind == "registered"]
    assert len(registrations) >= 2 and registrations[-1] > registrations[0], events
    first, again = events.index(("registered", registrations[0])), events.index(
        ("registered", registrations[-1])
    )
    assert ("unfenced", registrations[0]) in events[first:again], events  # served before the kill
    assert ("fenced", registrations[0]) in events[first:again], events  # fenced when it stopped
    assert ("unfenced", registrations[-1]) in events[again:], events  # unfenced when it came back
