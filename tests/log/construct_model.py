"""The record batch v2 framing described declaratively with ``construct``, for tests only.

An independent reference for the hand-written reader in ``kafka_meta_proto.log.batch``: it shares
no code with it (not even the CRC, computed here by a plain table-driven loop) so the two can be
compared field by field on real files.
"""

from __future__ import annotations

import gzip

from construct import (
    Array,
    Bit,
    BitsInteger,
    BitStruct,
    Bytes,
    Check,
    Const,
    Flag,
    GreedyBytes,
    GreedyRange,
    If,
    Int8sb,
    Int16sb,
    Int32sb,
    Int32ub,
    Int64sb,
    Padding,
    Peek,
    Prefixed,
    Struct,
    Switch,
    Terminated,
    ZigZag,
    this,
)


def _crc32c_table() -> list[int]:
    table = []
    for n in range(256):
        c = n
        for _ in range(8):
            c = (c >> 1) ^ 0x82F63B78 if c & 1 else c >> 1  # reflected Castagnoli polynomial
        table.append(c)
    return table


_TABLE = _crc32c_table()


def crc32c_reference(data: bytes) -> int:
    """CRC-32C, one byte at a time (slow, obviously right)."""
    crc = 0xFFFFFFFF
    for b in data:
        crc = _TABLE[(crc ^ b) & 0xFF] ^ (crc >> 8)
    return crc ^ 0xFFFFFFFF


# A length-prefixed byte string where length -1 means null.
NullableBytes = Struct(
    "length" / ZigZag,
    Check(this.length >= -1),
    "data" / If(this.length >= 0, Bytes(this.length)),
)

Header = Struct(
    "key_length" / ZigZag,
    Check(this.key_length >= 0),
    "key" / Bytes(this.key_length),
    "value" / NullableBytes,
)

# A record: a zigzag varint length, then exactly that many bytes of body.
Record = Prefixed(
    ZigZag,
    Struct(
        "attributes" / Int8sb,
        "timestamp_delta" / ZigZag,
        "offset_delta" / ZigZag,
        "key" / NullableBytes,
        "value" / NullableBytes,
        "header_count" / ZigZag,
        Check(this.header_count >= 0),
        "headers" / Array(this.header_count, Header),
        Terminated,
    ),
)

ControlRecordKey = Struct("version" / Int16sb, "type" / Int16sb)

Attributes = BitStruct(
    Padding(9),
    "delete_horizon" / Flag,
    "control" / Flag,
    "transactional" / Flag,
    "timestamp_type" / Bit,
    "compression" / BitsInteger(3),
)

RecordBatch = Struct(
    "base_offset" / Int64sb,
    # batchLength counts the bytes after itself: parse exactly that many.
    "batch"
    / Prefixed(
        Int32sb,
        Struct(
            "partition_leader_epoch" / Int32sb,
            "magic" / Const(2, Int8sb),
            "crc" / Int32ub,
            "crc_data" / Peek(GreedyBytes),
            Check(lambda ctx: crc32c_reference(ctx.crc_data) == ctx.crc),
            "attributes" / Attributes,
            "last_offset_delta" / Int32sb,
            "base_timestamp" / Int64sb,
            "max_timestamp" / Int64sb,
            "producer_id" / Int64sb,
            "producer_epoch" / Int16sb,
            "base_sequence" / Int32sb,
            "records_count" / Int32sb,
            "records"
            / Switch(
                this.attributes.compression,
                {0: Array(this.records_count, Record)},
                default=GreedyBytes,  # compressed: left to the codec (see parse_records)
            ),
            Terminated,
        ),
    ),
)

# A segment or snapshot file: batches back to back.
LogFile = GreedyRange(RecordBatch)


def parse_records(parsed_batch, decompress) -> list:
    """The records of a parsed batch, decompressing with ``decompress(codec, payload)``."""
    batch = parsed_batch.batch
    codec = batch.attributes.compression
    if codec == 0:
        return list(batch.records)
    if codec == 1:
        raw = gzip.decompress(batch.records)  # stdlib gzip: independent of the library's codec
    else:
        raw = decompress(codec, batch.records)
    return list(
        Struct("records" / Array(batch.records_count, Record), Terminated).parse(raw).records
    )
