"""What every group handler shares: the coordinator's state, whether this broker coordinates a
group, the topics of the broker's metadata image, and the answers parked per broker.

A JoinGroup or SyncGroup that has to wait is parked on its member; the broker that received it
keeps a list, so that ``release`` (the broker going away) answers them NOT_COORDINATOR, as
Kafka's coordinator does when it gives up a group's partition: the client then finds the new
coordinator and joins again there.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, TypeVar

from ...error_codes import ErrorCode
from ...kraft.image import MetadataImage
from ...server import RequestContext
from .offsets import OffsetStore
from .rebalance import Rebalancer
from .state import JoinAnswer, SyncAnswer, complete_join, complete_sync

NOT_COORDINATOR = ErrorCode.NOT_COORDINATOR.value
_A = TypeVar("_A")


class Parked:
    """An answer a handler waits for; called by the coordinator, or left when released."""

    def __init__(self, parked: set[Parked]):
        self.future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._parked = parked
        parked.add(self)

    def __call__(self, answer: Any) -> None:
        self._parked.discard(self)
        if not self.future.done():
            self.future.set_result(answer)


class BrokerGroups:
    """The group coordinator as one broker serves it."""

    def __init__(
        self,
        engine: Rebalancer,
        offsets: OffsetStore,
        is_coordinator: Callable[[str], bool],
        metadata_image: Callable[[], MetadataImage] | None,
    ):
        self.engine = engine
        self.offsets = offsets
        self.is_coordinator = is_coordinator
        self.metadata_image = metadata_image
        self.parked: set[Parked] = set()

    async def wait_for(self, start: Callable[[Callable[[_A], None]], None]) -> _A | None:
        """Start an operation that answers through a callback, and wait for the answer (None
        when the broker is released before anyone answers)."""
        parked = Parked(self.parked)
        start(parked)
        answer: _A | None = await parked.future
        return answer

    def release(self) -> None:
        """Answer NOT_COORDINATOR to every JoinGroup and SyncGroup parked on this broker; their
        members stay in their groups, as if they had not rejoined yet."""
        for group in self.engine.groups.values():
            for member in group.members.values():
                if member.awaiting_join in self.parked:
                    complete_join(member, JoinAnswer(error=NOT_COORDINATOR))
                if member.awaiting_sync in self.parked:
                    complete_sync(member, SyncAnswer(error=NOT_COORDINATOR))
        for parked in list(self.parked):
            parked(None)  # pending member ids and the like: nobody holds them

    def image(self) -> MetadataImage | None:
        return self.metadata_image() if self.metadata_image is not None else None


def client_host(request: RequestContext) -> str:
    """The client's address as Kafka's DescribeGroups shows it (Java's InetAddress form)."""
    peer = request.peer
    host = peer[0] if isinstance(peer, tuple) and peer else str(peer)
    return f"/{host}"
