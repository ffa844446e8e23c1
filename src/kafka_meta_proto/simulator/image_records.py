"""The records describing the simulated cluster's current state: registrations, partitions,
and the whole image as a snapshot holds it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from ..kraft.rules import CONFIG_BROKER, CONFIG_TOPIC
from .config import METADATA_VERSION
from .model import (
    V_PARTITION,
    V_REGISTER_BROKER,
    ConfigRecord,
    FeatureLevelRecord,
    MappingRecord,
    PartitionRecord,
    ProducerIdsRecord,
    RegisterBrokerRecord,
    RegisterControllerRecord,
    TopicRecord,
    ZkMigrationStateRecord,
)
from .model import _FEATURES, Broker, Partition, Topic

if TYPE_CHECKING:
    from ..message import Message
    from .state import Cluster


def _endpoints_broker(sim: Cluster, broker: Broker) -> list[RegisterBrokerRecord.BrokerEndpoint]:
    host = f"broker-{broker.id}.{sim.domain}"
    return [
        RegisterBrokerRecord.BrokerEndpoint(
            name="INTERNAL", host=host, port=9092, security_protocol=sim.security_protocol
        ),
        RegisterBrokerRecord.BrokerEndpoint(
            name="REPLICATION", host=host, port=9091, security_protocol=sim.security_protocol
        ),
    ]


def register_broker_record(sim: Cluster, broker: Broker) -> RegisterBrokerRecord:
    assert broker.incarnation is not None  # set when it registers
    return RegisterBrokerRecord(
        broker_id=broker.id,
        is_migrating_zk_broker=False,
        incarnation_id=broker.incarnation,
        broker_epoch=broker.epoch,
        end_points=_endpoints_broker(sim, broker),
        features=[
            RegisterBrokerRecord.BrokerFeature(
                name=n, min_supported_version=lo, max_supported_version=hi
            )
            for n, lo, hi in _FEATURES
        ],
        rack=broker.rack,
        fenced=broker.fenced,
        in_controlled_shutdown=broker.in_controlled_shutdown,
        log_dirs=list(broker.log_dirs),
    )


def register_controller_record(sim: Cluster, controller: int) -> RegisterControllerRecord:
    return RegisterControllerRecord(
        controller_id=controller,
        incarnation_id=sim.controller_incarnations[controller],
        zk_migration_ready=False,
        end_points=[RegisterControllerRecord.ControllerEndpoint(
            name="CONTROLLER", host=f"controller-{controller - 3000}.{sim.domain}", port=9093,
            security_protocol=sim.security_protocol)],
        features=[RegisterControllerRecord.ControllerFeature(name=n, min_supported_version=lo, max_supported_version=hi) for n, lo, hi in _FEATURES],
    )  # fmt: skip


def partition_record(sim: Cluster, topic: Topic, index: int, p: Partition) -> PartitionRecord:
    return PartitionRecord(
        partition_id=index,
        topic_id=topic.id,
        replicas=list(p.replicas),
        isr=list(p.isr),
        removing_replicas=[],
        adding_replicas=[],
        leader=p.leader,
        leader_epoch=p.leader_epoch,
        partition_epoch=p.partition_epoch,
        directories=list(p.directories),
    )


def image_records(sim: Cluster) -> Iterator[tuple[Message, int]]:
    """The records of the current image, in the order Kafka's MetadataImage.write uses."""
    yield FeatureLevelRecord(name="metadata.version", feature_level=METADATA_VERSION), 0
    yield ZkMigrationStateRecord(zk_migration_state=0), 0
    for broker in sim.brokers.values():
        if broker.incarnation is not None:
            yield register_broker_record(sim, broker), V_REGISTER_BROKER
    for controller in sim.controllers:
        if controller in sim.controller_registered:
            yield register_controller_record(sim, controller), 0
    for topic in sim.topics.values():
        yield TopicRecord(name=topic.name, topic_id=topic.id), 0
        for index, p in enumerate(topic.partitions):
            yield partition_record(sim, topic, index, p), V_PARTITION
        if topic.coordinators is not None:
            for index, coordinator in enumerate(topic.coordinators):
                yield MappingRecord(
                    partition_index=index,
                    topic_id=topic.id,
                    batch_coordinator_partition_index=coordinator,
                ), 0
    for broker_id, configs in sim.broker_configs.items():
        for key, value in configs.items():
            yield ConfigRecord(
                resource_type=CONFIG_BROKER, resource_name=broker_id, name=key, value=value
            ), 0
    for topic in sim.topics.values():
        for key, value in topic.configs.items():
            yield ConfigRecord(
                resource_type=CONFIG_TOPIC, resource_name=topic.name, name=key, value=value
            ), 0
    if sim.next_producer_id > 0:
        yield ProducerIdsRecord(
            broker_id=-1, broker_epoch=-1, next_producer_id=sim.next_producer_id
        ), 0
