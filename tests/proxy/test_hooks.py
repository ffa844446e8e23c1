"""Hooks, plain and async, rewriting a request on its way up and a response on its way back;
the proxy re-encodes at the same version with the client's correlation id."""

from __future__ import annotations

from kafka_meta_proto import message_class
from kafka_meta_proto.client import NetworkError, connect
from proxy.helpers import lines, proxied_cluster, run

HeartbeatRequest = message_class("HeartbeatRequest")
HeartbeatResponse = message_class("HeartbeatResponse")
MetadataRequest = message_class("MetadataRequest")


def test_hooks_rewrite_a_request_and_a_response():
    seen = []

    def on_request(request):
        seen.append((request.api_key, request.api_version, request.client_id))
        if request.api_key == 12:  # Heartbeat: ask for another member
            return HeartbeatRequest(group_id="g", generation_id=7, member_id="rewritten")
        return None

    async def on_response(request, response):
        if request.api_key == 12:
            return HeartbeatResponse(error_code=27, throttle_time_ms=response.throttle_time_ms)
        return None

    async def scenario():
        options = dict(on_request=on_request, on_response=on_response)
        async with proxied_cluster(**options) as (picture, brokers, proxy, log):
            asked = []

            async def heartbeat(event):
                asked.append(event.body)
                return HeartbeatResponse(error_code=0, throttle_time_ms=5)

            brokers[1].handlers[12] = heartbeat
            async with await connect(*proxy.address, client_id="hooked") as conn:
                sent = HeartbeatRequest(group_id="g", generation_id=1, member_id="m")
                answer = await conn.exchange(sent, 4)
                metadata = await conn.send(MetadataRequest(topics=[]))
            return asked, answer, metadata, lines(log)

    asked, answer, metadata, exchanges = run(scenario())
    assert asked == [HeartbeatRequest(group_id="g", generation_id=7, member_id="rewritten")]
    assert answer.api_version == 4 and answer.body == HeartbeatResponse(error_code=27, throttle_time_ms=5)
    assert (12, 4, "hooked") in seen
    assert len(metadata.brokers) == 2  # a hook returning None keeps the body
    heartbeat = next(line for line in exchanges if line["api_key"] == 12)
    assert heartbeat["request_rewritten"] and heartbeat["response_rewritten"]
    # the log holds the bodies as the client and the broker sent them
    assert heartbeat["request"]["memberId"] == "m" and heartbeat["response"]["errorCode"] == 0
    assert heartbeat["correlation_id"] == answer.correlation_id


def test_a_hook_that_raises_closes_that_connection_only():
    def on_request(request):
        if request.client_id == "doomed":
            raise RuntimeError("the hook broke")
        return None

    async def scenario():
        async with proxied_cluster(on_request=on_request) as (picture, brokers, proxy, log):
            try:
                async with await connect(*proxy.address, client_id="doomed", timeout=10):
                    raise AssertionError("the connection survived the hook")
            except NetworkError:
                pass
            async with await connect(*proxy.address, client_id="fine") as conn:
                metadata = await conn.send(MetadataRequest(topics=[]))
            return metadata, lines(log, "connection")

    metadata, connections = run(scenario())
    assert len(metadata.brokers) == 2
    assert "relaying the client's data failed: RuntimeError('the hook broke')" in connections[0]["reason"]
