"""SASL on the server side: SaslHandshake and SaslAuthenticate handlers over the exchanges of
``net.sasl_server``, and the rule Kafka's broker keeps on a SASL listener.

Until a connection has authenticated, Kafka's broker accepts only ApiVersions, SaslHandshake and
then SaslAuthenticate; anything else ends the connection. A handshake naming a mechanism not
enabled is answered with UNSUPPORTED_SASL_MECHANISM (33) and the enabled ones; a token that fails
is answered with SASL_AUTHENTICATION_FAILED (58) and its reason, and the connection serves nothing
more. The authenticated user is ``request.state["principal"]`` in every later handler.

Only framed tokens are spoken (SaslHandshake v1 and later): version 0 sent them raw on the socket.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..message import Message
from ..net.errors import AuthenticationFailed
from ..net.sasl_server import SaslServerMechanism
from .context import RequestContext
from .handlers import Handlers

HANDSHAKE_KEY, AUTHENTICATE_KEY, API_VERSIONS_KEY = 17, 36, 18
UNSUPPORTED_SASL_MECHANISM = 33
SASL_AUTHENTICATION_FAILED = 58
ILLEGAL_SASL_STATE = 34
_STATE = "sasl"  # request.state key of the exchange in progress (or "failed")
PRINCIPAL = "principal"


class SaslGate:
    """The handlers of SASL and the guard that keeps other requests out until it succeeds."""

    def __init__(self, mechanisms: Iterable[SaslServerMechanism]):
        self.mechanisms = {m.mechanism: m for m in mechanisms}
        if not self.mechanisms:
            raise ValueError("SASL needs at least one mechanism")

    def install(self, handlers: Handlers) -> None:
        """Register the two handlers and the guard on ``handlers``."""
        self._registry = handlers.registry
        handshake_versions = handlers.registry.request_class(HANDSHAKE_KEY).versions()
        handlers.add(HANDSHAKE_KEY, self.handshake, (1, handshake_versions[-1]))
        handlers.add(AUTHENTICATE_KEY, self.authenticate)
        handlers.guard = self.refusal

    def refusal(self, api_key: int, state: dict[str, Any]) -> str | None:
        """Why this request may not be served yet (None: it may)."""
        if PRINCIPAL in state or api_key in (API_VERSIONS_KEY, HANDSHAKE_KEY):
            return None if state.get(_STATE) != "failed" else "SASL authentication failed"
        if api_key == AUTHENTICATE_KEY and state.get(_STATE) not in (None, "failed"):
            return None
        return f"api key {api_key} before SASL authentication"

    async def handshake(self, request: RequestContext) -> Message:
        cls: Any = self._registry.response_class(HANDSHAKE_KEY)
        enabled = list(self.mechanisms)
        mechanism = self.mechanisms.get(getattr(request.body, "mechanism"))
        if mechanism is None or PRINCIPAL in request.state:
            error = ILLEGAL_SASL_STATE if mechanism else UNSUPPORTED_SASL_MECHANISM
            request.state[_STATE] = "failed"
            answer: Message = cls(error_code=error, mechanisms=enabled)
            return answer
        request.state[_STATE] = mechanism.start()
        answer = cls(mechanisms=enabled)
        return answer

    async def authenticate(self, request: RequestContext) -> Message:
        cls: Any = self._registry.response_class(AUTHENTICATE_KEY)
        exchange = request.state[_STATE]
        try:
            token = exchange.step(bytes(getattr(request.body, "auth_bytes")))
        except AuthenticationFailed as e:
            request.state[_STATE] = "failed"
            failed: Message = cls(
                error_code=SASL_AUTHENTICATION_FAILED, error_message=str(e), auth_bytes=b""
            )
            return failed
        if exchange.done:
            request.state[PRINCIPAL] = exchange.principal
        answer: Message = cls(auth_bytes=token)
        return answer
