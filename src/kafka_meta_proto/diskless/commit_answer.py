"""CommitBatchesResponse v0 written straight from the coordinator's answers: one precompiled
struct a partition entry instead of a message object each (with a hundred partitions an object,
building and encoding those objects cost as much as deciding the commit).

The layout is the schema's (``schemas/diskless/CommitBatchesResponse.json``), v0 being flexible:
compact arrays (length + 1 as an unsigned varint) and an empty tagged-field section (one zero
byte) closing each entry, each topic and the body. Tests hold the bytes equal to the generated
class's.
"""

from __future__ import annotations

from struct import Struct

from ..server import EncodedBody
from ..uuid import Uuid
from ..wire import BYTE, uvarint
from .types import CommitBatchResponse

API_KEY = 94
VERSION = 0
# PartitionIndex int32, ErrorCode int16, AssignedBaseOffset int64, LogAppendTime int64,
# LogStartOffset int64, IsDuplicate bool, then the entry's empty tagged fields (a zero pad byte)
_PARTITION = Struct(">ihqqq?x")
_NO_TAGS = BYTE[0]

# a topic id and its partitions' (index, answer), in request order
Topic = tuple[Uuid, list[tuple[int, CommitBatchResponse]]]


def encoded(topics: list[Topic]) -> EncodedBody:
    """The answer's body, the entries in the order given."""
    pack = _PARTITION.pack
    parts = [uvarint(len(topics) + 1)]
    for topic_id, partitions in topics:
        parts += (topic_id.bytes, uvarint(len(partitions) + 1))
        parts += [pack(index, *answer) for index, answer in partitions]
        parts.append(_NO_TAGS)
    parts.append(_NO_TAGS)
    return EncodedBody(API_KEY, VERSION, True, b"".join(parts))
