"""A batch coordinator served over the wire: a ``Server`` of the diskless registry answering
FindCoordinator (v4-v7; key type BATCH, 3, from v7) and the RPCs 93-98 from one
``BatchCoordinator``, its writes committed in groups (``group_commit``).

FindCoordinator with key type BATCH takes keys ``operation:topicId:partition`` (``read`` or
``write``, Kafka's base64 topic id, a partition index). Alone (no ``routing``), this coordinator
owns every diskless partition (one ``__diskless-metadata`` partition, one coordinator), so a
``read`` key gets this coordinator and a ``write`` key gets the leader: this coordinator, or for a
read-only one the leader it was told of (COORDINATOR_NOT_AVAILABLE if none). With a ``routing``
(several coordinators, ``routing``), a key names the coordinator the partition is mapped to: this
one as above, another where the routing says it is served, COORDINATOR_NOT_AVAILABLE for a
partition not mapped yet; and the RPCs answer NOT_COORDINATOR for each partition this coordinator
does not own (94, 96-98; 93 and 95 are per topic: every coordinator owning a partition of the
topic keeps the topic). A malformed key, key type 3 below v7 and a key type Kafka does not
define are INVALID_REQUEST for that key (Kafka's broker answers a share key below v6 and an
unknown key type so); Kafka's other key types (groups, transactions, share groups) have no
coordinator here: COORDINATOR_NOT_AVAILABLE.

AssignPartitionToBatchCoordinator (99) goes to the controller, so a coordinator does not serve it.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

from ..diskless_messages import REGISTRY as DISKLESS_REGISTRY
from ..diskless_messages.find_coordinator_request import FindCoordinatorRequest
from ..diskless_messages.find_coordinator_response import Coordinator, FindCoordinatorResponse
from ..error_codes import ErrorCode
from ..message import Message
from ..server import EncodedBody, Handler, RequestContext, Server
from ..uuid import Uuid
from . import wire
from .coordinator import BatchCoordinator
from .group_commit import GroupCommitter
from .routing import Node, Routing

__all__ = ["CoordinatorService", "Node", "parse_batch_key"]

BATCH_KEY_TYPE = 3
KAFKA_KEY_TYPES = (0, 1, 2)  # group, transaction, share group
BATCH_KEY_VERSION = 7
OPERATIONS = ("read", "write")


def parse_batch_key(key: str) -> tuple[str, Uuid, int]:
    """``operation:topicId:partition`` -> its parts; ValueError names what is wrong."""
    parts = key.split(":")
    if len(parts) != 3:
        raise ValueError(f"{key!r} is not operation:topicId:partition")
    operation, topic, partition = parts
    if operation not in OPERATIONS:
        raise ValueError(f"operation {operation!r} is neither read nor write")
    if not partition.isdigit():
        raise ValueError(f"partition {partition!r} is not a partition index")
    return operation, Uuid.from_string(topic), int(partition)


class CoordinatorService:
    """Answers the wire for one coordinator; ``node`` is how it is advertised, ``leader`` (for
    a read-only one) where writes go, ``routing`` (with several coordinators) which partitions it
    owns and where the others are."""

    def __init__(self, coordinator: BatchCoordinator, node: Node = Node(0, "", 0), leader: Node | None = None,
                 routing: Routing | None = None):  # fmt: skip
        self.coordinator = coordinator
        self.routing = routing
        self.node = node
        self.leader = node if not coordinator.read_only else leader
        self.writes = GroupCommitter(coordinator)
        self.server = Server(registry=DISKLESS_REGISTRY)
        self.server.handle(10, self.find_coordinator, versions=(4, BATCH_KEY_VERSION))
        for api_key, call in wire.CALLS.items():
            self.server.handle(api_key, self._serving(call))

    @contextlib.asynccontextmanager
    async def listening(
        self, address: tuple[str, int], advertised_host: str | None = None
    ) -> AsyncIterator[CoordinatorService]:
        """Listen on ``address``; FindCoordinator then names the port chosen (and
        ``advertised_host``, else the host listened on)."""
        async with self.server.listening(address):
            host, port = self.server.addresses[0]
            self.node = Node(self.node.node_id, advertised_host or host, port)
            if not self.coordinator.read_only:
                self.leader = self.node
            yield self

    def owns(self, topic_id: Uuid, partition: int) -> bool:
        """Whether this coordinator owns the partition: every one without a routing."""
        return self.routing is None or self.routing.owner(topic_id, partition) == self.coordinator.partition

    def _serving(self, call: wire.Call) -> Handler:
        async def handler(context: RequestContext) -> Message | EncodedBody:
            return await call(self.coordinator, self.writes.write, context.body, self.owns)

        return handler

    async def find_coordinator(self, context: RequestContext) -> Message:
        request = context.body
        assert isinstance(request, FindCoordinatorRequest)
        return FindCoordinatorResponse(coordinators=[
            self._coordinator_for(key, request.key_type, context.api_version)
            for key in request.coordinator_keys
        ])  # fmt: skip

    def _coordinator_for(self, key: str, key_type: int, version: int) -> Coordinator:
        def refused(error: int, why: str) -> Coordinator:
            return Coordinator(key=key, node_id=-1, host="", port=-1, error_code=error, error_message=why)

        if key_type in KAFKA_KEY_TYPES:
            return refused(ErrorCode.COORDINATOR_NOT_AVAILABLE, "only batch coordinators (key type 3) are served here")
        if key_type != BATCH_KEY_TYPE:
            return refused(ErrorCode.INVALID_REQUEST, f"unknown coordinator key type {key_type}")
        if version < BATCH_KEY_VERSION:
            return refused(ErrorCode.INVALID_REQUEST, "key type 3 needs FindCoordinator v7")
        try:
            node = self._locate(*parse_batch_key(key))
        except ValueError as e:
            return refused(ErrorCode.INVALID_REQUEST, str(e))
        if isinstance(node, str):
            return refused(ErrorCode.COORDINATOR_NOT_AVAILABLE, node)
        return Coordinator(key=key, node_id=node.node_id, host=node.host, port=node.port,
                           error_code=0, error_message=None)  # fmt: skip

    def _locate(self, operation: str, topic_id: Uuid, partition: int) -> Node | str:
        """The node serving the key's coordinator, or why there is none."""
        mine = self.coordinator.partition
        if self.routing is not None:
            owner = self.routing.owner(topic_id, partition)
            if owner is None:
                return f"partition {partition} of topic {topic_id} is not mapped to a batch coordinator"
            if owner != mine:
                return self.routing.node(owner) or f"batch coordinator {owner} is not served now"
        node = self.node if operation == "read" else self.leader
        return node or "the leading coordinator is not known here"
