"""FindDisklessBatchesResponse v0 written straight from the store's rows: no message object per
batch, each entry packed with precompiled structs (the generated class builds fifteen fields an
entry and encodes them one by one, which made most of a find's time).

The layout is the schema's (``schemas/diskless/FindDisklessBatchesResponse.json``), v0 being
flexible: compact arrays (length + 1 as an unsigned varint), a compact string for the object key,
and an empty tagged-field section (one zero byte) closing each entry, each topic and the body.
One entry per batch found; a partition with none gets one entry with its error and offsets, an
empty object key and -1 in the batch fields. Tests hold the bytes equal to the generated class's.
"""

from __future__ import annotations

from struct import Struct

from ..server import EncodedBody
from ..uuid import Uuid
from ..wire import BYTE, uvarint
from .reads import FoundRows

API_KEY = 97
VERSION = 0
# PartitionIndex int32, ErrorCode int16, LogStartOffset int64, HighWatermark int64
_PARTITION = Struct(">ihqq")
# after ObjectKey: ByteOffset int32, Size int64, BaseOffset int64, LastOffset int64,
# BatchMaxTimestamp int64, MessageTimestampType int8, ProducerId int64, ProducerEpoch int16,
# BaseSequence int32, LastSequence int32, then the entry's empty tagged fields (a zero pad byte)
_BATCH = Struct(">iqqqqbqhiix")
_NO_BATCH = uvarint(1) + _BATCH.pack(*[-1] * 10)  # an empty key, -1 in every batch field
_NO_TAGS = BYTE[0]

# a topic id and its partitions' (index, found rows), in request order
Topic = tuple[Uuid, list[tuple[int, FoundRows]]]


def encoded(topics: list[Topic]) -> EncodedBody:
    """The answer's body, the entries in the order given."""
    parts = [uvarint(len(topics) + 1)]
    for topic_id, partitions in topics:
        parts += (topic_id.bytes, uvarint(sum(len(found.rows) or 1 for _, found in partitions) + 1))
        for index, found in partitions:
            _add_entries(parts, index, found)
        parts.append(_NO_TAGS)
    parts.append(_NO_TAGS)
    return EncodedBody(API_KEY, VERSION, True, b"".join(parts))


def _add_entries(parts: list[bytes], index: int, found: FoundRows) -> None:
    """One partition's entries: one a row (``FOUND_WIRE_COLUMNS``), or one without a batch."""
    head = _PARTITION.pack(index, found.error, found.log_start_offset, found.high_watermark)
    if not found.rows:
        parts += (head, _NO_BATCH)
        return
    pack, add = _BATCH.pack, parts.extend
    for row in found.rows:
        key = row[0]
        # a compact string's length: one byte (BYTE, prebuilt) for keys of up to 126 bytes
        add((head, BYTE[len(key) + 1] if len(key) < 127 else uvarint(len(key) + 1), key, pack(*row[1:])))
