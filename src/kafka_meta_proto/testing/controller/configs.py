"""IncrementalAlterConfigs for topics and brokers, as ConfigRecords.

Each resource is answered on its own, as Kafka's ConfigurationControlManager does: a topic that
does not exist is UNKNOWN_TOPIC_OR_PARTITION, a broker resource name that is neither empty (the
cluster default) nor a number is INVALID_REQUEST, another resource type is INVALID_REQUEST, an
unknown operation INVALID_REQUEST. SET writes the value, DELETE a null value, APPEND and SUBTRACT
edit the comma-separated list the config holds. Only changes are written (setting a config to
the value it has is no record). ``validate_only`` writes nothing.

Where this differs from Kafka's controller: names and values are not checked against Kafka's
config definitions (Kafka answers INVALID_CONFIG for an unknown name or a bad value), and APPEND
and SUBTRACT are accepted for any config (Kafka only for list-typed ones).
"""

from __future__ import annotations

from typing import Any, Callable

from ...error_codes import ErrorCode
from ...kraft.image import MetadataImage
from ...kraft.rules import CONFIG_BROKER, CONFIG_TOPIC
from ...messages.config_record import ConfigRecord
from ...messages.incremental_alter_configs_response import IncrementalAlterConfigsResponse
from .brokers import ControllerError
from .metadata_log import Entries

SET, DELETE, APPEND, SUBTRACT = 0, 1, 2, 3
Commit = Callable[[Entries], int]


def _edited(current: str | None, operation: int, value: str | None) -> str | None:
    """A config's value after one operation (None: deleted)."""
    if operation == SET:
        return value
    if operation == DELETE:
        return None
    items = [v for v in (current or "").split(",") if v]
    given = [v for v in (value or "").split(",") if v]
    if operation == APPEND:
        return ",".join(items + [v for v in given if v not in items])
    if operation == SUBTRACT:
        return ",".join(v for v in items if v not in given)
    raise ControllerError(ErrorCode.INVALID_REQUEST, f"Unknown operation type {operation}")


def _check_resource(image: MetadataImage, kind: int, name: str) -> None:
    if kind == CONFIG_TOPIC:
        if image.topic(name) is None:
            raise ControllerError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
                                  f"The topic '{name}' does not exist.")  # fmt: skip
    elif kind == CONFIG_BROKER:
        if name and not name.isdigit():
            raise ControllerError(ErrorCode.INVALID_REQUEST, f"Illegal non-integral BROKER resource type name {name}")
    else:
        raise ControllerError(ErrorCode.INVALID_REQUEST, f"Unsupported resource type {kind}")


def config_changes(image: MetadataImage, kind: int, name: str, configs: Any) -> Entries:
    """The ConfigRecords that apply ``configs`` (AlterableConfig entries) to one resource."""
    _check_resource(image, kind, name)
    values = dict(image.configs.get((kind, name), {}))
    entries: Entries = []
    for config in configs:
        new = _edited(values.get(config.name), config.config_operation, config.value)
        if new == values.get(config.name):
            continue
        if new is None:
            values.pop(config.name, None)
        else:
            values[config.name] = new
        record = ConfigRecord(resource_type=kind, resource_name=name, name=config.name, value=new)
        entries.append((record, 0))
    return entries


def incremental_alter_configs(image: MetadataImage, commit: Commit, request: Any) -> IncrementalAlterConfigsResponse:
    results = []
    for resource in request.resources:
        result = IncrementalAlterConfigsResponse.AlterConfigsResourceResponse(
            resource_type=resource.resource_type, resource_name=resource.resource_name, error_message=None
        )
        try:
            entries = config_changes(image, resource.resource_type, resource.resource_name, resource.configs)
            if entries and not request.validate_only:
                commit(entries)
        except ControllerError as e:
            result.error_code, result.error_message = int(e.error), str(e)
        results.append(result)
    return IncrementalAlterConfigsResponse(responses=results)
