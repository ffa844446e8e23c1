"""Talking to a live cluster through the package's client, waiting on it, and a stable copy of
its metadata log to read."""

from __future__ import annotations

import shutil
import time
from collections import Counter
from pathlib import Path

from kafka_cluster import broker_ids
from kafka_meta_proto import message_class, protocol
from kafka_meta_proto.client import NetworkError, sync
from kafka_meta_proto.error_codes import ErrorCode
from kafka_meta_proto.message import Message
from kafka_meta_proto.net.connection import ResponseReceived

CLIENT_ID = "kafka-meta-proto-tests"

# Requests answered in this session, by (request name, version): the folder's summary reports it.
EXCHANGED: Counter[tuple[str, int]] = Counter()


def connect(host: str, port: int, timeout: float = 30) -> sync.SyncConnection:
    """A connection of the package's client (ApiVersions negotiated), for blocking test code."""
    return sync.connect(host, port, client_id=CLIENT_ID, timeout=timeout)


def wait_for(condition, what: str, timeout: float = 60, every: float = 0.25):
    """Poll ``condition()`` until it returns something true; return that."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError(f"waited {timeout} s for {what}")
        time.sleep(every)


def listed_brokers(cluster, via: int) -> set[int]:
    try:
        with connect("127.0.0.1", cluster.node(via).port, timeout=5) as conn:
            return broker_ids(conn)
    except (OSError, NetworkError):
        return set()


def copy_metadata_log(cluster, target: Path) -> Path:
    """A copy of the controller's ``__cluster_metadata-0`` (the live files keep growing)."""
    out = target / "__cluster_metadata-0"
    shutil.copytree(cluster.metadata_dir(), out)
    return out


def log_files(directory: Path) -> list[Path]:
    """Segments and snapshots, in Kafka's order: by base offset, snapshots by end offset."""
    return sorted(p for p in directory.iterdir() if p.suffix in (".log", ".checkpoint"))


def send(conn: sync.SyncConnection, request: Message, version: int) -> ResponseReceived:
    """One exchange at ``version``; the response must re-encode to the bytes the broker sent."""
    exchange = conn.exchange(request, version)
    EXCHANGED[(type(request).__name__, version)] += 1
    ours = protocol.encode_response(exchange.body, exchange.api_version, exchange.correlation_id)
    assert ours == exchange.frame, f"{type(exchange.body).__name__} v{version} re-encodes differently"
    return exchange


def until_settled(ask, error_of, timeout: float = 30):
    """``ask()`` again while its answer carries an error Kafka calls retriable (a broker whose
    metadata has not caught up with the controller yet, a producer-ID block still on its way), or
    UNKNOWN_TOPIC_ID just after a create; return the first settled answer."""
    deadline = time.monotonic() + timeout
    while True:
        answer = ask()
        code = ErrorCode.for_code(error_of(answer))
        if (
            not (code.retriable or code == ErrorCode.UNKNOWN_TOPIC_ID)
            or time.monotonic() > deadline
        ):
            return answer
        time.sleep(0.2)


def init_producer_id(conn):
    request = message_class("InitProducerIdRequest")(
        transactional_id=None, transaction_timeout_ms=60000
    )
    return until_settled(lambda: send(conn, request, 5).body, lambda a: a.error_code)
