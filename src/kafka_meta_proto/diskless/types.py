"""The requests and answers of the design's plugin interface (``BatchCoordinator``), as Python
values. Errors are Kafka error codes (``ErrorCode``); an answer with an error has -1 in its
offsets and timestamps."""

from __future__ import annotations

from dataclasses import dataclass

from ..uuid import Uuid

NO_PRODUCER_ID = -1
NO_OFFSET = -1
NO_TIMESTAMP = -1
# ListOffsets' special timestamps (Kafka's ListOffsetsRequest)
LATEST_TIMESTAMP = -1
EARLIEST_TIMESTAMP = -2
MAX_TIMESTAMP = -3
EARLIEST_LOCAL_TIMESTAMP = -4
LATEST_TIERED_TIMESTAMP = -5
# DeleteRecords' "up to the high watermark" (Kafka's DeleteRecordsRequest.HIGH_WATERMARK)
HIGH_WATERMARK = -1


@dataclass(frozen=True, order=True)
class TopicIdPartition:
    topic_id: Uuid
    partition: int


@dataclass(frozen=True)
class CreateTopicAndPartitionsRequest:
    topic_id: Uuid
    topic_name: str
    num_partitions: int


@dataclass(frozen=True)
class CommitBatchRequest:
    """One batch of an uploaded object; ``base_offset``/``last_offset`` are the batch's own
    (usually 0 and its record count - 1): the coordinator assigns the partition's."""

    topic_id_partition: TopicIdPartition
    byte_offset: int
    size: int
    base_offset: int
    last_offset: int
    batch_max_timestamp: int
    message_timestamp_type: int
    producer_id: int = NO_PRODUCER_ID
    producer_epoch: int = -1
    base_sequence: int = -1
    last_sequence: int = -1


@dataclass(frozen=True)
class CommitBatchResponse:
    error: int  # an ErrorCode
    assigned_base_offset: int = NO_OFFSET
    log_append_time: int = NO_TIMESTAMP
    log_start_offset: int = NO_OFFSET
    is_duplicate: bool = False


@dataclass(frozen=True)
class FindBatchRequest:
    topic_id_partition: TopicIdPartition
    offset: int
    max_partition_fetch_bytes: int


@dataclass(frozen=True)
class BatchMetadata:
    topic_id_partition: TopicIdPartition
    byte_offset: int
    byte_size: int
    base_offset: int
    last_offset: int
    log_append_timestamp: int
    batch_max_timestamp: int
    timestamp_type: int
    producer_id: int
    producer_epoch: int
    base_sequence: int
    last_sequence: int


@dataclass(frozen=True)
class BatchInfo:
    batch_id: int
    object_key: str
    metadata: BatchMetadata


@dataclass(frozen=True)
class FindBatchResponse:
    error: int  # an ErrorCode
    batches: list[BatchInfo]
    log_start_offset: int = NO_OFFSET
    high_watermark: int = NO_OFFSET


@dataclass(frozen=True)
class ListOffsetsRequest:
    topic_id_partition: TopicIdPartition
    timestamp: int


@dataclass(frozen=True)
class ListOffsetsResponse:
    error: int  # an ErrorCode
    topic_id_partition: TopicIdPartition
    timestamp: int = NO_TIMESTAMP
    offset: int = NO_OFFSET


@dataclass(frozen=True)
class DeleteRecordsRequest:
    topic_id_partition: TopicIdPartition
    offset: int


@dataclass(frozen=True)
class DeleteRecordsResponse:
    error: int  # an ErrorCode
    low_watermark: int = NO_OFFSET


@dataclass(frozen=True)
class FileToDelete:
    object_key: str
    marked_for_deletion_at: int  # ms since the epoch
