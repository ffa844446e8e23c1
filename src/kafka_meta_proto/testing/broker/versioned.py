"""Answers written at the request's version: the handlers fill every field they know, and the
fields the version lacks are put back to their defaults before the answer is encoded (Kafka's
handlers set such fields only for the versions that carry them; our encoder refuses a set field
a version cannot carry, as Kafka's does for a field that is not ignorable)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any

from ...message import Message
from ...server import RequestContext


def fit_to_version(value: Any, version: int) -> Any:
    """``value`` (a message or struct) with the fields absent at ``version`` set to their
    defaults, in place, nested structs included."""
    fresh = None
    for info in type(value)._FIELDS:
        field = getattr(value, info.name)
        if not info.present(version):
            fresh = fresh if fresh is not None else type(value)()
            setattr(value, info.name, getattr(fresh, info.name))
        elif info.struct is not None and field is not None:
            for item in field if info.is_array else [field]:
                fit_to_version(item, version)
    return value


def serve(broker: Any, request_class: type[Message],
          handler: Callable[[Any, RequestContext], Awaitable[Message | None]],
          versions: tuple[int, int] | None = None) -> None:  # fmt: skip
    """Register ``handler(broker, request)`` on ``broker.server`` for ``request_class``, its
    answers fitted (``broker``: a ``broker.Broker``, left untyped here to keep the two modules
    apart)."""
    bound = partial(handler, broker)

    async def answer(request: RequestContext) -> Message | None:
        body = await bound(request)
        return None if body is None else fit_to_version(body, request.api_version)

    broker.server.handle(request_class, answer, versions=versions)
