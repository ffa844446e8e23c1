"""What a coordinator needs of its partition of ``__diskless-metadata``, wherever it lives: a
local log under the data directory (``topic_log.LocalTopic``) or a topic of a Kafka cluster
reached through the package's client (``kafka_topic.KafkaTopic``).

A position (``store.LogPosition``) is where the coordinator's state stands in the log: the next
offset to apply (and, for a local log, where its batch starts). The state commits its position
with each change, so the topic can answer from there.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Protocol

from ..message import Message
from .store import LogPosition

Applied = tuple[list[Message], LogPosition]  # one batch's records, and the position after it


class TopicAppender(Protocol):
    """Writes state changes, one batch each; a batch counts only once ``sync`` returned."""

    def append_unsynced(self, records: list[Message], timestamp: int) -> LogPosition:
        """Write ``records`` as one batch (durable only after ``sync``); the position after it."""
        ...

    def sync(self) -> None:
        """Make what was appended durable, or raise OSError (then nothing is known of it)."""
        ...

    def close(self) -> None: ...


class MetadataTopic(Protocol):
    """One partition of ``__diskless-metadata``: read from a position, append at its end."""

    def create(self) -> None:
        """Make the partition if it is missing (the writing coordinator does, at start)."""
        ...

    def holds(self, position: LogPosition) -> bool:
        """Whether the log reaches ``position`` (a state claiming more is rebuilt from nothing)."""
        ...

    def records_after(self, position: LogPosition) -> Iterator[Applied]:
        """Each complete batch after ``position``, up to the log's end as it is now, as its
        decoded records with the position after it (a batch to skip comes with no records)."""
        ...

    def appender(self, end: LogPosition) -> TopicAppender:
        """The appender that writes after ``end``, where the complete batches end."""
        ...

    def close(self) -> None: ...
