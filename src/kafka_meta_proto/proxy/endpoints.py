"""Broker addresses in responses, rewritten so that clients keep talking through the proxy.

A client learns where brokers are from a few responses only: Metadata and DescribeCluster list
the brokers, FindCoordinator names a coordinator, and since KIP-951 (and in the share-group
APIs) Produce, Fetch, ShareFetch and ShareAcknowledge may carry the endpoints of new leaders.
``ENDPOINT_FIELDS`` says where each keeps them. Other responses with hosts name something else
(an ACL's host, a Streams member's application endpoint, a Raft voter's listener) and are left
alone.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator
from typing import Any

from ..message import Message

# api key -> where its response keeps broker endpoints: "" for the body itself (FindCoordinator
# before version 4), else the name of a list of structs with a host and a port
ENDPOINT_FIELDS: dict[int, tuple[str, ...]] = {
    0: ("node_endpoints",),  # Produce, v10+
    1: ("node_endpoints",),  # Fetch, v16+
    3: ("brokers",),  # Metadata
    10: ("", "coordinators"),  # FindCoordinator: one before v4, a list from v4
    60: ("brokers",),  # DescribeCluster
    78: ("node_endpoints",),  # ShareFetch
    79: ("node_endpoints",),  # ShareAcknowledge
}
ENDPOINT_APIS = frozenset(ENDPOINT_FIELDS)

# (upstream host, upstream port) -> (host, port) clients should use instead
Relocate = Callable[[str, int], Awaitable[tuple[str, int]]]


def broker_endpoints(body: Message) -> Iterator[Any]:
    """The structs of a response that name a broker by host and port."""
    for name in ENDPOINT_FIELDS.get(body.API_KEY or 0, ()):
        if not name:
            yield body
        else:
            yield from getattr(body, name, None) or ()


async def rewrite_endpoints(body: Message, relocate: Relocate) -> bool:
    """Point each broker endpoint of a response at its proxy listener; True if any changed.
    Empty or negative endpoints (a coordinator not found) stay as they are."""
    changed = False
    for endpoint in list(broker_endpoints(body)):
        if not endpoint.host or endpoint.port < 0:
            continue
        host, port = await relocate(endpoint.host, endpoint.port)
        if (host, port) != (endpoint.host, endpoint.port):
            endpoint.host, endpoint.port = host, port
            changed = True
    return changed
