"""``CoordinatorGroup``: the coordinators of every ``__diskless-metadata`` partition, in this
process, each served on its own port.

Coordinator ``c`` is ``BatchCoordinator(data, c)``: its own log (``data/__diskless-metadata-c``,
or partition ``c`` of a cluster's topic when ``topics(c)`` gives one) and SQLite file
(``data/batch-coordinator-c.sqlite``), its own server and group commit. A coordinator is opened
and closed on a worker thread: a topic in a cluster is read and written with blocking calls,
and that cluster may be served by this very event loop. All of
them share one ``Routing`` over the partition -> coordinator mapping the caller supplies (a
metadata image's), so FindCoordinator at any of them names the coordinator a partition is mapped
to, and each refuses the partitions it does not own with NOT_COORDINATOR. ``restart(c)`` stops
one coordinator (in-flight requests finish) and opens it again on the same data and port, as a
broker leading partition ``c`` would after a restart; the others serve on meanwhile.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from .coordinator import BatchCoordinator, Clock, wall_clock_ms
from .routing import Mappings, Node, Routing
from .service import CoordinatorService
from .topic_backend import MetadataTopic

LOOPBACK = "127.0.0.1"


@dataclass
class _Served:
    coordinator: BatchCoordinator
    service: CoordinatorService
    stack: contextlib.AsyncExitStack


class CoordinatorGroup:
    """``partitions`` coordinators under ``data`` (see the module); ``mappings()`` gives the
    current mapping, ``node_ids(c)`` the node id coordinator ``c`` is advertised with (by default
    ``c``: in a cluster, the broker leading partition ``c``)."""

    def __init__(self, data: Path | str, partitions: int, mappings: Callable[[], Mappings], *,
                 host: str = LOOPBACK, node_ids: Callable[[int], int] = lambda c: c,
                 clock: Clock = wall_clock_ms, topics: Callable[[int], MetadataTopic] | None = None):  # fmt: skip
        if partitions < 1:
            raise ValueError("a group needs at least one coordinator")
        self.data = Path(data)
        self.partitions = partitions
        self.host = host
        self.node_ids = node_ids
        self.clock = clock
        self.topics = topics
        self.routing = Routing(mappings, self._node)
        self._served: dict[int, _Served] = {}
        self._ports: dict[int, int] = {}  # a restarted coordinator listens where it did

    async def start(self) -> CoordinatorGroup:
        for c in range(self.partitions):
            await self.start_coordinator(c)
        return self

    async def stop(self) -> None:
        for c in list(self._served):
            await self.stop_coordinator(c)

    async def __aenter__(self) -> CoordinatorGroup:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()

    async def start_coordinator(self, c: int) -> CoordinatorService:
        if c in self._served:
            raise RuntimeError(f"coordinator {c} is running")
        coordinator = await asyncio.to_thread(self._open, c)
        service = CoordinatorService(coordinator, Node(self.node_ids(c), "", 0), routing=self.routing)
        stack = contextlib.AsyncExitStack()
        # closed after the server stopped (stacks unwind backwards)
        stack.push_async_callback(asyncio.to_thread, coordinator.close)
        try:
            await stack.enter_async_context(service.listening((self.host, self._ports.get(c, 0))))
        except BaseException:
            await stack.aclose()
            raise
        self._ports[c] = service.node.port
        self._served[c] = _Served(coordinator, service, stack)
        return service

    def _open(self, c: int) -> BatchCoordinator:
        topic = self.topics(c) if self.topics is not None else None
        return BatchCoordinator(self.data, c, clock=self.clock, topic=topic)

    async def stop_coordinator(self, c: int) -> None:
        """Stop serving coordinator ``c``: the requests in flight are answered, the state closed."""
        served = self._served.pop(c)
        await served.stack.aclose()

    async def restart(self, c: int) -> CoordinatorService:
        await self.stop_coordinator(c)
        return await self.start_coordinator(c)

    def coordinator(self, c: int) -> BatchCoordinator:
        return self._served[c].coordinator

    def _node(self, c: int) -> Node | None:
        served = self._served.get(c)
        return served.service.node if served is not None else None

    @property
    def addresses(self) -> list[tuple[str, int]]:
        """Where the running coordinators listen, by coordinator."""
        return [self._served[c].service.server.addresses[0] for c in sorted(self._served)]

    @property
    def bootstrap(self) -> str:
        """``host:port,...`` of the running coordinators: any answers FindCoordinator for all."""
        return ",".join(f"{host}:{port}" for host, port in self.addresses)
