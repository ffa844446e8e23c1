"""``Controller``: a one-node KRaft quorum for the in-process cluster, served on loopback.

It writes what Kafka's active controller writes, in a real ``__cluster_metadata-0`` directory
(``metadata_log``): the LeaderChange of its election, the bootstrap records (metadata.version
3.9-IV0, level 21), its own RegisterControllerRecord, then one batch per action of the broker
requests (``brokers``, ``producer_ids``), the topic requests (``topics``, ``configs``) and the
faults. ``image`` is the ``kraft.MetadataImage`` replayed from every record committed; brokers
follow the same records by fetching the log (``handlers``), and a snapshot of the image is
written whenever ``snapshot_bytes`` of records followed the last one, or on ``snapshot()``.

Compared with Kafka 4.4's controller on the same request sequence (tests/cluster/
test_fake_controller.py sends it to both: a registration, one with another cluster id, heartbeats
behind and caught up, a duplicate registration, a stale heartbeat, two producer-id blocks and a
stale request for one, a topic on the broker, an existing and a too-wide one, a controlled
shutdown, a delete with TimeoutMs 0 and one with time, UnregisterBroker twice), every error code
and heartbeat answer agrees, a broker epoch is the offset of its RegisterBrokerRecord on both
sides, the blocks are 1000 ids apart, and the records about the broker and the topic come in the
same order with the same types, fencing and shutdown flags, replicas and leaders. What differs,
and why:

- metadata.version: Kafka 4.x bootstraps its newest level, with eligible leader replicas and the
  record versions that go with them; this controller bootstraps 3.9-IV0 (the level our simulator
  and audits model), so its PartitionRecords are v1 without ELR fields and a leaving broker that
  was the last ISR member stays in the ISR (Kafka 4.4 writes ISR [], ELR and last known ELR [it]).
  Kafka 4 also finalizes more features (kraft, group, transaction, share, streams, ELR versions)
  and refuses a registration that does not name them; here only metadata.version is finalized.
- producer-id blocks start at 0 here; on a cluster whose brokers already took blocks, Kafka's
  start further on (the judge compares the step between two blocks).
- no NoOpRecord every metadata.max.idle.interval.ms: Kafka writes one each 500 ms to advance
  the high watermark; here a log with nothing to say stays as it is (brokers' offsets need no
  nudging with one voter), so offsets after the bootstrap differ;
- one voter, no votes: no Vote/BeginQuorumEpoch/EndQuorumEpoch, the epoch is always 1 and every
  batch is committed when written; no ControllerRegistration request (the controller's own
  record is written directly) and no ZooKeeper migration records;
- placement starts each topic at a deterministic broker (``partitions``), configs are not
  checked against Kafka's definitions (``configs``, ``topics``);
- sessions are checked all at once each tick (``brokers``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from pathlib import Path

from ... import registries
from ...kraft.image import MetadataImage
from ...messages.feature_level_record import FeatureLevelRecord
from ...messages.register_controller_record import RegisterControllerRecord
from ...server import Server
from ...uuid import Uuid
from . import handlers
from .brokers import BrokerControl
from .metadata_log import Entries, MetadataLog
from .partitions import leader_change
from .snapshot import snapshot_values
from .topics import TopicControl

log = logging.getLogger("kafka_meta_proto.testing.controller")

METADATA_VERSION = 21  # 3.9-IV0
DEFAULT_SESSION_TIMEOUT_MS = 9000  # broker.session.timeout.ms
SNAPSHOT_BYTES = 20 << 20  # metadata.log.max.record.bytes.between.snapshots
CONTROLLER_LISTENER = "CONTROLLER"
PLAINTEXT = 0


class Controller:
    """The KRaft controller of the in-process cluster (see the module)."""

    def __init__(self, data_dir: Path, *, cluster_id: str, node_id: int = 3000,
                 session_timeout_ms: int = DEFAULT_SESSION_TIMEOUT_MS,
                 snapshot_bytes: int = SNAPSHOT_BYTES, diskless: bool = False):  # fmt: skip
        self.data_dir = Path(data_dir)
        self.diskless = diskless
        self.cluster_id = cluster_id
        self.node_id = node_id
        self.session_timeout_ms = session_timeout_ms
        self.snapshot_bytes = snapshot_bytes
        # Kafka's numbers unless the design's registry is chosen (docs/diskless.md, section 0)
        registry = registries.DISKLESS if diskless else None
        self.image = MetadataImage(registry=registry)
        self.log: MetadataLog | None = None
        self.server = Server(shutdown_timeout=1.0, registry=registry or registries.KAFKA)
        self.brokers = BrokerControl(self.image, self.commit, cluster_id=cluster_id,
                                     session_timeout_ms=session_timeout_ms)  # fmt: skip
        self.topics = TopicControl(self.image, self.commit)
        self.snapshots: list[Path] = []
        self._ticker: asyncio.Task[None] | None = None

    # --- life --------------------------------------------------------------------------------

    async def start(self, host: str = "127.0.0.1", port: int = 0) -> None:
        """Open the log, listen, write the bootstrap and registration records, watch sessions."""
        self.log = MetadataLog(self.data_dir, cluster_id=self.cluster_id, node_id=self.node_id)
        if self.diskless:  # the tools then read this log with the design's registry unasked
            registries.write_marker(self.data_dir, registries.DISKLESS)
        self.brokers.next_offset = lambda: self._log.end_offset
        handlers.install(self.server, self)
        await self.server.start((host, port))
        self.commit([(FeatureLevelRecord(name="metadata.version", feature_level=METADATA_VERSION), 0)])
        self.commit([(self._registration(), 0)])
        self._ticker = asyncio.get_running_loop().create_task(self._watch_sessions())

    def _registration(self) -> RegisterControllerRecord:
        host, port = self.address
        endpoint = RegisterControllerRecord.ControllerEndpoint(
            name=CONTROLLER_LISTENER, host=host, port=port, security_protocol=PLAINTEXT
        )
        feature = RegisterControllerRecord.ControllerFeature(
            name="metadata.version", min_supported_version=1, max_supported_version=METADATA_VERSION
        )
        return RegisterControllerRecord(controller_id=self.node_id, incarnation_id=Uuid.random(),
                                        zk_migration_ready=False, end_points=[endpoint], features=[feature])  # fmt: skip

    @property
    def address(self) -> tuple[str, int]:
        host, port = self.server.addresses[0]
        return host, port

    async def close(self) -> None:
        if self._ticker is not None:
            self._ticker.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._ticker
        if self.log is not None:
            self.log.wake()  # long-polling fetches answer now
        await self.server.close()
        if self.log is not None:
            self.log.close()

    async def __aenter__(self) -> Controller:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    @property
    def _log(self) -> MetadataLog:
        if self.log is None:
            raise RuntimeError("the controller is not started")
        return self.log

    async def _watch_sessions(self) -> None:
        tick = max(self.session_timeout_ms / 4000, 0.01)
        while True:
            await asyncio.sleep(tick)
            for broker_id in self.brokers.expire_sessions():
                log.info("broker %d fenced: no heartbeat for %d ms", broker_id, self.session_timeout_ms)

    # --- committing --------------------------------------------------------------------------

    def commit(self, entries: Entries) -> int:
        """Append the records as one batch and apply them to the image; returns the offset of
        the first (-1 when there are none: nothing is written)."""
        if not entries:
            return -1
        metadata_log = self._log
        base = metadata_log.append(entries)
        for index, (message, _) in enumerate(entries):
            self.image.apply(message, offset=base + index, epoch=metadata_log.epoch)
        if metadata_log.bytes_since_snapshot >= self.snapshot_bytes:
            self.snapshot()
        return base

    def snapshot(self) -> Path:
        """Write a snapshot of the image as it stands (its last record's offset and epoch)."""
        path = self._log.write_snapshot(snapshot_values(self.image), self.image.offset)
        self.snapshots.append(path)
        return path

    # --- faults ------------------------------------------------------------------------------

    async def fence(self, broker_id: int) -> None:
        """Fence a broker as a lost session would, and keep it fenced until ``unfence``."""
        self.brokers.fence(broker_id)

    async def unfence(self, broker_id: int) -> None:
        """End a ``fence``: the broker's next heartbeat (once caught up) unfences it."""
        self.brokers.release(broker_id)

    async def move_leader(self, topic: str, partition: int, broker_id: int) -> None:
        """Make ``broker_id`` (an active ISR member) the leader of the partition."""
        found = self.image.topic(topic)
        if found is None or partition not in found.partitions:
            raise KeyError(f"no partition {topic}-{partition}")
        self.commit(leader_change(self.image, found.id, partition, broker_id))

    async def unregister(self, broker_id: int) -> None:
        """Remove a broker's registration, as an UnregisterBroker request does."""
        self.brokers.unregister(broker_id)
