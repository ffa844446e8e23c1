"""The read operations: finding batches (FindDisklessBatches) and listing offsets
(ListDisklessOffsets), answered from the materialized state alone."""

from __future__ import annotations

from typing import Any, NamedTuple

from ..error_codes import ErrorCode
from .commits import batch_timestamp, missing_partition_error, partition_error
from .store import FOUND_COLUMNS, FOUND_SIZE, LOG_APPEND_TIME, Store
from .types import EARLIEST_LOCAL_TIMESTAMP, EARLIEST_PENDING_UPLOAD_TIMESTAMP, EARLIEST_TIMESTAMP, LATEST_TIERED_TIMESTAMP
from .types import LATEST_TIMESTAMP, MAX_TIMESTAMP, NO_OFFSET, NO_TIMESTAMP
from .types import BatchInfo, BatchMetadata, FindBatchRequest, FindBatchResponse
from .types import ListOffsetsRequest, ListOffsetsResponse, TopicIdPartition


class FoundRows(NamedTuple):
    """One partition's part of a find: its error, offsets, and the rows of the batches given."""

    error: int  # an ErrorCode
    rows: list[tuple[Any, ...]]  # rows of the columns asked for (FOUND_SIZE is the size's place)
    log_start_offset: int = NO_OFFSET
    high_watermark: int = NO_OFFSET


def found_rows(
    store: Store, requests: list[FindBatchRequest], fetch_max_bytes: int, columns: str = FOUND_COLUMNS
) -> list[FoundRows]:
    """The batches from each request's offset on, in offset order, as many as fit its
    ``max_partition_fetch_bytes`` and, over all partitions, ``fetch_max_bytes``. As in Kafka's
    fetch, the first batch of the answer is given even when it alone is larger, so that a
    reader always makes progress. Rows are of ``columns`` (``FOUND_COLUMNS``, or
    ``FOUND_WIRE_COLUMNS`` for an answer encoded straight from them)."""
    answers = []
    budget = fetch_max_bytes
    given_any = False
    for request in requests:
        tp = request.topic_id_partition
        offsets = store.offsets(tp.topic_id, tp.partition)
        if offsets is None:
            answers.append(FoundRows(missing_partition_error(store, tp), []))
            continue
        log_start, high_watermark = offsets
        if request.max_partition_fetch_bytes < 0 or fetch_max_bytes < 0:
            answers.append(FoundRows(ErrorCode.INVALID_REQUEST, [], log_start, high_watermark))
            continue
        if not log_start <= request.offset <= high_watermark:
            answers.append(FoundRows(ErrorCode.OFFSET_OUT_OF_RANGE, [], log_start, high_watermark))
            continue
        rows, room = [], min(request.max_partition_fetch_bytes, budget)
        for row in store.found_rows_from(tp.topic_id, tp.partition, request.offset, columns):
            size = row[FOUND_SIZE]
            if given_any and size > room:
                break
            rows.append(row)
            given_any = True
            room -= size
            budget -= size
        answers.append(FoundRows(ErrorCode.NONE, rows, log_start, high_watermark))
    return answers


def _batch_info(tp: TopicIdPartition, row: tuple[Any, ...]) -> BatchInfo:
    """A ``FOUND_COLUMNS`` row as the plugin interface gives it."""
    (key, byte_offset, size, base_offset, last_offset, _, timestamp_type, producer_id,
     producer_epoch, base_sequence, last_sequence, batch_id, log_append_time, max_timestamp) = row  # fmt: skip
    return BatchInfo(batch_id, key.decode(), BatchMetadata(
        tp, byte_offset, size, base_offset, last_offset, log_append_time, max_timestamp,
        timestamp_type, producer_id, producer_epoch, base_sequence, last_sequence,
    ))  # fmt: skip


def find_batches(store: Store, requests: list[FindBatchRequest], fetch_max_bytes: int) -> list[FindBatchResponse]:
    """``found_rows``, each row a ``BatchInfo``."""
    return [
        FindBatchResponse(found.error, [_batch_info(r.topic_id_partition, row) for row in found.rows],
                          found.log_start_offset, found.high_watermark)
        for r, found in zip(requests, found_rows(store, requests, fetch_max_bytes))
    ]  # fmt: skip


def list_offset(store: Store, request: ListOffsetsRequest) -> ListOffsetsResponse:
    """One partition's offset for a timestamp: Kafka's special timestamps, or the first batch
    whose timestamp is at or after the one given. Timestamps are a batch's (its max timestamp,
    or its append time under LOG_APPEND_TIME): the coordinator does not see records."""
    tp, wanted = request.topic_id_partition, request.timestamp
    error = partition_error(store, tp)
    if error is not None:
        return ListOffsetsResponse(error, tp)
    log_start, high_watermark = store.offsets(tp.topic_id, tp.partition)  # type: ignore[misc]
    if wanted in (EARLIEST_TIMESTAMP, EARLIEST_LOCAL_TIMESTAMP):  # all of a diskless log is "local"
        return ListOffsetsResponse(ErrorCode.NONE, tp, NO_TIMESTAMP, log_start)
    if wanted == LATEST_TIMESTAMP:
        return ListOffsetsResponse(ErrorCode.NONE, tp, NO_TIMESTAMP, high_watermark)
    if wanted in (LATEST_TIERED_TIMESTAMP, EARLIEST_PENDING_UPLOAD_TIMESTAMP):
        # nothing is tiered: Kafka answers -1 for both on a log without remote storage
        return ListOffsetsResponse(ErrorCode.NONE, tp, NO_TIMESTAMP, NO_OFFSET)
    if wanted == MAX_TIMESTAMP:
        batch = store.batch_with_max_timestamp(tp.topic_id, tp.partition)
        if batch is None:
            return ListOffsetsResponse(ErrorCode.NONE, tp, NO_TIMESTAMP, NO_OFFSET)
        # Kafka answers the first record holding the largest timestamp: under LOG_APPEND_TIME
        # every record holds it, so the first; under create time the coordinator cannot see the
        # records, and a producer stamps them in order, so the last is the likely one
        stamped_at_append = batch.message_timestamp_type == LOG_APPEND_TIME
        offset = batch.base_offset if stamped_at_append else batch.last_offset
        return ListOffsetsResponse(ErrorCode.NONE, tp, batch_timestamp(batch), offset)
    if wanted < 0:  # a special timestamp Kafka does not define: its broker's answer
        return ListOffsetsResponse(ErrorCode.UNSUPPORTED_VERSION, tp)
    batch = store.first_batch_at_or_after(tp.topic_id, tp.partition, wanted)
    if batch is None:
        return ListOffsetsResponse(ErrorCode.NONE, tp, NO_TIMESTAMP, NO_OFFSET)
    # a batch the log start cut into: its offsets below the log start are gone (Kafka's search
    # skips records below the log start offset), and a find there would be out of range
    offset = max(batch.base_offset, log_start)
    return ListOffsetsResponse(ErrorCode.NONE, tp, batch_timestamp(batch), offset)
