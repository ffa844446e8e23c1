"""FindCoordinator: which broker coordinates a group.

Kafka places a group on partition ``abs(groupId.hashCode()) % 50`` of ``__consumer_offsets``
and its coordinator is that partition's leader. The fake cluster has no such topic: partition
``p`` is led by the ``p % N``-th of the N live brokers in node-id order, so a group keeps its
coordinator while the live brokers stay the same, and the groups spread over the brokers as
Kafka spreads them. ``coordinator_of`` is that choice, for the brokers' ``is_coordinator``.

Key types: GROUP is answered as above (COORDINATOR_NOT_AVAILABLE with no live broker).
TRANSACTION gets COORDINATOR_NOT_AVAILABLE, which is Kafka's answer while no transaction
coordinator is ready (before ``__transaction_state`` exists): no transaction coordinator runs
here, so a transactional producer keeps retrying until its own timeout. SHARE, and any other
key type, is INVALID_REQUEST: share groups are not served.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ...error_codes import ErrorCode
from ...message import Message
from ...messages.find_coordinator_request import FindCoordinatorRequest
from ...messages.find_coordinator_response import Coordinator, FindCoordinatorResponse
from ...server import Handler, RequestContext

OFFSETS_PARTITIONS = 50  # offsets.topic.num.partitions, Kafka's default
GROUP, TRANSACTION = 0, 1
FIRST_KEY_TYPE = 1
FIRST_BATCHED = 4
NO_NODE = (-1, "", -1)
# Kafka's messages for the errors of versions 1-3 (Errors.message(); "NONE" for no error)
MESSAGES = {
    0: "NONE",
    ErrorCode.COORDINATOR_NOT_AVAILABLE.value: "The coordinator is not available.",
    ErrorCode.INVALID_REQUEST.value: (
        "This most likely occurs because of a request being malformed by the client library or "
        "the message was sent to an incompatible broker. See the broker logs for more details."
    ),
}

Broker = tuple[int, str, int]  # (node id, host, port)


def java_hash(text: str) -> int:
    """Java's ``String.hashCode``: over UTF-16 code units, in 32-bit signed arithmetic."""
    h = 0
    data = text.encode("utf-16-be")
    for i in range(0, len(data), 2):
        h = (31 * h + int.from_bytes(data[i : i + 2], "big")) & 0xFFFFFFFF
    return h - (1 << 32) if h >= 1 << 31 else h


def offsets_partition(group_id: str) -> int:
    """The ``__consumer_offsets`` partition of a group (Kafka's ``Utils.abs`` maps MIN to 0)."""
    h = java_hash(group_id)
    return (0 if h == -(2**31) else abs(h)) % OFFSETS_PARTITIONS


def coordinator_of(group_id: str, node_ids: Sequence[int]) -> int | None:
    """The node id coordinating ``group_id`` among the live ``node_ids`` (None: no broker)."""
    nodes = sorted(node_ids)
    return nodes[offsets_partition(group_id) % len(nodes)] if nodes else None


def locate(key_type: int, key: str, brokers: Sequence[Broker]) -> tuple[int, Broker]:
    """(error code, the coordinator's node id, host and port) for one key."""
    if key_type == TRANSACTION:
        return ErrorCode.COORDINATOR_NOT_AVAILABLE.value, NO_NODE
    if key_type != GROUP:
        return ErrorCode.INVALID_REQUEST.value, NO_NODE
    chosen = coordinator_of(key, [node for node, _, _ in brokers])
    for broker in brokers:
        if broker[0] == chosen:
            return 0, broker
    return ErrorCode.COORDINATOR_NOT_AVAILABLE.value, NO_NODE


def find_coordinator_handler(live_brokers: Callable[[], Sequence[Broker]]) -> Handler:
    """A FindCoordinator handler (every version) over the brokers alive when it is asked."""

    async def find_coordinator(request: RequestContext) -> Message:
        body = request.body
        assert isinstance(body, FindCoordinatorRequest)
        version = request.api_version
        key_type = body.key_type if version >= FIRST_KEY_TYPE else GROUP
        brokers = live_brokers()
        if version >= FIRST_BATCHED:
            found = []
            for key in body.coordinator_keys:
                error, (node, host, port) = locate(key_type, key, brokers)
                found.append(
                    Coordinator(key=key, node_id=node, host=host, port=port, error_code=error)
                )
            return FindCoordinatorResponse(coordinators=found)
        error, (node, host, port) = locate(key_type, body.key, brokers)
        return FindCoordinatorResponse(
            error_code=error, error_message=MESSAGES[error], node_id=node, host=host, port=port
        )

    return find_coordinator
