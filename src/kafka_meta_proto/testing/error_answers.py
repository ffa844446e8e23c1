"""An error answer shaped like the request, for any API: what a fault hands a client instead of
the handler's answer.

Kafka builds these per request type (``AbstractRequest.getErrorResponse``): the response names
every topic and partition the request named, each with the error, and the top-level error code
where the response has one. The same is done here from the schemas: walking the response's
fields at the version asked, every ``error_code`` gets the error, a struct array is filled with
one entry per entry of the request's matching array (the one whose entries share the most field
names, by name or by the aliases below), and the entry's identifying fields (topic name and id,
partition index, group and member ids...) are copied from the request's entry.
"""

from __future__ import annotations

from typing import Any

from ..message import Message
from ..schema_info import FieldInfo

# A response field and the request fields that carry the same value under another name.
ALIASES: dict[str, tuple[str, ...]] = {
    "partition_index": ("partition", "index"),
    "partition": ("partition_index", "index"),
    "index": ("partition_index", "partition"),
    "name": ("topic",),
    "topic": ("name",),
}
# The value of a field that may not be null at the version answered, by its schema type.
EMPTY: dict[str, Any] = {"string": "", "bytes": b"", "records": b""}
# Fields copied from the request: the ones that say which thing an entry answers for.
IDENTIFYING = {"name", "topic", "topic_id", "partition_index", "partition", "index", "group_id",
               "member_id", "group_instance_id", "key", "transactional_id", "resource_name",
               "resource_type", "broker_id"}  # fmt: skip


def error_response(request: Message, response_class: type[Message], version: int,
                   error_code: int) -> Message:  # fmt: skip
    """The response to ``request`` at ``version`` carrying ``error_code`` wherever the response
    has an error code, for every topic/partition/group the request named."""
    return _mirror(response_class, request, version, error_code)


def _present(cls: type[Message], version: int) -> list[FieldInfo]:
    return [f for f in cls._FIELDS if f.present(version)]


def _request_value(request: Message | None, name: str) -> tuple[bool, Any]:
    if request is None:
        return False, None
    for candidate in (name, *ALIASES.get(name, ())):
        if hasattr(request, candidate):
            return True, getattr(request, candidate)
    return False, None


def _mirror(cls: type[Message], request: Message | None, version: int, error_code: int) -> Message:
    values: dict[str, Any] = {}
    for field in _present(cls, version):
        if field.name == "error_code":
            values[field.name] = error_code
        elif field.struct is not None and field.type.startswith("[]"):
            entries = _matching_entries(field.struct, request, version)
            values[field.name] = [_mirror(field.struct, entry, version, error_code)
                                  for entry in entries]  # fmt: skip
        elif field.name in IDENTIFYING:
            found, value = _request_value(request, field.name)
            if found and not isinstance(value, list):
                values[field.name] = value
    answer = cls(**values)
    for field in _present(cls, version):  # a null the version cannot carry (a name the request
        if getattr(answer, field.name) is None and not _nullable(field, version):  # left out)
            setattr(answer, field.name, EMPTY.get(field.type))
    return answer


def _nullable(field: FieldInfo, version: int) -> bool:
    return field.nullable is not None and field.nullable[0] <= version <= field.nullable[1]


def _matching_entries(struct: type[Message], request: Message | None, version: int) -> list[Any]:
    """The entries of the request's array that the response array ``struct`` answers."""
    if request is None:
        return []
    wanted = {f.name for f in _present(struct, version)}
    wanted |= {alias for name in list(wanted) for alias in ALIASES.get(name, ())}
    best: list[Any] = []
    best_score = 0
    for field in type(request)._FIELDS:
        value = getattr(request, field.name, None)
        if field.struct is None or not isinstance(value, list) or not value:
            continue
        entry_class: type[Message] = field.struct
        score = len(wanted & {f.name for f in entry_class._FIELDS})
        if score > best_score:
            best, best_score = value, score
    return best
