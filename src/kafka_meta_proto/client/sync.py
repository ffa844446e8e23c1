"""The client for scripts, without asyncio: each object runs its own event loop in a background
thread (a daemon, so a script that forgets ``close`` still exits), and each call waits for the
coroutine it hands that loop. Connections therefore outlive a call, as they do in the asyncio
client, and the same timeouts bound every call.

    from kafka_meta_proto.client import sync

    with sync.connect("127.0.0.1", 9092) as conn:
        metadata = conn.send(MetadataRequest(topics=None))
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Coroutine, Sequence
from types import TracebackType
from typing import Any, TypeVar

from ..message import Message
from ..net.connection import ResponseReceived
from ..net.versions import VersionRanges
from . import cluster as _cluster
from . import connection as _connection
from .routing import Target

_T = TypeVar("_T")


class _LoopThread:
    """An event loop running in a daemon thread; ``run`` waits for one coroutine on it."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self._thread = threading.Thread(
            target=self.loop.run_forever, name="kafka-meta-proto-client", daemon=True
        )
        self._thread.start()

    def run(self, coroutine: Coroutine[Any, Any, _T]) -> _T:
        if not self._thread.is_alive():
            coroutine.close()
            raise RuntimeError("this client is closed")
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result()

    def stop(self) -> None:
        if self._thread.is_alive():
            self.loop.call_soon_threadsafe(self.loop.stop)
            self._thread.join()
            self.loop.close()


class _Closing:
    """What both facades share: their loop thread, and closing (also on leaving a with block)."""

    _loop: _LoopThread

    def _closed_by(self) -> Coroutine[Any, Any, None]:
        raise NotImplementedError

    def close(self) -> None:
        try:
            self._loop.run(self._closed_by())
        except RuntimeError:
            pass  # already closed
        self._loop.stop()

    def __enter__(self: _T) -> _T:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


class SyncConnection(_Closing):
    """A ``Connection`` driven from ordinary code; made by ``connect``."""

    def __init__(self, host: str, port: int, **options: Any):
        self._loop = _LoopThread()
        try:
            self._conn = self._loop.run(_connection.connect(host, port, **options))
        except BaseException:
            self._loop.stop()
            raise

    @property
    def api_versions(self) -> VersionRanges:
        return self._conn.api_versions

    def send(
        self, request: Message, version: int | None = None, *, timeout: float | None = None
    ) -> Message:
        return self._loop.run(self._conn.send(request, version, timeout=timeout))

    def exchange(
        self, request: Message, version: int | None = None, *, timeout: float | None = None
    ) -> ResponseReceived:
        return self._loop.run(self._conn.exchange(request, version, timeout=timeout))

    def send_oneway(
        self, request: Message, version: int | None = None, *, timeout: float | None = None
    ) -> None:
        self._loop.run(self._conn.send_oneway(request, version, timeout=timeout))

    def _closed_by(self) -> Coroutine[Any, Any, None]:
        return self._conn.close()


def connect(host: str, port: int, **options: Any) -> SyncConnection:
    """As ``client.connect`` (same options), for code without an event loop."""
    return SyncConnection(host, port, **options)


class Cluster(_Closing):
    """A ``client.Cluster`` driven from ordinary code: bootstraps on creation."""

    def __init__(self, bootstrap: Sequence[tuple[str, int]], **options: Any):
        self._loop = _LoopThread()
        self._cluster = _cluster.Cluster(bootstrap, **options)
        try:
            self._loop.run(self._cluster.refresh())
        except BaseException:
            self.close()
            raise

    @property
    def brokers(self) -> dict[int, _cluster.Broker]:
        return self._cluster.brokers

    def send(
        self,
        request: Message,
        version: int | None = None,
        *,
        to: Target | None = None,
        timeout: float | None = None,
    ) -> Message:
        return self._loop.run(self._cluster.send(request, version, to=to, timeout=timeout))

    def refresh(self, topics: list[str] | None = None) -> Message:
        return self._loop.run(self._cluster.refresh(topics))

    def _closed_by(self) -> Coroutine[Any, Any, None]:
        return self._cluster.close()
