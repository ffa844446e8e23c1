"""Writing plain batches fast: uncompressed, CreateTime, every timestamp delta 0, offset deltas
0..n-1, no headers, no producer.

A metadata log is millions of such small batches; building each through Record and RecordBatch
objects would be most of a writer's time. ``encode_plain_batch`` gives the same bytes as
``RecordBatch.create(records, ...).encode()`` for them (the tests hold it to that).
"""

from __future__ import annotations

from ..wire import write_varint
from .header import ATTR_CONTROL, MIN_BATCH_LENGTH, NO_PRODUCER_EPOCH, NO_PRODUCER_ID, NO_SEQUENCE
from .header import pack_header, seal

_SMALL_VARINTS = [write_varint(i) for i in range(1 << 13)]
_NULL = b"\x01"  # zigzag(-1): a null key
_NO_ATTRIBUTES_NO_DELTA = b"\x00\x00"  # record attributes 0, timestamp delta 0
_NO_HEADERS = b"\x00"


def _varint(n: int) -> bytes:
    return _SMALL_VARINTS[n] if n < 8192 else write_varint(n)


def plain_records(values: list[bytes], keys: list[bytes] | None = None) -> bytes:
    """The records section holding ``values`` (null keys unless ``keys`` are given)."""
    parts: list[bytes] = []
    append = parts.append
    varint = _varint
    for index, value in enumerate(values):
        key = _NULL if keys is None else varint(len(keys[index])) + keys[index]
        body = (
            _NO_ATTRIBUTES_NO_DELTA + varint(index) + key + varint(len(value)) + value + _NO_HEADERS
        )
        append(varint(len(body)))
        append(body)
    return b"".join(parts)


def frame_plain_records(
    records: bytes, count: int, base_offset: int, timestamp: int, epoch: int, control: bool = False
) -> bytes:
    """The batch around a records section of ``count`` plain records."""
    header = pack_header(base_offset, MIN_BATCH_LENGTH + len(records), epoch,
                         ATTR_CONTROL if control else 0, count - 1, timestamp, timestamp,
                         NO_PRODUCER_ID, NO_PRODUCER_EPOCH, NO_SEQUENCE, count)  # fmt: skip
    return seal(header, records)


def encode_plain_batch(
    values: list[bytes],
    base_offset: int,
    timestamp: int,
    epoch: int,
    keys: list[bytes] | None = None,
) -> bytes:
    """A batch holding ``values`` (and ``keys``, which make it a control batch)."""
    return frame_plain_records(plain_records(values, keys), len(values), base_offset, timestamp,
                               epoch, control=keys is not None)  # fmt: skip
