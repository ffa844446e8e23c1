"""Encode, frame and decode a few messages, and print what went over the "wire".

A short tour of the library: a client's ApiVersions and Metadata requests, a broker heartbeat to
the controller, their responses, and a KRaft metadata record, each encoded, framed with its
header, decoded back and shown in Kafka's JSON form.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Iterator

from .. import kraft, protocol
from ..message import Message
from ..messages.api_versions_request import ApiVersionsRequest
from ..messages.api_versions_response import ApiVersionsResponse
from ..messages.broker_heartbeat_request import BrokerHeartbeatRequest
from ..messages.broker_heartbeat_response import BrokerHeartbeatResponse
from ..messages.metadata_request import MetadataRequest
from ..messages.metadata_response import MetadataResponse
from ..messages.topic_record import TopicRecord
from ..protocol import Request, Response
from ..uuid import Uuid


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="one JSON object per exchange")


def _exchange(
    request: Message, version: int, response: Message, correlation_id: int
) -> tuple[bytes, Request, bytes, Response[Message]]:
    frame = protocol.encode_request(request, version, correlation_id, client_id="kafka-meta-proto-demo")
    decoded = protocol.decode_request(frame)
    assert decoded.body == request, "request did not survive the round trip"
    reply = protocol.encode_response(response, version, correlation_id)
    back = protocol.decode_response(reply, type(response), version)
    assert back.body == response, "response did not survive the round trip"
    return frame, decoded, reply, back


def examples() -> Iterator[tuple[str, Message, int, Message]]:
    topic_id = Uuid.from_string("MvDxzVmcRsaTz33bUuRU6A")
    api_keys = [ApiVersionsResponse.ApiVersion(api_key=k, min_version=0, max_version=v) for k, v in ((0, 11), (1, 17), (3, 12), (18, 4))]
    metadata = MetadataResponse(
        brokers=[MetadataResponse.MetadataResponseBroker(node_id=1, host="broker-1.local", port=9092, rack="r1")],
        cluster_id="q1Sh-9_ISia_zwGINzRvyQ",
        controller_id=3000,
        topics=[
            MetadataResponse.MetadataResponseTopic(
                name="payments",
                topic_id=topic_id,
                partitions=[MetadataResponse.MetadataResponsePartition(partition_index=0, leader_id=1, leader_epoch=4, replica_nodes=[1], isr_nodes=[1])],
            )
        ],
    )
    yield "ApiVersions", ApiVersionsRequest(client_software_name="kafka-meta-proto", client_software_version="0.1.0"), 3, ApiVersionsResponse(api_keys=api_keys)
    yield "Metadata", MetadataRequest(topics=[MetadataRequest.MetadataRequestTopic(topic_id=topic_id, name=None)]), 12, metadata
    yield "BrokerHeartbeat", BrokerHeartbeatRequest(broker_id=1, broker_epoch=42, current_metadata_offset=1_000, offline_log_dirs=[Uuid.random()]), 1, BrokerHeartbeatResponse(is_caught_up=True, is_fenced=False)


def run(args: argparse.Namespace) -> int:
    for i, (api, request, version, response) in enumerate(examples(), start=1):
        frame, decoded, reply, back = _exchange(request, version, response, correlation_id=i)
        if args.json:
            print(json.dumps({"api": api, "version": version, "request_frame": frame.hex(), "request": decoded.body.to_json(version),
                              "response_frame": reply.hex(), "response": back.body.to_json(version)}))  # fmt: skip
            continue
        api_key = decoded.api_key
        print(f"== {api} v{version} (request header v{protocol.request_header_version(api_key, version)}, "
              f"response header v{protocol.response_header_version(api_key, version)})")  # fmt: skip
        print(f"   request  {len(frame):4d} bytes  {frame.hex()[:72]}{'...' if len(frame) > 36 else ''}")
        print(f"            {json.dumps(decoded.body.to_json(version))}")
        print(f"   response {len(reply):4d} bytes  {reply.hex()[:72]}{'...' if len(reply) > 36 else ''}")
        print(f"            {json.dumps(back.body.to_json(version))[:300]}")
    value = kraft.encode_record_value(TopicRecord(name="payments", topic_id=Uuid.from_string("MvDxzVmcRsaTz33bUuRU6A")), 0)
    record = kraft.decode_record_value(value)
    if args.json:
        print(json.dumps({"record": record.type_name, "value": value.hex(), "data": record.message.to_json(record.version)}))
    else:
        print(f"== KRaft metadata record value ({len(value)} bytes: frame version, record type, version, body)")
        print(f"   {value.hex()}")
        print(f'   {json.dumps({"type": record.type_name, "version": record.version, "data": record.message.to_json(record.version)})}')
    return 0
