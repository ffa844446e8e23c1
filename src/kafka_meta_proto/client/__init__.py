"""An asyncio Kafka client over the package's exact classes: ``connect`` opens one connection
(TLS, SASL and the ApiVersions negotiation included) and ``Connection.send`` exchanges typed
requests and responses, pipelined. See docs/client.md."""

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
from .connection import DEFAULT_CLIENT_ID, DEFAULT_TIMEOUT, Connection, connect

__all__ = [
    "DEFAULT_CLIENT_ID",
    "DEFAULT_TIMEOUT",
    "AuthenticationFailed",
    "Connection",
    "ConnectionClosed",
    "FrameTooLarge",
    "NetworkError",
    "NoCommonVersion",
    "Plain",
    "ProtocolError",
    "RequestTimedOut",
    "Scram",
    "connect",
]
