"""A metadata source that needs no controller: a ``kraft.MetadataImage`` built by applying
records directly, behind the surface a broker expects of ``testing.broker.lifecycle``
(``image``, ``add_listener``, ``wait_until``, ``caught_up``, ``forward``,
``allocate_producer_ids``, ``broker_epoch``).

Useful for a broker tested alone::

    metadata = StaticMetadata()
    broker = Broker(0, tmp_path, cluster_id=metadata.cluster_id, metadata=metadata)
    await broker.start()
    metadata.register_broker(0, *broker.address)
    metadata.create_topic("events", partitions=3)

Admin requests a broker forwards go to ``forwarder`` (an async callable given the request body,
returning the response); without one they are refused with ``NotImplementedError``, which the
broker answers as Kafka answers a failed handler. Producer ids come in blocks of 1000 from 0, as
Kafka's controller hands them out.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

from ...kraft.image import MetadataImage
from ...message import Message
from ...messages.config_record import ConfigRecord
from ...messages.partition_change_record import PartitionChangeRecord
from ...messages.partition_record import PartitionRecord
from ...messages.register_broker_record import RegisterBrokerRecord
from ...messages.remove_topic_record import RemoveTopicRecord
from ...messages.topic_record import TopicRecord
from ...uuid import Uuid

PRODUCER_ID_BLOCK = 1000  # Kafka's ProducerIdsBlock size
TOPIC_RESOURCE = 2  # ConfigResource.Type.TOPIC
BROKER_RESOURCE = 4

ImageListener = Callable[[MetadataImage], None]
Forwarder = Callable[[Message], Awaitable[Message]]


class StaticMetadata:
    """A metadata image changed only by the records applied to it."""

    def __init__(self, *, cluster_id: str | None = None, forwarder: Forwarder | None = None):
        self.cluster_id = cluster_id or str(Uuid.random())
        self.image = MetadataImage()
        self.broker_epoch = 1
        self.forwarder = forwarder
        self.forwarded: list[Message] = []
        self._listeners: list[ImageListener] = []
        self._next_producer_id = 0

    # --- the surface a broker uses ---------------------------------------------------------

    def add_listener(self, listener: ImageListener) -> None:
        self._listeners.append(listener)

    async def wait_until(self, predicate: Callable[[MetadataImage], bool], timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while not predicate(self.image):
            if time.monotonic() > deadline:
                raise TimeoutError("the metadata image never met the condition")
            await asyncio.sleep(0.01)

    async def caught_up(self) -> None:
        """Always: the image is the whole of it."""

    async def forward(self, request: Message) -> Message:
        self.forwarded.append(request)
        if self.forwarder is None:
            raise NotImplementedError(f"no controller here to forward {request.NAME} to")
        return await self.forwarder(request)

    async def allocate_producer_ids(self) -> tuple[int, int]:
        first = self._next_producer_id
        self._next_producer_id += PRODUCER_ID_BLOCK
        return first, PRODUCER_ID_BLOCK

    # --- changing the image ----------------------------------------------------------------

    def apply(self, *records: Message) -> None:
        """Apply ``records`` in order, then tell every listener."""
        for record in records:
            self.image.apply(record)
        for listener in list(self._listeners):
            listener(self.image)

    def register_broker(self, node_id: int, host: str, port: int, *, rack: str | None = None,
                        listener: str = "PLAINTEXT") -> None:  # fmt: skip
        """Register ``node_id`` as an unfenced broker at ``host:port``."""
        endpoint = RegisterBrokerRecord.BrokerEndpoint(name=listener, host=host, port=port)
        self.apply(RegisterBrokerRecord(broker_id=node_id, incarnation_id=Uuid.random(),
                                        broker_epoch=self.broker_epoch, end_points=[endpoint],
                                        rack=rack, fenced=False))  # fmt: skip

    def create_topic(self, name: str, partitions: int = 1, *, replicas: list[list[int]] | None = None,
                     configs: dict[str, str] | None = None) -> Uuid:  # fmt: skip
        """Add a topic whose partition ``i`` has ``replicas[i]`` (default: every registered
        broker, leaders spread round-robin), leader the first replica, ISR all of them."""
        topic_id = Uuid.random()
        brokers = sorted(self.image.brokers) or [0]
        if replicas is None:
            replicas = [brokers[i % len(brokers):] + brokers[: i % len(brokers)]
                        for i in range(partitions)]  # fmt: skip
        records: list[Message] = [TopicRecord(name=name, topic_id=topic_id)]
        for index, nodes in enumerate(replicas):
            records.append(PartitionRecord(partition_id=index, topic_id=topic_id, replicas=nodes,
                                           isr=nodes, leader=nodes[0], leader_epoch=0,
                                           partition_epoch=0))  # fmt: skip
        for key, value in (configs or {}).items():
            records.append(ConfigRecord(resource_type=TOPIC_RESOURCE, resource_name=name,
                                        name=key, value=value))  # fmt: skip
        self.apply(*records)
        return topic_id

    def move_leader(self, name: str, partition: int, leader: int, isr: list[int] | None = None) -> None:
        """Make ``leader`` the partition's leader (a new leader epoch)."""
        topic = self.image.topic(name)
        assert topic is not None, name
        self.apply(PartitionChangeRecord(topic_id=topic.id, partition_id=partition, leader=leader,
                                         isr=isr))  # fmt: skip

    def delete_topic(self, name: str) -> None:
        topic = self.image.topic(name)
        assert topic is not None, name
        self.apply(RemoveTopicRecord(topic_id=topic.id))

    def set_config(self, resource_type: int, resource_name: str, key: str, value: str | None) -> None:
        self.apply(ConfigRecord(resource_type=resource_type, resource_name=resource_name,
                                name=key, value=value))  # fmt: skip
