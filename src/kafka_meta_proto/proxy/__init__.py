"""A decoding proxy between Kafka clients and brokers: it forwards every request and response
as it is, decodes both with this package's classes to log the exchange as a JSON line, lets
hooks inspect or replace a body, and rewrites the broker addresses in responses so clients stay
on the proxy (a listener per broker).

- ``proxy``: ``Proxy`` and its listeners;
- ``relay``: one client connection and its upstream connection;
- ``decoding_relay``: a relay reading every body, for the log and the hooks;
- ``passing_relay``: a relay reading only headers, when there is neither;
- ``scanner``: frame bounds found in a stream without copying the frames;
- ``frames``: the request header read by hand, bodies decoded when they can be;
- ``endpoints``: the broker addresses in responses;
- ``hooks``: what a hook is given and how it is called;
- ``exchange_log``: the JSON-lines log;
- ``settings``: what a proxy's connections share.
"""

from __future__ import annotations

from .exchange_log import Exchange, ExchangeLog
from .hooks import ProxiedRequest
from .proxy import Listener, Proxy

__all__ = ["Exchange", "ExchangeLog", "Listener", "ProxiedRequest", "Proxy"]
