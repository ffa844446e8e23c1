"""Broker addresses in responses, rewritten so that clients keep talking through the proxy.

A client learns where brokers are from a few responses only: Metadata and DescribeCluster list
the brokers, FindCoordinator names a coordinator, and since KIP-951 (and in the share-group
APIs) Produce, Fetch, ShareFetch and ShareAcknowledge may carry the endpoints of new leaders.
In each, a struct with a ``host`` and a ``port`` (the top level of FindCoordinator before
version 4 included) is a broker's endpoint. Other responses with hosts name something else
(an ACL's host, a Streams member's application endpoint, a Raft voter's listener) and are left
alone.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator
from typing import Any

from ..message import Message

# api keys of the responses that carry broker endpoints
ENDPOINT_APIS = frozenset({0, 1, 3, 10, 60, 78, 79})

# (upstream host, upstream port) -> (host, port) clients should use instead
Relocate = Callable[[str, int], Awaitable[tuple[str, int]]]


def broker_endpoints(message: Any) -> Iterator[Any]:
    """Every struct in ``message`` (itself included) that has a host and a port."""
    names = {field.name for field in type(message)._FIELDS}
    if {"host", "port"} <= names:
        yield message
    for field in type(message)._FIELDS:
        if field.struct is None:
            continue
        value = getattr(message, field.name)
        for item in value if isinstance(value, list) else [] if value is None else [value]:
            yield from broker_endpoints(item)


async def rewrite_endpoints(body: Message, relocate: Relocate) -> bool:
    """Point each broker endpoint of a response at its proxy listener; True if any changed.
    Empty or negative endpoints (a coordinator not found) stay as they are."""
    if body.API_KEY not in ENDPOINT_APIS:
        return False
    changed = False
    for endpoint in list(broker_endpoints(body)):
        if not endpoint.host or endpoint.port < 0:
            continue
        host, port = await relocate(endpoint.host, endpoint.port)
        if (host, port) != (endpoint.host, endpoint.port):
            endpoint.host, endpoint.port = host, port
            changed = True
    return changed
