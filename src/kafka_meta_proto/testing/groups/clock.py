"""Time for the group coordinator: a clock that says what time it is and runs a callback later,
and a timer of keyed deadlines over it (Kafka's coordinator timer: scheduling a key again
replaces its deadline, so a heartbeat pushes its member's expiry further out).

``SystemClock`` runs on the asyncio loop; ``ManualClock`` runs nothing until ``advance`` moves
it, so tests walk sessions and rebalance timeouts without waiting for them.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import time
from collections.abc import Callable, Hashable
from typing import Protocol

Cancel = Callable[[], None]


class Clock(Protocol):
    """What the coordinator asks of time."""

    def now_ms(self) -> float: ...

    def call_later(self, delay_ms: float, callback: Callable[[], None]) -> Cancel:
        """Run ``callback`` after ``delay_ms``; the returned function cancels it."""
        ...


class SystemClock:
    """Monotonic time; callbacks run on the running asyncio loop."""

    def now_ms(self) -> float:
        return time.monotonic() * 1000

    def call_later(self, delay_ms: float, callback: Callable[[], None]) -> Cancel:
        handle = asyncio.get_running_loop().call_later(max(delay_ms, 0) / 1000, callback)
        return handle.cancel


class ManualClock:
    """A clock that only moves when told: ``advance(ms)`` runs every callback that falls due,
    in deadline order, with ``now_ms`` reading each one's deadline while it runs."""

    def __init__(self, start_ms: float = 0):
        self._now = start_ms
        self._due: list[tuple[float, int, list[Callable[[], None] | None]]] = []
        self._order = itertools.count()

    def now_ms(self) -> float:
        return self._now

    def call_later(self, delay_ms: float, callback: Callable[[], None]) -> Cancel:
        slot: list[Callable[[], None] | None] = [callback]
        heapq.heappush(self._due, (self._now + max(delay_ms, 0), next(self._order), slot))
        return lambda: slot.__setitem__(0, None)

    def advance(self, ms: float = 0) -> None:
        """Move time forward by ``ms`` (0 runs what is due now)."""
        target = self._now + ms
        while self._due and self._due[0][0] <= target:
            deadline, _, slot = heapq.heappop(self._due)
            callback = slot[0]
            if callback is not None:
                self._now = max(self._now, deadline)
                callback()
        self._now = target


class Timer:
    """Deadlines by key: ``schedule`` replaces the key's earlier deadline, ``cancel`` drops it."""

    def __init__(self, clock: Clock):
        self.clock = clock
        self._pending: dict[Hashable, Cancel] = {}

    def schedule(self, key: Hashable, delay_ms: float, action: Callable[[], None]) -> None:
        self.cancel(key)

        def fire() -> None:
            del self._pending[key]
            action()

        self._pending[key] = self.clock.call_later(delay_ms, fire)

    def cancel(self, key: Hashable) -> None:
        cancel = self._pending.pop(key, None)
        if cancel is not None:
            cancel()

    def scheduled(self, key: Hashable) -> bool:
        return key in self._pending

    def cancel_all(self) -> None:
        for key in list(self._pending):
            self.cancel(key)
