"""The exchange log: one JSON object per line, for each request and its response.

Each line has a ``kind``: ``exchange`` (a request, and its response unless the broker gives
none), ``listener`` (a listener opened for a broker) or ``connection`` (a client connection the
proxy closed, and why). The fields of an exchange are described in docs/proxy.md; the Spark
reader (``pipeline/proxy_log.py``) holds the same names.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from .. import registries
from ..message import Message
from ..registries import RegistryLike


def api_name(api_key: int, registry: RegistryLike) -> str | None:
    """The API's name (``Metadata``), or None for an api key the registry does not know."""
    try:
        name: str = registries.resolve(registry).request_class(api_key).NAME
    except KeyError:
        return None
    return name.removesuffix("Request")


def json_form(body: Message | None, version: int) -> dict[str, Any] | None:
    return None if body is None else body.to_json(version)


@dataclass
class Exchange:
    """One line of the log; ``response_*`` stay None for a request the broker does not answer."""

    api_key: int
    api_name: str | None
    api_version: int
    correlation_id: int
    client_id: str | None
    client: str
    upstream: str
    time: float  # when the request arrived (seconds since the epoch)
    request_size: int  # bytes of the request frame as the client sent it, size prefix included
    request: dict[str, Any] | None
    request_error: str | None
    expects_response: bool
    request_rewritten: bool = False
    response_size: int | None = None  # bytes of the response frame as the broker sent it
    response_version: int | None = None
    response: dict[str, Any] | None = None
    response_error: str | None = None
    response_rewritten: bool = False
    latency_ms: float | None = None  # from the request's arrival to the response's
    error_codes: list[int] = field(default_factory=list)  # non-zero codes in the response
    kind: str = "exchange"


class ExchangeLog:
    """Appends lines to a file (or a stream); safe to share between the proxy's connections."""

    def __init__(self, target: str | Path | TextIO):
        if isinstance(target, (str, Path)):
            self._stream: TextIO = open(target, "a", encoding="utf-8", buffering=1)
            self._owned = True
        else:
            self._stream, self._owned = target, False
        self._lock = threading.Lock()

    def exchange(self, exchange: Exchange) -> None:
        self.write(vars(exchange))  # not dataclasses.asdict: it deep-copies the bodies

    def event(self, kind: str, **fields: Any) -> None:
        self.write({"kind": kind, "time": time.time(), **fields})

    def write(self, line: dict[str, Any]) -> None:
        text = json.dumps(line, separators=(",", ":"), default=str) + "\n"
        with self._lock:
            self._stream.write(text)

    def close(self) -> None:
        with self._lock:
            if self._owned:
                self._stream.close()
            else:
                self._stream.flush()
