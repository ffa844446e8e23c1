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
from ..wire import read_uvarint

PRODUCE_KEY = 0
FIRST_PRODUCE_ENDPOINTS = 10  # NodeEndpoints, tagged, from ProduceResponse v10
FIRST_PRODUCE_TOPIC_ID = 13  # topics named by id instead of name
# A partition's fixed fields from version 10: index, error code, base offset, log append
# time, log start offset
_PARTITION_FIXED = 4 + 2 + 8 + 8 + 8


def may_name_brokers(api_key: int, api_version: int, payload: bytes) -> bool:
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


def _skip_tags(payload: bytes, pos: int) -> int:
    count, pos = read_uvarint(payload, pos)
    for _ in range(count):
        _, pos = read_uvarint(payload, pos)
        size, pos = read_uvarint(payload, pos)
        pos += size
    return pos


def _skip_compact(payload: bytes, pos: int) -> int:
    """After a compact string (nullable or not): its length is stored plus one, 0 for null."""
    size, pos = read_uvarint(payload, pos)
    return pos + max(0, size - 1)


def _produce_tagged_count(payload: bytes, api_version: int) -> int:
    """How many top-level tagged fields a ProduceResponse (v10+) payload holds: its header (the
    correlation id and the header's tagged fields), then the topics walked to their end."""
    pos = _skip_tags(payload, 4)
    topics, pos = read_uvarint(payload, pos)
    for _ in range(topics - 1):
        pos = pos + 16 if api_version >= FIRST_PRODUCE_TOPIC_ID else _skip_compact(payload, pos)
        partitions, pos = read_uvarint(payload, pos)
        for _ in range(partitions - 1):
            pos += _PARTITION_FIXED
            errors, pos = read_uvarint(payload, pos)
            for _ in range(errors - 1):
                pos = _skip_tags(payload, _skip_compact(payload, pos + 4))
            pos = _skip_tags(payload, _skip_compact(payload, pos))  # error message, tags
        pos = _skip_tags(payload, pos)
    pos += 4  # throttle time
    if pos >= len(payload):
        raise DecodeError("a Produce response that ends before its tagged fields", pos)
    count, end = read_uvarint(payload, pos)
    if count == 0 and end != len(payload):
        raise DecodeError("bytes after a Produce response's end", end)
    return count
