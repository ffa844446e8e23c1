"""What can go wrong on a connection, as exceptions a caller can tell apart.

Every error of the network layer is a ``NetworkError``; the peer breaking the protocol (a frame
too big, bytes that do not decode, a response to no request) is a ``ProtocolError`` and ends the
connection, since what follows on the stream can no longer be trusted.
"""

from __future__ import annotations

from ..errors import KafkaProtocolError, UnsupportedVersionError


class NetworkError(KafkaProtocolError):
    """Base of the errors raised by kafka_meta_proto.net and kafka_meta_proto.client."""


class ProtocolError(NetworkError):
    """The peer sent something the protocol does not allow; the connection is unusable."""


class FrameTooLarge(ProtocolError):
    """A frame announced a size above the limit (refused before reading or allocating it)."""

    def __init__(self, size: int, limit: int):
        super().__init__(
            f"the peer announced a frame of {size} bytes, over the limit of {limit} bytes"
        )
        self.size = size
        self.limit = limit


class ConnectionClosed(NetworkError, ConnectionError):
    """The connection is closed (by either side); the request it carried has no answer."""


class RequestTimedOut(NetworkError, TimeoutError):
    """No response came within the call's timeout."""


class NoCommonVersion(NetworkError, UnsupportedVersionError):
    """The peer and this package share no version of an API, or the version asked for is not one
    the peer speaks."""


class AuthenticationFailed(NetworkError):
    """SASL authentication was refused, or the server's proof did not verify."""
