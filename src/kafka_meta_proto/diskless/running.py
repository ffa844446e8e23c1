"""Running a coordinator until told to stop: open it on its data directory, listen, announce the
address, and on SIGTERM or SIGINT stop listening, let the requests in flight finish, and close the
state cleanly (what the ``batch-coordinator`` command does)."""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Callable
from pathlib import Path

from .coordinator import BatchCoordinator
from .service import CoordinatorService, Node


async def run_coordinator(
    data: Path,
    listen: tuple[str, int],
    *,
    partition: int = 0,
    node_id: int = 0,
    advertised_host: str | None = None,
    follow: Path | None = None,
    leader: Node | None = None,
    announce: Callable[[str, int], None] = lambda host, port: None,
) -> None:
    """Serve until SIGTERM or SIGINT (or cancellation); ``announce(host, port)`` once listening."""
    with BatchCoordinator(data, partition, follow=follow) as coordinator:
        service = CoordinatorService(coordinator, Node(node_id, "", 0), leader)
        async with service.listening(listen, advertised_host):
            announce(*service.server.addresses[0])
            await _until_stopped()


async def _until_stopped() -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    try:
        await stop.wait()
    finally:
        for signum in (signal.SIGTERM, signal.SIGINT):
            loop.remove_signal_handler(signum)
