"""DescribeConfigs (v1-4) for topics and brokers: the values the image's ConfigRecords set, over
Kafka 4's defaults for the usual keys.

A topic's key set in the image is DYNAMIC_TOPIC_CONFIG, any other its default (DEFAULT_CONFIG).
A broker's key set for it is DYNAMIC_BROKER_CONFIG, set for every broker (resource name "")
DYNAMIC_DEFAULT_BROKER_CONFIG, else the value the fake broker runs with: STATIC_BROKER_CONFIG
for what it sets itself (its ids, its log directory, topic auto-creation off), DEFAULT_CONFIG for
the rest. ``configuration_keys`` narrows the keys (null: all), synonyms are the one source of
the value when asked for, documentation null.

Errors as Kafka's ConfigHelper answers: an unknown topic UNKNOWN_TOPIC_OR_PARTITION, a broker id
other than this broker's (or "") INVALID_REQUEST, any other resource type INVALID_REQUEST.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ...error_codes import ErrorCode
from ...message import Message
from ...messages.describe_configs_request import DescribeConfigsRequest
from ...messages.describe_configs_response import DescribeConfigsResponse
from ...server import RequestContext
from . import versioned

if TYPE_CHECKING:
    from .broker import Broker

TOPIC, BROKER = 2, 4  # ConfigResource.Type
# ConfigSource codes
DYNAMIC_TOPIC_CONFIG, DYNAMIC_BROKER_CONFIG, DYNAMIC_DEFAULT_BROKER_CONFIG = 1, 2, 3
STATIC_BROKER_CONFIG, DEFAULT_CONFIG = 4, 5
# ConfigType codes
BOOLEAN, STRING, INT, LONG, DOUBLE, LIST = 1, 2, 3, 5, 6, 7
NEVER = str((1 << 63) - 1)

TOPIC_DEFAULTS: dict[str, tuple[str, int]] = {
    "cleanup.policy": ("delete", LIST),
    "compression.type": ("producer", STRING),
    "delete.retention.ms": ("86400000", LONG),
    "file.delete.delay.ms": ("60000", LONG),
    "flush.messages": (NEVER, LONG),
    "flush.ms": (NEVER, LONG),
    "index.interval.bytes": ("4096", INT),
    "local.retention.bytes": ("-2", LONG),
    "local.retention.ms": ("-2", LONG),
    "max.compaction.lag.ms": (NEVER, LONG),
    "max.message.bytes": ("1048588", INT),
    "message.timestamp.after.max.ms": ("3600000", LONG),
    "message.timestamp.before.max.ms": (NEVER, LONG),
    "message.timestamp.type": ("CreateTime", STRING),
    "min.cleanable.dirty.ratio": ("0.5", DOUBLE),
    "min.compaction.lag.ms": ("0", LONG),
    "min.insync.replicas": ("1", INT),
    "preallocate": ("false", BOOLEAN),
    "remote.storage.enable": ("false", BOOLEAN),
    "retention.bytes": ("-1", LONG),
    "retention.ms": ("604800000", LONG),
    "segment.bytes": ("1073741824", INT),
    "segment.index.bytes": ("10485760", INT),
    "segment.jitter.ms": ("0", LONG),
    "segment.ms": ("604800000", LONG),
    "unclean.leader.election.enable": ("false", BOOLEAN),
}

BROKER_DEFAULTS: dict[str, tuple[str, int]] = {
    "compression.type": ("producer", STRING),
    "default.replication.factor": ("1", INT),
    "log.message.timestamp.type": ("CreateTime", STRING),
    "log.retention.hours": ("168", INT),
    "log.segment.bytes": ("1073741824", INT),
    "message.max.bytes": ("1048588", INT),
    "min.insync.replicas": ("1", INT),
    "num.partitions": ("1", INT),
    "offsets.topic.num.partitions": ("50", INT),
    "unclean.leader.election.enable": ("false", BOOLEAN),
}


def register(broker: Broker) -> None:
    versioned.serve(broker, DescribeConfigsRequest, handle_describe_configs, (1, 4))


def broker_static(broker: Broker) -> dict[str, tuple[str, int]]:
    return {"auto.create.topics.enable": ("false", BOOLEAN), "broker.id": (str(broker.node_id), INT),
            "node.id": (str(broker.node_id), INT), "log.dirs": (str(broker.data_dir), STRING),
            "process.roles": ("broker", LIST)}  # fmt: skip


async def handle_describe_configs(broker: Broker, request: RequestContext) -> Message:
    body: Any = request.body
    results = [describe(broker, resource, body) for resource in body.resources]
    return DescribeConfigsResponse(results=results)


def describe(broker: Broker, resource: Any, body: Any) -> Any:
    kind, name = resource.resource_type, resource.resource_name
    result = DescribeConfigsResponse.DescribeConfigsResult(resource_type=kind, resource_name=name,
                                                           error_message=None)  # fmt: skip
    if kind == TOPIC:
        if broker.topic(name) is None:
            result.error_code = ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
            result.error_message = f"The topic '{name}' does not exist."
            return result
        values = config_values(TOPIC_DEFAULTS, {}, {}, broker.topic_config(name), DYNAMIC_TOPIC_CONFIG)
    elif kind == BROKER and name in ("", str(broker.node_id)):
        configs = broker.image.configs
        values = config_values(BROKER_DEFAULTS, broker_static(broker), configs.get((BROKER, ""), {}),
                               configs.get((BROKER, name), {}) if name else {},
                               DYNAMIC_BROKER_CONFIG)  # fmt: skip
    else:
        result.error_code = ErrorCode.INVALID_REQUEST
        result.error_message = f"Unexpected resource {kind} {name!r} for broker {broker.node_id}"
        return result
    wanted = resource.configuration_keys
    for key, (value, source, kind_of) in sorted(values.items()):
        if wanted is not None and wanted and key not in wanted:
            continue
        entry = DescribeConfigsResponse.DescribeConfigsResourceResult(
            name=key, value=value, read_only=source == STATIC_BROKER_CONFIG,
            config_source=source, config_type=kind_of,
            documentation=None)  # fmt: skip
        if body.include_synonyms:
            entry.synonyms = [DescribeConfigsResponse.DescribeConfigsSynonym(
                name=key, value=value, source=source)]  # fmt: skip
        result.configs.append(entry)
    return result


def config_values(defaults: dict[str, tuple[str, int]], static: dict[str, tuple[str, int]],
                  cluster: dict[str, str], own: dict[str, str],
                  own_source: int) -> dict[str, tuple[str, int, int]]:  # fmt: skip
    """key -> (value, source, type), the most specific source winning."""
    values = {k: (v, DEFAULT_CONFIG, t) for k, (v, t) in defaults.items()}
    values.update({k: (v, STATIC_BROKER_CONFIG, t) for k, (v, t) in static.items()})
    for settings, source in ((cluster, DYNAMIC_DEFAULT_BROKER_CONFIG), (own, own_source)):
        for key, value in settings.items():
            kind_of = values[key][2] if key in values else STRING
            values[key] = (value, source, kind_of)
    return values
