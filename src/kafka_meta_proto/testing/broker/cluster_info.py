"""Metadata (v0-13) and DescribeCluster (v0-2): the cluster as the image shows it.

Metadata, as Kafka's KRaftMetadataCache answers it: the live (registered, unfenced) brokers with
an endpoint on this broker's listener; every topic for a null topic list (an empty list before
v1), else the ones named, by name or (v12+) by topic id. Topics are never created on demand: an
unknown name is UNKNOWN_TOPIC_OR_PARTITION, an unknown id UNKNOWN_TOPIC_ID (name null). At v10
and v11, which carry the topic id field but before Kafka serves it, a topic id or a null name
makes the whole request INVALID_REQUEST (each topic answered so, a null name as ""). A
partition whose leader is not live answers LEADER_NOT_AVAILABLE with leader -1; replicas of
brokers no longer registered are listed as offline. The controller id is a live broker picked
at random, as a KRaft broker answers (admin requests sent there are forwarded). Authorized
operations, when asked for, are all of them: no authorizer runs.

DescribeCluster: the live brokers (and from v2, when asked, the fenced ones marked so); asked
for controllers (endpoint type 2) a broker answers UNSUPPORTED_ENDPOINT_TYPE, as Kafka's does.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any

from ...error_codes import ErrorCode
from ...kraft.image import PartitionRegistration, Topic
from ...message import Message
from ...messages.describe_cluster_request import DescribeClusterRequest
from ...messages.describe_cluster_response import DescribeClusterResponse
from ...messages.metadata_request import MetadataRequest
from ...messages.metadata_response import MetadataResponse
from ...server import RequestContext
from . import versioned
from ...uuid import Uuid
from ..error_answers import error_response
from .leadership import alive_brokers, endpoint

if TYPE_CHECKING:
    from .broker import Broker

INTERNAL_TOPICS = {"__consumer_offsets", "__transaction_state", "__share_group_state"}
# AclOperation codes a request may be allowed: READ .. DESCRIBE_CONFIGS, ALTER_CONFIGS.
TOPIC_OPERATIONS = sum(1 << op for op in (3, 4, 5, 6, 7, 8, 10, 11))
CLUSTER_OPERATIONS = sum(1 << op for op in (4, 5, 7, 8, 9, 10, 11, 12, 13))
BROKERS_ENDPOINT = 1
TOPIC_IDS_FROM_FIELD = 10  # Metadata's first version with the topic id field...
TOPIC_IDS_FROM_LOOKUP = 12  # ...and the first whose topic ids Kafka looks up


def register(broker: Broker) -> None:
    versioned.serve(broker, MetadataRequest, handle_metadata)
    versioned.serve(broker, DescribeClusterRequest, handle_describe_cluster)


def live_endpoints(broker: Broker) -> list[tuple[int, str, int, str | None]]:
    found = []
    for registration in alive_brokers(broker.image):
        where = endpoint(registration, broker.listener_name)
        if where is not None:
            found.append((registration.id, where[0], where[1], registration.rack))
    return found


def controller_id(broker: Broker) -> int:
    live = live_endpoints(broker)
    return random.choice(live)[0] if live else -1


async def handle_metadata(broker: Broker, request: RequestContext) -> Message:
    body: Any = request.body
    if TOPIC_IDS_FROM_FIELD <= request.api_version < TOPIC_IDS_FROM_LOOKUP and any(
        t.name is None or t.topic_id != Uuid.ZERO_UUID for t in body.topics or ()
    ):  # Kafka refuses the whole request: INVALID_REQUEST for each topic, named "" if null
        return error_response(body, MetadataResponse, request.api_version, ErrorCode.INVALID_REQUEST)
    live = live_endpoints(broker)
    brokers = [MetadataResponse.MetadataResponseBroker(node_id=n, host=h, port=p, rack=r)
               for n, h, p, r in live]  # fmt: skip
    everything = body.topics is None or (request.api_version == 0 and not body.topics)
    if everything:
        topics = [topic_answer(broker, t, body, request.api_version)
                  for t in sorted(broker.image.topics.values(), key=lambda t: t.name)]  # fmt: skip
    else:
        topics = [named_topic(broker, wanted, body, request.api_version) for wanted in body.topics]
    return MetadataResponse(brokers=brokers, cluster_id=broker.cluster_id,
                            controller_id=controller_id(broker), topics=topics,
                            cluster_authorized_operations=(
                                CLUSTER_OPERATIONS if body.include_cluster_authorized_operations
                                else -(1 << 31)))  # fmt: skip


def named_topic(broker: Broker, wanted: Any, body: Any, version: int) -> Any:
    if wanted.name is None and wanted.topic_id != Uuid.ZERO_UUID:
        topic = broker.topic(topic_id=wanted.topic_id)
        if topic is None:
            return MetadataResponse.MetadataResponseTopic(
                error_code=ErrorCode.UNKNOWN_TOPIC_ID, name=None, topic_id=wanted.topic_id)
        return topic_answer(broker, topic, body, version)
    topic = broker.topic(wanted.name)
    if topic is None:
        return MetadataResponse.MetadataResponseTopic(
            error_code=ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, name=wanted.name,
            is_internal=wanted.name in INTERNAL_TOPICS)  # fmt: skip
    return topic_answer(broker, topic, body, version)


def topic_answer(broker: Broker, topic: Topic, body: Any, version: int) -> Any:
    partitions = [partition_answer(broker, index, registration, version)
                  for index, registration in sorted(topic.partitions.items())]  # fmt: skip
    return MetadataResponse.MetadataResponseTopic(
        name=topic.name, topic_id=topic.id, is_internal=topic.name in INTERNAL_TOPICS,
        partitions=partitions,
        topic_authorized_operations=(TOPIC_OPERATIONS if body.include_topic_authorized_operations
                                     else -(1 << 31)))  # fmt: skip


def partition_answer(broker: Broker, index: int, registration: PartitionRegistration, version: int) -> Any:
    """A partition as KRaftMetadataCache shows it: the leader if registered with this listener
    (fenced or not), the replicas not registered, fenced or without the listener offline."""
    brokers = broker.image.brokers
    leader = brokers.get(registration.leader)
    error = ErrorCode.NONE
    if leader is None:
        error = ErrorCode.LEADER_NOT_AVAILABLE
    elif endpoint(leader, broker.listener_name) is None:
        error = ErrorCode.LISTENER_NOT_FOUND if version >= 6 else ErrorCode.LEADER_NOT_AVAILABLE
    offline = [r for r in registration.replicas if r not in brokers or brokers[r].fenced
               or endpoint(brokers[r], broker.listener_name) is None]  # fmt: skip
    return MetadataResponse.MetadataResponsePartition(
        error_code=error, partition_index=index, leader_id=-1 if error else registration.leader,
        leader_epoch=registration.leader_epoch, replica_nodes=list(registration.replicas),
        isr_nodes=list(registration.isr), offline_replicas=offline)  # fmt: skip


async def handle_describe_cluster(broker: Broker, request: RequestContext) -> Message:
    body: Any = request.body
    if body.endpoint_type != BROKERS_ENDPOINT:
        return DescribeClusterResponse(error_code=ErrorCode.UNSUPPORTED_ENDPOINT_TYPE,
                                       error_message="The broker does not support "
                                       "DescribeClusterRequest with endpoint type controllers",
                                       endpoint_type=body.endpoint_type)  # fmt: skip
    entries = []
    for registration in sorted(broker.image.brokers.values(), key=lambda b: b.id):
        where = endpoint(registration, broker.listener_name)
        if where is None or (registration.fenced and not body.include_fenced_brokers):
            continue
        entries.append(DescribeClusterResponse.DescribeClusterBroker(
            broker_id=registration.id, host=where[0], port=where[1], rack=registration.rack,
            is_fenced=registration.fenced))  # fmt: skip
    operations = CLUSTER_OPERATIONS if body.include_cluster_authorized_operations else -(1 << 31)
    return DescribeClusterResponse(endpoint_type=body.endpoint_type, cluster_id=broker.cluster_id,
                                   controller_id=controller_id(broker), brokers=entries,
                                   cluster_authorized_operations=operations)  # fmt: skip
