"""A KRaft cluster simulator: realistic ``__cluster_metadata`` logs in Kafka's on-disk format.

``simulate(out_dir, records=N, seed=S)`` writes, for each simulated cluster::

    <out>/<cluster>/bootstrap.checkpoint              metadata.version as kafka-storage format writes it
    <out>/<cluster>/meta.properties
    <out>/<cluster>/__cluster_metadata-0/
        00000000000000000000.log ...                  segments, rolled every ~segment_bytes (or 7 days)
        <20-digit end offset>-<10-digit epoch>.checkpoint   one snapshot of the image
        leader-epoch-checkpoint, partition.metadata, quorum-state
    <out>/<cluster>/faults.json                       the planted faults and where they are
    <out>/<cluster>/summary.json                      counts: records, batches, record types, segments

The log is what a Kafka 3.9 controller quorum (metadata.version 3.9-IV0) writes, driven by a
seeded random model of a cluster's life: the bootstrap records, controllers and brokers
registering, brokers unfenced once caught up, fenced after a missed session or a controlled
shutdown and registering again with a new incarnation and epoch (the offset of the registration,
as Kafka assigns it), topics created with their configs and partitions, deleted and re-created
under the same name with a new topic ID, ISR shrinks and expansions and leader elections,
producer-ID blocks of 1000 handed to registered brokers at their current epoch, diskless topics
whose partitions are mapped to batch coordinators, dynamic configs, a NoOpRecord every 500 ms as
Kafka's controller writes them, and LeaderChange control batches when the controller quorum elects
a new leader (every batch carries the leader epoch it was written in). Heartbeats leave no record.

Everything derives from the seed: two runs with the same arguments write the same bytes. Memory
stays constant: batches are written as they are made, and the model keeps only the current image
(the number of live topics is bounded). ``--records N`` is the number of records in the log
segments, exactly (snapshot and bootstrap records are not counted).

Planted faults (each optional, see ``FAULTS``) are listed in ``faults.json`` with the file and the
offset they are at.
"""

from __future__ import annotations

import heapq
import json
import os
import random
import struct
import time
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from . import kraft, message_class
from .log import Record, RecordBatch, control_key, crc32c
from .log.snapshot_writer import write_snapshot
from .log.varint import write_varint
from .uuid import Uuid

FAULTS = {
    "overlapping-producer-ids": "a ProducerIdsRecord whose block overlaps the block allocated before it",
    "reused-topic-id": "a deleted topic re-created under its old topic ID instead of a new one",
    "epoch-regression": "a broker registering again with a lower broker epoch than its previous registration",
    "corrupt-batch": "one byte flipped inside a record batch, so that its CRC no longer matches",
    "truncated-tail": "the last segment cut in the middle of its last batch",
}

METADATA_VERSION = 21  # 3.9-IV0
KRAFT_VERSION_RANGE = (0, 1)
PRODUCER_ID_BLOCK_SIZE = 1000
NOOP_INTERVAL_MS = 500  # metadata.max.idle.interval.ms
SESSION_TIMEOUT_MS = 9000  # broker.session.timeout.ms
LEADER_REBALANCE_INTERVAL_MS = 300_000  # leader.imbalance.check.interval.seconds
DEFAULT_SEGMENT_BYTES = 1 << 20
DEFAULT_SEGMENT_MS = 7 * 24 * 3600 * 1000  # metadata.log.segment.ms
MAX_LIVE_TOPICS = 120
CONFIG_TOPIC, CONFIG_BROKER = 2, 4  # ConfigResource.Type ids
CONSUMER_OFFSETS = "__consumer_offsets"
DISKLESS_METADATA = "__diskless-metadata"
METADATA_TOPIC_ID = "AAAAAAAAAAAAAAAAAAAAAQ"

_M = message_class
LeaderChangeMessage = _M("LeaderChangeMessage")
SnapshotHeaderRecord = _M("SnapshotHeaderRecord")
SnapshotFooterRecord = _M("SnapshotFooterRecord")
BeginTransactionRecord = _M("BeginTransactionRecord")
EndTransactionRecord = _M("EndTransactionRecord")
FeatureLevelRecord = _M("FeatureLevelRecord")
ZkMigrationStateRecord = _M("ZkMigrationStateRecord")
RegisterControllerRecord = _M("RegisterControllerRecord")
RegisterBrokerRecord = _M("RegisterBrokerRecord")
BrokerRegistrationChangeRecord = _M("BrokerRegistrationChangeRecord")
TopicRecord = _M("TopicRecord")
PartitionRecord = _M("PartitionRecord")
PartitionChangeRecord = _M("PartitionChangeRecord")
RemoveTopicRecord = _M("RemoveTopicRecord")
ConfigRecord = _M("ConfigRecord")
ProducerIdsRecord = _M("ProducerIdsRecord")
NoOpRecord = _M("NoOpRecord")
MappingRecord = _M("TopicPartitionToBatchCoordinatorMapping")

# The record versions a 3.9-IV0 controller writes.
V_REGISTER_BROKER = 3
V_PARTITION = 1
V_PARTITION_CHANGE = 1
NOOP_VALUE = kraft.encode_record_value(NoOpRecord(), 0)


# --- record batches, fast ----------------------------------------------------------------------
# The simulator writes millions of small batches; building them through Record and RecordBatch
# objects would be most of its time. encode_batch writes the same bytes as
# RecordBatch.create(records, ...).encode() for the batches the simulator makes (no compression,
# CreateTime, all timestamp deltas 0, offset deltas 0..n-1, no headers, no producer); the tests
# hold it to that.

_HEADER = struct.Struct(">qiibIhiqqqhii")
_SMALL_VARINTS = [write_varint(i) for i in range(1 << 13)]
_NO_KEY = b"\x01"  # zigzag(-1): a null key
_NOOP_RECORDS = b"\x14\x00\x00\x00\x01\x08" + NOOP_VALUE + b"\x00"  # one record, offset delta 0


def _varint(n: int) -> bytes:
    return _SMALL_VARINTS[n] if n < 8192 else write_varint(n)


def encode_batch(
    values: list[bytes],
    base_offset: int,
    timestamp: int,
    epoch: int,
    keys: list[bytes] | None = None,
) -> bytes:
    """A record batch v2 holding ``values`` (and ``keys`` for a control batch), as Kafka writes it."""
    parts = []
    append = parts.append
    varint = _varint
    for index, value in enumerate(values):
        if keys is None:
            body = b"\x00\x00" + varint(index) + _NO_KEY + varint(len(value)) + value + b"\x00"
        else:
            key = keys[index]
            body = (
                b"\x00\x00"
                + varint(index)
                + varint(len(key))
                + key
                + varint(len(value))
                + value
                + b"\x00"
            )
        append(varint(len(body)))
        append(body)
    return _frame(
        b"".join(parts), len(values), base_offset, timestamp, epoch, 0x20 if keys is not None else 0
    )


def _frame(
    records: bytes, count: int, base_offset: int, timestamp: int, epoch: int, attributes: int
) -> bytes:
    header = _HEADER.pack(
        base_offset,
        49 + len(records),
        epoch,
        2,
        0,
        attributes,
        count - 1,
        timestamp,
        timestamp,
        -1,
        -1,
        -1,
        count,
    )
    crc = crc32c(records, crc32c(header[21:]))
    return b"".join((header[:17], crc.to_bytes(4, "big"), header[21:], records))


def encode_noop_batch(base_offset: int, timestamp: int, epoch: int) -> bytes:
    """A batch holding one NoOpRecord (the commonest batch of a quiet metadata log)."""
    return _frame(_NOOP_RECORDS, 1, base_offset, timestamp, epoch, 0)


_FEATURES = (("kraft.version", *KRAFT_VERSION_RANGE), ("metadata.version", 1, METADATA_VERSION))

_DOMAINS = ("orders", "payments", "inventory", "clicks", "sessions", "users", "shipments", "invoices",
            "audit", "metrics", "logs", "events", "notifications", "search", "ledger", "pricing",
            "fraud-signals", "cart", "telemetry", "profiles")  # fmt: skip
_PREFIXES = ("", "", "prod.", "staging.", "analytics.", "team-a.", "team-b.")
_SUFFIXES = ("", "", "", "-v2", ".dlq", "-retry", ".changelog", "-compacted", ".cdc")
_RACKS = ("use1-az1", "use1-az2", "use1-az3")
_TOPIC_CONFIGS = (
    ("retention.ms", ("604800000", "86400000", "259200000", "3600000", "-1")),
    ("cleanup.policy", ("delete", "compact", "compact,delete")),
    ("min.insync.replicas", ("1", "2")),
    ("segment.bytes", ("1073741824", "536870912", "104857600")),
    ("max.message.bytes", ("1048588", "5242880")),
    ("compression.type", ("producer", "zstd", "lz4")),
    ("retention.bytes", ("-1", "10737418240")),
)
_BROKER_CONFIGS = (
    ("log.cleaner.threads", ("1", "2", "4")),
    ("max.connections", ("1000", "5000", "2147483647")),
    ("leader.replication.throttled.rate", ("10485760", "52428800")),
    ("follower.replication.throttled.rate", ("10485760", "52428800")),
    ("log.retention.ms", ("604800000", "1209600000")),
    ("num.replica.fetchers", ("1", "2", "4")),
)


@dataclass
class SimulationConfig:
    """What to simulate for one cluster."""

    records: int = 10_000
    seed: int = 0
    faults: tuple[str, ...] = ()
    segment_bytes: int = DEFAULT_SEGMENT_BYTES
    segment_ms: int = DEFAULT_SEGMENT_MS
    brokers: int | None = None  # None: 3 to 9, from the seed
    controllers: int = 3
    snapshot_at: float | None = 0.5  # fraction of the records after which the snapshot is taken
    events_per_second: float = 2.0  # metadata changes (not counting NoOps), on average
    diskless: bool = True  # diskless topics (record type 29, which Kafka's own tools cannot read)

    def __post_init__(self):
        unknown = [f for f in self.faults if f not in FAULTS]
        if unknown:
            raise ValueError(f"unknown fault {unknown[0]!r}; known: {', '.join(FAULTS)}")
        if self.records < 1:
            raise ValueError("records must be at least 1")
        if self.controllers < 1:
            raise ValueError("controllers must be at least 1")
        if self.brokers is not None and self.brokers < 1:
            raise ValueError("brokers must be at least 1")


@dataclass
class ClusterResult:
    """What ``simulate_cluster`` wrote."""

    name: str
    directory: Path
    records: int
    batches: int
    bytes: int
    segments: list[str]
    snapshot: str | None
    faults: list[dict]
    record_types: dict[str, int]
    seconds: float

    @property
    def records_per_second(self) -> float:
        return self.records / self.seconds if self.seconds > 0 else float("inf")


# --- the on-disk log -----------------------------------------------------------------------


class SegmentWriter:
    """Appends encoded batches to ``*.log`` segments, rolling like Kafka's UnifiedLog.

    A new segment starts when the batch would take the current one past ``segment_bytes``, or when
    the batch is ``segment_ms`` newer than the segment's first batch; it is named after the base
    offset of its first batch.
    """

    def __init__(self, directory: Path, segment_bytes: int, segment_ms: int):
        self.directory = directory
        self.segment_bytes = segment_bytes
        self.segment_ms = segment_ms
        self.next_offset = 0
        self.segments: list[str] = []
        self.batches = 0
        self.bytes = 0
        self.epochs: list[tuple[int, int]] = (
            []
        )  # (leader epoch, start offset): leader-epoch-checkpoint
        self.last_batch: tuple[str, int, int, int, int] | None = (
            None  # name, position, size, base, count
        )
        self._file = None
        self._size = 0
        self._first_timestamp = 0

    def append(self, data: bytes, count: int, epoch: int, timestamp: int) -> tuple[str, int]:
        """Write one encoded batch (its base offset must be ``next_offset``); return (file, position)."""
        if (
            self._file is None
            or (self._size and self._size + len(data) > self.segment_bytes)
            or timestamp - self._first_timestamp > self.segment_ms
        ):
            self._roll(timestamp)
        position = self._size
        self._file.write(data)
        self._size += len(data)
        self.bytes += len(data)
        self.batches += 1
        if not self.epochs or self.epochs[-1][0] != epoch:
            self.epochs.append((epoch, self.next_offset))
        name = self.segments[-1]
        self.last_batch = (name, position, len(data), self.next_offset, count)
        self.next_offset += count
        return name, position

    def _roll(self, timestamp: int) -> None:
        self.close()
        name = f"{self.next_offset:020d}.log"
        self.segments.append(name)
        self._file = open(self.directory / name, "wb", buffering=1 << 20)
        self._size = 0
        self._first_timestamp = timestamp

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


# --- the cluster model ---------------------------------------------------------------------


@dataclass(slots=True)
class Broker:
    id: int
    rack: str | None
    log_dirs: list
    incarnation: Uuid | None = None
    epoch: int = -1
    fenced: bool = True
    in_controlled_shutdown: bool = False
    up: bool = False  # running and registered (it may still be fenced)


@dataclass(slots=True)
class Partition:
    replicas: list[int]
    isr: list[int]
    leader: int
    directories: list
    leader_epoch: int = 0
    partition_epoch: int = 0


@dataclass(slots=True)
class Topic:
    name: str
    id: Uuid
    partitions: list[Partition]
    configs: dict[str, str] = field(default_factory=dict)
    diskless: bool = False
    coordinators: list[int] | None = None  # __diskless-metadata partition per partition
    internal: bool = False
    created_at: int = 0  # offset of its TopicRecord


def _uuid(rng: random.Random) -> Uuid:
    """A random version-4 Uuid from ``rng``, never a reserved one nor one whose text starts with '-'."""
    while True:
        raw = bytearray(rng.getrandbits(128).to_bytes(16, "big"))
        raw[6] = (raw[6] & 0x0F) | 0x40
        raw[8] = (raw[8] & 0x3F) | 0x80
        uuid = Uuid(bytes(raw))
        if uuid not in Uuid.RESERVED and not str(uuid).startswith("-"):
            return uuid


class _Room(Exception):
    """An event does not fit in the records left to write."""


class ClusterSimulation:
    """One cluster's metadata log, generated event by event. Use ``run()``."""

    def __init__(self, directory: Path, name: str, config: SimulationConfig):
        self.name = name
        self.directory = Path(directory)
        self.config = config
        self.rng = random.Random(f"kafka-meta-proto-simulator:{config.seed}:{name}")
        rng = self.rng
        self.log_dir = self.directory / "__cluster_metadata-0"
        self.writer = SegmentWriter(self.log_dir, config.segment_bytes, config.segment_ms)
        self.target = config.records
        self.written = 0
        self.type_counts: Counter = Counter()
        self.faults: list[dict] = []
        self.cluster_id = _uuid(rng)

        # time: a deterministic start somewhere in 2024
        self.start_ms = 1_704_067_200_000 + rng.randrange(365 * 24 * 3600) * 1000
        self.now = self.start_ms
        self.last_timestamp = self.now
        self.next_noop = self.now + NOOP_INTERVAL_MS
        self.next_event = self.now + 2000
        self.next_rebalance = self.now + LEADER_REBALANCE_INTERVAL_MS
        self.scheduled: list = []  # heap of (time, seq, action)
        self._seq = 0

        # controllers (KRaft voters) and brokers
        self.controllers = [3000 + i for i in range(config.controllers)]
        self.controller_incarnations = {c: _uuid(rng) for c in self.controllers}
        self.controller_registered: set[int] = set()
        self.leader = self.controllers[0]
        self.epoch = 0
        broker_count = config.brokers if config.brokers is not None else rng.randint(3, 9)
        self.security_protocol = rng.choice((0, 1, 2, 3))
        self.domain = f"{name}.kafka.internal"
        self.brokers: dict[int, Broker] = {}
        with_racks = rng.random() < 0.8  # most clusters name their brokers' availability zones
        for broker_id in range(1, broker_count + 1):
            dirs = [_uuid(rng) for _ in range(rng.choice((1, 1, 1, 2)))]  # one or two log dirs
            rack = _RACKS[(broker_id - 1) % len(_RACKS)] if with_racks else None
            self.brokers[broker_id] = Broker(broker_id, rack, dirs)

        # topics
        self.topics: dict[str, Topic] = {}
        # recently deleted topics, for re-creation: (name, topic id, removed at, created at)
        self.deleted: deque = deque(maxlen=64)
        self.coordinator_partitions = rng.choice((8, 16, 32))
        self.next_producer_id = 0
        self.broker_configs: dict[str, dict[str, str]] = {}

        # faults: each planted at the first chance after a point in the middle of the log
        self.pending_faults = {}
        for fault in config.faults:
            self.pending_faults[fault] = int(self.target * rng.uniform(0.3, 0.7))
        self.snapshot_name: str | None = None
        self._pcr_cache: dict = {}
        self.snapshot_at = (
            None if config.snapshot_at is None else max(1, int(self.target * config.snapshot_at))
        )

    # --- writing ------------------------------------------------------------------------

    def room(self) -> int:
        return self.target - self.written

    def _schedule(self, delay_ms: int, action: Callable[[], None]) -> None:
        self._seq += 1
        heapq.heappush(self.scheduled, (self.now + max(1, delay_ms), self._seq, action))

    def write_batch(
        self, messages: list, *, control_keys: list | None = None
    ) -> tuple[int, str, int]:
        """Append one batch; return (base offset, file, position).

        ``messages`` holds ``(message, version)`` pairs or already encoded ``(type name, value)``
        pairs. ``control_keys`` makes it a control batch whose record values are message bodies.
        """
        count = len(messages)
        if count > self.room():
            raise _Room
        timestamp = self.now if self.now > self.last_timestamp else self.last_timestamp
        self.last_timestamp = timestamp
        base_offset = self.writer.next_offset
        values = []
        counts = self.type_counts
        for first, second in messages:
            if type(first) is str:
                counts[first] += 1
                values.append(second)
            else:
                counts[first.NAME] += 1
                if control_keys is None:
                    values.append(kraft.encode_record_value(first, second))
                else:
                    values.append(first.encode(second))
        data = encode_batch(values, base_offset, timestamp, self.epoch, control_keys)
        fault = None
        if (
            "corrupt-batch" in self.pending_faults
            and control_keys is None
            and self._due("corrupt-batch")
            and count <= self.room() - 2
        ):
            data, fault = self._corrupt(data, values[-1])
        name, position = self.writer.append(data, count, self.epoch, timestamp)
        self.written += count
        if fault is not None:
            fault.update(file=f"__cluster_metadata-0/{name}", offset=base_offset, lastOffset=base_offset + count - 1,
                         position=position, bytePosition=position + fault.pop("index"), records=count)  # fmt: skip
            self.faults.append(fault)
        return base_offset, name, position

    def noop(self) -> None:
        if self.room() < 1:
            raise _Room
        if "corrupt-batch" in self.pending_faults:
            self.write_batch([("NoOpRecord", NOOP_VALUE)])
            return
        timestamp = self.now if self.now > self.last_timestamp else self.last_timestamp
        self.last_timestamp = timestamp
        self.writer.append(
            encode_noop_batch(self.writer.next_offset, timestamp, self.epoch),
            1,
            self.epoch,
            timestamp,
        )
        self.written += 1
        self.type_counts["NoOpRecord"] += 1

    def pcr(
        self, topic: Topic, index: int, isr: list[int] | None = None, leader: int | None = None
    ) -> tuple[str, bytes]:
        """A PartitionChangeRecord, encoded (the same changes recur: their values are cached)."""
        key = (topic.id.bytes, index, None if isr is None else tuple(isr), leader)
        value = self._pcr_cache.get(key)
        if value is None:
            fields = {}
            if isr is not None:
                fields["isr"] = list(isr)
            if leader is not None:
                fields["leader"] = leader
            value = kraft.encode_record_value(
                PartitionChangeRecord(partition_id=index, topic_id=topic.id, **fields),
                V_PARTITION_CHANGE,
            )
            if len(self._pcr_cache) >= 50_000:
                self._pcr_cache.clear()
            self._pcr_cache[key] = value
        return "PartitionChangeRecord", value

    def _due(self, fault: str) -> bool:
        at = self.pending_faults.get(fault)
        return at is not None and self.written >= at

    def _corrupt(self, data: bytes, last_value: bytes) -> tuple[bytes, dict]:
        del self.pending_faults["corrupt-batch"]
        # the last record ends with its value and a one-byte header count: flip a byte of the value
        index = len(data) - 2 - len(last_value) // 2
        corrupted = bytearray(data)
        corrupted[index] ^= 0x5A
        return bytes(corrupted), {
            "fault": "corrupt-batch",
            "description": FAULTS["corrupt-batch"],
            "index": index,
        }

    def _fault_entry(
        self, fault: str, base_offset: int, name: str, position: int, **details
    ) -> None:
        self.faults.append({"fault": fault, "description": FAULTS[fault], "file": f"__cluster_metadata-0/{name}",
                            "offset": base_offset, "position": position, **details})  # fmt: skip

    # --- the image as records -------------------------------------------------------------

    def _endpoints_broker(self, broker: Broker) -> list:
        host = f"broker-{broker.id}.{self.domain}"
        return [
            RegisterBrokerRecord.BrokerEndpoint(
                name="INTERNAL", host=host, port=9092, security_protocol=self.security_protocol
            ),
            RegisterBrokerRecord.BrokerEndpoint(
                name="REPLICATION", host=host, port=9091, security_protocol=self.security_protocol
            ),
        ]

    def _register_broker_record(self, broker: Broker) -> RegisterBrokerRecord:
        return RegisterBrokerRecord(
            broker_id=broker.id,
            is_migrating_zk_broker=False,
            incarnation_id=broker.incarnation,
            broker_epoch=broker.epoch,
            end_points=self._endpoints_broker(broker),
            features=[
                RegisterBrokerRecord.BrokerFeature(
                    name=n, min_supported_version=lo, max_supported_version=hi
                )
                for n, lo, hi in _FEATURES
            ],
            rack=broker.rack,
            fenced=broker.fenced,
            in_controlled_shutdown=broker.in_controlled_shutdown,
            log_dirs=list(broker.log_dirs),
        )

    def _register_controller_record(self, controller: int) -> RegisterControllerRecord:
        return RegisterControllerRecord(
            controller_id=controller,
            incarnation_id=self.controller_incarnations[controller],
            zk_migration_ready=False,
            end_points=[RegisterControllerRecord.ControllerEndpoint(
                name="CONTROLLER", host=f"controller-{controller - 3000}.{self.domain}", port=9093,
                security_protocol=self.security_protocol)],
            features=[RegisterControllerRecord.ControllerFeature(name=n, min_supported_version=lo, max_supported_version=hi) for n, lo, hi in _FEATURES],
        )  # fmt: skip

    def _partition_record(self, topic: Topic, index: int, p: Partition) -> PartitionRecord:
        return PartitionRecord(
            partition_id=index,
            topic_id=topic.id,
            replicas=list(p.replicas),
            isr=list(p.isr),
            removing_replicas=[],
            adding_replicas=[],
            leader=p.leader,
            leader_epoch=p.leader_epoch,
            partition_epoch=p.partition_epoch,
            directories=list(p.directories),
        )

    def image_records(self):
        """The records of the current image, in the order Kafka's MetadataImage.write uses."""
        yield FeatureLevelRecord(name="metadata.version", feature_level=METADATA_VERSION), 0
        yield ZkMigrationStateRecord(zk_migration_state=0), 0
        for broker in self.brokers.values():
            if broker.incarnation is not None:
                yield self._register_broker_record(broker), V_REGISTER_BROKER
        for controller in self.controllers:
            if controller in self.controller_registered:
                yield self._register_controller_record(controller), 0
        for topic in self.topics.values():
            yield TopicRecord(name=topic.name, topic_id=topic.id), 0
            for index, p in enumerate(topic.partitions):
                yield self._partition_record(topic, index, p), V_PARTITION
            if topic.coordinators is not None:
                for index, coordinator in enumerate(topic.coordinators):
                    yield MappingRecord(
                        partition_index=index,
                        topic_id=topic.id,
                        batch_coordinator_partition_index=coordinator,
                    ), 0
        for broker_id, configs in self.broker_configs.items():
            for key, value in configs.items():
                yield ConfigRecord(
                    resource_type=CONFIG_BROKER, resource_name=broker_id, name=key, value=value
                ), 0
        for topic in self.topics.values():
            for key, value in topic.configs.items():
                yield ConfigRecord(
                    resource_type=CONFIG_TOPIC, resource_name=topic.name, name=key, value=value
                ), 0
        if self.next_producer_id > 0:
            yield ProducerIdsRecord(
                broker_id=-1, broker_epoch=-1, next_producer_id=self.next_producer_id
            ), 0

    def write_snapshot(self) -> None:
        """The image now as ``<end offset>-<epoch>.checkpoint``: header, image records, footer."""
        end_offset = self.writer.next_offset
        name = f"{end_offset:020d}-{self.epoch:010d}.checkpoint"
        self.snapshot_name = name
        timestamp = self.last_timestamp + self.rng.randint(5, 60)
        header = SnapshotHeaderRecord(version=0, last_contained_log_timestamp=self.last_timestamp)
        with open(self.log_dir / name, "wb", buffering=1 << 20) as f:
            _write_snapshot(f, header, self.image_records(), self.epoch, timestamp)

    # --- events ---------------------------------------------------------------------------

    def up_brokers(self) -> list[Broker]:
        return [
            b
            for b in self.brokers.values()
            if b.up and not b.fenced and not b.in_controlled_shutdown
        ]

    def bootstrap(self) -> None:
        """What a new cluster writes first: leader election, bootstrap records, registrations."""
        self.elect_leader(first=True)
        self.now += self.rng.randint(30, 80)
        self.write_batch([
            (BeginTransactionRecord(name="Bootstrap records"), 0),
            (FeatureLevelRecord(name="metadata.version", feature_level=METADATA_VERSION), 0),
            (ZkMigrationStateRecord(zk_migration_state=0), 0),
            (EndTransactionRecord(), 0),
        ])  # fmt: skip
        for controller in self.controllers:
            self.now += self.rng.randint(20, 120)
            self.register_controller(controller)
        for broker in self.brokers.values():
            self._schedule(self.rng.randint(200, 4000), lambda b=broker: self.register_broker(b))
        self._schedule(
            self.rng.randint(8000, 20000), lambda: self.create_internal_topic(CONSUMER_OFFSETS)
        )
        delay = self.rng.randint(5000, 15000)  # drawn either way: the rest of the run stays the same
        if self.config.diskless:
            self._schedule(delay, lambda: self.create_internal_topic(DISKLESS_METADATA))

    def elect_leader(self, first: bool = False) -> None:
        """A controller election: the new leader writes a LeaderChange control batch in its epoch.

        Later elections follow the active controller's failure: after an election timeout another
        voter (or, with a single controller, the same one after its restart) takes over.
        """
        rng = self.rng
        old = self.leader
        if not first:
            others = [c for c in self.controllers if c != old]
            self.leader = rng.choice(others) if others else old
            self.now += rng.randint(1000, 4000)  # election timeout and vote
            self.next_noop = max(self.next_noop, self.now + NOOP_INTERVAL_MS)
        self.epoch += 1
        voters = [LeaderChangeMessage.Voter(voter_id=c) for c in self.controllers]
        majority = len(self.controllers) // 2 + 1
        granting = [self.leader] + rng.sample(
            [c for c in self.controllers if c != self.leader], majority - 1
        )
        message = LeaderChangeMessage(version=0, leader_id=self.leader, voters=voters,
                                      granting_voters=[LeaderChangeMessage.Voter(voter_id=c) for c in sorted(granting)])  # fmt: skip
        self.write_batch([(message, 0)], control_keys=[control_key(kraft.LEADER_CHANGE)])
        if not first and (
            old == self.leader or rng.random() < 0.7
        ):  # the failed controller restarts
            delay = rng.randint(60, 200) if old == self.leader else rng.randint(10_000, 90_000)
            self._schedule(delay, lambda: self.restart_controller(old, elect=False))

    def register_controller(self, controller: int) -> None:
        self.write_batch([(self._register_controller_record(controller), 0)])
        self.controller_registered.add(controller)

    def restart_controller(self, controller: int, elect: bool = True) -> None:
        """A controller process restarts with a new incarnation; the active one loses leadership."""
        if elect and controller == self.leader:
            self.elect_leader()
            return
        self.controller_incarnations[controller] = _uuid(self.rng)
        self.register_controller(controller)

    def register_broker(self, broker: Broker) -> None:
        """RegisterBrokerRecord, fenced; the epoch is the record's offset, as Kafka assigns it."""
        previous = broker.epoch
        broker.incarnation = _uuid(self.rng)
        epoch = self.writer.next_offset
        regression = previous >= 0 and self._due("epoch-regression")
        if regression:
            epoch = max(0, previous - self.rng.randint(1, min(previous, 50) or 1))
            if epoch >= previous:
                regression = False
                epoch = self.writer.next_offset
        broker.epoch = epoch
        broker.fenced = True
        broker.in_controlled_shutdown = False
        base, name, position = self.write_batch(
            [(self._register_broker_record(broker), V_REGISTER_BROKER)]
        )
        broker.up = True
        if regression:
            del self.pending_faults["epoch-regression"]
            self._fault_entry("epoch-regression", base, name, position, brokerId=broker.id, brokerEpoch=epoch,
                              previousBrokerEpoch=previous)  # fmt: skip
        # caught up with the metadata log a little later: unfenced, leaderless partitions come back
        self._schedule(self.rng.randint(150, 600), lambda: self.unfence(broker))

    def unfence(self, broker: Broker) -> None:
        if not broker.up or not broker.fenced:
            return
        messages = [
            (
                BrokerRegistrationChangeRecord(
                    broker_id=broker.id, broker_epoch=broker.epoch, fenced=-1
                ),
                0,
            )
        ]
        changes = []
        for topic in self.topics.values():
            for index, p in enumerate(topic.partitions):
                if p.leader == -1 and broker.id in p.isr:
                    changes.append((topic, index, p))
        for topic, index, p in changes:
            messages.append(self.pcr(topic, index, leader=broker.id))
        if len(messages) > self.room():
            return
        self.write_batch(messages)
        broker.fenced = False
        for topic, index, p in changes:
            p.leader = broker.id
            p.leader_epoch += 1
            p.partition_epoch += 1
        # the leaders of its partitions add it back to their ISRs once it has caught up
        self._schedule(self.rng.randint(1000, 8000), lambda: self.expand_isrs(broker))

    def expand_isrs(self, broker: Broker) -> None:
        """AlterPartition from each leader: one batch per leader adding ``broker`` back to the ISR."""
        if not broker.up or broker.fenced:
            return
        by_leader: dict[int, list] = {}
        for topic in self.topics.values():
            for index, p in enumerate(topic.partitions):
                if broker.id in p.replicas and broker.id not in p.isr and p.leader >= 0:
                    by_leader.setdefault(p.leader, []).append((topic, index, p))
        for leader in sorted(by_leader):
            items = by_leader[leader]
            if len(items) > self.room():
                return
            self.write_batch([self.pcr(topic, index, isr=[r for r in p.replicas if r in p.isr or r == broker.id])
                              for topic, index, p in items])  # fmt: skip
            for topic, index, p in items:
                p.isr = [r for r in p.replicas if r in p.isr or r == broker.id]
                p.partition_epoch += 1
            self.now += self.rng.randint(1, 40)

    def _leave_partitions(self, broker: Broker) -> list:
        """PartitionChangeRecords taking ``broker`` out of every ISR (and leadership), as Kafka does."""
        messages, updates = [], []
        for topic in self.topics.values():
            for index, p in enumerate(topic.partitions):
                if broker.id not in p.isr:
                    continue
                isr = [r for r in p.isr if r != broker.id]
                change = {}
                if (
                    not isr
                ):  # the last in-sync replica stays in the ISR; the partition loses its leader
                    if p.leader == broker.id:
                        change["leader"] = -1
                else:
                    change["isr"] = isr
                    if p.leader == broker.id:
                        candidates = [r for r in p.replicas if r in isr and self._eligible(r)]
                        change["leader"] = candidates[0] if candidates else -1
                if change:
                    messages.append(self.pcr(topic, index, **change))
                    updates.append((p, change))
        return messages, updates

    def _eligible(self, broker_id: int) -> bool:
        b = self.brokers.get(broker_id)
        return b is not None and b.up and not b.fenced and not b.in_controlled_shutdown

    @staticmethod
    def _apply(updates: list) -> None:
        for p, change in updates:
            if "isr" in change:
                p.isr = change["isr"]
            if "leader" in change and change["leader"] != p.leader:
                p.leader = change["leader"]
                p.leader_epoch += 1
            p.partition_epoch += 1

    def controlled_shutdown(self, broker: Broker) -> None:
        """A broker restart: controlled shutdown, fenced, back with a new incarnation later."""
        shutdown = BrokerRegistrationChangeRecord(
            broker_id=broker.id, broker_epoch=broker.epoch, in_controlled_shutdown=1
        )
        broker.in_controlled_shutdown = True
        messages, updates = self._leave_partitions(broker)
        if 1 + len(messages) > self.room():
            broker.in_controlled_shutdown = False
            raise _Room
        self.write_batch([(shutdown, 1)] + messages)
        self._apply(updates)

        def fenced() -> None:
            self.write_batch(
                [
                    (
                        BrokerRegistrationChangeRecord(
                            broker_id=broker.id, broker_epoch=broker.epoch, fenced=1
                        ),
                        0,
                    )
                ]
            )
            broker.fenced = True
            broker.up = False
            self._schedule(self.rng.randint(5_000, 120_000), lambda: self.register_broker(broker))

        self._schedule(self.rng.randint(40, 200), fenced)

    def crash(self, broker: Broker) -> None:
        """A broker stops heartbeating: fenced when its session times out, back later."""
        broker.up = False  # no heartbeats from now on

        def fence() -> None:
            messages, updates = self._leave_partitions(broker)
            fence_record = (
                BrokerRegistrationChangeRecord(
                    broker_id=broker.id, broker_epoch=broker.epoch, fenced=1
                ),
                0,
            )
            if len(messages) + 1 > self.room():
                return
            self.write_batch(messages + [fence_record])
            self._apply(updates)
            broker.fenced = True
            self._schedule(self.rng.randint(20_000, 300_000), lambda: self.register_broker(broker))

        self._schedule(SESSION_TIMEOUT_MS + self.rng.randint(0, 500), fence)

    def _topic_name(self) -> str:
        rng = self.rng
        base = rng.choice(_PREFIXES) + rng.choice(_DOMAINS) + rng.choice(_SUFFIXES)
        name, n = base, 1
        while name in self.topics or any(name == d[0] for d in self.deleted):
            n += 1
            name = f"{base}-{n}"
        return name

    def _place(self, partitions: int, replication: int) -> list[list[int]] | None:
        """Replicas for each partition on the running brokers, as Kafka's rack-unaware assignment."""
        live = sorted(b.id for b in self.up_brokers())
        n = len(live)
        if n < replication:
            return None
        start = self.rng.randrange(n)
        shift = self.rng.randrange(n)
        placement = []
        for p in range(partitions):
            if p > 0 and p % n == 0:
                shift += 1
            first = (p + start) % n
            replicas = [live[first]]
            for j in range(replication - 1):
                replicas.append(live[(first + 1 + (shift + j) % (n - 1)) % n])
            placement.append(replicas)
        return placement

    def create_topic(self, name: str | None = None, *, topic_id: Uuid | None = None, partitions: int | None = None,
                     configs: dict | None = None, internal: bool = False, diskless: bool | None = None) -> Topic | None:  # fmt: skip
        rng = self.rng
        name = name or self._topic_name()
        if partitions is None:
            partitions = rng.choice((1, 1, 3, 3, 6, 6, 12, 12, 24, 32, 48))
        replication = min(rng.choice((3, 3, 3, 2)), len(self.brokers))
        placement = self._place(partitions, replication)
        if placement is None:
            return None
        if configs is None:
            configs = dict(
                rng.sample([(k, rng.choice(v)) for k, v in _TOPIC_CONFIGS], rng.randint(0, 3))
            )
        if diskless is None:  # diskless topics need their batch coordinators' topic first
            diskless = not internal and DISKLESS_METADATA in self.topics and rng.random() < 0.2
        if diskless:
            configs = {**configs, "diskless.enable": "true"}
        topic = Topic(
            name, topic_id or _uuid(rng), [], dict(configs), diskless=diskless, internal=internal
        )
        for replicas in placement:
            dirs = [self.rng.choice(self.brokers[r].log_dirs) for r in replicas]
            topic.partitions.append(Partition(replicas, list(replicas), replicas[0], dirs))
        messages = [(TopicRecord(name=name, topic_id=topic.id), 0)]
        messages += [
            (ConfigRecord(resource_type=CONFIG_TOPIC, resource_name=name, name=k, value=v), 0)
            for k, v in topic.configs.items()
        ]
        messages += [
            (self._partition_record(topic, i, p), V_PARTITION)
            for i, p in enumerate(topic.partitions)
        ]
        base, file, position = self.write_batch(messages)
        topic.created_at = base
        self.topics[name] = topic
        if diskless:
            self._schedule(rng.randint(50, 800), lambda: self.map_to_coordinators(topic))
        return topic

    def create_internal_topic(self, name: str) -> None:
        if name in self.topics:
            return
        if name == CONSUMER_OFFSETS:
            configs = {
                "compression.type": "producer",
                "cleanup.policy": "compact",
                "segment.bytes": "104857600",
            }
            partitions = 50
        else:
            configs = {"cleanup.policy": "compact", "min.insync.replicas": "2"}
            partitions = self.coordinator_partitions
        try:
            if (
                self.create_topic(
                    name, partitions=partitions, configs=configs, internal=True, diskless=False
                )
                is None
            ):
                self._schedule(5000, lambda: self.create_internal_topic(name))
        except _Room:
            pass

    def map_to_coordinators(self, topic: Topic, partitions: list[int] | None = None) -> None:
        """TopicPartitionToBatchCoordinatorMapping records: diskless partitions -> coordinator partitions."""
        if self.topics.get(topic.name) is not topic:
            return  # deleted meanwhile
        if topic.coordinators is None:
            topic.coordinators = [-1] * len(topic.partitions)
        partitions = range(len(topic.partitions)) if partitions is None else partitions
        assignment = {}
        for index in partitions:
            current = topic.coordinators[index]
            choice = self.rng.randrange(self.coordinator_partitions)
            if choice == current:
                choice = (choice + 1) % self.coordinator_partitions
            assignment[index] = choice
        if len(assignment) > self.room():
            return
        self.write_batch(
            [
                (
                    MappingRecord(
                        partition_index=i, topic_id=topic.id, batch_coordinator_partition_index=c
                    ),
                    0,
                )
                for i, c in assignment.items()
            ]
        )
        for index, coordinator in assignment.items():
            topic.coordinators[index] = coordinator

    def delete_topic(self) -> None:
        candidates = [t for t in self.topics.values() if not t.internal]
        if not candidates:
            return
        topic = self.rng.choice(candidates)
        base, _, _ = self.write_batch([(RemoveTopicRecord(topic_id=topic.id), 0)])
        del self.topics[topic.name]
        self.deleted.append((topic.name, topic.id, base, topic.created_at))

    def recreate_topic(self, *, reuse_id: bool = False) -> None:
        """Create a deleted topic again under the same name: with a new ID (or, as a fault, the old one)."""
        available = [d for d in self.deleted if d[0] not in self.topics]
        if not available:
            return
        entry = self.rng.choice(available)
        name, old_id, removed_at, created_at = entry
        topic = self.create_topic(name, topic_id=old_id if reuse_id else None)
        if topic is None:
            return
        self.deleted.remove(entry)
        if reuse_id:
            del self.pending_faults["reused-topic-id"]
            file, position = self.writer.last_batch[0], self.writer.last_batch[1]
            self._fault_entry("reused-topic-id", topic.created_at, file, position, topic=name, topicId=str(old_id),
                              removedAt=removed_at, firstCreatedAt=created_at)  # fmt: skip

    def _random_partitions(self, k: int) -> list:
        topics = list(self.topics.values())
        if not topics:
            return []
        picks = []
        for _ in range(k):
            topic = self.rng.choice(topics)
            index = self.rng.randrange(len(topic.partitions))
            picks.append((topic, index, topic.partitions[index]))
        return picks

    def alter_partitions(self) -> None:
        """AlterPartition from a leader, or an election: ISR shrinks and expansions, leader changes."""
        rng = self.rng
        messages, updates, seen = [], [], set()
        for topic, index, p in self._random_partitions(rng.choice((1, 1, 1, 1, 2, 3, 5))):
            if (topic.id, index) in seen:
                continue
            seen.add((topic.id, index))
            missing = [r for r in p.replicas if r not in p.isr and self._eligible(r)]
            followers = [r for r in p.isr if r != p.leader]
            change = {}
            roll = rng.random()
            if missing and roll < 0.55:
                change["isr"] = [r for r in p.replicas if r in p.isr or r == missing[0]]
            elif followers and roll < 0.9:
                change["isr"] = [r for r in p.isr if r != rng.choice(followers)]
            elif followers:  # unclean-free election: another in-sync replica takes over
                candidates = [r for r in followers if self._eligible(r)]
                if candidates:
                    change["leader"] = candidates[0]
            if change:
                messages.append(self.pcr(topic, index, **change))
                updates.append((p, change))
        if messages:
            self.write_batch(messages)
            self._apply(updates)

    def rebalance_leaders(self) -> None:
        """auto.leader.rebalance: preferred replicas back as leaders, one batch."""
        messages, updates = [], []
        for topic in self.topics.values():
            for index, p in enumerate(topic.partitions):
                preferred = p.replicas[0]
                if p.leader != preferred and preferred in p.isr and self._eligible(preferred):
                    change = {"leader": preferred}
                    messages.append(self.pcr(topic, index, **change))
                    updates.append((p, change))
                    if len(messages) >= 1000:
                        break
        if messages and len(messages) <= self.room():
            self.write_batch(messages)
            self._apply(updates)

    def allocate_producer_ids(self) -> None:
        brokers = self.up_brokers()
        if not brokers:
            return
        broker = self.rng.choice(brokers)
        previous = self.next_producer_id
        overlap = previous >= PRODUCER_ID_BLOCK_SIZE and self._due("overlapping-producer-ids")
        step = PRODUCER_ID_BLOCK_SIZE // 2 if overlap else PRODUCER_ID_BLOCK_SIZE
        record = ProducerIdsRecord(
            broker_id=broker.id, broker_epoch=broker.epoch, next_producer_id=previous + step
        )
        base, name, position = self.write_batch([(record, 0)])
        self.next_producer_id = previous + step
        if overlap:
            del self.pending_faults["overlapping-producer-ids"]
            self._fault_entry("overlapping-producer-ids", base, name, position, brokerId=broker.id,
                              nextProducerId=previous + step, previousNextProducerId=previous,
                              block=[previous + step - PRODUCER_ID_BLOCK_SIZE, previous + step - 1],
                              previousBlock=[previous - PRODUCER_ID_BLOCK_SIZE, previous - 1])  # fmt: skip

    def change_configs(self) -> None:
        rng = self.rng
        messages = []
        if rng.random() < 0.7 and self.topics:
            topic = rng.choice(list(self.topics.values()))
            for key, values in rng.sample(_TOPIC_CONFIGS, rng.randint(1, 2)):
                value = None if key in topic.configs and rng.random() < 0.3 else rng.choice(values)
                messages.append(
                    (
                        ConfigRecord(
                            resource_type=CONFIG_TOPIC,
                            resource_name=topic.name,
                            name=key,
                            value=value,
                        ),
                        0,
                    )
                )
            self.write_batch(messages)
            for message, _ in messages:
                if message.value is None:
                    topic.configs.pop(message.name, None)
                else:
                    topic.configs[message.name] = message.value
        else:
            resource = rng.choice(
                [""] + [str(b) for b in self.brokers]
            )  # "" is the cluster-wide default
            configs = self.broker_configs.setdefault(resource, {})
            key, values = rng.choice(_BROKER_CONFIGS)
            value = None if key in configs and rng.random() < 0.3 else rng.choice(values)
            self.write_batch(
                [
                    (
                        ConfigRecord(
                            resource_type=CONFIG_BROKER,
                            resource_name=resource,
                            name=key,
                            value=value,
                        ),
                        0,
                    )
                ]
            )
            if value is None:
                configs.pop(key, None)
            else:
                configs[key] = value
            if not configs:
                del self.broker_configs[resource]

    def random_event(self) -> None:
        rng = self.rng
        live_topics = (
            len(self.topics)
            - (CONSUMER_OFFSETS in self.topics)
            - (DISKLESS_METADATA in self.topics)
        )
        up = self.up_brokers()
        # restarts roll one broker at a time: the next waits until every broker is back
        rolling = len(up) > 1 and len(up) == sum(
            1 for b in self.brokers.values() if b.incarnation is not None
        )
        # Weights per metadata change. At the default two changes a second: a broker restart every
        # ~7 minutes, a broker crash every ~30 minutes, a controller restart every ~20 minutes and
        # a failover of the active controller every ~40 minutes (of simulated time).
        choices: list[tuple[float, Callable[[], None]]] = [
            (40, self.alter_partitions),
            (8 if live_topics < MAX_LIVE_TOPICS else 0, self.create_topic),
            (4 + 8 * (live_topics >= MAX_LIVE_TOPICS) if live_topics > 3 else 0, self.delete_topic),
            (2, self.recreate_topic),
            (6, self.allocate_producer_ids),
            (6, self.change_configs),
            (2, self.remap_diskless),
            (0.08 if rolling else 0, lambda: self.controlled_shutdown(rng.choice(up))),
            (0.02 if len(up) > 1 else 0, lambda: self.crash(rng.choice(up))),
            (0.01, lambda: self.restart_controller(self.leader)),
            (0.02, lambda: self.restart_controller(rng.choice(self.controllers))),
        ]
        # a planted fault takes the first chance it gets once its point in the log is reached
        if self._due("overlapping-producer-ids"):
            choices.append((30, self.allocate_producer_ids))
        if self._due("reused-topic-id"):
            if any(d[0] not in self.topics for d in self.deleted):
                choices = [(1, lambda: self.recreate_topic(reuse_id=True))]
            elif live_topics > 0:
                choices = [(1, self.delete_topic)]
        if (
            self._due("epoch-regression")
            and len(up) > 1
            and not any(b.incarnation is not None and not b.up for b in self.brokers.values())
        ):
            choices = [(1, lambda: self.controlled_shutdown(rng.choice(up)))]
        total = sum(w for w, _ in choices)
        pick = rng.random() * total
        for weight, action in choices:
            pick -= weight
            if pick < 0:
                action()
                return

    def remap_diskless(self) -> None:
        diskless = [t for t in self.topics.values() if t.coordinators is not None]
        if not diskless:
            return
        topic = self.rng.choice(diskless)
        count = self.rng.randint(1, max(1, len(topic.partitions) // 4))
        self.map_to_coordinators(
            topic, sorted(self.rng.sample(range(len(topic.partitions)), count))
        )

    # --- main loop ------------------------------------------------------------------------

    def run(self) -> ClusterResult:
        started = time.perf_counter()
        self.log_dir.mkdir(parents=True, exist_ok=True)
        try:
            self._attempt(self.bootstrap)
            rate = self.config.events_per_second / 1000.0
            rng = self.rng
            while self.room() > 0:
                scheduled_at = self.scheduled[0][0] if self.scheduled else None
                t = min(self.next_noop, self.next_event, self.next_rebalance)
                if scheduled_at is not None and scheduled_at <= t:
                    self.now = max(self.now, scheduled_at)
                    _, _, action = heapq.heappop(self.scheduled)
                    self._attempt(action)
                elif t == self.next_noop:
                    self.now = max(self.now, t)
                    self._attempt(self.noop)
                    self.next_noop = self.now + NOOP_INTERVAL_MS + rng.randint(0, 6)
                elif t == self.next_rebalance:
                    self.now = max(self.now, t)
                    self._attempt(self.rebalance_leaders)
                    self.next_rebalance = self.now + LEADER_REBALANCE_INTERVAL_MS
                else:
                    self.now = max(self.now, t)
                    self._attempt(self.random_event)
                    self.next_event = self.now + 1 + int(rng.expovariate(rate))
                    if rng.random() < 0.0005:  # now and then a quiet spell: only NoOps for a while
                        self.next_event += rng.randint(60_000, 600_000)
        finally:
            self.writer.close()
        if "truncated-tail" in self.pending_faults:
            self._truncate_tail()
        self._write_side_files()
        seconds = time.perf_counter() - started
        return ClusterResult(
            name=self.name,
            directory=self.directory,
            records=self.written,
            batches=self.writer.batches,
            bytes=self.writer.bytes,
            segments=list(self.writer.segments),
            snapshot=self.snapshot_name,
            faults=self.faults,
            record_types=dict(sorted(self.type_counts.items())),
            seconds=seconds,
        )

    def _attempt(self, action: Callable[[], None]) -> None:
        try:
            action()
        except _Room:
            pass
        # the snapshot is taken between events, once every change of the last one is applied
        if (
            self.snapshot_at is not None
            and self.snapshot_name is None
            and self.written >= self.snapshot_at
        ):
            self.write_snapshot()

    def _truncate_tail(self) -> None:
        del self.pending_faults["truncated-tail"]
        name, position, size, base_offset, count = self.writer.last_batch
        kept = max(1, size // 2)
        with open(self.log_dir / name, "r+b") as f:
            f.truncate(position + kept)
        self.writer.bytes -= size - kept
        self._fault_entry("truncated-tail", base_offset, name, position, lastOffset=base_offset + count - 1,
                          batchSize=size, keptBytes=kept, lostRecords=count)  # fmt: skip

    def _write_side_files(self) -> None:
        """bootstrap.checkpoint, meta.properties, quorum-state, partition.metadata,
        leader-epoch-checkpoint, faults.json and summary.json."""
        format_time = self.start_ms - self.rng.randint(60_000, 600_000)
        with open(self.directory / "bootstrap.checkpoint", "wb") as f:
            header = SnapshotHeaderRecord(version=0, last_contained_log_timestamp=0)
            _write_snapshot(
                f,
                header,
                iter(
                    [
                        (
                            FeatureLevelRecord(
                                name="metadata.version", feature_level=METADATA_VERSION
                            ),
                            0,
                        )
                    ]
                ),
                0,
                format_time,
                step_ms=1,
            )
        (self.directory / "meta.properties").write_text(
            # as java.util.Properties.store writes it: an empty comment, then the date
            f"#\n#{time.strftime('%a %b %d %H:%M:%S UTC %Y', time.gmtime(format_time // 1000))}\n"
            f"node.id={self.controllers[0]}\ndirectory.id={_uuid(self.rng)}\nversion=1\ncluster.id={self.cluster_id}\n"
        )
        quorum = {"leaderId": self.leader, "leaderEpoch": self.epoch, "votedId": -1, "appliedOffset": 0,
                  "currentVoters": [{"voterId": c} for c in self.controllers], "data_version": 0}  # fmt: skip
        (self.log_dir / "quorum-state").write_text(json.dumps(quorum, separators=(",", ":")))
        (self.log_dir / "partition.metadata").write_text(
            f"version: 0\ntopic_id: {METADATA_TOPIC_ID}\n"
        )
        epochs = self.writer.epochs
        (self.log_dir / "leader-epoch-checkpoint").write_text(
            "0\n" + f"{len(epochs)}\n" + "".join(f"{e} {o}\n" for e, o in epochs)
        )
        faults = sorted(self.faults, key=lambda f: (f["offset"], f["fault"]))
        (self.directory / "faults.json").write_text(json.dumps(faults, indent=2) + "\n")
        summary = {
            "cluster": self.name,
            "clusterId": str(self.cluster_id),
            "seed": self.config.seed,
            "records": self.written,
            "batches": self.writer.batches,
            "bytes": self.writer.bytes,
            "firstTimestamp": self.start_ms,
            "lastTimestamp": self.last_timestamp,
            "leaderEpoch": self.epoch,
            "segments": [f"__cluster_metadata-0/{s}" for s in self.writer.segments],
            "snapshot": (
                f"__cluster_metadata-0/{self.snapshot_name}" if self.snapshot_name else None
            ),
            "brokers": sorted(self.brokers),
            "controllers": self.controllers,
            "liveTopics": len(self.topics),
            "recordTypes": dict(sorted(self.type_counts.items())),
            "faults": [f["fault"] for f in faults],
        }
        (self.directory / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")


def _write_snapshot(f, header, records, epoch: int, timestamp: int, *, step_ms: int = 0) -> None:
    """A snapshot file of ``(message, version)`` records behind ``header`` (log/snapshot_writer)."""
    values = (kraft.encode_record_value(message, version) for message, version in records)
    footer = SnapshotFooterRecord(version=0).encode(0)
    write_snapshot(
        f, header.encode(0), values, footer, epoch=epoch, timestamp=timestamp, step_ms=step_ms
    )


# --- entry points -----------------------------------------------------------------------------


def cluster_names(clusters: int) -> list[str]:
    width = max(1, len(str(clusters - 1)))
    return [f"cluster-{i:0{width}d}" for i in range(clusters)]


def simulate_cluster(out_dir, name: str, config: SimulationConfig) -> ClusterResult:
    """Simulate one cluster into ``out_dir/name``."""
    directory = Path(out_dir) / name
    directory.mkdir(parents=True, exist_ok=True)
    clean_directory(directory)
    return ClusterSimulation(directory, name, config).run()


def _simulate_one(args) -> ClusterResult:
    return simulate_cluster(*args)


def simulate(
    out_dir,
    *,
    records: int = 10_000,
    seed: int = 0,
    clusters: int = 1,
    faults: tuple[str, ...] = (),
    jobs: int = 1,
    **options,
) -> list[ClusterResult]:
    """Simulate a fleet of ``clusters`` clusters, each with ``records`` records, into ``out_dir``.

    ``options`` are further SimulationConfig fields. ``jobs`` > 1 simulates clusters in parallel
    processes; the output does not depend on it.
    """
    if clusters < 1:
        raise ValueError("clusters must be at least 1")
    config = SimulationConfig(records=records, seed=seed, faults=tuple(faults), **options)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    work = [(out_dir, name, config) for name in cluster_names(clusters)]
    if jobs > 1 and clusters > 1:
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(max_workers=min(jobs, clusters)) as pool:
            return list(pool.map(_simulate_one, work))
    return [_simulate_one(w) for w in work]


def clean_directory(path) -> None:
    """Remove files a previous run left in a cluster directory (only the kinds the simulator writes)."""
    path = Path(path)
    for sub in (path / "__cluster_metadata-0", path):
        if not sub.is_dir():
            continue
        for entry in os.scandir(sub):
            if entry.is_file() and (
                entry.name.endswith((".log", ".checkpoint")) or entry.name in _SIDE_FILES
            ):
                os.unlink(entry.path)


_SIDE_FILES = {
    "leader-epoch-checkpoint",
    "partition.metadata",
    "quorum-state",
    "faults.json",
    "summary.json",
    "meta.properties",
}
