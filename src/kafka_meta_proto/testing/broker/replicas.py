"""The partitions a broker holds, kept in step with the metadata image, and in-process
replication.

Each partition whose replicas name this broker gets a directory ``<topic>-<partition>`` under the
broker's data directory; a topic gone from the image has its directories deleted (Kafka renames
them ``-delete`` first and deletes them later; the effect for clients is the same).

Replication is in process: instead of followers fetching, the leader copies each batch it appends
to the logs of its in-sync followers that are running (``peers``) before it answers, acks=all or
not. A follower that was stopped is caught up the next time its leader appends: it is truncated
to where its log agrees with the leader's (the leader's end offset for the follower's latest
epoch, as a Kafka follower learns it from OffsetForLeaderEpoch), then given the batches it lacks.
A follower whose whole log lies below the leader's log start offset is emptied and starts
there. The batch just appended is copied from the leader's pieces in memory (no read back).
The high watermark of every copy is then the leader's log end offset. A broker that becomes
leader starts its new leader epoch at its log end offset at once, as Kafka's does.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

from ...kraft.image import TOPIC_RESOURCE, MetadataImage, PartitionRegistration, Topic
from .partition import Partition

Key = tuple[str, int]  # (topic name, partition index)
# node id -> that broker's replicas, if it is running
PeerReplicas = Callable[[int], "Replicas | None"]


class Replicas:
    """The partition replicas of broker ``node_id`` under ``data_dir``."""

    def __init__(self, node_id: int, data_dir: Path):
        self.node_id = node_id
        self.data_dir = Path(data_dir)
        self.partitions: dict[Key, Partition] = {}
        self.topic_ids: dict[str, str] = {}

    def get(self, topic: str, index: int) -> Partition | None:
        return self.partitions.get((topic, index))

    def sync(self, image: MetadataImage) -> None:
        """Open the replicas the image gives this broker, drop those of deleted topics."""
        wanted: dict[Key, Topic] = {}
        for topic in image.topics.values():
            for index, registration in topic.partitions.items():
                if self.node_id in registration.replicas:
                    wanted[(topic.name, index)] = topic
        for key in list(self.partitions):
            topic_now = wanted.get(key)
            if topic_now is None or str(topic_now.id) != self.partitions[key].topic_id:
                self._drop(key)
        for key, topic in wanted.items():
            if key not in self.partitions:
                directory = self.data_dir / f"{key[0]}-{key[1]}"
                config = image.configs.get((TOPIC_RESOURCE, key[0]), {})
                self.partitions[key] = Partition(key[0], key[1], str(topic.id), directory, config)
            registration = topic.partitions[key[1]]
            if registration.leader == self.node_id:
                self.partitions[key].become_leader(registration.leader_epoch)

    def _drop(self, key: Key) -> None:
        partition = self.partitions.pop(key)
        partition.close()
        shutil.rmtree(partition.directory, ignore_errors=True)

    def close(self) -> None:
        for partition in self.partitions.values():
            partition.close()
        self.partitions.clear()


def replicate(leader: Partition, registration: PartitionRegistration, peers: PeerReplicas) -> None:
    """Bring the running in-sync followers' copies up to the leader's log, then set every
    copy's high watermark to the leader's log end offset."""
    end = leader.log_end_offset
    for node in registration.isr:
        if node == registration.leader:
            continue
        replicas = peers(node)
        follower = replicas.get(leader.topic, leader.index) if replicas is not None else None
        if follower is None:
            continue
        catch_up(follower, leader)
        follower.high_watermark = end
        follower.log_start_offset = max(follower.log_start_offset, leader.log_start_offset)
    leader.high_watermark = end
    leader.forget_last_append()


def catch_up(follower: Partition, leader: Partition) -> None:
    """Truncate ``follower`` where it diverges from ``leader`` and copy what it lacks."""
    if follower.files.batches and follower.log_end_offset < leader.log_start_offset:
        follower.truncate_to(follower.files.batches[0].base_offset)  # all of it is gone there
    agreed = follower.log_end_offset
    if follower.latest_epoch >= 0:
        _, end = leader.end_offset_for_epoch(follower.latest_epoch)
        # An epoch the leader does not know: Kafka's follower falls back to its high watermark.
        agreed = min(agreed, end if end >= 0 else follower.high_watermark)
    if agreed < follower.log_end_offset:
        follower.truncate_to(agreed)
    start = max(follower.log_end_offset, leader.log_start_offset)
    if not follower.files.batches and start > follower.log_end_offset:
        follower.files.start_at(start)
    for index in range(leader.files.find(start), len(leader.files.batches)):
        if leader.files.batches[index].base_offset >= follower.log_end_offset:
            follower.append_replica(*leader.batch_pieces(index))
