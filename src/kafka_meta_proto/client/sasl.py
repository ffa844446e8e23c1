"""SASL on an open connection: SaslHandshake names the mechanism, then SaslAuthenticate carries
the exchange's tokens (``net.sasl`` computes them) until the exchange is complete."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..messages.sasl_authenticate_request import SaslAuthenticateRequest
from ..messages.sasl_authenticate_response import SaslAuthenticateResponse
from ..messages.sasl_handshake_request import SaslHandshakeRequest
from ..messages.sasl_handshake_response import SaslHandshakeResponse
from ..net.errors import AuthenticationFailed
from ..net.sasl import SaslMechanism

if TYPE_CHECKING:
    from .connection import Connection


async def authenticate(conn: Connection, sasl: SaslMechanism) -> None:
    """Authenticate ``conn``; AuthenticationFailed names the broker's reason."""
    # Version 0 of the handshake sends the tokens unframed; only framed SaslAuthenticate is spoken here.
    if conn.version_for(SaslHandshakeRequest) < 1:
        raise AuthenticationFailed(
            "the broker speaks only SaslHandshake v0 (unframed tokens), which this client does not"
        )
    handshake = await conn.send(
        SaslHandshakeRequest(mechanism=sasl.mechanism), expect=SaslHandshakeResponse
    )
    if handshake.error_code:
        enabled = ", ".join(handshake.mechanisms)
        raise AuthenticationFailed(
            f"the broker refuses SASL mechanism {sasl.mechanism} (enabled: {enabled or 'none'})"
        )
    exchange = sasl.start()
    token: bytes | None = exchange.first()
    while token is not None:
        answer = await conn.send(
            SaslAuthenticateRequest(auth_bytes=token), expect=SaslAuthenticateResponse
        )
        if answer.error_code:
            reason = answer.error_message or f"error code {answer.error_code}"
            raise AuthenticationFailed(f"{sasl.mechanism} authentication refused: {reason}")
        token = exchange.respond(bytes(answer.auth_bytes))
