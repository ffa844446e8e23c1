"""The coordinator's partition of ``__diskless-metadata`` as a topic of a Kafka cluster, reached
through the package's client (a ``topic_backend.MetadataTopic``; the fake cluster of
``kafka_meta_proto.testing`` serves it as a real one does).

- **Creating.** The writing coordinator creates the topic if it is missing (``TopicSettings``:
  partitions, replication factor, ``min.insync.replicas``, ``cleanup.policy=delete`` and no
  retention: the topic is the state's only source, so nothing in it may expire).
- **Appending.** Each state change is one record batch produced with acks=all by an idempotent
  producer: a retry after a lost answer sends the same batch with the same sequence, and the
  broker answers it with the original offsets instead of writing it twice. An append counts once
  its answer came back; any failure stops the coordinator's writes until a restart.
- **A restart** gets a new producer id and first fetches from the position its SQLite state
  committed up to the high watermark, applying each batch once (the position commits with the
  changes), before it serves; a batch written but never answered is then applied like any other.
- **Two writers.** The first record of each batch carries, as its key, the offset its writer
  expected the batch to get: the log end as that writer knew it. A batch that landed elsewhere
  was decided on a state that missed someone else's batches; every reader skips it, and its
  writer, seeing the offset in the answer, fails that write and stops. So the log's meaning stays
  that of a single writer whatever races, with no transaction coordinator needed (the fake
  cluster serves none); a producer epoch through a transactional id would fence the older writer
  before it writes, but only against brokers serving transactions.
- **Reading.** Catch-up and read-only coordinators fetch from their position up to the high
  watermark (what acks=all made durable), as consumers do; control batches are skipped.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from ..client import NetworkError
from ..client import sync as sync_client
from ..diskless_messages import REGISTRY as DISKLESS_REGISTRY
from ..error_codes import ErrorCode
from ..kraft import decode_record_value, encode_record_value
from ..log.batch import RecordBatch
from ..log.records import Record
from ..log.segment import BatchReader
from ..message import Message
from ..messages.create_topics_request import CreatableTopic, CreatableTopicConfig, CreateTopicsRequest
from ..messages.fetch_request import FetchPartition, FetchRequest, FetchTopic
from ..messages.init_producer_id_request import InitProducerIdRequest
from ..messages.list_offsets_request import ListOffsetsPartition, ListOffsetsRequest, ListOffsetsTopic
from ..messages.produce_request import PartitionProduceData, ProduceRequest, TopicProduceData
from .store import LogPosition
from .topic_log import TOPIC

PRODUCE_VERSION = 9  # by topic name; every Kafka from 2.4 serves it
FETCH_VERSION = 12  # by topic name, from Kafka 2.7
FETCH_BYTES = 8 << 20
RETRY_SECONDS = 30.0  # how long an append, or the wait for the topic's leader, keeps trying
REQUEST_TIMEOUT_MS = 30_000
LATEST = -1  # ListOffsets: the high watermark
TOPIC_EXISTS = ErrorCode.TOPIC_ALREADY_EXISTS
_T = TypeVar("_T")


class TopicError(OSError):
    """The topic could not be read, created or appended to (an OSError: the coordinator treats
    it as it treats a failed fsync, stopping its writes until a restart)."""


@dataclass(frozen=True)
class TopicSettings:
    """How a missing ``__diskless-metadata`` is created."""

    partitions: int = 1  # at least the coordinator's partition + 1
    replication_factor: int = 3  # as Kafka's internal topics; capped at the brokers there are

    def configs(self, replicas: int) -> dict[str, str]:
        # One replica may be lost without refusing writes (Kafka's advice for RF 3 is 2); a
        # group commit's batch may be larger than Kafka's 1 MiB default.
        return {"cleanup.policy": "delete", "retention.ms": "-1", "retention.bytes": "-1",
                "min.insync.replicas": str(max(1, replicas - 1)),
                "max.message.bytes": str(FETCH_BYTES)}  # fmt: skip


def expected_offset_key(offset: int) -> bytes:
    return offset.to_bytes(8, "big", signed=True)


def landed_where_expected(batch: RecordBatch) -> bool:
    """Whether the batch got the offset its writer expected (see the module: two writers)."""
    first = batch.records[0] if batch.records else None
    return first is not None and first.key == expected_offset_key(batch.base_offset)


class KafkaTopic:
    """Partition ``partition`` of ``__diskless-metadata`` in the cluster at ``bootstrap``."""

    def __init__(self, bootstrap: Sequence[tuple[str, int]], partition: int = 0, *,
                 settings: TopicSettings = TopicSettings(), client_id: str = "batch-coordinator"):  # fmt: skip
        self.partition = partition
        self.settings = settings
        self.request_timeout = REQUEST_TIMEOUT_MS / 1000  # seconds before a Produce is sent again
        self.cluster = sync_client.Cluster(list(bootstrap), client_id=client_id)

    # -- creating ------------------------------------------------------------------------------

    def create(self) -> None:
        count = self._partition_count()
        if count is None:
            self._create_topic()
        elif count <= self.partition:
            raise TopicError(f"{TOPIC} has {count} partitions: no partition {self.partition}")
        _retry(self._leader, "the leader of " + self._name())

    def _create_topic(self) -> None:
        partitions = max(self.settings.partitions, self.partition + 1)
        replicas = max(1, min(self.settings.replication_factor, len(self.cluster.brokers)))
        configs = [CreatableTopicConfig(name=k, value=v) for k, v in self.settings.configs(replicas).items()]
        topic = CreatableTopic(name=TOPIC, num_partitions=partitions, replication_factor=replicas, configs=configs)
        answer: Any = self.cluster.send(CreateTopicsRequest(topics=[topic], timeout_ms=REQUEST_TIMEOUT_MS))
        result = answer.topics[0]
        if result.error_code not in (ErrorCode.NONE, TOPIC_EXISTS):  # another coordinator's race
            raise TopicError(f"creating {TOPIC}: {_error(result.error_code, result.error_message)}")

    def _partition_count(self) -> int | None:
        metadata: Any = self.cluster.refresh([TOPIC])
        for topic in metadata.topics:
            if topic.name == TOPIC and topic.error_code == ErrorCode.NONE:
                return len(topic.partitions)
        return None

    def _leader(self) -> int | None:
        metadata: Any = self.cluster.refresh([TOPIC])
        for topic in metadata.topics:
            for p in topic.partitions if topic.name == TOPIC else []:
                if p.partition_index == self.partition and p.leader_id >= 0:
                    return int(p.leader_id)
        return None

    def _name(self) -> str:
        return f"{TOPIC}-{self.partition}"

    # -- reading -------------------------------------------------------------------------------

    def holds(self, position: LogPosition) -> bool:
        return not position.next_offset or position.next_offset <= self.high_watermark()

    def high_watermark(self) -> int:
        """Where the durable part of the partition ends (0 when the topic is missing)."""
        wanted = ListOffsetsPartition(partition_index=self.partition, timestamp=LATEST)
        request = ListOffsetsRequest(replica_id=-1, topics=[ListOffsetsTopic(name=TOPIC, partitions=[wanted])])

        def pick(answer: Any) -> tuple[int, int]:
            found = answer.topics[0].partitions[0]
            return found.error_code, int(found.offset)

        return self._ask_leader(request, None, pick, 0, "its end")

    def records_after(self, position: LogPosition) -> Iterator[tuple[list[Message], LogPosition]]:
        offset = position.next_offset
        while True:
            data, high_watermark = self._fetch(offset)
            for _, batch in BatchReader(data):  # a batch cut at the answer's end comes next time
                if batch.base_offset + batch.last_offset_delta < offset:
                    continue  # before the position: a fetch starts at the batch holding it
                offset = batch.base_offset + batch.last_offset_delta + 1
                yield self._records_of(batch), LogPosition(offset)
            if offset >= high_watermark or not data:
                return

    @staticmethod
    def _records_of(batch: RecordBatch) -> list[Message]:
        if batch.is_control or not landed_where_expected(batch):
            return []  # a marker, or a batch decided on a stale state (module: two writers)
        values = [r.value for r in batch.records if r.value is not None]
        return [decode_record_value(v, DISKLESS_REGISTRY).message for v in values]

    def _fetch(self, offset: int) -> tuple[bytes, int]:
        """The batches from ``offset`` on (up to FETCH_BYTES), and the high watermark."""
        wanted = FetchPartition(partition=self.partition, fetch_offset=offset, partition_max_bytes=FETCH_BYTES)
        request = FetchRequest(replica_id=-1, max_wait_ms=0, min_bytes=1, max_bytes=FETCH_BYTES,
                               session_id=0, session_epoch=-1,
                               topics=[FetchTopic(topic=TOPIC, partitions=[wanted])])  # fmt: skip

        def pick(answer: Any) -> tuple[int, tuple[bytes, int]]:
            found = answer.responses[0].partitions[0]
            return found.error_code, (bytes(found.records or b""), int(found.high_watermark))

        return self._ask_leader(request, FETCH_VERSION, pick, (b"", 0), f"a fetch from offset {offset}")

    def _ask_leader(self, request: Message, version: int | None,
                    pick: Callable[[Any], tuple[int, _T]], missing: _T, what: str) -> _T:  # fmt: skip
        """Send ``request`` to the partition's leader: ``pick(answer)`` gives the error code and
        the value; ``missing`` is the value when the partition is not there. Asked again while
        the answer is retriable (the partition just created, or its leader moving)."""

        def ask() -> _T | None:
            try:
                code, value = pick(self.cluster.send(request, version))
            except NetworkError:  # no leader known: the partition may not exist
                if self._missing():
                    return missing
                raise
            if code == ErrorCode.UNKNOWN_TOPIC_OR_PARTITION and self._missing():
                return missing
            if code and not ErrorCode.for_code(code).retriable:
                raise TopicError(f"{self._name()}, {what}: {_error(code)}")
            return None if code else value

        return _retry(ask, f"{self._name()}, {what}")

    def _missing(self) -> bool:
        count = self._partition_count()
        return count is None or count <= self.partition

    # -- appending -----------------------------------------------------------------------------

    def appender(self, end: LogPosition) -> KafkaAppender:
        return KafkaAppender(self, end.next_offset)

    def init_producer_id(self) -> tuple[int, int]:
        def ask() -> tuple[int, int] | None:
            answer: Any = self.cluster.send(InitProducerIdRequest(transactional_id=None, transaction_timeout_ms=-1))
            if answer.error_code and not ErrorCode.for_code(answer.error_code).retriable:
                raise TopicError(f"InitProducerId: {_error(answer.error_code)}")
            return None if answer.error_code else (answer.producer_id, answer.producer_epoch)

        return _retry(ask, "a producer id")

    def produce(self, batch: bytes) -> int:
        """Produce one batch with acks=all, retrying (the same bytes: the same sequence) while
        the answer is retriable; its base offset."""
        data = PartitionProduceData(index=self.partition, records=batch)
        request = ProduceRequest(acks=-1, timeout_ms=REQUEST_TIMEOUT_MS,
                                 topic_data=[TopicProduceData(name=TOPIC, partition_data=[data])])  # fmt: skip

        def send() -> int | None:
            answer: Any = self.cluster.send(request, PRODUCE_VERSION, timeout=self.request_timeout)
            found = answer.responses[0].partition_responses[0]
            if found.error_code and not ErrorCode.for_code(found.error_code).retriable:
                raise TopicError(f"producing to {self._name()}: {_error(found.error_code, found.error_message)}")
            return None if found.error_code else int(found.base_offset)

        return _retry(send, "an append to " + self._name())

    def close(self) -> None:
        self.cluster.close()

    def __enter__(self) -> KafkaTopic:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class KafkaAppender:
    """Appends to a ``KafkaTopic`` as one idempotent producer, a batch at each ``sync``."""

    def __init__(self, topic: KafkaTopic, next_offset: int):
        self.topic = topic
        self.producer_id, self.producer_epoch = topic.init_producer_id()
        self.sequence = 0
        self.next_offset = next_offset
        self._pending: tuple[bytes, int, int] | None = None  # batch, expected offset, records

    def append_unsynced(self, records: list[Message], timestamp: int) -> LogPosition:
        if self._pending is not None:
            raise RuntimeError("one batch at a time: sync the one appended first")
        expected = self.next_offset
        batch = RecordBatch.create(
            [Record(offset_delta=i, key=expected_offset_key(expected) if i == 0 else None,
                    value=encode_record_value(record, 0)) for i, record in enumerate(records)],
            base_timestamp=timestamp, producer_id=self.producer_id,
            producer_epoch=self.producer_epoch, base_sequence=self.sequence,
        )  # fmt: skip
        self._pending = (batch.encode(), expected, len(records))
        self.next_offset += len(records)
        return LogPosition(self.next_offset)

    def sync(self) -> None:
        if self._pending is None:
            return
        data, expected, count = self._pending
        self._pending = None
        base = self.topic.produce(data)
        self.sequence = (self.sequence + count) % (1 << 31)
        if base != expected:
            raise TopicError(
                f"{self.topic._name()}: our batch got offset {base} where {expected} was expected; "
                "another coordinator wrote to the partition, so the batch is void: restart to catch up"
            )

    def close(self) -> None:
        self._pending = None


def _retry(attempt: Callable[[], _T | None], what: str) -> _T:
    """``attempt()`` until it gives an answer (None, or a network error: try again), with a
    growing pause, for RETRY_SECONDS at most."""
    deadline, pause, last = time.monotonic() + RETRY_SECONDS, 0.05, "no answer"
    while True:
        try:
            answer = attempt()
            if answer is not None:
                return answer
        except TopicError:
            raise
        except (NetworkError, OSError) as e:  # a lost connection, a timeout, a broker down
            last = str(e)
        if time.monotonic() + pause > deadline:
            raise TopicError(f"{what}: still failing after {RETRY_SECONDS:.0f} s ({last})")
        time.sleep(pause)
        pause = min(2 * pause, 1.0)


def _error(code: int, message: str | None = None) -> str:
    return f"{ErrorCode.for_code(code).name} ({code})" + (f": {message}" if message else "")
