"""Faults on demand and the record of what clients sent, for the tests users write.

``Faults`` is one interceptor (``server.Server.intercept``) installed on every broker of a fake
cluster. A rule says what the next ``count`` requests of an API get, on every broker or one:

- ``fail(api, error_code)``: the request is not served; its answer carries the error wherever
  the response has an error code, for every topic and partition the request named
  (``error_answers``), as Kafka answers a request it refuses;
- ``delay(api, seconds)``: served, after the delay;
- ``drop(api)``: the connection is closed without an answer (``server.CloseConnection``).

Rules are matched in the order given; a rule with count None stays until ``clear``. Every request
a broker serves is also noted in ``sent`` (broker, client id, api key, version, the decoded body),
the view of what each client sent.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from ..message import Message
from ..messages import REGISTRY
from ..server import Answer, CloseConnection, Handler, RequestContext
from .error_answers import error_response

FAIL, DELAY, DROP = "fail", "delay", "drop"


@dataclass
class Rule:
    api_key: int
    action: str  # FAIL, DELAY or DROP
    count: int | None  # requests still affected; None: until cleared
    error_code: int = 0
    seconds: float = 0.0
    broker: int | None = None  # None: any broker


@dataclass(frozen=True)
class Sent:
    """One request a broker served, as its client sent it."""

    broker: int
    client_id: str | None
    api_key: int
    api_version: int
    body: Message


@dataclass
class Faults:
    rules: list[Rule] = field(default_factory=list)
    sent: list[Sent] = field(default_factory=list)
    keep_sent: int = 100_000  # the oldest are forgotten beyond this

    # --- what a test asks for ------------------------------------------------------------

    def fail(self, api: int | type[Message], error_code: int, count: int | None = 1, *,
             broker: int | None = None) -> Rule:  # fmt: skip
        return self._add(Rule(_api_key(api), FAIL, count, error_code=int(error_code), broker=broker))

    def delay(self, api: int | type[Message], seconds: float, count: int | None = 1, *,
              broker: int | None = None) -> Rule:  # fmt: skip
        return self._add(Rule(_api_key(api), DELAY, count, seconds=seconds, broker=broker))

    def drop(self, api: int | type[Message], count: int | None = 1, *,
             broker: int | None = None) -> Rule:  # fmt: skip
        return self._add(Rule(_api_key(api), DROP, count, broker=broker))

    def clear(self) -> None:
        self.rules.clear()

    def requests(self, api: int | type[Message] | None = None, *,
                 client_id: str | None = None) -> list[Sent]:  # fmt: skip
        """What was sent, of one API and/or by one client."""
        key = None if api is None else _api_key(api)
        return [s for s in self.sent if (key is None or s.api_key == key)
                and (client_id is None or s.client_id == client_id)]  # fmt: skip

    def _add(self, rule: Rule) -> Rule:
        if rule.count is not None and rule.count < 1:
            raise ValueError("count must be at least 1 (or None: until cleared)")
        self.rules.append(rule)
        return rule

    # --- on the brokers ----------------------------------------------------------------------

    def interceptor(self, broker: int) -> Any:
        """The interceptor for broker ``broker``'s server."""

        async def intercept(context: RequestContext, handler: Handler) -> Answer:
            return await self._serve(broker, context, handler)

        return intercept

    def _take(self, broker: int, api_key: int) -> Rule | None:
        for rule in self.rules:
            if rule.api_key == api_key and rule.broker in (None, broker):
                if rule.count is not None:
                    rule.count -= 1
                    if rule.count == 0:
                        self.rules.remove(rule)
                return rule
        return None

    async def _serve(self, broker: int, context: RequestContext, handler: Handler) -> Answer:
        self.sent.append(Sent(broker, context.client_id, context.api_key, context.api_version,
                              context.body))  # fmt: skip
        if len(self.sent) > self.keep_sent:
            del self.sent[: len(self.sent) - self.keep_sent]
        rule = self._take(broker, context.api_key)
        if rule is None:
            return await handler(context)
        if rule.action == DROP:
            raise CloseConnection("a fault drops this connection")
        if rule.action == DELAY:
            await asyncio.sleep(rule.seconds)
            return await handler(context)
        response_class = REGISTRY.response_class(context.api_key)
        return error_response(context.body, response_class, context.api_version, rule.error_code)


def _api_key(api: int | type[Message]) -> int:
    if isinstance(api, int):
        return api
    if api.API_KEY is None:
        raise TypeError(f"{api.__name__} is not a request class")
    return api.API_KEY
