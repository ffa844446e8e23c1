"""Running a coordinator until told to stop: open it on its data directory, listen, announce the
address, and on SIGTERM or SIGINT stop listening, let the requests in flight finish, and close the
state cleanly (what the ``batch-coordinator`` command does)."""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import Callable, Iterator
from pathlib import Path

from .coordinator import BatchCoordinator
from .routing import Node
from .service import CoordinatorService
from .topic_backend import MetadataTopic

STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)


async def run_coordinator(
    data: Path,
    listen: tuple[str, int],
    *,
    partition: int = 0,
    node_id: int = 0,
    advertised_host: str | None = None,
    follow: Path | None = None,
    leader: Node | None = None,
    topic: MetadataTopic | None = None,
    read_only: bool = False,
    announce: Callable[[str, int], None] = lambda host, port: None,
) -> None:
    """Serve until SIGTERM or SIGINT; ``announce(host, port)`` once listening (the signals are
    caught from before then, so a stop asked as soon as the address is known is clean too)."""
    with _stop_on_signals() as stop, BatchCoordinator(
        data, partition, follow=follow, topic=topic, read_only=read_only
    ) as coordinator:
        service = CoordinatorService(coordinator, Node(node_id, "", 0), leader)
        async with service.listening(listen, advertised_host):
            announce(*service.server.addresses[0])
            await stop.wait()


@contextlib.contextmanager
def _stop_on_signals() -> Iterator[asyncio.Event]:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in STOP_SIGNALS:
        loop.add_signal_handler(signum, stop.set)
    try:
        yield stop
    finally:
        for signum in STOP_SIGNALS:
            loop.remove_signal_handler(signum)
