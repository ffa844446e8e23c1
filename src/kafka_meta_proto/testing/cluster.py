"""``FakeCluster``: a KRaft controller, N brokers and a group coordinator in this process, on
loopback ports, that real clients accept::

    async with FakeCluster(brokers=3) as cluster:
        print(cluster.bootstrap)            # "127.0.0.1:41231,127.0.0.1:39877,..."
        await cluster.create_topic("events", partitions=3, replication_factor=2)
        cluster.faults.fail(ProduceRequest, ErrorCode.NOT_LEADER_OR_FOLLOWER, count=2)
        await cluster.stop_broker(1)        # its partitions' leadership moves on

Each broker registers with the controller over the wire (``broker.lifecycle``), follows the
metadata log into its own image, and serves the data plane from real log segments under
``data_dir/broker-N``; the controller's ``__cluster_metadata`` log is under ``data_dir/controller``.
The group coordinator is one object for the cluster, reached through whichever live broker
FindCoordinator names, so groups and committed offsets outlive any one broker (Kafka keeps them
in the replicated ``__consumer_offsets`` topic to the same end).

With ``diskless=True`` the cluster speaks the diskless design's registry where the design adds to
Kafka (``testing.diskless``): the controller serves AssignPartitionToBatchCoordinator and writes
the mapping records, the brokers' images read them, ``__diskless-metadata`` is created with
``coordinators`` partitions and a batch coordinator per partition serves on its own port
(``cluster.coordinators``, a ``diskless.group.CoordinatorGroup``).

Timing: brokers heartbeat every ``heartbeat_interval_ms`` (100 by default, Kafka's is 2000) and
a broker that stops heartbeating is fenced after ``session_timeout_ms`` (3000 by default, Kafka's
9000), so a test sees a lost broker's partitions move within seconds.
"""

from __future__ import annotations

import asyncio
import shutil
import tempfile
from functools import partial
from pathlib import Path
from typing import Any

from ..diskless_messages import REGISTRY as DISKLESS_REGISTRY
from ..error_codes import ErrorCode
from ..kraft.image import MetadataImage
from ..message import Message
from ..messages.create_topics_request import CreatableTopic, CreatableTopicConfig, CreateTopicsRequest
from ..messages.delete_topics_request import DeleteTopicsRequest, DeleteTopicState
from ..messages.find_coordinator_request import FindCoordinatorRequest
from ..uuid import Uuid
from ..diskless.group import CoordinatorGroup
from .broker import Broker
from .broker.lifecycle import BrokerLifecycle
from .controller import Controller
from .diskless import DisklessSide
from .faults import Faults
from .groups import GroupCoordinator, coordinator_of

LOOPBACK = "127.0.0.1"
LISTENER = "PLAINTEXT"
DEFAULT_HEARTBEAT_INTERVAL_MS = 100
DEFAULT_SESSION_TIMEOUT_MS = 3000
READY_TIMEOUT = 30.0  # seconds for every broker to be registered, unfenced and caught up


class ClusterError(Exception):
    """A request the cluster's own helpers made was refused (the error names the code)."""


class FakeCluster:
    """A Kafka cluster in this process (see the module). ``await start()`` / ``await stop()``, or
    ``async with``; for synchronous code, ``testing.threaded.RunningCluster``."""

    def __init__(self, brokers: int = 3, data_dir: str | Path | None = None, *,
                 host: str = LOOPBACK, ports: list[int] | None = None,
                 cluster_id: str | None = None,
                 heartbeat_interval_ms: int = DEFAULT_HEARTBEAT_INTERVAL_MS,
                 session_timeout_ms: int = DEFAULT_SESSION_TIMEOUT_MS,
                 groups: GroupCoordinator | None = None, diskless: bool = False,
                 coordinators: int = 1):  # fmt: skip
        if brokers < 1:
            raise ValueError("a cluster needs at least one broker")
        if ports is not None and len(ports) != brokers:
            raise ValueError(f"{len(ports)} ports given for {brokers} brokers")
        self.host = host
        self.ports = ports or [0] * brokers
        self.cluster_id = cluster_id or str(Uuid.random())
        self.heartbeat_interval_ms = heartbeat_interval_ms
        self.session_timeout_ms = session_timeout_ms
        self._own_dir = data_dir is None
        self.data_dir = Path(data_dir) if data_dir is not None else Path()
        self.groups = groups if groups is not None else GroupCoordinator()
        self.faults = Faults()
        self.controller: Controller | None = None
        self.brokers: dict[int, Broker] = {}  # every broker, running or stopped
        self._lifecycles: dict[int, BrokerLifecycle] = {}
        self._count = brokers
        self._diskless = DisklessSide(coordinators) if diskless else None

    # --- life --------------------------------------------------------------------------------

    async def start(self) -> FakeCluster:
        if self._own_dir:
            self.data_dir = Path(tempfile.mkdtemp(prefix="fake-kafka-"))
        self.controller = Controller(self.data_dir / "controller", cluster_id=self.cluster_id,
                                     session_timeout_ms=self.session_timeout_ms,
                                     diskless=self._diskless is not None)  # fmt: skip
        await self.controller.start(self.host, 0)
        await asyncio.gather(*(self.start_broker(node) for node in range(self._count)))
        if self._diskless is not None:
            await self._diskless.start(self)
        return self

    async def stop(self) -> None:
        """Stop every broker and the controller; a temporary data directory is removed."""
        if self._diskless is not None:
            await self._diskless.stop()
        for node in list(self.brokers):
            await self.stop_broker(node)
        self.groups.close()
        if self.controller is not None:
            await self.controller.close()
            self.controller = None
        if self._own_dir:
            shutil.rmtree(self.data_dir, ignore_errors=True)

    async def __aenter__(self) -> FakeCluster:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    # --- what clients and tests see -------------------------------------------------------------

    @property
    def bootstrap(self) -> str:
        """The running brokers' addresses, ``host:port,host:port,...``."""
        return ",".join(f"{host}:{port}" for host, port in self.addresses)

    @property
    def addresses(self) -> list[tuple[str, int]]:
        return [broker.address for _, broker in sorted(self.brokers.items()) if broker.running]

    @property
    def image(self) -> MetadataImage:
        """The controller's metadata image: what the cluster has committed."""
        return self._controller.image

    @property
    def _controller(self) -> Controller:
        if self.controller is None:
            raise RuntimeError("the cluster is not started")
        return self.controller

    def _live(self) -> list[tuple[int, str, int]]:
        """(node id, host, port) of the running, unfenced brokers, in node-id order."""
        image = self._controller.image
        live = []
        for node, broker in sorted(self.brokers.items()):
            registration = image.brokers.get(node)
            if broker.running and registration is not None and not registration.fenced:
                live.append((node, *broker.address))
        return live

    def _coordinates(self, node: int, group_id: str) -> bool:
        return coordinator_of(group_id, [live[0] for live in self._live()]) == node

    # --- brokers -----------------------------------------------------------------------------

    async def start_broker(self, node: int) -> Broker:
        """Start broker ``node`` (again, after ``stop_broker``: same directory, new incarnation)
        and wait until it is registered, unfenced and caught up with the metadata log."""
        old = self.brokers.get(node)
        if old is not None and old.running:
            raise RuntimeError(f"broker {node} is running")
        controller = self._controller
        lifecycle = BrokerLifecycle(node, controller.address, cluster_id=self.cluster_id,
                                    listeners=[], heartbeat_interval_ms=self.heartbeat_interval_ms)  # fmt: skip
        if self._diskless is not None:  # its image reads the coordinator mappings
            lifecycle.image.registry = DISKLESS_REGISTRY
        broker = Broker(node, self.data_dir / f"broker-{node}", cluster_id=self.cluster_id,
                        metadata=lifecycle)  # fmt: skip
        broker.server.intercept(self.faults.interceptor(node))
        self.groups.register(broker.server, partial(self._coordinates, node),
                             metadata_image=lambda: lifecycle.image)  # fmt: skip
        broker.server.handle(FindCoordinatorRequest, self.groups.find_coordinator_handler(self._live))
        await broker.start(self.host, self.ports[node])
        self.ports[node] = broker.address[1]  # a restart listens where clients knew it
        lifecycle.listeners = [(LISTENER, self.host, broker.address[1])]
        self.brokers[node] = broker
        self._lifecycles[node] = lifecycle
        self._link_peers()
        await lifecycle.start()
        await self._ready(node)
        return broker

    async def _ready(self, node: int) -> None:
        def unfenced(image: MetadataImage) -> bool:
            registration = image.brokers.get(node)
            return registration is not None and not registration.fenced

        await self._lifecycles[node].wait_until(unfenced, READY_TIMEOUT)
        await self._lifecycles[node].caught_up(READY_TIMEOUT)

    def _link_peers(self) -> None:
        for broker in self.brokers.values():
            broker.peers = self.brokers

    async def stop_broker(self, node: int, *, controlled: bool = False) -> None:
        """Stop broker ``node``. Without ``controlled`` it is lost as a crash loses it: the
        controller fences it when its session times out and moves its leaderships then; with
        ``controlled`` it first asks the controller to move them (Kafka's controlled shutdown)."""
        broker = self.brokers[node]
        lifecycle = self._lifecycles[node]
        if not broker.running:
            return
        if controlled:
            await lifecycle.controlled_shutdown()
        self.groups.release(broker.server)
        await lifecycle.stop()
        await broker.stop()

    async def fence_broker(self, node: int) -> None:
        """Fence a running broker at the controller (as if its session were lost) until
        ``unfence_broker``; clients see its partitions move."""
        await self._controller.fence(node)

    async def unfence_broker(self, node: int) -> None:
        await self._controller.unfence(node)

    async def move_leader(self, topic: str, partition: int, node: int) -> None:
        """Make broker ``node`` (an in-sync replica) the partition's leader."""
        await self._controller.move_leader(topic, partition, node)
        await self.wait_until(lambda image: _leader(image, topic, partition) == node)

    async def wait_until(self, predicate: Any, timeout: float = READY_TIMEOUT) -> None:
        """Wait until every running broker's image satisfies ``predicate``."""
        await asyncio.gather(*(self._lifecycles[node].wait_until(predicate, timeout)
                               for node, broker in self.brokers.items() if broker.running))  # fmt: skip

    # --- diskless topics (``diskless=True``; ``testing.diskless``) ----------------------------------

    @property
    def coordinators(self) -> CoordinatorGroup:
        """The batch coordinators, one per ``__diskless-metadata`` partition."""
        group = self._diskless_side().group
        assert group is not None  # a started side has its group
        return group

    async def create_diskless_topic(self, name: str, partitions: int = 1, replication_factor: int = 1) -> Uuid:
        """A diskless topic, its partitions mapped round-robin to the coordinators, each of them
        told of it (InitDisklessTopics); its topic id."""
        return await self._diskless_side().create_topic(self, name, partitions, replication_factor)

    async def assign_coordinators(self, topic: str, mapping: dict[int, int]) -> None:
        """Map partitions of a diskless topic to coordinators (partition -> coordinator) with
        AssignPartitionToBatchCoordinator at the controller; returns once the brokers know."""
        await self._diskless_side().assign(self, topic, mapping)

    def _diskless_side(self) -> DisklessSide:
        if self._diskless is None or self._diskless.group is None:
            raise RuntimeError("the cluster is not a started diskless one (FakeCluster(diskless=True))")
        return self._diskless

    # --- topics, through a broker as a client's admin request goes -------------------------------

    async def create_topic(self, name: str, partitions: int = 1, replication_factor: int = 1,
                           configs: dict[str, str] | None = None) -> None:  # fmt: skip
        topic = CreatableTopic(name=name, num_partitions=partitions,
                               replication_factor=replication_factor,
                               configs=[CreatableTopicConfig(name=k, value=v)
                                        for k, v in (configs or {}).items()])  # fmt: skip
        answer = await self._forward(CreateTopicsRequest(topics=[topic], timeout_ms=30_000))
        _raise_errors(answer.topics, f"creating {name}")
        await self.wait_until(lambda image: _has_partitions(image, name, partitions))

    async def delete_topic(self, name: str) -> None:
        answer = await self._forward(DeleteTopicsRequest(topics=[DeleteTopicState(name=name)],
                                                         timeout_ms=30_000))  # fmt: skip
        _raise_errors(answer.responses, f"deleting {name}")
        await self.wait_until(lambda image: image.topic(name) is None)

    async def _forward(self, request: Message) -> Any:
        for node, broker in sorted(self.brokers.items()):
            if broker.running:
                return await self._lifecycles[node].forward(request)
        raise RuntimeError("no broker is running")


def _leader(image: MetadataImage, topic: str, partition: int) -> int | None:
    found = image.topic(topic)
    registration = found.partitions.get(partition) if found is not None else None
    return registration.leader if registration is not None else None


def _has_partitions(image: MetadataImage, name: str, count: int) -> bool:
    found = image.topic(name)
    return found is not None and len(found.partitions) >= count


def _raise_errors(entries: Any, what: str) -> None:
    for entry in entries:
        if entry.error_code:
            raise ClusterError(f"{what}: {ErrorCode.for_code(entry.error_code).name}"
                               f"{': ' + entry.error_message if entry.error_message else ''}")

