"""The proxy against loopback brokers, our client on the other side: addresses rewritten to the
proxy's listeners, every exchange logged with its bodies decoded, correlation ids kept, an
acks-0 Produce logged without a response."""

from __future__ import annotations

import asyncio

from client.test_cluster import produce_to_t0, produced_by
from kafka_meta_proto import message_class, protocol
from kafka_meta_proto.client import connect
from kafka_meta_proto.client.cluster import Cluster
from proxy.helpers import lines, proxied_cluster, run

MetadataRequest = message_class("MetadataRequest")
MetadataResponse = message_class("MetadataResponse")
HeartbeatRequest = message_class("HeartbeatRequest")


def test_the_client_learns_proxy_addresses_and_reaches_each_broker_through_them():
    async def scenario():
        async with proxied_cluster() as (picture, brokers, proxy, log):
            picture.leader = 2
            async with Cluster([proxy.address]) as cluster:
                ports = {b.node_id: b.port for b in cluster.brokers.values()}
                assert produced_by(await cluster.send(produce_to_t0())) == (0, 2)
                heartbeat = HeartbeatRequest(group_id="g", generation_id=1, member_id="m")
                assert (await cluster.send(heartbeat)).error_code == 0
            listeners = {l.upstream[1]: l.port for l in proxy.listeners.values()}
            # each broker is known to the client by its own proxy listener, never directly
            assert ports == {n: listeners[picture.ports[n]] for n in (1, 2)}
            assert not set(ports.values()) & set(picture.ports.values())
            assert [key for key, _ in brokers[2].seen if key == 0] == [0]
            return lines(log), lines(log, "listener"), dict(picture.ports)

    exchanges, listeners, upstream_ports = run(scenario())
    names = [line["api_name"] for line in exchanges]
    assert {"ApiVersions", "Metadata", "Produce", "FindCoordinator", "Heartbeat"} <= set(names)
    for line in exchanges:
        assert line["request"] is not None and line["response"] is not None
        assert line["request_error"] is None and line["response_error"] is None
        assert line["response_size"] > 0 and line["request_size"] > 0 and line["latency_ms"] >= 0
    metadata = next(line for line in exchanges if line["api_name"] == "Metadata")
    # the log holds what the broker said; the client was given the rewritten addresses
    assert metadata["response_rewritten"] is True
    assert {b["port"] for b in metadata["response"]["brokers"]} == set(upstream_ports.values())
    # the bootstrap listener stands for node 1 too; node 2 got one of its own
    assert [line["upstream"] for line in listeners] == [f"127.0.0.1:{upstream_ports[n]}" for n in (1, 2)]


def test_correlation_ids_and_client_id_pass_as_the_client_sent_them():
    async def scenario():
        async with proxied_cluster() as (picture, brokers, proxy, log):
            async with await connect(*proxy.address, client_id="me") as conn:
                first = await conn.exchange(MetadataRequest(topics=[]), 12)
                second = await conn.exchange(MetadataRequest(topics=[]), 12)
            return first, second, lines(log)

    first, second, exchanges = run(scenario())
    assert second.correlation_id == first.correlation_id + 1
    metadata = [line for line in exchanges if line["api_key"] == 3]
    assert [line["correlation_id"] for line in metadata] == [first.correlation_id, second.correlation_id]
    assert {line["client_id"] for line in exchanges} == {"me"}
    assert {line["api_version"] for line in metadata} == {12}


def test_an_acks_0_produce_is_logged_without_a_response():
    async def scenario():
        async with proxied_cluster() as (picture, brokers, proxy, log):
            async with await connect(*proxy.address) as conn:
                request = produce_to_t0()
                request.acks = 0
                await conn.send_oneway(request)
                await conn.send(MetadataRequest(topics=[]))  # after the Produce, in order
            return lines(log)

    exchanges = run(scenario())
    produce = [line for line in exchanges if line["api_key"] == 0]
    assert len(produce) == 1 and produce[0]["expects_response"] is False
    assert produce[0]["response"] is None and produce[0]["response_size"] is None
    assert produce[0]["request"]["acks"] == 0
    assert [line["api_key"] for line in exchanges][-1] == 3
