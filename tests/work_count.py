"""Work measured by counting, not by the clock: how many Python and C function calls a piece of
code makes. The count is the same on a quiet machine and a loaded one, so a test can hold an
algorithm to linear work (a quadratic walk shows as 16 times the calls for 4 times the input)
without asserting a wall time."""

from __future__ import annotations

import sys
from typing import Any, Callable


def calls_made(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[Any, int]:
    """``(fn(*args, **kwargs), the number of calls made while it ran)``: Python function calls
    and generator resumptions (``call``) and calls into C (``c_call``)."""
    count = 0

    def profile(frame, event, arg):
        nonlocal count
        if event == "call" or event == "c_call":
            count += 1

    previous = sys.getprofile()
    sys.setprofile(profile)
    try:
        result = fn(*args, **kwargs)
    finally:
        sys.setprofile(previous)
    return result, count


def raised_after(fn: Callable[..., Any], *args: Any) -> tuple[BaseException | None, int]:
    """``(the exception fn(*args) raised, or None; the calls made until then)``."""

    def attempt() -> BaseException | None:
        try:
            fn(*args)
        except Exception as error:
            return error
        return None

    return calls_made(attempt)


def peak_allocated(fn: Callable[..., Any], *args: Any) -> tuple[BaseException | None, int]:
    """``(the exception fn(*args) raised, or None; the most bytes Python held allocated for it at
    once)``, by tracemalloc: what a limit on output sizes must keep small."""
    import tracemalloc

    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        raised, _ = raised_after(fn, *args)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return raised, peak
