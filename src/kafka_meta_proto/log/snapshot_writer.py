"""Writing a KRaft snapshot file (``<offset>-<epoch>.checkpoint``, ``bootstrap.checkpoint``) as
Kafka's snapshot writer lays it out: a SnapshotHeader control batch, the records in batches of at
most 8 MiB, a SnapshotFooter control batch, offsets counting from 0 inside the file."""

from __future__ import annotations

from typing import BinaryIO, Iterable

from .batch import RecordBatch
from .control import ControlRecordType, control_key
from .records import Record

MAX_SNAPSHOT_BATCH_BYTES = 8 * 1024 * 1024  # KafkaRaftClient.MAX_BATCH_SIZE_BYTES
_RECORD_OVERHEAD = 16  # a generous bound on one record's framing, for the batch size


def write_snapshot(
    out: BinaryIO,
    header_value: bytes,
    values: Iterable[bytes],
    footer_value: bytes,
    *,
    epoch: int,
    timestamp: int,
    step_ms: int = 0,
) -> int:
    """Write the snapshot; ``values`` are metadata record values (``kraft.encode_record_value``),
    the header and footer values encoded SnapshotHeaderRecord / SnapshotFooterRecord v0. The data
    batches are stamped ``step_ms`` after the header, the footer ``step_ms`` after them. Returns
    the number of records written besides the header and footer."""

    def control(value: bytes, record_type: int, offset: int, at: int) -> bytes:
        record = Record(key=control_key(record_type), value=value)
        return RecordBatch.create([record], base_offset=offset, base_timestamp=at, control=True,
                                  partition_leader_epoch=epoch).encode()  # fmt: skip

    out.write(control(header_value, ControlRecordType.SNAPSHOT_HEADER, 0, timestamp))
    timestamp += step_ms
    offset, size = 1, 0
    pending: list[Record] = []

    def flush() -> None:
        nonlocal offset, pending, size
        if pending:
            batch = RecordBatch.create(
                pending, base_offset=offset, base_timestamp=timestamp, partition_leader_epoch=epoch
            )
            out.write(batch.encode())
            offset += len(pending)
            pending, size = [], 0

    for value in values:
        if size + len(value) + _RECORD_OVERHEAD > MAX_SNAPSHOT_BATCH_BYTES:
            flush()
        pending.append(Record(offset_delta=len(pending), value=value))
        size += len(value) + _RECORD_OVERHEAD
    flush()
    out.write(control(footer_value, ControlRecordType.SNAPSHOT_FOOTER, offset, timestamp + step_ms))
    return offset - 1
