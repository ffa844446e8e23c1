"""A produced partition's records checked and stamped as Kafka's leader does
(``ProduceRequest.validateRecords``, ``LogValidator``), before anything is written.

Checks, with the error Kafka answers:

- the records hold exactly one whole batch, of magic 2 (INVALID_RECORD: Produce v3 and later
  allow nothing else); a length field below a batch header's is CORRUPT_MESSAGE;
- its base offset is 0 (INVALID_RECORD) and its size at most the topic's ``max.message.bytes``
  (MESSAGE_TOO_LARGE), as UnifiedLog.analyzeAndValidateRecords checks before the CRC;
- its CRC-32C matches (CORRUPT_MESSAGE);
- it is not a control batch (clients may not write them), it holds at least one record and its
  record count equals its offset range, an idempotent batch has a sequence (INVALID_RECORD);
- its records decode (decompressing as sent) to that many records (CORRUPT_MESSAGE) whose offset
  deltas run 0, 1, 2... (INVALID_RECORD with the record's index in ``record_errors``, as
  LogValidator reports an invalid offset).

The records are checked in place, uncompressed ones in the request's own bytes, by a walk that
reads their lengths and varints without building them (``log.record_walk``); only a batch the
walk finds fault with is read record by record, for the error Kafka names.

Stamping: the base offset and partition leader epoch are written into a copy of the header (the
CRC does not cover them, so the rest of the batch stays as the producer sent it, compressed
payload included, and is written from the request's bytes). A topic with
``message.timestamp.type=LogAppendTime`` gets the timestamp-type bit and the broker's time as max
timestamp, and a new CRC, as Kafka's in-place ``setMaxTimestamp`` does.

Choices: record timestamps are not held to ``message.timestamp.*.max.ms`` and a topic's
``compression.type`` other than ``producer`` is not applied (batches are kept as sent).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import TYPE_CHECKING, cast

from ...error_codes import ErrorCode
from ...log.batch import check_crc, iter_batch_records, read_frame
from ...log.compression import decompress
from ...log.errors import CorruptBatchError, LogFormatError, TruncatedBatchError
from ...log.header import (
    ATTR_COMPRESSION,
    ATTR_CONTROL,
    ATTR_TIMESTAMP_TYPE,
    CRC_OFFSET,
    CRC_START,
    FIELD_OFFSETS,
    HEADER_SIZE,
    NO_PRODUCER_ID,
    BatchHeader,
    read_header,
)
from ...log.crc import crc32c
from ...log.record_walk import first_bad_record

if TYPE_CHECKING:
    from ...log.source import Buffer

_BASE_OFFSET = struct.Struct(">q")
_EPOCH = struct.Struct(">i")
_ATTRIBUTES = struct.Struct(">h")
_TIMESTAMP = struct.Struct(">q")
_CRC = struct.Struct(">I")
_EPOCH_AT = FIELD_OFFSETS[2]
_ATTRIBUTES_AT = FIELD_OFFSETS[5]
_MAX_TIMESTAMP_AT = FIELD_OFFSETS[8]


class BatchRefused(Exception):
    """A produced batch Kafka refuses: the partition's error code, message and record errors."""

    def __init__(
        self, code: int, message: str, record_errors: list[tuple[int, str]] | None = None
    ):
        super().__init__(message)
        self.code = code
        self.message = message
        self.record_errors = record_errors or []


@dataclass(frozen=True)
class CheckedBatch:
    """A produced batch that passed the checks: its bytes as received (a view of the request,
    still unstamped) and header."""

    data: bytes | memoryview
    header: BatchHeader

    @property
    def records_count(self) -> int:
        last: int = self.header.last_offset_delta  # a namedtuple's fields are untyped
        return last + 1


DEFAULT_MAX_MESSAGE_BYTES = 1048588  # Kafka's max.message.bytes


def check_produced(records: bytes | memoryview | None, version: int,
                   max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES) -> CheckedBatch:  # fmt: skip
    """The one batch of a produced partition, checked; BatchRefused otherwise. ``records`` is
    kept as it is, not copied."""
    data = records if records is not None else b""
    try:
        header = read_frame(data, 0, len(data))
    except TruncatedBatchError:
        raise BatchRefused(ErrorCode.INVALID_RECORD, f"Produce requests with version {version} "
                           "must have at least one record batch per partition") from None  # fmt: skip
    except LogFormatError as exc:
        code = ErrorCode.INVALID_RECORD if "magic" in exc.reason else ErrorCode.CORRUPT_MESSAGE
        raise BatchRefused(code, exc.reason) from None
    if header.size != len(data):
        raise BatchRefused(ErrorCode.INVALID_RECORD, f"Produce requests with version {version} are"
                           " only allowed to contain exactly one record batch per partition")  # fmt: skip
    if header.base_offset != 0:
        raise BatchRefused(ErrorCode.INVALID_RECORD, "The baseOffset of the record batch in the "
                           f"append should be 0, but it is {header.base_offset}")  # fmt: skip
    if len(data) > max_message_bytes:
        raise BatchRefused(ErrorCode.MESSAGE_TOO_LARGE, f"The record batch size in the append is "
                           f"{len(data)} bytes which exceeds the maximum configured value of "
                           f"{max_message_bytes}.")  # fmt: skip
    try:
        check_crc(header, cast(bytes, data))  # any buffer: the CRC is computed over a view
    except CorruptBatchError as exc:
        raise BatchRefused(ErrorCode.CORRUPT_MESSAGE, f"Record batch is corrupt ({exc.reason})")
    _check_header(header)
    _check_records(header, data)
    return CheckedBatch(data, header)


def _check_header(header: BatchHeader) -> None:
    if header.attributes & ATTR_CONTROL:
        raise BatchRefused(ErrorCode.INVALID_RECORD, "Clients are not allowed to write control records")
    if header.records_count <= 0 or header.records_count != header.last_offset_delta + 1:
        raise BatchRefused(ErrorCode.INVALID_RECORD,
                           f"Inconsistent batch offset range [0, {header.last_offset_delta}] and "
                           f"count of records {header.records_count}")  # fmt: skip
    if header.producer_id != NO_PRODUCER_ID and header.base_sequence < 0:
        raise BatchRefused(ErrorCode.INVALID_RECORD,
                           f"Invalid sequence number {header.base_sequence} in record batch with "
                           f"producerId {header.producer_id}")  # fmt: skip


def _check_records(header: BatchHeader, data: bytes | memoryview) -> None:
    """The walk over the records in place; any fault it finds is named by ``_refuse_records``."""
    codec = header.attributes & ATTR_COMPRESSION
    try:
        if codec:
            section = decompress(codec, memoryview(data)[HEADER_SIZE:])
            if first_bad_record(section, 0, header.records_count) < 0:
                return
        elif first_bad_record(data, HEADER_SIZE, header.records_count) < 0:
            return
    except LogFormatError:  # a payload that does not decompress: the reader says how
        pass
    _refuse_records(header, bytes(data))


def _refuse_records(header: BatchHeader, data: bytes) -> None:
    """The records read one by one, as Kafka's validator reads them: the first fault refuses."""
    try:
        for index, record in enumerate(iter_batch_records(header, data)):
            if record.offset_delta != index:
                raise BatchRefused(ErrorCode.INVALID_RECORD, "One or more records have been rejected",
                                   [(index, f"Invalid offset delta {record.offset_delta}")])  # fmt: skip
    except LogFormatError as exc:
        raise BatchRefused(ErrorCode.CORRUPT_MESSAGE, f"Record batch is corrupt ({exc.reason})")


def stamp(batch: CheckedBatch, base_offset: int, leader_epoch: int,
          append_time: int | None) -> tuple[bytes, memoryview]:  # fmt: skip
    """The batch as the leader writes it, in two pieces: its header with offsets from
    ``base_offset`` and ``leader_epoch`` (and with ``append_time`` the LogAppendTime bit and max
    timestamp, and so a new CRC), then its records as received, not copied."""
    view = memoryview(batch.data)
    header = bytearray(view[:HEADER_SIZE])
    _BASE_OFFSET.pack_into(header, 0, base_offset)
    _EPOCH.pack_into(header, _EPOCH_AT, leader_epoch)
    if append_time is not None:
        attributes = batch.header.attributes | ATTR_TIMESTAMP_TYPE
        _ATTRIBUTES.pack_into(header, _ATTRIBUTES_AT, attributes)
        _TIMESTAMP.pack_into(header, _MAX_TIMESTAMP_AT, append_time)
        records = view[HEADER_SIZE:]
        _CRC.pack_into(header, CRC_OFFSET, crc32c(records, crc32c(header[CRC_START:])))
    return bytes(header), view[HEADER_SIZE:]


def header_of(data: Buffer) -> BatchHeader:
    """The header of a stamped batch."""
    return read_header(data, 0)
