"""A cluster seen from the client: bootstrapped from a list of addresses, it keeps the metadata
(brokers, controller, partition leaders, topic ids) and the coordinators found, holds one
connection per node, and sends each request to the node it belongs to (``routing``).

When an answer says the route was stale (NOT_LEADER_OR_FOLLOWER, NOT_COORDINATOR and their
kin), the cluster refreshes what it knows and sends once more; the second answer is returned as
it is. A connection that fails is dropped and opened again on the next request; the failed
request is not resent (it may have reached the broker).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Any

from ..error_codes import ErrorCode
from ..message import Message
from ..messages.find_coordinator_request import FindCoordinatorRequest
from ..messages.find_coordinator_response import FindCoordinatorResponse
from ..messages.metadata_request import MetadataRequest
from ..messages.metadata_response import MetadataResponse
from ..net.errors import NetworkError
from ..uuid import Uuid
from .connection import Connection, connect
from .routing import AnyBroker, Controller, Coordinator, Leader, Node, Target, is_stale_route, route


@dataclass(frozen=True)
class Broker:
    node_id: int
    host: str
    port: int
    rack: str | None = None


class Cluster:
    """``async with Cluster([("host", 9092)], **connect_options) as cluster: await cluster.send(...)``.

    ``connect_options`` are ``connect``'s (ssl, sasl, client_id, timeout, ...), used for every
    connection the cluster opens; ``retry_backoff`` is the pause before the one retry after a
    stale-route answer."""

    def __init__(
        self,
        bootstrap: Sequence[tuple[str, int]],
        *,
        retry_backoff: float = 0.1,
        **connect_options: Any,
    ):
        if not bootstrap:
            raise ValueError("a cluster needs at least one bootstrap address")
        self.bootstrap = list(bootstrap)
        self.connect_options = connect_options
        self.retry_backoff = retry_backoff  # seconds between a stale-route answer and the retry
        self.brokers: dict[int, Broker] = {}
        self.controller_id = -1
        self.cluster_id: str | None = None
        self.leaders: dict[tuple[str, int], int] = {}  # (topic, partition) -> leader node id
        self.topic_names: dict[Uuid, str] = {}
        self.coordinators: dict[tuple[int, str], int] = {}  # (key type, key) -> node id
        self._connections: dict[int, Connection] = {}
        self._bootstrap_connection: Connection | None = None
        self._opening: dict[int, asyncio.Lock] = {}

    async def __aenter__(self) -> Cluster:
        await self.refresh()
        return self

    async def __aexit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    async def close(self) -> None:
        connections = list(self._connections.values())
        if self._bootstrap_connection is not None:
            connections.append(self._bootstrap_connection)
        self._connections.clear()
        self._bootstrap_connection = None
        await asyncio.gather(*(c.close() for c in connections), return_exceptions=True)

    async def send(
        self,
        request: Message,
        version: int | None = None,
        *,
        to: Target | None = None,
        timeout: float | None = None,
    ) -> Message:
        """Send ``request`` to its node (``to``, or the one ``routing.route`` picks) and return
        the response body; on a stale-route answer, refresh and send once more."""
        target = route(request) if to is None else to
        conn = await self.connection_for(target)
        body = await conn.send(request, version, timeout=timeout)
        if not is_stale_route(body):
            return body
        self._forget(target)
        await asyncio.sleep(self.retry_backoff)  # Kafka's clients wait retry.backoff.ms too
        await self.refresh()
        conn = await self.connection_for(target)
        return await conn.send(request, version, timeout=timeout)

    async def connection_for(self, target: Target) -> Connection:
        """The open connection to the node ``target`` names (opened if need be)."""
        if isinstance(target, AnyBroker):
            return await self._any_connection()
        return await self.node_connection(await self._node_of(target))

    async def _node_of(self, target: Target) -> int:
        if isinstance(target, Node):
            return target.node_id
        if isinstance(target, Controller):
            if self.controller_id < 0:
                await self.refresh()
            return self.controller_id
        if isinstance(target, Leader):
            return await self._leader(target)
        if isinstance(target, Coordinator):
            return await self._coordinator(target)
        raise TypeError(f"not a routing target: {target!r}")

    async def _leader(self, target: Leader) -> int:
        if self._leader_known(target) < 0:
            # by name, only that topic; by an id not seen yet, all of them
            await self.refresh(None if isinstance(target.topic, Uuid) else [target.topic])
        leader = self._leader_known(target)
        if leader < 0:
            raise NetworkError(
                f"no leader known for partition {target.partition} of topic {target.topic}"
            )
        return leader

    def _leader_known(self, target: Leader) -> int:
        name = (
            self.topic_names.get(target.topic, "")
            if isinstance(target.topic, Uuid)
            else target.topic
        )
        return self.leaders.get((name, target.partition), -1)

    async def _coordinator(self, target: Coordinator) -> int:
        key = (target.key_type, target.key)
        if key not in self.coordinators:
            self.coordinators[key] = await self._find_coordinator(target)
        return self.coordinators[key]

    async def _find_coordinator(self, target: Coordinator) -> int:
        """Ask FindCoordinator, again while the answer is retriable (the coordinator's topic is
        still being created or loaded), as Kafka's clients do, within the connection's timeout."""
        conn = await self._any_connection()
        deadline = asyncio.get_running_loop().time() + conn.timeout
        pause = 0.05
        while True:
            error, node_id, host, port = await self._ask_coordinator(conn, target)
            code = ErrorCode.for_code(error)
            if not error:
                self.brokers.setdefault(node_id, Broker(node_id, host, port))
                return node_id
            if not code.retriable or asyncio.get_running_loop().time() + pause > deadline:
                raise NetworkError(
                    f"FindCoordinator for {target.key!r} (key type {target.key_type}) failed: {code.name} ({error})"
                )
            await asyncio.sleep(pause)
            pause = min(2 * pause, 1.0)

    @staticmethod
    async def _ask_coordinator(conn: Connection, target: Coordinator) -> tuple[int, int, str, int]:
        """One FindCoordinator: (error code, node id, host, port)."""
        version = conn.version_for(FindCoordinatorRequest)
        batched = version >= 4  # a list of keys, and one answer per key, from version 4 on
        request = FindCoordinatorRequest(
            key_type=target.key_type,
            **({"coordinator_keys": [target.key]} if batched else {"key": target.key}),
        )
        answer = await conn.send(request, version, expect=FindCoordinatorResponse)
        found = answer.coordinators[0] if batched else answer
        return found.error_code, found.node_id, found.host, found.port

    def _forget(self, target: Target) -> None:
        if isinstance(target, Coordinator):
            self.coordinators.pop((target.key_type, target.key), None)

    async def refresh(self, topics: list[str] | None = None) -> Message:
        """Ask any broker for the metadata (of ``topics``, or of all topics), keep it and return
        the MetadataResponse."""
        wanted = (
            None
            if topics is None
            else [MetadataRequest.MetadataRequestTopic(name=t) for t in topics]
        )
        conn = await self._any_connection()
        metadata = await conn.send(
            MetadataRequest(topics=wanted, allow_auto_topic_creation=False), expect=MetadataResponse
        )
        self.brokers = {
            b.node_id: Broker(b.node_id, b.host, b.port, b.rack) for b in metadata.brokers
        }
        self.controller_id, self.cluster_id = metadata.controller_id, metadata.cluster_id
        for topic in metadata.topics:
            if topic.name is None:
                continue
            if topic.topic_id != Uuid.ZERO_UUID:
                self.topic_names[topic.topic_id] = topic.name
            for partition in topic.partitions:
                self.leaders[(topic.name, partition.partition_index)] = partition.leader_id
        return metadata

    async def node_connection(self, node_id: int) -> Connection:
        """The connection to node ``node_id``, opened on first use and after a failure."""
        lock = self._opening.setdefault(node_id, asyncio.Lock())
        async with lock:  # one connection per node, even when many calls ask at once
            conn = self._connections.get(node_id)
            if conn is not None and not conn.closed:
                return conn
            if node_id not in self.brokers:
                await self.refresh()
            broker = self.brokers.get(node_id)
            if broker is None:
                raise NetworkError(
                    f"node {node_id} is not among the cluster's brokers {sorted(self.brokers)}"
                )
            conn = await connect(broker.host, broker.port, **self.connect_options)
            self._connections[node_id] = conn
            return conn

    async def _any_connection(self) -> Connection:
        """An open connection to some broker: one already open, else a bootstrap address."""
        for conn in self._connections.values():
            if not conn.closed:
                return conn
        if self._bootstrap_connection is not None and not self._bootstrap_connection.closed:
            return self._bootstrap_connection
        errors = []
        for host, port in self.bootstrap:
            try:
                self._bootstrap_connection = await connect(host, port, **self.connect_options)
                return self._bootstrap_connection
            except (OSError, NetworkError) as e:
                errors.append(f"{host}:{port}: {e}")
        raise NetworkError("no bootstrap address answered: " + "; ".join(errors))
