"""InitProducerId (v0-6), and the admin requests a KRaft broker forwards to the controller:
CreateTopics (v2-7), DeleteTopics (v1-6), CreatePartitions (v0-3), IncrementalAlterConfigs
(v0-1).

The forwarded requests go through ``metadata.forward``, which returns once this broker's image
holds the result, so a client that creates a topic and asks this broker for its metadata finds
it, as with Kafka.

InitProducerId for an idempotent producer (null transactional id) always hands out a new
producer id with epoch 0, as Kafka's transaction coordinator does for it (also when the request
names its current id and epoch: a bumped epoch is only for transactional producers), taking
ids from the blocks the controller allocates. A transactional id is answered NOT_COORDINATOR:
this broker runs no transaction coordinator.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...error_codes import ErrorCode
from ...message import Message
from ...messages.create_partitions_request import CreatePartitionsRequest
from ...messages.create_topics_request import CreateTopicsRequest
from ...messages.delete_topics_request import DeleteTopicsRequest
from ...messages.incremental_alter_configs_request import IncrementalAlterConfigsRequest
from ...messages.init_producer_id_request import InitProducerIdRequest
from ...messages.init_producer_id_response import InitProducerIdResponse
from ...server import RequestContext
from . import versioned

if TYPE_CHECKING:
    from .broker import Broker

# Kafka 4's lowest served versions of the forwarded requests.
FORWARDED = {
    CreateTopicsRequest: (2, 7),
    DeleteTopicsRequest: (1, 6),
    CreatePartitionsRequest: (0, 3),
    IncrementalAlterConfigsRequest: (0, 1),
}


def register(broker: Broker) -> None:
    versioned.serve(broker, InitProducerIdRequest, handle_init_producer_id)
    for request_class, versions in FORWARDED.items():
        versioned.serve(broker, request_class, handle_forwarded, versions)


async def handle_forwarded(broker: Broker, request: RequestContext) -> Message:
    answer: Message = await broker.metadata.forward(request.body)
    return answer


async def handle_init_producer_id(broker: Broker, request: RequestContext) -> Message:
    if getattr(request.body, "transactional_id") is not None:
        return InitProducerIdResponse(error_code=ErrorCode.NOT_COORDINATOR)
    return InitProducerIdResponse(producer_id=await broker.next_producer_id(), producer_epoch=0)
