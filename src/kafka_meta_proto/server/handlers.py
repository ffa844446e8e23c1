"""The handlers a server holds, one per API, and the version ranges they give ApiVersions.

An API's range is every version the registry's request class defines, unless its handler
narrows it. ApiVersions itself is always present: the framework answers it.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from functools import partial
from typing import Any, Union

from .. import registries
from ..message import Message
from ..messages import REGISTRY
from ..protocol import API_VERSIONS_KEY
from ..registries import RegistryLike
from .context import RequestContext
from .encoded import EncodedBody

# A handler's answer: the response message, a body it encoded itself, or None (no answer).
Answer = Union[Message, EncodedBody, None]
Handler = Callable[[RequestContext], Awaitable[Answer]]
# (api key, connection state) -> why the request may not be served now, or None
Guard = Callable[[int, dict[str, Any]], "str | None"]
# Runs around every served request: it may answer itself, delay, change the request or the answer,
# or raise CloseConnection; it calls the handler it is given to go on.
Interceptor = Callable[[RequestContext, Handler], Awaitable[Answer]]


class CloseConnection(Exception):
    """Raised by a handler or an interceptor: close the connection without answering (as a
    broker that drops a client does); the reason is logged."""


@dataclass(frozen=True)
class Registered:
    handler: Handler
    versions: tuple[int, int]  # (min, max), inclusive


class Handlers:
    """Handlers by api key, each with the version range it serves."""

    def __init__(self, registry: RegistryLike = REGISTRY):
        self.registry = registries.resolve(registry)
        self._by_key: dict[int, Registered] = {}
        # Checked before every request, ApiVersions included; a reason closes the connection.
        self.guard: Guard | None = None
        self.interceptors: list[Interceptor] = []

    def add(
        self, api: int | type[Message], handler: Handler, versions: tuple[int, int] | None = None
    ) -> None:
        """Serve ``api`` (an api key or its request class) with ``handler``; ``versions``
        narrows the range to (min, max) within what the request class defines."""
        api_key = self._api_key(api)
        defined = self.registry.request_class(api_key).versions()
        low, high = (defined[0], defined[-1]) if versions is None else versions
        if not defined[0] <= low <= high <= defined[-1]:
            raise ValueError(
                f"api key {api_key}: versions {low}-{high} are not within the defined "
                f"{defined[0]}-{defined[-1]}"
            )
        self._by_key[api_key] = Registered(handler, (low, high))

    def _api_key(self, api: int | type[Message]) -> int:
        if isinstance(api, int):
            self.registry.request_class(api)  # a KeyError names an api key no schema has
            return api
        if api.MESSAGE_TYPE != "request" or api.API_KEY is None:
            raise TypeError(f"{api.__name__} is not a request class")
        return api.API_KEY

    def find(self, api_key: int, api_version: int) -> Handler | None:
        """The handler serving this api key at this version, or None."""
        registered = self._by_key.get(api_key)
        if registered is None:
            return None
        low, high = registered.versions
        if not low <= api_version <= high:
            return None
        handler = registered.handler
        for interceptor in reversed(self.interceptors):  # the first added runs outermost
            handler = partial(_intercepted, interceptor, handler)
        return handler

    def ranges(self) -> dict[int, tuple[int, int]]:
        """api key -> (min, max) served, ApiVersions included, by api key."""
        ranges = {key: registered.versions for key, registered in self._by_key.items()}
        if API_VERSIONS_KEY not in ranges:
            defined = self.registry.request_class(API_VERSIONS_KEY).versions()
            ranges[API_VERSIONS_KEY] = (defined[0], defined[-1])
        return dict(sorted(ranges.items()))


def _intercepted(interceptor: Interceptor, handler: Handler, context: RequestContext) -> Awaitable[Answer]:
    return interceptor(context, handler)
