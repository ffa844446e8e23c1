"""The controller's ``__cluster_metadata`` log: batches appended to real segments, kept in memory
for the brokers that fetch them, and the files Kafka keeps beside them.

One controller is the whole quorum, so a batch is committed as soon as it is written: the high
watermark is the log end offset. The directory is laid out as a Kafka controller's::

    <data dir>/meta.properties                      node.id, directory.id, version 1, cluster.id
    <data dir>/__cluster_metadata-0/
        00000000000000000000.log ...                segments (``log.segment_writer``)
        <end offset>-<epoch>.checkpoint             snapshots (``log.snapshot_writer``)
        leader-epoch-checkpoint, partition.metadata, quorum-state

The log opens as a new leader's does: a LeaderChange control batch in epoch 1, the quorum's
first (and only) election.
"""

from __future__ import annotations

import asyncio
import bisect
import json
import time
from collections.abc import Iterable
from pathlib import Path

from ... import kraft
from ...log.control import LEADER_CHANGE, control_key
from ...log.names import METADATA_LOG_DIR, snapshot_name
from ...log.plain_batch import encode_plain_batch
from ...log.segment_writer import SegmentWriter, write_leader_epoch_checkpoint
from ...log.snapshot_writer import write_snapshot
from ...message import Message
from ...messages.leader_change_message import LeaderChangeMessage
from ...messages.snapshot_footer_record import SnapshotFooterRecord
from ...messages.snapshot_header_record import SnapshotHeaderRecord
from ...uuid import Uuid

LEADER_EPOCH = 1  # the first election of a one-voter quorum
SEGMENT_BYTES = 1 << 30  # Kafka's metadata.log.segment.bytes default
SEGMENT_MS = 7 * 24 * 3600 * 1000  # and metadata.log.segment.ms
# (message, version) pairs: what a controller action appends, as one batch.
Entries = list[tuple[Message, int]]


def now_ms() -> int:
    return int(time.time() * 1000)


class MetadataLog:
    """Appends batches of metadata records; hands them out by offset; wakes long-polling readers."""

    def __init__(self, data_dir: Path, *, cluster_id: str, node_id: int):
        self.data_dir = Path(data_dir)
        self.directory = self.data_dir / METADATA_LOG_DIR
        self.directory.mkdir(parents=True, exist_ok=True)
        self.node_id = node_id
        self.epoch = LEADER_EPOCH
        self._writer = SegmentWriter(self.directory, SEGMENT_BYTES, SEGMENT_MS)
        self._bases: list[int] = []  # base offset of each batch, for bisecting
        self._batches: list[bytes] = []
        self._last_timestamp = 0
        self._grew = asyncio.Event()
        self.bytes_since_snapshot = 0
        self._write_side_files(cluster_id)
        voter = [LeaderChangeMessage.Voter(voter_id=node_id)]
        change = LeaderChangeMessage(version=0, leader_id=node_id, voters=voter, granting_voters=voter)
        self._append([change.encode(0)], [control_key(LEADER_CHANGE)])

    @property
    def end_offset(self) -> int:
        """The offset the next record gets; also the high watermark (every batch is committed)."""
        return self._writer.next_offset

    def append(self, entries: Entries) -> int:
        """Append the records as one batch; returns the offset of its first record."""
        values = [kraft.encode_record_value(message, version) for message, version in entries]
        base = self._append(values, None)
        self.bytes_since_snapshot += len(self._batches[-1])
        return base

    def _append(self, values: list[bytes], keys: list[bytes] | None) -> int:
        base = self._writer.next_offset
        # Kafka's batches carry non-decreasing timestamps; a clock stepping back does not move them.
        self._last_timestamp = max(self._last_timestamp, now_ms())
        data = encode_plain_batch(values, base, self._last_timestamp, self.epoch, keys)
        self._writer.append(data, len(values), self.epoch, self._last_timestamp)
        self._writer.flush()  # readers of the segment (dump-log, the tests) see every batch
        self._bases.append(base)
        self._batches.append(data)
        self._grew.set()
        self._grew = asyncio.Event()
        return base

    def read(self, offset: int, max_bytes: int) -> bytes:
        """The batches from the one holding ``offset`` on, whole, at most ``max_bytes`` of them
        (but always the first, as Kafka hands out at least one batch)."""
        index = max(bisect.bisect_right(self._bases, offset) - 1, 0)
        taken: list[bytes] = []
        size = 0
        for data in self._batches[index:]:
            if taken and size + len(data) > max_bytes:
                break
            taken.append(data)
            size += len(data)
        return b"".join(taken)

    async def wait_beyond(self, offset: int, timeout: float) -> None:
        """Return once the log holds ``offset``, or after ``timeout`` seconds."""
        if offset < self.end_offset or timeout <= 0:
            return
        try:
            await asyncio.wait_for(self._grew.wait(), timeout)
        except asyncio.TimeoutError:
            pass

    def wake(self) -> None:
        """Answer every long-polling reader now (the controller is closing)."""
        self._grew.set()

    def write_snapshot(self, values: Iterable[bytes], last_offset: int) -> Path:
        """A snapshot of the state up to ``last_offset``, named as Kafka names it: its end offset
        (``last_offset + 1``) and the epoch of the last record it covers."""
        path = self.directory / snapshot_name(last_offset + 1, self.epoch)
        header = SnapshotHeaderRecord(version=0, last_contained_log_timestamp=self._last_timestamp)
        footer = SnapshotFooterRecord(version=0)
        partial = path.with_suffix(".checkpoint.part")
        with open(partial, "wb") as out:
            write_snapshot(out, header.encode(0), values, footer.encode(0), epoch=self.epoch,
                           timestamp=now_ms())  # fmt: skip
        partial.replace(path)  # Kafka's snapshots appear whole, under their final name
        self.bytes_since_snapshot = 0
        return path

    def close(self) -> None:
        self._writer.close()
        write_leader_epoch_checkpoint(self.directory, self._writer.epochs)

    def _write_side_files(self, cluster_id: str) -> None:
        """meta.properties, quorum-state and partition.metadata, as a Kafka controller keeps them."""
        moment = time.strftime("%a %b %d %H:%M:%S UTC %Y", time.gmtime())
        (self.data_dir / "meta.properties").write_text(
            f"#\n#{moment}\nnode.id={self.node_id}\ndirectory.id={Uuid.random()}\nversion=1\n"
            f"cluster.id={cluster_id}\n"
        )
        quorum = {"leaderId": self.node_id, "leaderEpoch": self.epoch, "votedId": -1,
                  "appliedOffset": 0, "currentVoters": [{"voterId": self.node_id}],
                  "data_version": 0}  # fmt: skip
        (self.directory / "quorum-state").write_text(json.dumps(quorum, separators=(",", ":")))
        (self.directory / "partition.metadata").write_text(
            f"version: 0\ntopic_id: {Uuid.METADATA_TOPIC_ID}\n"
        )
        write_leader_epoch_checkpoint(self.directory, [(self.epoch, 0)])
