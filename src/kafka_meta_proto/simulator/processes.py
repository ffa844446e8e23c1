"""Work spread over worker processes that Ctrl-C stops at once (``simulate --jobs`` and the
pipeline's built-in sample): the queue is dropped, not worked through, and the workers leave the
key to the parent, so one line is printed rather than a traceback from every process.

The parent waits in short steps. A process-directed SIGINT may be delivered to any of its threads,
the pool's helper threads included, and Python runs the handler only when the main thread next
executes: a main thread blocked in one long wait would finish the whole queue first, then meet
the KeyboardInterrupt somewhere it may be swallowed.
"""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from multiprocessing.pool import Pool

WAKE_SECONDS = 0.2  # how long Ctrl-C may wait for the main thread to notice it


@contextlib.contextmanager
def worker_pool(jobs: int) -> Iterator[Pool]:
    """A pool of ``jobs`` processes; closed and joined on leaving, terminated at once (the queued
    work dropped) when the block raises, KeyboardInterrupt included."""
    import multiprocessing

    # Workers from a fork server where there is one: a plain fork() copies a parent whose other
    # threads (Spark's, in a notebook or a test) may hold locks, which Python 3.12+ warns about.
    method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else None
    pool = multiprocessing.get_context(method).Pool(jobs, initializer=_leave_ctrl_c_to_the_parent)
    try:
        yield pool
    except BaseException:
        pool.terminate()
        pool.join()
        raise
    pool.close()
    pool.join()


def map_interruptibly(pool: Pool, fn: Callable[[Any], Any], work: list[Any]) -> list[Any]:
    """``pool.map(fn, work)``, one item a task, waiting so that Ctrl-C interrupts it."""
    result = pool.map_async(fn, work, chunksize=1)
    while not result.ready():
        result.wait(WAKE_SECONDS)
    return result.get()


def _leave_ctrl_c_to_the_parent() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
