"""``Broker``: one fake-cluster broker on the server framework, serving the data plane from
partitions kept as real log segments under its data directory.

Its view of the cluster is ``metadata``: any object with the surface of
``testing.broker.lifecycle.BrokerLifecycle`` (``image``, ``add_listener``, ``forward``,
``allocate_producer_ids``, ...), or ``StaticMetadata`` for a broker without a controller. After
each change of the image the broker opens the replicas it now holds and drops those of deleted
topics. ``peers`` (node id -> Broker, set by whoever builds the cluster) is how a leader reaches
its followers' logs (``replicas`` says how replication works in process).

``start`` only serves: registering with the controller is the metadata source's part (the
cluster starts the broker, then its ``BrokerLifecycle`` with the address it listens on). ``stop``
closes the logs and leaves them on disk; a broker started again over the same directory recovers
its partitions from the segments (producer state and leader epochs included). What Kafka keeps in
its checkpoint files beside the partitions (high watermarks, log start offsets) is not written:
after a restart the high watermark is the log end offset and the log start offset the first
offset still in a segment.

The handlers, by module: ``produce``, ``fetch``, ``cluster_info`` (Metadata, DescribeCluster),
``offsets`` (ListOffsets, OffsetForLeaderEpoch, DeleteRecords), ``configs`` (DescribeConfigs),
``admin`` (InitProducerId and the requests forwarded to the controller). ``server`` is the
``server.Server``: register more handlers on it (the group coordinator does).
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

from ...kraft.image import MetadataImage, PartitionRegistration, Topic
from ...server import Server
from . import admin, cluster_info, configs, fetch, offsets, produce
from .fetch_sessions import FetchSessions
from .partition import Partition
from .replicas import Replicas, replicate

DEFAULT_LISTENER = "PLAINTEXT"


class Broker:
    """A broker of the in-process cluster: ``await start()``, ``address``, ``await stop()``."""

    def __init__(self, node_id: int, data_dir: str | Path, *, cluster_id: str, metadata: Any,
                 listener_name: str = DEFAULT_LISTENER, rack: str | None = None):  # fmt: skip
        self.node_id = node_id
        self.data_dir = Path(data_dir)
        self.cluster_id = cluster_id
        self.metadata = metadata
        self.listener_name = listener_name
        self.rack = rack
        self.server = Server()
        self.replicas = Replicas(node_id, self.data_dir)
        self.peers: dict[int, Broker] = {}
        self.fetch_sessions = FetchSessions()
        self.running = False
        self._appended: asyncio.Event | None = None
        self._producer_ids: list[int] = []  # [next, end) of the block being handed out
        metadata.add_listener(self._on_image)
        for module in (produce, fetch, cluster_info, offsets, configs, admin):
            module.register(self)

    # --- life ------------------------------------------------------------------------------

    async def start(self, host: str = "127.0.0.1", port: int = 0) -> None:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        await self.server.start((host, port))
        self.running = True
        self.replicas.sync(self.image)

    @property
    def address(self) -> tuple[str, int]:
        return self.server.addresses[0]

    async def stop(self) -> None:
        """Stop serving and close the logs (they stay on disk for a restart)."""
        self.running = False
        self._wake()
        await self.server.close()
        self.replicas.close()
        self.fetch_sessions.clear()

    def _on_image(self, image: MetadataImage) -> None:
        if self.running:
            self.replicas.sync(image)
            self._wake()  # long polls see leadership changes and deleted topics

    # --- what the handlers share -----------------------------------------------------------

    @property
    def image(self) -> MetadataImage:
        image: MetadataImage = self.metadata.image
        return image

    def topic(self, name: str | None = None, topic_id: Any = None) -> Topic | None:
        if topic_id is not None:
            return self.image.topics.get(topic_id)
        return self.image.topic(name) if name is not None else None

    def topic_config(self, topic: str) -> dict[str, str]:
        return self.image.configs.get((configs.TOPIC, topic), {})

    def now_ms(self) -> int:
        return int(time.time() * 1000)

    def replicate(self, leader: Partition, registration: PartitionRegistration) -> None:
        """Copy the leader's new batches to its running in-sync followers (``replicas``)."""
        replicate(leader, registration, self.peer_replicas)
        self._wake()
        for node in registration.isr:
            peer = self.peers.get(node)
            if peer is not None and peer is not self:
                peer._wake()

    def peer_replicas(self, node: int) -> Replicas | None:
        peer = self.peers.get(node)
        return peer.replicas if peer is not None and peer.running else None

    def _wake(self) -> None:
        if self._appended is not None:
            self._appended.set()
            self._appended = None

    async def wait_for_change(self, timeout: float) -> None:
        """Return after the next append, image change or stop, or after ``timeout`` seconds."""
        if timeout <= 0 or not self.running:
            return
        if self._appended is None:
            self._appended = asyncio.Event()
        try:
            await asyncio.wait_for(self._appended.wait(), timeout)
        except asyncio.TimeoutError:
            pass

    async def next_producer_id(self) -> int:
        """A producer id from this broker's block, asking the controller for a new block when
        it runs out (as Kafka's RPCProducerIdManager does)."""
        if not self._producer_ids or self._producer_ids[0] >= self._producer_ids[1]:
            first, count = await self.metadata.allocate_producer_ids()
            self._producer_ids = [first, first + count]
        producer_id = self._producer_ids[0]
        self._producer_ids[0] += 1
        return producer_id

    def __repr__(self) -> str:
        where = f"{self.address[0]}:{self.address[1]}" if self.running else "stopped"
        return f"<Broker {self.node_id} {where}, {len(self.replicas.partitions)} partitions>"
