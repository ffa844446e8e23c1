"""Build a Metadata request, frame it as a client sends it, and read it back as a broker would.

python examples/request_frames.py
"""

from kafka_meta_proto import message_class, protocol

MetadataRequest = message_class("MetadataRequest")
MetadataResponse = message_class("MetadataResponse")

# A client asks for two topics at version 12 (a flexible version: compact strings, tagged fields).
request = MetadataRequest(
    topics=[MetadataRequest.MetadataRequestTopic(name=n) for n in ("orders", "payments")]
)
frame = protocol.encode_request(request, 12, correlation_id=7, client_id="example-client")
print(f"request frame: {len(frame)} bytes, {frame[:16].hex()}...")

# The broker side: the frame says which API and version it holds.
received = protocol.decode_request(frame)
header = received.header
print(
    f"api key {header.request_api_key} v{header.request_api_version}, correlation id "
    f"{header.correlation_id}, client {header.client_id!r}"
)
print("topics asked for:", [t.name for t in received.body.topics])

# The answer, framed with the same correlation id; the client decodes it knowing what it asked.
response = MetadataResponse(
    brokers=[MetadataResponse.MetadataResponseBroker(node_id=1, host="broker-1", port=9092)],
    cluster_id="MvDxzVmcRsaTz33bUuRU6A",
    controller_id=1,
)
reply = protocol.encode_response(response, 12, correlation_id=header.correlation_id)
# Given the response class (not just the api key), the body is typed MetadataResponse for mypy.
decoded = protocol.decode_response(reply, MetadataResponse, 12)
print(
    f"response: correlation id {decoded.header.correlation_id}, brokers "
    f"{[(b.node_id, b.host, b.port) for b in decoded.body.brokers]}"
)
assert decoded.body == response
