"""The controller's requests on the server framework: each handler turns a request into the
controller's action and the action's outcome (or refusal) into Kafka's response.

Fetch serves the metadata partition alone, as Kafka's KRaft leader serves its observers: the
batches from the one holding the fetch offset, the high watermark (the log end: every batch is
committed), the leader and epoch; with nothing new it waits up to MaxWaitMs; an offset past the
log end is OFFSET_OUT_OF_RANGE. As Kafka's raft client checks it, a request must name exactly one
partition, partition 0 of the metadata topic by its fixed topic id (so v13 or later), else the
whole answer is INVALID_REQUEST; a cluster id other than the controller's is
INCONSISTENT_CLUSTER_ID.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...error_codes import ErrorCode
from ...message import Message
from ...messages.alter_partition_request import AlterPartitionRequest
from ...messages.alter_partition_response import AlterPartitionResponse
from ...messages.allocate_producer_ids_request import AllocateProducerIdsRequest
from ...messages.allocate_producer_ids_response import AllocateProducerIdsResponse
from ...messages.broker_heartbeat_request import BrokerHeartbeatRequest
from ...messages.broker_heartbeat_response import BrokerHeartbeatResponse
from ...messages.broker_registration_request import BrokerRegistrationRequest
from ...messages.broker_registration_response import BrokerRegistrationResponse
from ...messages.create_partitions_request import CreatePartitionsRequest
from ...messages.create_topics_request import CreateTopicsRequest
from ...messages.delete_topics_request import DeleteTopicsRequest
from ...messages.fetch_request import FetchRequest
from ...messages.fetch_response import FetchResponse
from ...messages.incremental_alter_configs_request import IncrementalAlterConfigsRequest
from ...messages.unregister_broker_request import UnregisterBrokerRequest
from ...messages.unregister_broker_response import UnregisterBrokerResponse
from ...server import RequestContext, Server
from ...uuid import Uuid
from . import configs, coordinator_mappings, isr, producer_ids
from .brokers import ControllerError

if TYPE_CHECKING:
    from .controller import Controller

MAX_FETCH_BYTES = 8 << 20  # a partition's batches per answer when the request allows more


def install(server: Server, controller: Controller) -> None:
    """Serve the controller's APIs on ``server``."""
    _install_broker_apis(server, controller)
    _install_admin_apis(server, controller)
    if controller.diskless:
        _install_diskless_apis(server, controller)


def _install_broker_apis(server: Server, controller: Controller) -> None:
    """What brokers send: registration, heartbeats, producer ids, ISR changes, log fetches."""

    async def register(ctx: RequestContext) -> Message:
        try:
            epoch = controller.brokers.register(ctx.body)
        except ControllerError as e:
            return BrokerRegistrationResponse(error_code=int(e.error), broker_epoch=-1)
        return BrokerRegistrationResponse(broker_epoch=epoch)

    async def heartbeat(ctx: RequestContext) -> Message:
        try:
            reply = controller.brokers.heartbeat(ctx.body)
        except ControllerError as e:
            return BrokerHeartbeatResponse(error_code=int(e.error))
        return BrokerHeartbeatResponse(is_caught_up=reply.caught_up, is_fenced=reply.fenced,
                                       should_shut_down=reply.should_shut_down)  # fmt: skip

    async def allocate(ctx: RequestContext) -> Message:
        request: Any = ctx.body
        try:
            controller.brokers.check_epoch(request.broker_id, request.broker_epoch)
            first, count = producer_ids.allocate(controller.image, controller.commit, request.broker_id)
        except ControllerError as e:
            return AllocateProducerIdsResponse(error_code=int(e.error))
        return AllocateProducerIdsResponse(producer_id_start=first, producer_id_len=count)

    async def alter_partition(ctx: RequestContext) -> Message:
        request: Any = ctx.body
        try:
            controller.brokers.check_epoch(request.broker_id, request.broker_epoch)
        except ControllerError as e:
            return AlterPartitionResponse(error_code=int(e.error))
        return isr.alter_partition(controller.image, controller.commit, request, ctx.api_version)

    async def fetch(ctx: RequestContext) -> Message:
        return await fetch_metadata(controller, ctx.body)

    server.handle(BrokerRegistrationRequest, register)
    server.handle(BrokerHeartbeatRequest, heartbeat)
    server.handle(AllocateProducerIdsRequest, allocate)
    server.handle(AlterPartitionRequest, alter_partition)
    server.handle(FetchRequest, fetch)


def _install_admin_apis(server: Server, controller: Controller) -> None:
    """What brokers forward for clients, and UnregisterBroker."""

    async def unregister(ctx: RequestContext) -> Message:
        try:
            controller.brokers.unregister(getattr(ctx.body, "broker_id"))
        except ControllerError as e:
            return UnregisterBrokerResponse(error_code=int(e.error), error_message=str(e))
        return UnregisterBrokerResponse(error_message=None)

    async def create_topics(ctx: RequestContext) -> Message:
        return controller.topics.create_topics(ctx.body)

    async def delete_topics(ctx: RequestContext) -> Message:
        return controller.topics.delete_topics(ctx.body, ctx.api_version)

    async def create_partitions(ctx: RequestContext) -> Message:
        return controller.topics.create_partitions(ctx.body)

    async def alter_configs(ctx: RequestContext) -> Message:
        return configs.incremental_alter_configs(controller.image, controller.commit, ctx.body)

    server.handle(UnregisterBrokerRequest, unregister)
    server.handle(CreateTopicsRequest, create_topics)
    server.handle(DeleteTopicsRequest, delete_topics)
    server.handle(CreatePartitionsRequest, create_partitions)
    server.handle(IncrementalAlterConfigsRequest, alter_configs)


def _install_diskless_apis(server: Server, controller: Controller) -> None:
    """The design's AssignPartitionToBatchCoordinator (99), served only with its registry: on
    Kafka's, 99 is an api key no one serves and the connection closes, as Kafka's does."""

    async def assign(ctx: RequestContext) -> Message:
        return coordinator_mappings.assign(controller.image, controller.commit, ctx.body)

    server.handle(coordinator_mappings.API_KEY, assign)


def _names_the_metadata_partition(request: Any) -> bool:
    """Kafka's raft client serves a Fetch of its one partition, named by topic id, alone."""
    return (len(request.topics) == 1 and request.topics[0].topic_id == Uuid.METADATA_TOPIC_ID
            and len(request.topics[0].partitions) == 1 and request.topics[0].partitions[0].partition == 0)  # fmt: skip


def _partition_data(controller: Controller, partition: Any) -> Any:
    """The metadata partition's answer: the batches from the fetch offset on, or why not."""
    log = controller._log
    data = FetchResponse.PartitionData(partition_index=partition.partition, records=b"",
                                       high_watermark=log.end_offset, log_start_offset=0)  # fmt: skip
    data.current_leader = FetchResponse.LeaderIdAndEpoch(leader_id=controller.node_id, leader_epoch=log.epoch)
    if not 0 <= partition.fetch_offset <= log.end_offset:
        data.error_code = int(ErrorCode.OFFSET_OUT_OF_RANGE)
    elif partition.fetch_offset < log.end_offset:
        data.records = log.read(partition.fetch_offset, min(partition.partition_max_bytes, MAX_FETCH_BYTES))
    return data


async def fetch_metadata(controller: Controller, request: Any) -> FetchResponse:
    """Kafka's KRaft Fetch answer to an observer (see the module)."""
    if getattr(request, "cluster_id", None) not in (None, controller.cluster_id):
        return FetchResponse(error_code=ErrorCode.INCONSISTENT_CLUSTER_ID)
    if not _names_the_metadata_partition(request):
        return FetchResponse(error_code=ErrorCode.INVALID_REQUEST)
    log = controller._log
    (topic,) = request.topics
    (partition,) = topic.partitions
    if partition.fetch_offset == log.end_offset:  # nothing new yet: wait
        await log.wait_beyond(log.end_offset, request.max_wait_ms / 1000)
    return FetchResponse(responses=[FetchResponse.FetchableTopicResponse(
        topic_id=topic.topic_id, partitions=[_partition_data(controller, partition)])])  # fmt: skip
