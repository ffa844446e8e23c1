"""The requests and answers of the design's plugin interface (``BatchCoordinator``), as Python
values. Errors are Kafka error codes (``ErrorCode``); an answer with an error has -1 in its
offsets and timestamps.

They are named tuples: immutable, and several times cheaper to build than frozen dataclasses,
which counts because a commit or a find makes one or more for every batch it handles."""

from __future__ import annotations

from typing import NamedTuple

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
EARLIEST_PENDING_UPLOAD_TIMESTAMP = -6  # ListOffsets v11 (Kafka 4.2+)
# DeleteRecords' "up to the high watermark" (Kafka's DeleteRecordsRequest.HIGH_WATERMARK)
HIGH_WATERMARK = -1


class TopicIdPartition(NamedTuple):
    topic_id: Uuid
    partition: int


class CreateTopicAndPartitionsRequest(NamedTuple):
    topic_id: Uuid
    topic_name: str
    num_partitions: int


class CommitBatchRequest(NamedTuple):
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


class CommitBatchResponse(NamedTuple):
    error: int  # an ErrorCode
    assigned_base_offset: int = NO_OFFSET
    log_append_time: int = NO_TIMESTAMP
    log_start_offset: int = NO_OFFSET
    is_duplicate: bool = False


class FindBatchRequest(NamedTuple):
    topic_id_partition: TopicIdPartition
    offset: int
    max_partition_fetch_bytes: int


class BatchMetadata(NamedTuple):
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


class BatchInfo(NamedTuple):
    batch_id: int
    object_key: str
    metadata: BatchMetadata


class FindBatchResponse(NamedTuple):
    error: int  # an ErrorCode
    batches: list[BatchInfo]
    log_start_offset: int = NO_OFFSET
    high_watermark: int = NO_OFFSET


class ListOffsetsRequest(NamedTuple):
    topic_id_partition: TopicIdPartition
    timestamp: int


class ListOffsetsResponse(NamedTuple):
    error: int  # an ErrorCode
    topic_id_partition: TopicIdPartition
    timestamp: int = NO_TIMESTAMP
    offset: int = NO_OFFSET


class DeleteRecordsRequest(NamedTuple):
    topic_id_partition: TopicIdPartition
    offset: int


class DeleteRecordsResponse(NamedTuple):
    error: int  # an ErrorCode
    low_watermark: int = NO_OFFSET


class FileToDelete(NamedTuple):
    object_key: str
    marked_for_deletion_at: int  # ms since the epoch
