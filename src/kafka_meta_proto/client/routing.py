"""Where a request belongs, read from the request itself, and which answers mean the cluster's
picture is stale.

A target names a node by role: ``Leader`` of a partition, ``Coordinator`` of a group or
transaction, ``Controller``, a given ``Node`` or ``AnyBroker``. ``route`` picks one from the
request's api key and fields: the group APIs go to the group's coordinator, the transaction APIs
to the transaction's, the partition APIs (Produce, Fetch, ListOffsets, DeleteRecords,
OffsetForLeaderEpoch) to the leader of their partitions, everything else to any broker.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Union

from ..message import Message
from ..uuid import Uuid

GROUP, TRANSACTION, SHARE = 0, 1, 2  # FindCoordinator's key types


@dataclass(frozen=True)
class AnyBroker:
    pass


@dataclass(frozen=True)
class Node:
    node_id: int


@dataclass(frozen=True)
class Leader:
    topic: str | Uuid  # a name, or a topic id
    partition: int


@dataclass(frozen=True)
class Coordinator:
    key: str
    key_type: int = GROUP


@dataclass(frozen=True)
class Controller:
    """The node the cluster's metadata names as controller (in KRaft, a broker that forwards)."""


Target = Union[AnyBroker, Node, Leader, Coordinator, Controller]

# api key -> (topics list, topic name field, partitions list, partition field)
_PARTITION_APIS = {
    0: ("topic_data", "name", "partition_data", "index"),  # Produce
    1: ("topics", "topic", "partitions", "partition"),  # Fetch
    2: ("topics", "name", "partitions", "partition_index"),  # ListOffsets
    21: ("topics", "name", "partitions", "partition_index"),  # DeleteRecords
    23: ("topics", "topic", "partitions", "partition"),  # OffsetForLeaderEpoch
}
# InitProducerId, AddPartitionsToTxn (before v4), AddOffsetsToTxn, EndTxn
_TRANSACTION_APIS = {22, 24, 25, 26}
# OffsetCommit, OffsetFetch (one group), JoinGroup, Heartbeat, LeaveGroup, SyncGroup,
# TxnOffsetCommit, OffsetDelete, ConsumerGroupHeartbeat, ShareGroupHeartbeat
_GROUP_APIS = {8, 9, 11, 12, 13, 14, 28, 47, 68, 76}

# Errors after which the client refreshes what it knows and asks once more.
STALE_ROUTE_ERRORS = frozenset({
    3,  # UNKNOWN_TOPIC_OR_PARTITION
    5,  # LEADER_NOT_AVAILABLE
    6,  # NOT_LEADER_OR_FOLLOWER
    15,  # COORDINATOR_NOT_AVAILABLE
    16,  # NOT_COORDINATOR
    41,  # NOT_CONTROLLER
    74,  # FENCED_LEADER_EPOCH
    100,  # UNKNOWN_TOPIC_ID
})  # fmt: skip


def route(request: Message) -> Target:
    """The target a request goes to when the caller names none."""
    api_key = request.API_KEY
    transactional_id = getattr(request, "transactional_id", None)
    if api_key in _TRANSACTION_APIS and transactional_id:
        return Coordinator(transactional_id, TRANSACTION)
    group_id = getattr(request, "group_id", None) or _only_group(request)
    if api_key in _GROUP_APIS and group_id:
        return Coordinator(group_id, GROUP)
    if api_key in _PARTITION_APIS:
        partitions = set(partitions_of(request))
        if len(partitions) == 1:
            return Leader(*partitions.pop())
        if partitions:
            raise ValueError(
                f"{type(request).__name__} names {len(partitions)} partitions: their leaders may differ, so name the target (to=Leader(...))"
            )
    return AnyBroker()


def _only_group(request: Message) -> str | None:
    """The group of an OffsetFetch (version 8 on) that names exactly one."""
    groups = getattr(request, "groups", None)
    if groups and len(groups) == 1:
        group_id: str = groups[0].group_id
        return group_id
    return None


def partitions_of(request: Message) -> Iterator[tuple[str | Uuid, int]]:
    """(topic name or id, partition) for each partition a partition API's request names."""
    topics, name, partitions, index = _PARTITION_APIS[request.API_KEY or 0]
    for topic in getattr(request, topics):
        topic_id = getattr(topic, "topic_id", Uuid.ZERO_UUID)
        key: str | Uuid = getattr(topic, name) or topic_id
        for partition in getattr(topic, partitions):
            yield key, getattr(partition, index)


def error_codes(message: Any) -> Iterator[int]:
    """Every error_code in a response, at any depth."""
    for field in type(message)._FIELDS:
        value = getattr(message, field.name)
        if field.name == "error_code":
            yield value
        elif field.struct is not None:
            for item in value if isinstance(value, list) else [] if value is None else [value]:
                yield from error_codes(item)


def is_stale_route(response: Message) -> bool:
    """Whether the response says the node asked was not the right one (any more)."""
    return any(code in STALE_ROUTE_ERRORS for code in error_codes(response))
