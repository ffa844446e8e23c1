"""Small hand-made KRaft metadata logs for the pipeline tests, written with the log package.

``Cluster`` collects batches (metadata records or control records), numbers their offsets, and
writes ``<dir>/<name>/__cluster_metadata-0/<base offset>.log`` segments (and snapshots); the
``healthy`` history gives every audit something sound to look at: two brokers registered and
unfenced, the coordinators' topic, a plain topic, a diskless topic mapped to coordinators, two
producer-id blocks.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from kafka_meta_proto import DISKLESS_REGISTRY, kraft, message_class, registries
from kafka_meta_proto.log import Record, RecordBatch, control_key
from kafka_meta_proto.uuid import Uuid

M = message_class
START_MS = 1_700_000_000_000


def uuid(n: int) -> Uuid:
    """A fixed, valid topic or incarnation id."""
    return Uuid(bytes([0x10, n % 256]) + bytes(13) + bytes([n // 256 + 2]))


def register(broker: int, epoch: int, incarnation: int = 0, fenced: bool = True):
    return M("RegisterBrokerRecord")(
        broker_id=broker, incarnation_id=uuid(1000 + broker * 10 + incarnation), broker_epoch=epoch,
        end_points=[], features=[], rack=None, fenced=fenced, in_controlled_shutdown=False, log_dirs=[],
    ), 3  # fmt: skip


def change(broker: int, epoch: int, fenced: int = 0):
    return M("BrokerRegistrationChangeRecord")(broker_id=broker, broker_epoch=epoch, fenced=fenced), 0


def topic(name: str, topic_id: Uuid):
    return M("TopicRecord")(name=name, topic_id=topic_id), 0


def partition(topic_id: Uuid, index: int, replicas=(1, 2)):
    return M("PartitionRecord")(partition_id=index, topic_id=topic_id, replicas=list(replicas), isr=list(replicas),
                                removing_replicas=[], adding_replicas=[], leader=replicas[0], leader_epoch=0,
                                partition_epoch=0, directories=[]), 1  # fmt: skip


def partition_change(topic_id: Uuid, index: int, leader: int = 2):
    return M("PartitionChangeRecord")(partition_id=index, topic_id=topic_id, leader=leader), 1


def remove(topic_id: Uuid):
    return M("RemoveTopicRecord")(topic_id=topic_id), 0


def config(topic_name: str, key: str, value):
    return M("ConfigRecord")(resource_type=2, resource_name=topic_name, name=key, value=value), 0


def mapping(topic_id: Uuid, index: int, coordinator: int):
    return DISKLESS_REGISTRY.message_class("TopicPartitionToBatchCoordinatorMapping")(partition_index=index, topic_id=topic_id,
                                                        batch_coordinator_partition_index=coordinator), 0  # fmt: skip


def producer_ids(broker: int, epoch: int, next_id: int):
    return M("ProducerIdsRecord")(broker_id=broker, broker_epoch=epoch, next_producer_id=next_id), 0


def noop():
    return M("NoOpRecord")(), 0


def leader_change(leader: int = 3000):
    voter = M("LeaderChangeMessage").Voter
    return M("LeaderChangeMessage")(version=0, leader_id=leader, voters=[voter(voter_id=leader)],
                                    granting_voters=[voter(voter_id=leader)])  # fmt: skip


@dataclass
class Cluster:
    name: str
    epoch: int = 1
    now: int = START_MS
    next_offset: int = 0
    batches: list = field(default_factory=list)  # (base offset, bytes)
    segment_starts: list = field(default_factory=lambda: [0])
    names: dict = field(default_factory=dict)  # segment start -> file name override
    topics: dict = field(default_factory=dict)
    brokers: dict = field(default_factory=dict)  # id -> epoch
    diskless: bool = False  # holds the diskless design's records: written with its registry marker

    def records(self, *messages, epoch: int | None = None, step_ms: int = 1000, deltas=None, raw_values=None) -> int:
        """Append one batch of metadata records; return its base offset."""
        self.diskless = self.diskless or any(m.NAME in DISKLESS_REGISTRY.own_names() for m, _ in messages)
        values = [kraft.encode_record_value(m, v) for m, v in messages] + list(raw_values or [])
        deltas = deltas or list(range(len(values)))
        records = [Record(offset_delta=d, value=v) for d, v in zip(deltas, values)]
        return self._append(RecordBatch.create(records, base_offset=self.next_offset, base_timestamp=self.now,
                                               partition_leader_epoch=self.epoch if epoch is None else epoch),
                            max(deltas) + 1, step_ms)  # fmt: skip

    def control(self, message, control_type: int = kraft.LEADER_CHANGE, step_ms: int = 1000) -> int:
        rec = Record(key=control_key(control_type), value=message.encode(0))
        batch = RecordBatch.create([rec], base_offset=self.next_offset, base_timestamp=self.now, control=True,
                                   partition_leader_epoch=self.epoch)  # fmt: skip
        return self._append(batch, 1, step_ms)

    def _append(self, batch: RecordBatch, count: int, step_ms: int) -> int:
        base = self.next_offset
        self.batches.append((base, batch.encode()))
        self.next_offset += count
        self.now += step_ms
        return base

    def raw(self, data: bytes, offsets: int = 0) -> None:
        """Bytes appended as they are (garbage, or a batch made elsewhere)."""
        self.batches.append((self.next_offset, data))
        self.next_offset += offsets

    def roll(self, name: str | None = None) -> None:
        """Start a new segment at the next offset (named after it, unless ``name``)."""
        self.segment_starts.append(self.next_offset)
        if name:
            self.names[self.next_offset] = name

    def healthy(self) -> Cluster:
        """A sound start: brokers 1 and 2, topics, a diskless topic, producer ids."""
        self.control(leader_change())
        self.records((M("BeginTransactionRecord")(name="Bootstrap records"), 0),
                     (M("FeatureLevelRecord")(name="metadata.version", feature_level=21), 0),
                     (M("EndTransactionRecord")(), 0))  # fmt: skip
        for broker in (1, 2):
            epoch = self.next_offset
            self.records(register(broker, epoch))
            self.records(change(broker, epoch, fenced=-1))
            self.brokers[broker] = epoch
        self.topics["__diskless-metadata"] = uuid(1)
        self.records(topic("__diskless-metadata", uuid(1)), *[partition(uuid(1), i) for i in range(4)])
        self.topics["orders"] = uuid(2)
        self.records(topic("orders", uuid(2)), config("orders", "retention.ms", "1000"),
                     partition(uuid(2), 0), partition(uuid(2), 1))  # fmt: skip
        self.topics["dl"] = uuid(3)
        self.records(topic("dl", uuid(3)), config("dl", "diskless.enable", "true"), partition(uuid(3), 0),
                     partition(uuid(3), 1))  # fmt: skip
        self.records(mapping(uuid(3), 0, 1), mapping(uuid(3), 1, 2))
        self.records(producer_ids(1, self.brokers[1], 1000))
        self.records(producer_ids(2, self.brokers[2], 2000))
        self.records(partition_change(uuid(2), 0))
        self.records(noop())
        return self

    def write(self, root: Path) -> Path:
        directory = Path(root) / self.name / "__cluster_metadata-0"
        directory.mkdir(parents=True, exist_ok=True)
        starts = sorted(self.segment_starts)
        for i, start in enumerate(starts):
            end = starts[i + 1] if i + 1 < len(starts) else None
            data = b"".join(b for base, b in self.batches if base >= start and (end is None or base < end))
            name = self.names.get(start, f"{start:020d}.log")
            (directory / name).write_bytes(data)
        if self.diskless:
            registries.write_marker(directory.parent, registries.DISKLESS)
        return directory.parent


def snapshot_bytes(messages, *, epoch: int = 1, footer: bool = True, timestamp: int = START_MS) -> bytes:
    """A snapshot file: SnapshotHeader control batch, the records, SnapshotFooter control batch."""
    header = Record(key=control_key(kraft.SNAPSHOT_HEADER),
                    value=M("SnapshotHeaderRecord")(version=0, last_contained_log_timestamp=timestamp).encode(0))  # fmt: skip
    out = [RecordBatch.create([header], base_offset=0, base_timestamp=timestamp, control=True,
                              partition_leader_epoch=epoch).encode()]  # fmt: skip
    records = [Record(offset_delta=i, value=kraft.encode_record_value(m, v)) for i, (m, v) in enumerate(messages)]
    out.append(RecordBatch.create(records, base_offset=1, base_timestamp=timestamp, partition_leader_epoch=epoch).encode())
    if footer:
        rec = Record(key=control_key(kraft.SNAPSHOT_FOOTER), value=M("SnapshotFooterRecord")(version=0).encode(0))
        out.append(RecordBatch.create([rec], base_offset=1 + len(records), base_timestamp=timestamp, control=True,
                                      partition_leader_epoch=epoch).encode())  # fmt: skip
    return b"".join(out)
