"""The user's hooks: functions, plain or async, that see a request or response and may replace
its body."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Union

from ..message import Message


@dataclass(frozen=True)
class ProxiedRequest:
    """A request passing through the proxy, as a hook sees it. ``body`` is the decoded request
    (the client's, before any rewriting); ``upstream`` is the broker it goes to."""

    api_key: int
    api_version: int
    correlation_id: int
    client_id: str | None
    body: Message
    upstream: tuple[str, int]


HookResult = Union[Message, None, Awaitable[Union[Message, None]]]
RequestHook = Callable[[ProxiedRequest], HookResult]
ResponseHook = Callable[[ProxiedRequest, Message], HookResult]


async def settle(result: HookResult) -> Message | None:
    """A hook's answer, awaited when the hook was async."""
    if inspect.isawaitable(result):
        return await result
    return result
