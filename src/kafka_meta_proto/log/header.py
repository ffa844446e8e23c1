"""The record batch v2 header: its layout, a named view of it, and packing it for writing.

Layout (big-endian, 61 bytes, read with one precompiled Struct)::

    baseOffset int64 | batchLength int32 | partitionLeaderEpoch int32 | magic int8 (2) |
    crc uint32 | attributes int16 | lastOffsetDelta int32 | baseTimestamp int64 |
    maxTimestamp int64 | producerId int64 | producerEpoch int16 | baseSequence int32 |
    recordsCount int32 | records...

``batchLength`` counts everything after itself; the CRC-32C covers ``attributes`` to the end of
the batch. This is the only module that knows where the fields are.
"""

from __future__ import annotations

import struct
from collections import namedtuple
from enum import IntEnum
from typing import TYPE_CHECKING

from .compression import CompressionType
from .crc import crc32c

if TYPE_CHECKING:
    from .source import Buffer

HEADER = struct.Struct(">qiibIhiqqqhii")
HEADER_SIZE = HEADER.size  # 61
LOG_OVERHEAD = 12  # baseOffset + batchLength, the part batchLength does not count
MIN_BATCH_LENGTH = HEADER_SIZE - LOG_OVERHEAD  # 49: a batch with no records
MAGIC = 2

# Where each field starts, in HEADER's order (computed from the format, not typed by hand).
_FORMATS = HEADER.format[1:]
FIELD_OFFSETS = tuple(struct.calcsize(">" + _FORMATS[:i]) for i in range(len(_FORMATS)))
LENGTH_OFFSET = FIELD_OFFSETS[1]  # 8
MAGIC_OFFSET = FIELD_OFFSETS[3]  # 16
CRC_OFFSET = FIELD_OFFSETS[4]  # 17
CRC_START = FIELD_OFFSETS[5]  # 21: attributes, the first byte the CRC covers
ATTRIBUTES_OFFSET = CRC_START
RECORDS_COUNT_OFFSET = FIELD_OFFSETS[12]  # 57

ATTR_COMPRESSION = 0x07
ATTR_TIMESTAMP_TYPE = 0x08
ATTR_TRANSACTIONAL = 0x10
ATTR_CONTROL = 0x20
ATTR_DELETE_HORIZON = 0x40
ATTR_KNOWN = 0x7F  # bits Kafka defines; a header with others set is not one Kafka wrote

NO_TIMESTAMP = -1
NO_PARTITION_LEADER_EPOCH = -1
NO_PRODUCER_ID = -1
NO_PRODUCER_EPOCH = -1
NO_SEQUENCE = -1

_INT16 = struct.Struct(">h")
_INT32 = struct.Struct(">i")
_UINT32 = struct.Struct(">I")
_FIELD_STRUCTS = tuple(struct.Struct(">" + f) for f in _FORMATS)


class TimestampType(IntEnum):
    """Attributes bit 3: what the record timestamps mean."""

    CREATE_TIME = 0
    LOG_APPEND_TIME = 1  # the broker's append time, kept once as maxTimestamp


class HeaderFields:
    """What the attribute bits and offset fields mean; shared by BatchHeader and RecordBatch."""

    __slots__ = ()

    if TYPE_CHECKING:  # the fields of the class it is mixed into

        @property
        def attributes(self) -> int: ...
        @property
        def base_offset(self) -> int: ...
        @property
        def base_timestamp(self) -> int: ...
        @property
        def last_offset_delta(self) -> int: ...

    @property
    def compression(self) -> CompressionType:
        return CompressionType(self.attributes & ATTR_COMPRESSION)

    @property
    def timestamp_type(self) -> TimestampType:
        return TimestampType((self.attributes & ATTR_TIMESTAMP_TYPE) >> 3)

    @property
    def is_transactional(self) -> bool:
        return bool(self.attributes & ATTR_TRANSACTIONAL)

    @property
    def is_control(self) -> bool:
        return bool(self.attributes & ATTR_CONTROL)

    @property
    def has_delete_horizon(self) -> bool:
        return bool(self.attributes & ATTR_DELETE_HORIZON)

    @property
    def delete_horizon_ms(self) -> int | None:
        """With the delete-horizon bit set, baseTimestamp holds it (the log cleaner's doing)."""
        return self.base_timestamp if self.attributes & ATTR_DELETE_HORIZON else None

    @property
    def last_offset(self) -> int:
        return self.base_offset + self.last_offset_delta

    @property
    def next_offset(self) -> int:
        return self.base_offset + self.last_offset_delta + 1


_HeaderTuple = namedtuple(
    "_HeaderTuple",
    "base_offset batch_length partition_leader_epoch magic crc attributes last_offset_delta "
    "base_timestamp max_timestamp producer_id producer_epoch base_sequence records_count",
)


class BatchHeader(_HeaderTuple, HeaderFields):
    """The 61-byte header as read, field by field (``read_header``): a tuple, cheap to make."""

    __slots__ = ()

    @property
    def size(self) -> int:
        """The whole batch's size in bytes, by its length field."""
        size: int = LOG_OVERHEAD + self.batch_length  # a namedtuple's fields are untyped
        return size


_new_tuple = tuple.__new__
_unpack_header = HEADER.unpack_from


def read_header(buf: Buffer, pos: int = 0) -> BatchHeader:
    """The header at ``buf[pos]``; the caller makes sure 61 bytes are there."""
    return _new_tuple(BatchHeader, _unpack_header(buf, pos))


def read_length(buf: Buffer, pos: int) -> int:
    """The batchLength field of the batch at ``pos`` (12 bytes must be there)."""
    length: int = _INT32.unpack_from(buf, pos + LENGTH_OFFSET)[0]
    return length


def read_partial_header(buf: Buffer, pos: int, available: int) -> dict[str, int]:
    """The fields of a header that lie whole within ``available`` bytes from ``pos`` (for a batch
    cut short), by BatchHeader's field names."""
    fields = {}
    for name, offset, unpack in zip(BatchHeader._fields, FIELD_OFFSETS, _FIELD_STRUCTS):
        if offset + unpack.size > available:
            break
        fields[name] = unpack.unpack_from(buf, pos + offset)[0]
    return fields


def stored_crc(buf: Buffer, pos: int) -> int:
    crc: int = _UINT32.unpack_from(buf, pos + CRC_OFFSET)[0]
    return crc


def computed_crc(buf: Buffer, pos: int, size: int) -> int:
    """The CRC-32C of the batch of ``size`` bytes at ``pos``, over the part the CRC covers."""
    if size <= 4096:  # copying a small tail beats making a memoryview
        return crc32c(buf[pos + CRC_START : pos + size])
    with memoryview(buf) as view:
        return crc32c(view[pos + CRC_START : pos + size])


def plausible_length(buf: Buffer, pos: int, available: int) -> int:
    """The batch length if the bytes at ``pos`` look like a v2 header Kafka wrote, fitting in
    ``available`` bytes (its CRC not yet checked), else -1."""
    if available < HEADER_SIZE or buf[pos + MAGIC_OFFSET] != MAGIC:
        return -1
    length: int = _INT32.unpack_from(buf, pos + LENGTH_OFFSET)[0]
    if length < MIN_BATCH_LENGTH or LOG_OVERHEAD + length > available:
        return -1
    if _INT16.unpack_from(buf, pos + ATTRIBUTES_OFFSET)[0] & ~ATTR_KNOWN:
        return -1
    if _INT32.unpack_from(buf, pos + RECORDS_COUNT_OFFSET)[0] < 0:
        return -1
    return length


def pack_header(
    base_offset: int,
    batch_length: int,
    partition_leader_epoch: int,
    attributes: int,
    last_offset_delta: int,
    base_timestamp: int,
    max_timestamp: int,
    producer_id: int,
    producer_epoch: int,
    base_sequence: int,
    records_count: int,
) -> bytes:
    """A header with a zero CRC (``seal`` fills it in once the records follow it)."""
    return HEADER.pack(base_offset, batch_length, partition_leader_epoch, MAGIC, 0, attributes,
                       last_offset_delta, base_timestamp, max_timestamp, producer_id, producer_epoch,
                       base_sequence, records_count)  # fmt: skip


def seal(header: bytes, records: bytes) -> bytes:
    """The batch: ``header`` (from pack_header) with its CRC computed, then ``records``."""
    crc = crc32c(records, crc32c(header[CRC_START:]))
    return b"".join((header[:CRC_OFFSET], _UINT32.pack(crc), header[CRC_START:], records))
