"""The controller's image as snapshot records: what a KRaft snapshot holds for the state this
controller writes (features, the controller and brokers registered, topics with their configs
and partitions, other configs, the producer-id block), in the order Kafka's image writer puts
them: features first, then the cluster, topics, configs and producer ids. A diskless controller's
batch-coordinator mappings (type 29 of the design's registry) follow each topic's configs."""

from __future__ import annotations

from collections.abc import Iterator

from ... import kraft
from ...diskless_messages.topic_partition_to_batch_coordinator_mapping import (
    TopicPartitionToBatchCoordinatorMapping,
)
from ...kraft.image import MetadataImage, PartitionRegistration
from ...kraft.rules import CONFIG_TOPIC
from ...message import Message
from ...messages.config_record import ConfigRecord
from ...messages.feature_level_record import FeatureLevelRecord
from ...messages.partition_record import PartitionRecord
from ...messages.producer_ids_record import ProducerIdsRecord
from ...messages.register_broker_record import RegisterBrokerRecord
from ...messages.register_controller_record import RegisterControllerRecord
from ...messages.topic_record import TopicRecord
from ...uuid import Uuid
from .brokers import V_REGISTER_BROKER
from .partitions import V_PARTITION


def _brokers(image: MetadataImage) -> Iterator[tuple[Message, int]]:
    for b in sorted(image.brokers.values(), key=lambda b: b.id):
        yield RegisterBrokerRecord(
            broker_id=b.id, is_migrating_zk_broker=b.is_migrating_zk_broker,
            incarnation_id=b.incarnation_id, broker_epoch=b.epoch,
            end_points=[RegisterBrokerRecord.BrokerEndpoint(name=e.name, host=e.host, port=e.port,
                        security_protocol=e.security_protocol) for e in b.listeners.values()],
            features=[RegisterBrokerRecord.BrokerFeature(name=n, min_supported_version=f.min_supported,
                      max_supported_version=f.max_supported) for n, f in b.supported_features.items()],
            rack=b.rack, fenced=b.fenced, in_controlled_shutdown=b.in_controlled_shutdown,
            log_dirs=list(b.directories),
        ), V_REGISTER_BROKER  # fmt: skip


def _controllers(image: MetadataImage) -> Iterator[tuple[Message, int]]:
    for c in sorted(image.controllers.values(), key=lambda c: c.id):
        yield RegisterControllerRecord(
            controller_id=c.id, incarnation_id=c.incarnation_id, zk_migration_ready=c.zk_migration_ready,
            end_points=[RegisterControllerRecord.ControllerEndpoint(name=e.name, host=e.host, port=e.port,
                        security_protocol=e.security_protocol) for e in c.listeners.values()],
            features=[RegisterControllerRecord.ControllerFeature(name=n, min_supported_version=f.min_supported,
                      max_supported_version=f.max_supported) for n, f in c.supported_features.items()],
        ), 0  # fmt: skip


def _partition(topic_id: Uuid, index: int, p: PartitionRegistration) -> PartitionRecord:
    return PartitionRecord(
        partition_id=index, topic_id=topic_id, replicas=list(p.replicas), isr=list(p.isr),
        removing_replicas=list(p.removing_replicas), adding_replicas=list(p.adding_replicas),
        leader=p.leader, leader_recovery_state=p.leader_recovery_state, leader_epoch=p.leader_epoch,
        partition_epoch=p.partition_epoch, directories=list(p.directories),
    )  # fmt: skip


def _configs(kind: int, name: str, values: dict[str, str]) -> Iterator[tuple[Message, int]]:
    for key, value in sorted(values.items()):
        yield ConfigRecord(resource_type=kind, resource_name=name, name=key, value=value), 0


def _coordinator_mappings(topic_id: Uuid, mapped: dict[int, int]) -> Iterator[tuple[Message, int]]:
    """A diskless topic's partitions -> batch coordinators (only a diskless controller has any)."""
    for index, coordinator in sorted(mapped.items()):
        yield TopicPartitionToBatchCoordinatorMapping(partition_index=index, topic_id=topic_id,
                                                      batch_coordinator_partition_index=coordinator), 0  # fmt: skip


def snapshot_entries(image: MetadataImage) -> Iterator[tuple[Message, int]]:
    for name, level in sorted(image.features.items(), key=lambda f: (f[0] != "metadata.version", f[0])):
        yield FeatureLevelRecord(name=name, feature_level=level), 0
    yield from _controllers(image)
    yield from _brokers(image)
    for topic in sorted(image.topics.values(), key=lambda t: t.name):
        yield TopicRecord(name=topic.name, topic_id=topic.id), 0
        for index, partition in sorted(topic.partitions.items()):
            yield _partition(topic.id, index, partition), V_PARTITION
        yield from _configs(CONFIG_TOPIC, topic.name, image.configs.get((CONFIG_TOPIC, topic.name), {}))
        yield from _coordinator_mappings(topic.id, image.diskless.get(topic.id, {}))
    for (kind, name), values in sorted(image.configs.items()):
        if kind != CONFIG_TOPIC:
            yield from _configs(kind, name, values)
    if image.producer_ids is not None:
        p = image.producer_ids
        yield ProducerIdsRecord(broker_id=p.broker_id, broker_epoch=p.broker_epoch,
                                next_producer_id=p.next_producer_id), 0  # fmt: skip


def snapshot_values(image: MetadataImage) -> Iterator[bytes]:
    """The snapshot's record values, each in its KRaft frame."""
    for message, version in snapshot_entries(image):
        yield kraft.encode_record_value(message, version)
