"""The broker's side of KRaft: registering with the controller, heartbeating, and following the
metadata log into a ``kraft.MetadataImage``, over the wire with the package's client.

``BrokerLifecycle`` does what Kafka's BrokerLifecycleManager and metadata loader do for a broker:

- ``start`` registers (a random incarnation id unless one is given; DUPLICATE_BROKER_REGISTRATION
  is retried until the previous incarnation's session expires, as Kafka's broker retries), then
  runs two loops: the metadata follower, a long-polling Fetch of ``__cluster_metadata`` whose
  batches are replayed into ``image`` (listeners are called after each replayed answer), and the
  heartbeats, every ``heartbeat_interval_ms`` and at once whenever the image moves while the
  broker is still fenced (so it is unfenced as soon as it has caught up with its registration);
- ``forward`` sends an admin request to the controller and returns once this broker's image holds
  its outcome; ``allocate_producer_ids`` asks for a block of producer ids;
- ``controlled_shutdown`` heartbeats with WantShutDown until the controller answers
  ShouldShutDown (its leaderships moved away first); ``stop`` ends the loops (without a
  controlled shutdown: the controller fences the broker when its session runs out).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable
from typing import Any

from ...client import Connection, connect
from ...error_codes import ErrorCode
from ...kraft.image import MetadataImage
from ...log.batch import RecordBatch, decode_batch
from ...log.errors import TruncatedBatchError
from ...log.names import METADATA_TOPIC
from ...message import Message
from ...messages.alter_partition_request import AlterPartitionRequest
from ...messages.alter_partition_response import AlterPartitionResponse
from ...messages.allocate_producer_ids_request import AllocateProducerIdsRequest
from ...messages.allocate_producer_ids_response import AllocateProducerIdsResponse
from ...messages.broker_heartbeat_request import BrokerHeartbeatRequest
from ...messages.broker_heartbeat_response import BrokerHeartbeatResponse
from ...messages.broker_registration_request import BrokerRegistrationRequest
from ...messages.broker_registration_response import BrokerRegistrationResponse
from ...messages.fetch_request import FetchRequest
from ...messages.fetch_response import FetchResponse
from ...uuid import Uuid

log = logging.getLogger("kafka_meta_proto.testing.broker")

SECURITY_PROTOCOLS = {"PLAINTEXT": 0, "SSL": 1, "SASL_PLAINTEXT": 2, "SASL_SSL": 3}
METADATA_VERSIONS = (7, 21)  # the metadata.version levels this broker reads: 3.3-IV3 to 3.9-IV0
FETCH_MAX_WAIT_MS = 500  # controller.quorum.fetch.timeout.ms is 2000; shorter keeps stops quick
FETCH_MAX_BYTES = 8 << 20
REGISTRATION_RETRY = 0.05  # seconds between registration attempts refused as duplicates
Listener = Callable[[MetadataImage], None]


class LifecycleError(Exception):
    """The controller refused a request of this broker; ``error`` is the Kafka error code."""

    def __init__(self, error: int, what: str):
        super().__init__(f"{what}: {ErrorCode.for_code(error).name}")
        self.error = error


class BrokerLifecycle:
    """A broker's registration, heartbeats and metadata image (see the module)."""

    def __init__(self, node_id: int, controller_address: tuple[str, int], *, cluster_id: str,
                 listeners: list[tuple[str, str, int]], rack: str | None = None,
                 heartbeat_interval_ms: int = 500, incarnation_id: Uuid | None = None,
                 registration_timeout: float = 30.0):  # fmt: skip
        self.node_id = node_id
        self.controller_address = controller_address
        self.cluster_id = cluster_id
        self.listeners = listeners
        self.rack = rack
        self.heartbeat_interval = heartbeat_interval_ms / 1000
        self.incarnation_id = incarnation_id or Uuid.random()
        self.registration_timeout = registration_timeout
        self.directory_id = Uuid.random()
        self.image = MetadataImage()
        self.broker_epoch = -1
        self.fenced = True
        self.high_watermark = 0
        self.last_heartbeat: Any = None  # the last BrokerHeartbeatResponse
        self._listeners: list[Listener] = []
        self._changed = asyncio.Condition()
        self._want_shutdown = False
        self._heartbeat_now = asyncio.Event()
        # Two connections, as Kafka's broker keeps two channels: answers come back in request
        # order, so a heartbeat must not queue behind a long-polling Fetch.
        self._conn: Connection | None = None
        self._fetch_conn: Connection | None = None
        self._tasks: list[asyncio.Task[None]] = []

    # --- life --------------------------------------------------------------------------------

    async def start(self) -> None:
        """Register, then follow the metadata log and heartbeat until stopped."""
        self._conn = await connect(*self.controller_address, client_id=f"broker-{self.node_id}")
        self._fetch_conn = await connect(*self.controller_address,
                                         client_id=f"broker-{self.node_id}-metadata")  # fmt: skip
        self.broker_epoch = await self._register()
        loop = asyncio.get_running_loop()
        self._tasks = [loop.create_task(self._follow()), loop.create_task(self._heartbeats())]

    async def _register(self) -> int:
        request = BrokerRegistrationRequest(
            broker_id=self.node_id, cluster_id=self.cluster_id, incarnation_id=self.incarnation_id,
            listeners=[BrokerRegistrationRequest.Listener(name=name, host=host, port=port,
                       security_protocol=SECURITY_PROTOCOLS.get(name, 0))
                       for name, host, port in self.listeners],
            features=[BrokerRegistrationRequest.Feature(name="metadata.version",
                      min_supported_version=METADATA_VERSIONS[0], max_supported_version=METADATA_VERSIONS[1])],
            rack=self.rack, log_dirs=[self.directory_id],
        )  # fmt: skip
        deadline = asyncio.get_running_loop().time() + self.registration_timeout
        while True:
            answer = await self._send(request, BrokerRegistrationResponse)
            retry = answer.error_code == ErrorCode.DUPLICATE_BROKER_REGISTRATION
            if not retry or asyncio.get_running_loop().time() > deadline:
                break
            await asyncio.sleep(REGISTRATION_RETRY)
        if answer.error_code:
            raise LifecycleError(answer.error_code, f"broker {self.node_id} registration")
        return int(answer.broker_epoch)

    async def stop(self) -> None:
        """End the loops and the connection (no controlled shutdown)."""
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self._tasks = []
        for conn in (self._conn, self._fetch_conn):
            if conn is not None:
                await conn.close()
        self._conn = self._fetch_conn = None

    async def __aenter__(self) -> BrokerLifecycle:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    async def _send(self, request: Message, expect: type[Any], conn: Connection | None = None) -> Any:
        conn = conn or self._conn
        if conn is None:
            raise RuntimeError(f"broker {self.node_id}'s lifecycle is not started")
        return await conn.send(request, expect=expect)

    # --- the metadata follower ---------------------------------------------------------------

    async def _follow(self) -> None:
        while True:
            try:
                answer = await self._fetch(FETCH_MAX_WAIT_MS)
            except asyncio.CancelledError:
                raise
            except Exception as e:  # the controller went away: the loop ends, the image stays
                log.info("broker %d stops following the metadata log: %s", self.node_id, e)
                return
            await self._replay(answer)

    async def _fetch(self, max_wait_ms: int) -> Any:
        partition = FetchRequest.FetchPartition(partition=0, fetch_offset=self.image.offset + 1,
                                                last_fetched_epoch=self.image.epoch,
                                                partition_max_bytes=FETCH_MAX_BYTES)  # fmt: skip
        topic = FetchRequest.FetchTopic(topic=METADATA_TOPIC, topic_id=Uuid.METADATA_TOPIC_ID,
                                        partitions=[partition])  # fmt: skip
        request = FetchRequest(cluster_id=self.cluster_id, max_wait_ms=max_wait_ms, min_bytes=1,
                               max_bytes=FETCH_MAX_BYTES, topics=[topic])  # fmt: skip
        conn = self._fetch_conn if max_wait_ms else self._conn
        if conn is None:
            raise RuntimeError(f"broker {self.node_id}'s lifecycle is not started")
        if conn.version_for(request) >= 15:  # an observer names itself in ReplicaState
            request.replica_state = FetchRequest.ReplicaState(replica_id=self.node_id, replica_epoch=-1)
        else:
            request.replica_id = self.node_id
        return await self._send(request, FetchResponse, conn)

    async def _replay(self, answer: Any) -> None:
        if answer.error_code:  # the whole fetch refused (a foreign cluster id, a malformed ask)
            raise LifecycleError(answer.error_code, f"broker {self.node_id} fetching the metadata log")
        data = answer.responses[0].partitions[0]
        if data.error_code:
            raise LifecycleError(data.error_code, f"broker {self.node_id} fetching the metadata log")
        self.high_watermark = int(data.high_watermark)
        before = self.image.offset
        batches = _batches(bytes(data.records or b""))
        self.image.replay_batches(batches, min_offset=before + 1)
        self._skip_control_batches(batches)
        if self.image.offset != before:
            for listener in list(self._listeners):
                listener(self.image)
            if self.fenced:
                self._heartbeat_now.set()
        async with self._changed:
            self._changed.notify_all()

    def _skip_control_batches(self, batches: list[RecordBatch]) -> None:
        """A control batch (the LeaderChange) holds no metadata record but is part of the log:
        the image's offset moves past it, so the next fetch asks for what follows."""
        last = max((b.last_offset for b in batches), default=-1)
        if last > self.image.offset:
            self.image.offset = last

    # --- the image ---------------------------------------------------------------------------

    def add_listener(self, fn: Listener) -> None:
        """Call ``fn(image)`` after each fetched answer that moved the image."""
        self._listeners.append(fn)

    async def wait_until(self, predicate: Callable[[MetadataImage], bool], timeout: float = 10.0) -> MetadataImage:
        """Wait until ``predicate(image)`` holds (asyncio.TimeoutError after ``timeout``); a
        predicate that looks up what the image does not hold yet (a LookupError) is not yet true."""

        def holds() -> bool:
            try:
                return predicate(self.image)
            except LookupError:
                return False

        async with self._changed:
            await asyncio.wait_for(self._changed.wait_for(holds), timeout)
        return self.image

    async def caught_up(self, timeout: float = 10.0) -> MetadataImage:
        """Wait until the image holds everything the controller committed when this was called."""
        answer = await self._fetch(0)  # the controller's high watermark now
        mark = int(answer.responses[0].partitions[0].high_watermark)
        return await self.wait_until(lambda image: image.offset >= mark - 1, timeout)

    # --- requests to the controller ----------------------------------------------------------

    async def forward(self, request_body: Message) -> Message:
        """Send an admin request (CreateTopics, DeleteTopics, CreatePartitions,
        IncrementalAlterConfigs) to the controller; return its answer once this broker's image
        holds the outcome."""
        if self._conn is None:
            raise RuntimeError(f"broker {self.node_id}'s lifecycle is not started")
        answer = await self._conn.send(request_body)
        await self.caught_up()
        return answer

    async def allocate_producer_ids(self) -> tuple[int, int]:
        """A new block of producer ids: (first id, count)."""
        request = AllocateProducerIdsRequest(broker_id=self.node_id, broker_epoch=self.broker_epoch)
        answer = await self._send(request, AllocateProducerIdsResponse)
        if answer.error_code:
            raise LifecycleError(answer.error_code, f"broker {self.node_id} allocating producer ids")
        return int(answer.producer_id_start), int(answer.producer_id_len)

    async def alter_isr(self, topic: str, partition: int, isr: list[int]) -> Any:
        """As the partition's leader, propose ``isr`` (AlterPartition, with the epochs this
        broker's image holds); returns the answer's partition once the image holds it."""
        found = self.image.topic(topic)
        if found is None or partition not in found.partitions:
            raise KeyError(f"no partition {topic}-{partition} in broker {self.node_id}'s image")
        state = found.partitions[partition]
        members = [AlterPartitionRequest.BrokerState(broker_id=b, broker_epoch=self.image.brokers[b].epoch
                                                     if b in self.image.brokers else -1) for b in isr]  # fmt: skip
        data = AlterPartitionRequest.PartitionData(partition_index=partition, leader_epoch=state.leader_epoch,
                                                   new_isr=list(isr), new_isr_with_epochs=members,
                                                   partition_epoch=state.partition_epoch)  # fmt: skip
        request = AlterPartitionRequest(broker_id=self.node_id, broker_epoch=self.broker_epoch, topics=[
            AlterPartitionRequest.TopicData(topic_name=topic, topic_id=found.id, partitions=[data])])  # fmt: skip
        assert self._conn is not None  # a started lifecycle
        if self._conn.version_for(request) < 3:
            data.new_isr_with_epochs = []
        else:
            data.new_isr = []
        answer = await self._send(request, AlterPartitionResponse)
        if answer.error_code:
            raise LifecycleError(answer.error_code, f"broker {self.node_id} altering {topic}-{partition}")
        await self.caught_up()
        return answer.topics[0].partitions[0]

    # --- heartbeats --------------------------------------------------------------------------

    async def _heartbeats(self) -> None:
        while True:
            try:
                await self.heartbeat()
            except asyncio.CancelledError:
                raise
            except Exception as e:  # the controller went away: no more heartbeats
                log.info("broker %d stops heartbeating: %s", self.node_id, e)
                return
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self._heartbeat_now.wait(), self.heartbeat_interval)
            self._heartbeat_now.clear()

    async def heartbeat(self) -> Any:
        """Send one heartbeat now and take in the answer."""
        request = BrokerHeartbeatRequest(broker_id=self.node_id, broker_epoch=self.broker_epoch,
                                         current_metadata_offset=self.image.offset,
                                         want_fence=False, want_shut_down=self._want_shutdown)  # fmt: skip
        answer = await self._send(request, BrokerHeartbeatResponse)
        self.last_heartbeat = answer
        if not answer.error_code:
            self.fenced = bool(answer.is_fenced)
        return answer

    async def controlled_shutdown(self, timeout: float = 30.0) -> None:
        """Ask to shut down and heartbeat until the controller agrees (ShouldShutDown), then stop."""
        self._want_shutdown = True

        async def granted() -> None:
            while True:
                answer = await self.heartbeat()
                if answer.error_code:
                    raise LifecycleError(answer.error_code, f"broker {self.node_id} shutting down")
                if answer.should_shut_down:
                    return
                await self.caught_up()  # the controller waits for the broker's offset too
                await asyncio.sleep(min(self.heartbeat_interval, 0.05))

        await asyncio.wait_for(granted(), timeout)
        await self.stop()


def _batches(records: bytes) -> list[RecordBatch]:
    """The whole batches of a Fetch answer's records (a cut-off last one is left for the next)."""
    batches: list[RecordBatch] = []
    position = 0
    while position < len(records):
        try:
            batch, position = decode_batch(records, position)
        except TruncatedBatchError:
            break
        batches.append(batch)
    return batches
