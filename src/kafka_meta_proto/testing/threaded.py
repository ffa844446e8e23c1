"""A fake cluster for synchronous code: ``RunningCluster`` runs a ``FakeCluster`` on an event loop
of its own thread, and offers its methods as plain calls::

    with RunningCluster(brokers=3) as cluster:
        producer = confluent_kafka.Producer({"bootstrap.servers": cluster.bootstrap})
        cluster.create_topic("events", partitions=3)
        cluster.stop_broker(0)

Attributes that are not coroutines (``bootstrap``, ``faults``, ``image``, ``brokers``, ...) are
read from the cluster as they are; the cluster's own objects are shared with its loop thread, so
a test reads them but changes state only through the methods.
"""

from __future__ import annotations

import asyncio
import inspect
import threading
from typing import Any

from .cluster import FakeCluster

CALL_TIMEOUT = 120.0  # seconds a method may take before the caller gets a TimeoutError


class RunningCluster:
    """``FakeCluster(**options)`` started on a thread of its own (see the module)."""

    def __init__(self, **options: Any):
        self.cluster = FakeCluster(**options)
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True,
                                        name="fake-kafka")  # fmt: skip

    def start(self) -> RunningCluster:
        self._thread.start()
        try:
            self._call(self.cluster.start())
        except BaseException:
            self._end_loop()
            raise
        return self

    def stop(self) -> None:
        if not self._thread.is_alive():
            return
        try:
            self._call(self.cluster.stop())
        finally:
            self._end_loop()

    def _end_loop(self) -> None:
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(CALL_TIMEOUT)
        self._loop.close()

    def __enter__(self) -> RunningCluster:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _call(self, coroutine: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result(CALL_TIMEOUT)

    def __getattr__(self, name: str) -> Any:
        value = getattr(self.cluster, name)
        if inspect.iscoroutinefunction(value):

            def call(*args: Any, **kwargs: Any) -> Any:
                return self._call(value(*args, **kwargs))

            call.__name__ = name
            call.__doc__ = value.__doc__
            return call
        return value
