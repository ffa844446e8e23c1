"""The sans-I/O network core: Kafka connections as objects that take bytes and give bytes, with
no sockets and no event loop, so every transport (the asyncio client, a server, a proxy) shares
them and tests run them without a network.

- ``connection``: ``ClientConnection`` and ``ServerConnection`` (framing, headers, correlation
  ids, in-flight bookkeeping, the frame size limit);
- ``versions``: the ApiVersions negotiation and the version chosen per request;
- ``sasl``: PLAIN and SCRAM client exchanges;
- ``sasl_server``: their server halves;
- ``errors``: what can go wrong, as exceptions.
"""

from __future__ import annotations

from .connection import (
    ClientConnection,
    PendingRequest,
    RequestReceived,
    ResponseReceived,
    ServerConnection,
    UnsupportedRequest,
    expects_response,
)
from .errors import (
    AuthenticationFailed,
    ConnectionClosed,
    FrameTooLarge,
    NetworkError,
    NoCommonVersion,
    ProtocolError,
    RequestTimedOut,
)
from .frames import FrameReader

__all__ = [
    "AuthenticationFailed",
    "ClientConnection",
    "ConnectionClosed",
    "FrameReader",
    "FrameTooLarge",
    "NetworkError",
    "NoCommonVersion",
    "PendingRequest",
    "ProtocolError",
    "RequestReceived",
    "RequestTimedOut",
    "ResponseReceived",
    "ServerConnection",
    "UnsupportedRequest",
    "expects_response",
]
