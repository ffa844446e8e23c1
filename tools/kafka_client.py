"""A minimal blocking Kafka client built from our own classes only: a socket, our frames and
headers, our message classes. For tests against a real broker, not for production use.

    with KafkaConnection("127.0.0.1", 9092) as conn:
        exchange = conn.send(MetadataRequest(topics=None), 12)
        exchange.response.body.brokers, exchange.raw  # the decoded response and its bytes
"""

from __future__ import annotations

import socket
from collections import Counter
from dataclasses import dataclass

from kafka_meta_proto import message_class, protocol
from kafka_meta_proto.message import Message

CLIENT_ID = "kafka-meta-proto-tests"

# Requests answered in this process, by (request name, version): the tests report it.
EXCHANGED: Counter[tuple[str, int]] = Counter()


@dataclass
class Exchange:
    """One request and the broker's answer: the decoded response and the frame it came in."""

    api_version: int
    request: Message
    response: protocol.Response
    raw: bytes  # the response frame, size prefix included

    @property
    def body(self) -> Message:
        return self.response.body

    def reencoded(self) -> bytes:
        """Our encoding of the decoded response: equal to ``raw`` when nothing was lost."""
        return protocol.encode_response(self.body, self.api_version, self.response.correlation_id)


class KafkaConnection:
    def __init__(self, host: str, port: int, timeout: float = 30):
        self.sock = socket.create_connection((host, port), timeout=timeout)
        self.correlation_id = 0

    def __enter__(self) -> "KafkaConnection":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        self.sock.close()

    def _read_exactly(self, n: int) -> bytes:
        parts, left = [], n
        while left:
            chunk = self.sock.recv(min(left, 1 << 20))
            if not chunk:
                raise ConnectionError("the broker closed the connection")
            parts.append(chunk)
            left -= len(chunk)
        return b"".join(parts)

    def send(self, request: Message, version: int) -> Exchange:
        self.correlation_id += 1
        self.sock.sendall(protocol.encode_request(request, version, self.correlation_id, CLIENT_ID))
        size = int.from_bytes(self._read_exactly(4), "big", signed=True)
        raw = size.to_bytes(4, "big", signed=True) + self._read_exactly(size)
        response = protocol.decode_response(raw, request.API_KEY, version)
        if response.correlation_id != self.correlation_id:
            raise ConnectionError(
                f"correlation id {response.correlation_id}, expected {self.correlation_id}"
            )
        EXCHANGED[(type(request).__name__, version)] += 1
        return Exchange(version, request, response, raw)


def broker_ids(conn: KafkaConnection, version: int = 12) -> set[int]:
    """The brokers the cluster's metadata lists (registered and not fenced)."""
    MetadataRequest = message_class("MetadataRequest")
    body = conn.send(MetadataRequest(topics=[]), version).body
    return {b.node_id for b in body.brokers}
