"""Record batch v2 (magic 2): the unit Kafka appends to a log segment or a snapshot file.

Layout (big-endian; the 61-byte header is read with one precompiled Struct)::

    baseOffset int64 | batchLength int32 | partitionLeaderEpoch int32 | magic int8 (2) |
    crc uint32 | attributes int16 | lastOffsetDelta int32 | baseTimestamp int64 |
    maxTimestamp int64 | producerId int64 | producerEpoch int16 | baseSequence int32 |
    recordsCount int32 | records...

``batchLength`` counts everything after itself; the CRC-32C covers ``attributes`` to the end.
When attributes bits 0-2 name a codec, ``records`` is one compressed block holding them all.
Each record::

    length varint | attributes int8 | timestampDelta varlong | offsetDelta varint |
    keyLength varint (-1 = null) | key | valueLength varint (-1 = null) | value |
    headerCount varint | headers, each: keyLength varint, key (UTF-8),
                                        valueLength varint (-1 = null), value

Values stay bytes: this module frames records, it does not interpret them.

Re-encoding: ``decode_batch(b)[0].encode() == b`` for batches in the canonical encoding Kafka
writes. Uncompressed records are always serialised afresh from the fields. Compressed ones keep the
payload they were read with, reused as long as the records still serialise to the bytes it
decompressed to: the same input compressed again need not give the same bytes (other library,
level or block size), so this is the only way an unmodified batch comes back byte for byte. Change
a record, or the codec, and the payload is compressed anew.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from enum import IntEnum

from ..errors import EncodeError
from .compression import DEFAULT_MAX_DECOMPRESSED, CompressionType, compress, decompress
from .crc import crc32c
from .errors import CorruptBatchError, LogFormatError, TruncatedBatchError
from .varint import read_varint, read_varlong, write_varint, write_varlong

HEADER = struct.Struct(">qiibIhiqqqhii")
HEADER_SIZE = HEADER.size  # 61
LOG_OVERHEAD = 12  # baseOffset + batchLength, the part batchLength does not count
MAGIC_OFFSET = 16
CRC_OFFSET = 17
CRC_START = 21  # the CRC covers attributes .. end of batch
MIN_BATCH_LENGTH = HEADER_SIZE - LOG_OVERHEAD  # 49: a batch with no records
# attributes, timestampDelta, offsetDelta, keyLength, valueLength, headerCount: a byte each at least
MIN_RECORD_BODY = 6
MIN_RECORD_SIZE = MIN_RECORD_BODY + 1  # plus the length varint

ATTR_COMPRESSION = 0x07
ATTR_TIMESTAMP_TYPE = 0x08
ATTR_TRANSACTIONAL = 0x10
ATTR_CONTROL = 0x20
ATTR_DELETE_HORIZON = 0x40

NO_TIMESTAMP = -1
NO_PARTITION_LEADER_EPOCH = -1
NO_PRODUCER_ID = -1
NO_PRODUCER_EPOCH = -1
NO_SEQUENCE = -1

_INT32 = struct.Struct(">i")
_UINT32 = struct.Struct(">I")
_CONTROL_KEY = struct.Struct(">hh")


class TimestampType(IntEnum):
    """Attributes bit 3: what the record timestamps mean."""

    CREATE_TIME = 0
    LOG_APPEND_TIME = 1  # the broker's append time, kept once as maxTimestamp


class ControlRecordType(IntEnum):
    """The ``type`` of a control record's key (Kafka's ControlRecordType)."""

    ABORT = 0
    COMMIT = 1
    LEADER_CHANGE = 2
    SNAPSHOT_HEADER = 3
    SNAPSHOT_FOOTER = 4
    KRAFT_VERSION = 5
    KRAFT_VOTERS = 6


def parse_control_key(key) -> tuple[int, int]:
    """Read a control record key: ``(version, type)``, both int16.

    Like Kafka, a later key version is accepted (it may only add fields after these two).
    """
    if key is None or len(key) < 4:
        raise LogFormatError(
            f"control record key must be at least 4 bytes, got {None if key is None else len(key)}"
        )
    version, type_id = _CONTROL_KEY.unpack_from(key)
    if version < 0:
        raise LogFormatError(f"control record key has negative version {version}")
    return version, type_id


def control_key(type_id: int, version: int = 0) -> bytes:
    """Build a control record key."""
    return _CONTROL_KEY.pack(version, type_id)


def _control_type(type_id: int) -> ControlRecordType | int:
    try:
        return ControlRecordType(type_id)
    except ValueError:
        return type_id  # a type this library does not know: keep the number


@dataclass(slots=True)
class Record:
    """One record of a batch. Offsets and timestamps are deltas from the batch's bases."""

    attributes: int = 0
    timestamp_delta: int = 0
    offset_delta: int = 0
    key: bytes | None = None
    value: bytes | None = None
    headers: list[tuple[str, bytes | None]] = field(default_factory=list)

    @property
    def control_type(self) -> ControlRecordType | int:
        """The control record type its key names (only meaningful inside a control batch)."""
        return _control_type(parse_control_key(self.key)[1])


@dataclass(slots=True)
class RecordBatch:
    """A record batch v2 with its header fields and decoded records.

    ``batch_length`` and ``crc`` are as read; ``encode()`` computes both afresh (as it does the
    records count, from ``records``). ``last_offset_delta`` and ``max_timestamp`` are kept as
    given: compaction can leave them describing records that are gone.
    """

    base_offset: int = 0
    batch_length: int = 0
    partition_leader_epoch: int = NO_PARTITION_LEADER_EPOCH
    magic: int = 2
    crc: int = 0
    attributes: int = 0
    last_offset_delta: int = 0
    base_timestamp: int = NO_TIMESTAMP
    max_timestamp: int = NO_TIMESTAMP
    producer_id: int = NO_PRODUCER_ID
    producer_epoch: int = NO_PRODUCER_EPOCH
    base_sequence: int = NO_SEQUENCE
    records: list[Record] = field(default_factory=list)
    # For a batch read compressed: (codec, records bytes, compressed payload). See module doc.
    _source: tuple[int, bytes, bytes] | None = field(default=None, repr=False, compare=False)

    # --- attributes ----------------------------------------------------------------------

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

    # --- offsets, timestamps ---------------------------------------------------------------

    @property
    def records_count(self) -> int:
        return len(self.records)

    @property
    def last_offset(self) -> int:
        return self.base_offset + self.last_offset_delta

    @property
    def next_offset(self) -> int:
        return self.base_offset + self.last_offset_delta + 1

    def offset_of(self, record: Record) -> int:
        """The record's absolute offset."""
        return self.base_offset + record.offset_delta

    def timestamp_of(self, record: Record) -> int:
        """The record's absolute timestamp (the batch's append time under LOG_APPEND_TIME)."""
        if self.attributes & ATTR_TIMESTAMP_TYPE:
            return self.max_timestamp
        return self.base_timestamp + record.timestamp_delta

    # --- control batches -------------------------------------------------------------------

    @property
    def control_type(self) -> ControlRecordType | int | None:
        """The type of the first control record; None for a data batch or an empty one."""
        if not self.is_control or not self.records:
            return None
        return self.records[0].control_type

    def control_types(self) -> list[ControlRecordType | int]:
        """Types of all records of a control batch (a snapshot's first batch has several)."""
        if not self.is_control:
            return []
        return [record.control_type for record in self.records]

    # --- writing ---------------------------------------------------------------------------

    @classmethod
    def create(
        cls,
        records: list[Record],
        *,
        base_offset: int = 0,
        base_timestamp: int = NO_TIMESTAMP,
        compression: int = CompressionType.NONE,
        timestamp_type: int = TimestampType.CREATE_TIME,
        transactional: bool = False,
        control: bool = False,
        partition_leader_epoch: int = NO_PARTITION_LEADER_EPOCH,
        producer_id: int = NO_PRODUCER_ID,
        producer_epoch: int = NO_PRODUCER_EPOCH,
        base_sequence: int = NO_SEQUENCE,
    ) -> RecordBatch:
        """A new batch with lastOffsetDelta and maxTimestamp derived from ``records``."""
        records = list(records)
        attributes = (
            int(compression)
            | (int(timestamp_type) << 3)
            | (ATTR_TRANSACTIONAL if transactional else 0)
            | (ATTR_CONTROL if control else 0)
        )
        max_delta = max((r.timestamp_delta for r in records), default=0)
        return cls(
            base_offset=base_offset,
            partition_leader_epoch=partition_leader_epoch,
            attributes=attributes,
            last_offset_delta=records[-1].offset_delta if records else 0,
            base_timestamp=base_timestamp,
            max_timestamp=base_timestamp + max_delta,
            producer_id=producer_id,
            producer_epoch=producer_epoch,
            base_sequence=base_sequence,
            records=records,
        )

    def encode(self) -> bytes:
        """The batch's bytes, with batchLength, records count and CRC computed."""
        if self.magic != 2:
            raise EncodeError(f"only magic 2 batches can be written, not magic {self.magic}")
        codec = self.attributes & ATTR_COMPRESSION
        try:
            raw = encode_records(self.records)
            source = self._source
            if codec == CompressionType.NONE:
                payload = raw
            elif source is not None and source[0] == codec and source[1] == raw:
                payload = source[2]  # unchanged since decoding: the exact bytes read
            else:
                payload = compress(codec, raw)
            buf = bytearray(HEADER_SIZE + len(payload))
            HEADER.pack_into(
                buf,
                0,
                self.base_offset,
                len(buf) - LOG_OVERHEAD,
                self.partition_leader_epoch,
                2,
                0,  # CRC, filled in below
                self.attributes,
                self.last_offset_delta,
                self.base_timestamp,
                self.max_timestamp,
                self.producer_id,
                self.producer_epoch,
                self.base_sequence,
                len(self.records),
            )
        except (struct.error, ValueError, TypeError) as exc:
            if isinstance(exc, EncodeError):
                raise
            raise EncodeError(f"cannot encode record batch: {exc}") from exc
        buf[HEADER_SIZE:] = payload
        _UINT32.pack_into(buf, CRC_OFFSET, crc32c(memoryview(buf)[CRC_START:]))
        return bytes(buf)


# --- records -----------------------------------------------------------------------------


def _encode_record(record: Record) -> bytes:
    if not -128 <= record.attributes <= 127:
        raise EncodeError(f"record attributes {record.attributes} do not fit in int8")
    parts = [
        bytes((record.attributes & 0xFF,)),
        write_varlong(record.timestamp_delta),
        write_varint(record.offset_delta),
    ]
    key = record.key
    if key is None:
        parts.append(b"\x01")  # zigzag(-1)
    else:
        parts.append(write_varint(len(key)))
        parts.append(key)
    value = record.value
    if value is None:
        parts.append(b"\x01")
    else:
        parts.append(write_varint(len(value)))
        parts.append(value)
    headers = record.headers
    parts.append(write_varint(len(headers)))
    for name, header_value in headers:
        name_bytes = name.encode("utf-8", "surrogateescape")
        parts.append(write_varint(len(name_bytes)))
        parts.append(name_bytes)
        if header_value is None:
            parts.append(b"\x01")
        else:
            parts.append(write_varint(len(header_value)))
            parts.append(header_value)
    body = b"".join(parts)
    return write_varint(len(body)) + body


def encode_records(records: list[Record]) -> bytes:
    """The records section of a batch, uncompressed."""
    return b"".join([_encode_record(record) for record in records])


def _decode_headers(data: bytes, pos: int, end: int, count: int) -> tuple[list, int]:
    if count < 0:
        raise LogFormatError(f"negative header count {count}")
    if count > (end - pos) // 2:  # each header takes two length bytes at least
        raise LogFormatError(
            f"header count {count} exceeds the {end - pos} bytes left in the record"
        )
    headers = []
    for _ in range(count):
        size, pos = read_varint(data, pos)
        if size < 0 or size > end - pos:
            raise LogFormatError(f"header key length {size} is negative or runs past the record")
        # surrogateescape: a key that is not valid UTF-8 still round-trips byte for byte
        name = data[pos : pos + size].decode("utf-8", "surrogateescape")
        pos += size
        size, pos = read_varint(data, pos)
        if size < 0:
            if size != -1:
                raise LogFormatError(f"header value length {size}")
            value = None
        else:
            if size > end - pos:
                raise LogFormatError(f"header value length {size} runs past the record")
            value = data[pos : pos + size]
            pos += size
        headers.append((name, value))
    return headers, pos


def decode_records(data: bytes, pos: int, count: int) -> list[Record]:
    """Read ``count`` records from ``data[pos:]``, which they must fill exactly."""
    end = len(data)
    if count < 0:
        raise LogFormatError(f"negative records count {count}")
    if count > (end - pos) // MIN_RECORD_SIZE:
        raise LogFormatError(
            f"records count {count} cannot fit in the {end - pos} bytes of records data"
        )
    records = []
    append = records.append
    index = 0
    try:
        for index in range(count):
            # Varints are decoded inline when they take one byte (values -64..63) or two
            # (-8192..8191), which covers nearly every field of nearly every record; longer ones
            # go to read_varint / read_varlong. Zigzag: (raw >> 1) ^ -(raw & 1).
            b = data[pos]
            if b < 0x80:
                length = (b >> 1) ^ -(b & 1)
                pos += 1
            elif data[pos + 1] < 0x80:
                b = (b & 0x7F) | (data[pos + 1] << 7)
                length = (b >> 1) ^ -(b & 1)
                pos += 2
            else:
                length, pos = read_varint(data, pos)
            record_end = pos + length
            if length < MIN_RECORD_BODY or record_end > end:
                raise LogFormatError(f"record length {length} is too small or runs past the data")

            attributes = data[pos]
            if attributes > 127:
                attributes -= 256
            pos += 1
            b = data[pos]
            if b < 0x80:
                timestamp_delta = (b >> 1) ^ -(b & 1)
                pos += 1
            elif data[pos + 1] < 0x80:
                b = (b & 0x7F) | (data[pos + 1] << 7)
                timestamp_delta = (b >> 1) ^ -(b & 1)
                pos += 2
            else:
                timestamp_delta, pos = read_varlong(data, pos)
            b = data[pos]
            if b < 0x80:
                offset_delta = (b >> 1) ^ -(b & 1)
                pos += 1
            elif data[pos + 1] < 0x80:
                b = (b & 0x7F) | (data[pos + 1] << 7)
                offset_delta = (b >> 1) ^ -(b & 1)
                pos += 2
            else:
                offset_delta, pos = read_varint(data, pos)

            b = data[pos]
            if b < 0x80:
                size = (b >> 1) ^ -(b & 1)
                pos += 1
            else:
                size, pos = read_varint(data, pos)
            if size < 0:
                if size != -1:
                    raise LogFormatError(f"key length {size}")
                key = None
            else:
                if size > record_end - pos:
                    raise LogFormatError(f"key length {size} runs past the record")
                key = data[pos : pos + size]
                pos += size

            b = data[pos]
            if b < 0x80:
                size = (b >> 1) ^ -(b & 1)
                pos += 1
            elif data[pos + 1] < 0x80:
                b = (b & 0x7F) | (data[pos + 1] << 7)
                size = (b >> 1) ^ -(b & 1)
                pos += 2
            else:
                size, pos = read_varint(data, pos)
            if size < 0:
                if size != -1:
                    raise LogFormatError(f"value length {size}")
                value = None
            else:
                if size > record_end - pos:
                    raise LogFormatError(f"value length {size} runs past the record")
                value = data[pos : pos + size]
                pos += size

            b = data[pos]
            if b == 0:
                headers = []
                pos += 1
            else:
                count_h, pos = read_varint(data, pos)
                headers, pos = _decode_headers(data, pos, record_end, count_h)

            if pos != record_end:
                used = length + pos - record_end
                raise LogFormatError(f"record length says {length} bytes, its fields take {used}")
            append(Record(attributes, timestamp_delta, offset_delta, key, value, headers))
    except LogFormatError as exc:
        exc.reason = f"record {index}: {exc.reason}"
        raise
    except (ValueError, IndexError) as exc:  # a varint reader's reason, or a read past the end
        reason = str(exc) if isinstance(exc, ValueError) else "record runs past the end of the data"
        raise LogFormatError(f"record {index}: {reason}") from None
    if pos != end:
        raise LogFormatError(f"{end - pos} bytes left over after the last of {count} records")
    return records


# --- batches -----------------------------------------------------------------------------


def decode_batch(
    buf,
    pos: int = 0,
    *,
    verify_crc: bool = True,
    max_decompressed: int = DEFAULT_MAX_DECOMPRESSED,
) -> tuple[RecordBatch, int]:
    """Read the batch starting at ``buf[pos]``; return it and the position just after it.

    ``buf`` is any buffer (bytes, bytearray, memoryview, mmap). Raises TruncatedBatchError when
    ``buf`` ends before the batch does, CorruptBatchError on a CRC mismatch, LogFormatError for
    anything else malformed, each carrying ``position=pos``.
    """
    if pos < 0:
        raise ValueError(f"position {pos} is negative")
    try:
        return _decode_batch(buf, pos, verify_crc, max_decompressed)
    except LogFormatError as exc:
        if exc.position is None:
            exc.position = exc.offset = pos
        raise


def _short_batch_error(buf, pos: int, left: int) -> LogFormatError:
    """Why fewer than HEADER_SIZE bytes cannot hold the batch at ``pos``."""
    if left < LOG_OVERHEAD:
        left = max(left, 0)
        return TruncatedBatchError(
            f"{left} bytes left, fewer than a batch's offset and length fields", bytes_left=left
        )
    (batch_length,) = _INT32.unpack_from(buf, pos + 8)
    if left > MAGIC_OFFSET and buf[pos + MAGIC_OFFSET] != 2:
        return LogFormatError(f"magic {buf[pos + MAGIC_OFFSET]} is not supported (only v2 batches)")
    if batch_length < MIN_BATCH_LENGTH:
        return LogFormatError(
            f"batch length {batch_length} is below the minimum {MIN_BATCH_LENGTH}"
        )
    return TruncatedBatchError(
        f"batch length {batch_length} needs {LOG_OVERHEAD + batch_length} bytes, only {left} left",
        bytes_left=left,
    )


def _decode_batch(buf, pos: int, verify_crc: bool, max_decompressed: int):
    left = len(buf) - pos
    if left < HEADER_SIZE:
        raise _short_batch_error(buf, pos, left)
    header = HEADER.unpack_from(buf, pos)
    batch_length = header[1]
    if header[3] != 2:
        raise LogFormatError(f"magic {header[3] & 0xFF} is not supported (only v2 batches)")
    if batch_length < MIN_BATCH_LENGTH:
        raise LogFormatError(f"batch length {batch_length} is below the minimum {MIN_BATCH_LENGTH}")
    size = LOG_OVERHEAD + batch_length
    if left < size:
        raise TruncatedBatchError(
            f"batch length {batch_length} needs {size} bytes, only {left} left", bytes_left=left
        )

    data = buf[pos : pos + size]  # one copy (bytes from bytes or mmap); keys and values slice it
    if type(data) is not bytes:
        data = bytes(data)
    crc = header[4]
    if verify_crc:
        # Copying a small batch's tail is cheaper than making a memoryview of it.
        covered = data[CRC_START:] if size <= 4096 else memoryview(data)[CRC_START:]
        computed = crc32c(covered)
        if computed != crc:
            raise CorruptBatchError(
                f"CRC mismatch: stored {crc:#010x}, computed {computed:#010x}",
                stored_crc=crc,
                computed_crc=computed,
            )

    attributes = header[5]
    count = header[12]
    codec = attributes & ATTR_COMPRESSION
    source = None
    if codec == 0:
        records = decode_records(data, HEADER_SIZE, count)
    else:
        if count < 0:
            raise LogFormatError(f"negative records count {count}")
        payload = data[HEADER_SIZE:]
        raw = decompress(codec, payload, max_decompressed)
        records = decode_records(raw, 0, count)
        source = (codec, raw, payload)

    if attributes & ATTR_CONTROL:
        for record in records:
            parse_control_key(record.key)

    # The header's fields are RecordBatch's first twelve, in order; the count is len(records).
    return RecordBatch(*header[:12], records, source), pos + size
