"""Produce (v3-13: record batches of magic 2 only, as Kafka 4 serves it).

Per partition, in Kafka's order: the topic (by name, by id from v13: UNKNOWN_TOPIC_OR_PARTITION /
UNKNOWN_TOPIC_ID), this broker its leader (NOT_LEADER_OR_FOLLOWER, with the current leader and,
from v10, its endpoint so the client need not ask Metadata), the batch (``batch_checks``), for
acks=all an ISR at least ``min.insync.replicas`` large (NOT_ENOUGH_REPLICAS), then the producer
checks (``producer_state``) and the append, copied to the followers before the answer. An
acks other than 0, 1 or -1 is INVALID_REQUIRED_ACKS for every partition.

A refused partition answers base offset -1, log start offset -1, with the error message and the
record errors from v8. acks=0 gets no answer at all, and, as Kafka's broker does, a refused
partition there closes the connection (the producer learns of the error by reconnecting).

Transactions are not served (no transaction coordinator): a transactional batch is checked and
written as an idempotent one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...error_codes import ErrorCode
from ...log.header import TimestampType
from ...message import Message
from ...messages.produce_request import ProduceRequest
from ...messages.produce_response import ProduceResponse
from ...server import CloseConnection, RequestContext
from . import versioned
from .batch_checks import BatchRefused, check_produced
from .leadership import new_leader_nodes, node_endpoints, serve
from .producer_state import ProducerStateError

if TYPE_CHECKING:
    from .broker import Broker

VERSIONS = (3, 13)
PartitionAnswer = ProduceResponse.PartitionProduceResponse
BatchError = ProduceResponse.BatchIndexAndErrorMessage


def register(broker: Broker) -> None:
    versioned.serve(broker, ProduceRequest, handle_produce, VERSIONS)


async def handle_produce(broker: Broker, request: RequestContext) -> Message | None:
    body: Any = request.body
    version = request.api_version
    topics, leaders = [], []
    for topic_data in body.topic_data:
        by_id = version >= 13
        topic = broker.topic(topic_id=topic_data.topic_id) if by_id else broker.topic(topic_data.name)
        answers = []
        for data in topic_data.partition_data:
            answer, registration = produce_partition(broker, topic, data, body.acks, version)
            if by_id and topic is None:
                answer.error_code = ErrorCode.UNKNOWN_TOPIC_ID
            if answer.error_code == ErrorCode.NOT_LEADER_OR_FOLLOWER:
                leaders.append(registration)
            answers.append(answer)
        topics.append(ProduceResponse.TopicProduceResponse(
            name=topic_data.name, topic_id=topic_data.topic_id, partition_responses=answers))  # fmt: skip
    if body.acks == 0:
        if any(a.error_code for t in topics for a in t.partition_responses):
            raise CloseConnection("a Produce with acks=0 was refused")
        return None
    endpoints = node_endpoints(broker, new_leader_nodes(leaders), ProduceResponse.NodeEndpoint)
    return ProduceResponse(responses=topics, node_endpoints=endpoints if version >= 10 else [])


def produce_partition(broker: Broker, topic: Any, data: Any, acks: int,
                      version: int) -> tuple[Any, Any]:  # fmt: skip
    """The answer for one partition, and its registration (for a leader to point to)."""
    if acks not in (0, 1, -1):
        return _refused(data.index, ErrorCode.INVALID_REQUIRED_ACKS), None
    served = serve(broker, topic, data.index)
    if served.error:
        answer = _refused(data.index, served.error)
        if served.registration is not None and version >= 10:
            answer.current_leader = ProduceResponse.LeaderIdAndEpoch(
                leader_id=served.registration.leader, leader_epoch=served.registration.leader_epoch)  # fmt: skip
        return answer, served.registration
    assert served.partition is not None and served.registration is not None
    config = broker.topic_config(topic.name)
    try:
        batch = check_produced(data.records, version, int(config.get("max.message.bytes", "1048588")))
        if acks == -1 and len(served.registration.isr) < int(config.get("min.insync.replicas", "1")):
            return _refused(data.index, ErrorCode.NOT_ENOUGH_REPLICAS), None
        timestamp_type = (TimestampType.LOG_APPEND_TIME
                          if config.get("message.timestamp.type") == "LogAppendTime"
                          else TimestampType.CREATE_TIME)  # fmt: skip
        appended = served.partition.append_as_leader(
            batch, served.registration.leader_epoch, broker.now_ms(), timestamp_type)
    except BatchRefused as exc:
        errors = [BatchError(batch_index=i, batch_index_error_message=m) for i, m in exc.record_errors]
        return _refused(data.index, exc.code, exc.message, errors), None
    except ProducerStateError as exc:
        return _refused(data.index, exc.code, exc.message), None
    if not appended.duplicate:
        broker.replicate(served.partition, served.registration)
    return PartitionAnswer(index=data.index, base_offset=appended.first_offset,
                           log_append_time_ms=appended.log_append_time,
                           log_start_offset=served.partition.log_start_offset), None  # fmt: skip


def _refused(index: int, code: int, message: str | None = None,
             record_errors: list[Any] | None = None) -> Any:  # fmt: skip
    return PartitionAnswer(index=index, error_code=code, base_offset=-1, log_start_offset=-1,
                           error_message=message, record_errors=record_errors or [])  # fmt: skip
