"""Group commit: the writes of requests that arrive together share one SQLite transaction, one
log batch and one fsync, as Kafka's log shares a flush among the appends before it.

While a group's batch is being fsynced (in a worker thread), the event loop goes on reading
requests: writes queue for the next group, reads are answered from the state committed so far
(the coordinator's reader connection never sees a transaction still open). Every answer of a
group is given only after its fsync and commit.
"""

from __future__ import annotations

import asyncio

from .coordinator import BatchCoordinator, Decide


class GroupCommitter:
    """Runs decisions of a ``BatchCoordinator`` in groups; ``await write(decide)`` gives the
    decision's answer once it is durable."""

    def __init__(self, coordinator: BatchCoordinator):
        self.coordinator = coordinator
        self._queue: list[tuple[Decide, asyncio.Future[object]]] = []
        self._runner: asyncio.Task[None] | None = None
        self.groups = 0  # groups written, for the curious (and the tests)

    async def write(self, decide: Decide) -> object:
        future: asyncio.Future[object] = asyncio.get_running_loop().create_future()
        self._queue.append((decide, future))
        if self._runner is None or self._runner.done():
            self._runner = asyncio.get_running_loop().create_task(self._run())
        return await future

    async def _run(self) -> None:
        while self._queue:
            group, self._queue = self._queue, []
            try:
                results = await self._commit([decide for decide, _ in group])
            except BaseException as e:  # the whole group failed: the log could not be written
                for _, future in group:
                    if not future.done():
                        future.set_exception(e if isinstance(e, Exception) else OSError(str(e)))
                if not isinstance(e, Exception):
                    raise
                continue
            for (_, future), result in zip(group, results):
                if future.done():  # its caller went away
                    continue
                if isinstance(result, Exception):
                    future.set_exception(result)
                else:
                    future.set_result(result)

    async def _commit(self, decides: list[Decide]) -> list[object]:
        coordinator = self.coordinator
        results, position = coordinator.begin_writes(decides)
        if position is None:
            return results
        try:
            await asyncio.to_thread(coordinator.sync)
        except BaseException:
            coordinator.abort_writes()
            raise
        coordinator.end_writes(position)
        self.groups += 1
        return results
