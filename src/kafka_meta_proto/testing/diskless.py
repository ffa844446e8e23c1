"""The fake cluster's diskless side (``FakeCluster(diskless=True, coordinators=P)``).

At the start, once the brokers are up, ``__diskless-metadata`` is created with P partitions and a
``diskless.group.CoordinatorGroup`` serves the coordinator of each partition on its own port:
coordinator ``c`` appends its state changes to partition ``c`` of that topic in this cluster
(``diskless.kafka_topic``, real log segments in the brokers' directories, replicated as any
topic) and keeps its SQLite state under ``data_dir/diskless``. A coordinator stands for the broker leading its partition: it is
advertised with that broker's node id (as when it started) and its own port, since the brokers
here speak Kafka's registry, where 93 and 94 mean other things. The coordinators route by the
mapping in a running broker's metadata image, which follows the controller's log.

``assign`` sends AssignPartitionToBatchCoordinator over the wire to the controller, waits until
every running broker's image holds the mapping, then sends InitDisklessTopics to each coordinator
named (the topic is created there, or already is). A partition moved to another coordinator
takes no state with it: the design does not say how a partition's batches would move, so the new
coordinator starts the partition empty (move a partition before anything is committed to it).
``create_topic`` is what a diskless broker does for a new topic: create it with
``diskless.enable=true`` and assign its partitions round-robin (partition p to coordinator p mod P).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..client import connect
from ..diskless.group import CoordinatorGroup
from ..diskless.kafka_topic import KafkaTopic
from ..diskless_messages import REGISTRY as DISKLESS_REGISTRY
from ..diskless_messages.assign_partition_to_batch_coordinator_request import (
    AssignPartitionToBatchCoordinatorRequest,
    AssignTopicPartitionToBatchCoordinator,
    AssignTopicToBatchCoordinator,
)
from ..diskless_messages.init_diskless_topics_request import InitDisklessTopic, InitDisklessTopicsRequest
from ..error_codes import ErrorCode
from ..kraft.image import MetadataImage
from ..kraft.rules import DISKLESS_CONFIG, DISKLESS_TOPIC
from ..message import Message
from ..uuid import Uuid

if TYPE_CHECKING:
    from .cluster import FakeCluster


class DisklessError(Exception):
    """A diskless request the cluster's helpers made was refused (the error names the code)."""


class DisklessSide:
    """The coordinators of a diskless fake cluster and the helpers above (see the module)."""

    def __init__(self, coordinators: int):
        if coordinators < 1:
            raise ValueError("a diskless cluster needs at least one batch coordinator")
        self.partitions = coordinators
        self.group: CoordinatorGroup | None = None

    async def start(self, cluster: FakeCluster) -> None:
        await cluster.create_topic(DISKLESS_TOPIC, partitions=self.partitions)

        def node_id(c: int) -> int:
            topic = cluster.image.topic(DISKLESS_TOPIC)
            leader = topic.partitions[c].leader if topic is not None and c in topic.partitions else -1
            return leader

        bootstrap = [broker.address for broker in cluster.brokers.values() if broker.running]
        self.group = CoordinatorGroup(cluster.data_dir / "diskless", self.partitions,
                                      lambda: _broker_image(cluster).diskless, host=cluster.host,
                                      node_ids=node_id, topics=lambda c: KafkaTopic(bootstrap, c))  # fmt: skip
        await self.group.start()

    async def stop(self) -> None:
        if self.group is not None:
            await self.group.stop()
            self.group = None

    async def assign(self, cluster: FakeCluster, topic: str, mapping: dict[int, int]) -> None:
        """Map the topic's partitions to coordinators (partition -> coordinator) through the
        controller; once every running broker's image holds the mapping, tell each coordinator
        named of the topic (InitDisklessTopics with its partition count)."""
        found = cluster.image.topic(topic)
        if found is None:
            raise DisklessError(f"no topic {topic}")
        request = AssignPartitionToBatchCoordinatorRequest(topics=[AssignTopicToBatchCoordinator(
            topic_id=found.id, partitions=[AssignTopicPartitionToBatchCoordinator(
                partition_index=p, batch_coordinator_partition_index=c) for p, c in sorted(mapping.items())])])  # fmt: skip
        controller = cluster.controller
        assert controller is not None and self.group is not None  # a started cluster
        answer = await _send(controller.address, request)
        _raise_errors([p.error_code for t in answer.responses for p in t.partitions], f"mapping {topic}")
        await cluster.wait_until(lambda image: all(
            image.diskless.get(found.id, {}).get(p) == c for p, c in mapping.items()))  # fmt: skip
        init = InitDisklessTopicsRequest(topics=[InitDisklessTopic(topic_id=found.id,
                                                                   num_partitions=len(found.partitions))])  # fmt: skip
        for c in sorted(set(mapping.values())):
            answer = await _send(self.group.addresses[c], init)
            _raise_errors([r.error_code for r in answer.responses], f"creating {topic} at coordinator {c}")

    async def create_topic(self, cluster: FakeCluster, name: str, partitions: int,
                           replication_factor: int) -> Uuid:  # fmt: skip
        """A diskless topic, mapped round-robin and known to its coordinators; its id."""
        await cluster.create_topic(name, partitions, replication_factor, configs={DISKLESS_CONFIG: "true"})
        await self.assign(cluster, name, {p: p % self.partitions for p in range(partitions)})
        topic = cluster.image.topic(name)
        assert topic is not None  # just created
        return topic.id


def _broker_image(cluster: FakeCluster) -> MetadataImage:
    """What a broker knows: the image of the first running broker, else the controller's."""
    for node, broker in sorted(cluster.brokers.items()):
        if broker.running:
            return broker.image
    return cluster.image


async def _send(address: tuple[str, int], request: Message) -> Any:
    async with await connect(*address, client_id="fake-cluster", registry=DISKLESS_REGISTRY) as conn:
        return await conn.send(request)


def _raise_errors(codes: list[int], what: str) -> None:
    refused = [ErrorCode.for_code(code).name for code in codes if code]
    if refused:
        raise DisklessError(f"{what}: {', '.join(refused)}")
