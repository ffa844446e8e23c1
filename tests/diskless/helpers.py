"""What the coordinator's tests share: a clock the test moves, topic ids, batches to commit."""

from __future__ import annotations

from kafka_meta_proto.diskless.types import CommitBatchRequest, TopicIdPartition
from kafka_meta_proto.uuid import Uuid

T1 = Uuid(bytes(range(1, 17)))
T2 = Uuid(bytes(range(17, 33)))


class Clock:
    """Milliseconds, moved by hand."""

    def __init__(self, now: int = 1_700_000_000_000):
        self.now = now

    def __call__(self) -> int:
        return self.now


def batch(tp: TopicIdPartition, count: int = 10, *, byte_offset: int = 0, size: int = 100,
          max_timestamp: int = 5, timestamp_type: int = 0, producer: tuple[int, int, int] | None = None,
          ) -> CommitBatchRequest:  # fmt: skip
    """A batch of ``count`` records; ``producer`` is (id, epoch, base sequence)."""
    pid, epoch, seq = producer if producer is not None else (-1, -1, -1)
    last_seq = -1 if producer is None else (seq + count - 1) % (1 << 31)
    return CommitBatchRequest(tp, byte_offset, size, 0, count - 1, max_timestamp, timestamp_type,
                              pid, epoch, seq, last_seq)  # fmt: skip
