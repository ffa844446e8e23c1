"""Record batch v2 (magic 2): the unit Kafka appends to a log segment or a snapshot file.

The header's layout is in ``header.py``, the records' in ``records.py``. When attributes bits 0-2
name a codec, the records are one compressed block holding them all.

Re-encoding: ``decode_batch(b)[0].encode() == b`` for batches in the canonical encoding Kafka
writes. Uncompressed records are always serialised afresh from the fields. Compressed ones keep the
payload they were read with, reused as long as the records still serialise to the bytes it
decompressed to: the same input compressed again need not give the same bytes (other library,
level or block size), so this is the only way an unmodified batch comes back byte for byte. Change
a record, or the codec, and the payload is compressed anew.
"""

from __future__ import annotations

import dataclasses
import struct
from collections.abc import Iterator
from dataclasses import dataclass, field

from ..errors import EncodeError
from .compression import (
    DEFAULT_MAX_DECOMPRESSED,
    CompressionType,
    compress,
    decompress,
    iter_decompress,
)
from .control import ControlRecordType, parse_control_key
from .errors import CorruptBatchError, LogFormatError, RecordLimitError, TruncatedBatchError
from .header import (
    ATTR_COMPRESSION,
    ATTR_CONTROL,
    ATTR_TIMESTAMP_TYPE,
    ATTR_TRANSACTIONAL,
    HEADER_SIZE,
    LOG_OVERHEAD,
    MAGIC,
    MAGIC_OFFSET,
    MIN_BATCH_LENGTH,
    NO_PARTITION_LEADER_EPOCH,
    NO_PRODUCER_EPOCH,
    NO_PRODUCER_ID,
    NO_SEQUENCE,
    NO_TIMESTAMP,
    BatchHeader,
    HeaderFields,
    TimestampType,
    computed_crc,
    pack_header,
    read_header,
    read_length,
    seal,
)
from .records import MIN_RECORD_SIZE, Record, encode_records, iter_records, iter_records_in_pieces
from .source import Buffer, byte_buffer

# The most records the all-records readers (decode_batch, BatchReader, SegmentReader,
# BatchView.decode / record_list) build at once. The decompression limit bounds bytes, not
# objects: 256 MiB holds ~38 million minimal (7-byte) records, ~150 bytes of Python objects each.
# A million records is ~150 MiB of objects, and far above what Kafka writes (KRaft's batches
# hold at most a few thousand records). Larger batches are read one record at a time with
# scan()'s BatchView.records(), as dump-log does.
MAX_RECORDS_PER_BATCH = 1_000_000


@dataclass(slots=True)
class RecordBatch(HeaderFields):
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

    # --- offsets, timestamps ---------------------------------------------------------------

    @property
    def records_count(self) -> int:
        return len(self.records)

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
        """A new batch with lastOffsetDelta and maxTimestamp derived from ``records``.

        Records all at offset delta 0 are numbered 0, 1, 2... as Kafka's batch builder numbers
        them (copies; the caller's records are left alone); deltas given otherwise must increase."""
        records = list(records)
        if len(records) > 1:
            if not any(r.offset_delta for r in records):
                records = [dataclasses.replace(r, offset_delta=i) for i, r in enumerate(records)]
            elif any(b.offset_delta <= a.offset_delta for a, b in zip(records, records[1:])):
                raise EncodeError("the records' offset deltas must increase: "
                                  f"{[r.offset_delta for r in records][:20]}")  # fmt: skip
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
        if self.magic != MAGIC:
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
            header = pack_header(
                self.base_offset,
                MIN_BATCH_LENGTH + len(payload),
                self.partition_leader_epoch,
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
        return seal(header, payload)


# --- reading -----------------------------------------------------------------------------


def read_frame(buf: Buffer, pos: int, available: int) -> BatchHeader:
    """The header of the batch at ``buf[pos]`` if its framing is sound: magic 2, a length of at
    least a header's, and all of it within the ``available`` bytes from ``pos``.

    Raises TruncatedBatchError when the bytes end before the batch does (or before its length
    field), LogFormatError for a bad magic or length.
    """
    if available < HEADER_SIZE:
        raise _short_frame_error(buf, pos, available)
    header = read_header(buf, pos)
    if header.magic != MAGIC:
        raise LogFormatError(f"magic {header.magic & 0xFF} is not supported (only v2 batches)")
    batch_length = header.batch_length
    if batch_length < MIN_BATCH_LENGTH:
        raise LogFormatError(f"batch length {batch_length} is below the minimum {MIN_BATCH_LENGTH}")
    if available < LOG_OVERHEAD + batch_length:
        raise TruncatedBatchError(
            f"batch length {batch_length} needs {LOG_OVERHEAD + batch_length} bytes, "
            f"only {available} left",
            bytes_left=available,
        )
    return header


def _short_frame_error(buf: Buffer, pos: int, left: int) -> LogFormatError:
    """Why fewer than HEADER_SIZE bytes cannot hold the batch at ``pos``."""
    if left < LOG_OVERHEAD:
        left = max(left, 0)
        return TruncatedBatchError(
            f"{left} bytes left, fewer than a batch's offset and length fields", bytes_left=left
        )
    batch_length = read_length(buf, pos)
    if left > MAGIC_OFFSET and buf[pos + MAGIC_OFFSET] != MAGIC:
        return LogFormatError(f"magic {buf[pos + MAGIC_OFFSET]} is not supported (only v2 batches)")
    if batch_length < MIN_BATCH_LENGTH:
        return LogFormatError(
            f"batch length {batch_length} is below the minimum {MIN_BATCH_LENGTH}"
        )
    return TruncatedBatchError(
        f"batch length {batch_length} needs {LOG_OVERHEAD + batch_length} bytes, only {left} left",
        bytes_left=left,
    )


def check_crc(header: BatchHeader, data: bytes) -> None:
    """Raise CorruptBatchError unless ``data`` (the whole batch) matches its stored CRC."""
    computed = computed_crc(data, 0, len(data))
    if computed != header.crc:
        raise CorruptBatchError(
            f"CRC mismatch: stored {header.crc:#010x}, computed {computed:#010x}",
            stored_crc=header.crc,
            computed_crc=computed,
        )


def records_section(
    header: BatchHeader, data: bytes, max_decompressed: int = DEFAULT_MAX_DECOMPRESSED
) -> tuple[bytes, int]:
    """``(bytes, start)``: where the records of the batch ``data`` are, decompressed if needed."""
    codec = header.attributes & ATTR_COMPRESSION
    if codec == CompressionType.NONE:
        return data, HEADER_SIZE
    if header.records_count < 0:
        raise LogFormatError(f"negative records count {header.records_count}")
    return decompress(codec, data[HEADER_SIZE:], max_decompressed), 0


def iter_batch_records(
    header: BatchHeader, data: bytes, max_decompressed: int = DEFAULT_MAX_DECOMPRESSED
) -> Iterator[Record]:
    """The records of the batch ``data`` one at a time; a control batch's keys are checked.

    A compressed batch is decompressed a piece at a time as its records are read: what is held
    at once is a piece (``compression.PIECE``) and the record being read, not the batch's
    records section (a CompressionError comes once the records before it are out)."""
    codec = header.attributes & ATTR_COMPRESSION
    if codec == CompressionType.NONE:
        records = iter_records(data, HEADER_SIZE, header.records_count)
    else:
        pieces = iter_decompress(codec, memoryview(data)[HEADER_SIZE:], max_decompressed)
        records = iter_records_in_pieces(pieces, header.records_count)
    if header.attributes & ATTR_CONTROL:
        return _checked_control_records(records)
    return records


def plain_records(header: BatchHeader, data: bytes) -> tuple[int, int] | None:
    """``(start, count)`` of a data batch whose records lie in ``data`` as they are (no
    compression, not a control batch) and whose count can fit there, for a reader that parses
    them in place (then ``records_from`` for any it leaves); None for any other batch, which
    ``iter_batch_records`` reads."""
    count = header.records_count
    if header.attributes & (ATTR_COMPRESSION | ATTR_CONTROL):
        return None
    if not 0 <= count <= (len(data) - HEADER_SIZE) // MIN_RECORD_SIZE:
        return None
    return HEADER_SIZE, count


def _checked_control_records(records: Iterator[Record]) -> Iterator[Record]:
    for record in records:
        parse_control_key(record.key)
        yield record


def check_record_limit(header: BatchHeader, max_records: int = MAX_RECORDS_PER_BATCH) -> None:
    """RecordLimitError if the batch says it holds more than ``max_records`` records."""
    count = header.records_count
    if count > max_records:
        raise RecordLimitError(
            f"records count {count} of the batch at base offset {header.base_offset} exceeds "
            f"the {max_records} records an all-records reader builds at once (stream them)"
        )


def read_records(
    header: BatchHeader,
    data: bytes,
    max_decompressed: int = DEFAULT_MAX_DECOMPRESSED,
    max_records: int = MAX_RECORDS_PER_BATCH,
) -> tuple[list[Record], tuple[int, bytes, bytes] | None]:
    """All records of the batch ``data``, and for a compressed one what RecordBatch keeps to
    write it back unchanged: ``(codec, records bytes, compressed payload)``. RecordLimitError,
    before anything is decompressed, for a batch counting more than ``max_records`` records."""
    check_record_limit(header, max_records)
    codec = header.attributes & ATTR_COMPRESSION
    if codec:
        section, start = records_section(header, data, max_decompressed)
    else:
        section, start = data, HEADER_SIZE
    records = list(iter_records(section, start, header.records_count))
    if header.attributes & ATTR_CONTROL:
        for record in records:
            parse_control_key(record.key)
    return records, (codec, section, data[HEADER_SIZE:]) if codec else None


def build_batch(
    header: BatchHeader,
    data: bytes,
    max_decompressed: int = DEFAULT_MAX_DECOMPRESSED,
    max_records: int = MAX_RECORDS_PER_BATCH,
) -> RecordBatch:
    """The RecordBatch of the sound batch ``data`` (LogFormatError if its records are not)."""
    records, source = read_records(header, data, max_decompressed, max_records)
    # The header's fields are RecordBatch's first twelve, in order; the count is len(records).
    return RecordBatch(*header[:12], records, source)


def decode_batch(
    buf: Buffer,
    pos: int = 0,
    *,
    verify_crc: bool = True,
    max_decompressed: int = DEFAULT_MAX_DECOMPRESSED,
    max_records: int = MAX_RECORDS_PER_BATCH,
) -> tuple[RecordBatch, int]:
    """Read the batch starting at ``buf[pos]``; return it and the position just after it.

    ``buf`` is any buffer (bytes, bytearray, memoryview, mmap). Raises TruncatedBatchError when
    ``buf`` ends before the batch does, CorruptBatchError on a CRC mismatch, RecordLimitError
    for a batch counting more than ``max_records`` records, LogFormatError for anything else
    malformed, each carrying ``position=pos``.
    """
    if pos < 0:
        raise ValueError(f"position {pos} is negative")
    buf = byte_buffer(buf)
    try:
        header = read_frame(buf, pos, len(buf) - pos)
        size = LOG_OVERHEAD + header.batch_length
        data = buf[pos : pos + size]  # one copy; keys and values slice it
        if type(data) is not bytes:
            data = bytes(data)
        if verify_crc:
            check_crc(header, data)
        return build_batch(header, data, max_decompressed, max_records), pos + size
    except LogFormatError as exc:
        if exc.position is None:
            exc.position = exc.offset = pos
        raise
