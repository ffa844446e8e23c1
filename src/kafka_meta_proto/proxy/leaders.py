"""Whether a response can name brokers, read from its bytes without decoding it.

The proxy with no log and no hooks decodes a response only to rewrite the broker addresses in
it. Most responses of the APIs listed in ``endpoints.ENDPOINT_FIELDS`` name none: a Produce
response carries ``NodeEndpoints`` only as a tagged field (version 10 and up), sent when a
partition's leader moved. Walking a Produce response's fixed layout to its top-level tagged
section costs a few integer reads per partition; decoding it builds every object. So a
Produce response is decoded only when that section holds something, and passes on byte for
byte otherwise.
"""

from __future__ import annotations

from ..errors import DecodeError
from .frames import PRODUCE_KEY, Buffer, read_varint, skip_tagged_fields

FIRST_PRODUCE_ENDPOINTS = 10  # NodeEndpoints, tagged, from ProduceResponse v10
FIRST_PRODUCE_TOPIC_ID = 13  # topics named by id instead of name
# A partition's fixed fields from version 10: index, error code, base offset, log append
# time, log start offset
_PARTITION_FIXED = 4 + 2 + 8 + 8 + 8


def may_name_brokers(api_key: int, api_version: int, payload: Buffer) -> bool:
    """False only when the bytes show that the response names no broker (a Produce response
    without top-level tagged fields, or one older than v10); True whenever in doubt."""
    if api_key != PRODUCE_KEY:
        return True
    if api_version < FIRST_PRODUCE_ENDPOINTS:
        return False
    try:
        return _produce_tagged_count(payload, api_version) != 0
    except (DecodeError, IndexError):
        return True  # bytes that do not walk: let the decoder judge them


def _skip_tags(payload: Buffer, pos: int) -> int:
    """After a tagged-field section: one byte of 0 when empty, as it most often is."""
    return pos + 1 if payload[pos] == 0 else skip_tagged_fields(payload, pos)


def _skip_compact(payload: Buffer, pos: int) -> int:
    """After a compact string (nullable or not): its length is stored plus one, 0 for null."""
    size, pos = read_varint(payload, pos)
    return pos + max(0, size - 1)


def _produce_tagged_count(payload: Buffer, api_version: int) -> int:
    """How many top-level tagged fields a ProduceResponse (v10+) payload holds: its header (the
    correlation id and the header's tagged fields), then the topics walked to their end."""
    pos = _skip_tags(payload, 4)
    topics, pos = read_varint(payload, pos)
    by_id = api_version >= FIRST_PRODUCE_TOPIC_ID
    for _ in range(topics - 1):
        pos = pos + 16 if by_id else _skip_compact(payload, pos)
        partitions, pos = read_varint(payload, pos)
        for _ in range(partitions - 1):
            pos += _PARTITION_FIXED
            # Most often no record errors (an empty array: 1), no error message (null: 0) and
            # no tagged fields (0): three bytes, checked at once.
            if payload[pos] == 1 and payload[pos + 1] == 0 and payload[pos + 2] == 0:
                pos += 3
            else:
                pos = _skip_partition_rest(payload, pos)
        pos = _skip_tags(payload, pos)
    pos += 4  # throttle time
    if pos >= len(payload):
        raise DecodeError("a Produce response that ends before its tagged fields", pos)
    count, end = read_varint(payload, pos)
    if count == 0 and end != len(payload):
        raise DecodeError("bytes after a Produce response's end", end)
    return count


def _skip_partition_rest(payload: Buffer, pos: int) -> int:
    """After a partition's record errors, error message and tagged fields."""
    errors, pos = read_varint(payload, pos)
    for _ in range(errors - 1):  # each: batch index, error message, tagged fields
        pos = _skip_tags(payload, _skip_compact(payload, pos + 4))
    return _skip_tags(payload, _skip_compact(payload, pos))
