"""An asyncio Kafka client over the package's exact classes: ``connect`` opens one connection
(TLS, SASL and the ApiVersions negotiation included) and ``Connection.send`` exchanges typed
requests and responses, pipelined; ``Cluster`` sends each request to the node it belongs to;
``sync`` wraps both for scripts. See docs/client.md."""

from __future__ import annotations

from ..net.errors import (
    AuthenticationFailed,
    ConnectionClosed,
    FrameTooLarge,
    NetworkError,
    NoCommonVersion,
    ProtocolError,
    RequestTimedOut,
)
from ..net.sasl import Plain, Scram
from .cluster import Broker, Cluster
from .connection import DEFAULT_CLIENT_ID, DEFAULT_TIMEOUT, Connection, connect
from .routing import AnyBroker, Controller, Coordinator, Leader, Node, Target

__all__ = [
    "DEFAULT_CLIENT_ID",
    "DEFAULT_TIMEOUT",
    "AnyBroker",
    "AuthenticationFailed",
    "Broker",
    "Cluster",
    "Connection",
    "ConnectionClosed",
    "Controller",
    "Coordinator",
    "FrameTooLarge",
    "Leader",
    "NetworkError",
    "NoCommonVersion",
    "Node",
    "Plain",
    "ProtocolError",
    "RequestTimedOut",
    "Scram",
    "Target",
    "connect",
]
