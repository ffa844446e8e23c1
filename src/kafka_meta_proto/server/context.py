"""What a handler receives: the decoded request and where it came from."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..message import Message


@dataclass(frozen=True)
class RequestContext:
    """One request as a handler sees it. ``state`` is a dict kept for the life of the
    connection, shared by every request it carries (a handler may keep, say, the SASL outcome
    there)."""

    body: Message
    api_version: int
    header: Message  # the registry's RequestHeader, as decoded
    peer: Any  # the peer's address as the socket gives it: (host, port) for TCP
    state: dict[str, Any]

    @property
    def api_key(self) -> int:
        key: int = getattr(self.header, "request_api_key")
        return key

    @property
    def correlation_id(self) -> int:
        cid: int = getattr(self.header, "correlation_id")
        return cid

    @property
    def client_id(self) -> str | None:
        client_id: str | None = getattr(self.header, "client_id", None)
        return client_id
