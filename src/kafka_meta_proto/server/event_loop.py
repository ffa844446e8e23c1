"""The event loop the serving commands run on (``batch-coordinator``, ``fake-cluster``, ``proxy``):
uvloop's where it is installed (the ``fast`` extra), else asyncio's own.

Every small request costs the server a read, a task and a write: on uvloop that costs about 40 %
less (docs/performance.md, "The batch coordinator"). Behaviour is the same on both;
``KAFKA_META_PROTO_EVENT_LOOP=asyncio`` keeps asyncio's loop with uvloop installed.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Coroutine
from typing import Any, TypeVar

EVENT_LOOP_ENV = "KAFKA_META_PROTO_EVENT_LOOP"
T = TypeVar("T")


def uvloop_module() -> Any:
    """uvloop, or None when it is not installed or the environment asks for asyncio's loop."""
    if os.environ.get(EVENT_LOOP_ENV, "") == "asyncio":
        return None
    try:
        import uvloop
    except ImportError:
        return None
    return uvloop


def loop_name() -> str:
    """``"uvloop"`` or ``"asyncio"``: the loop ``run`` would use."""
    return "asyncio" if uvloop_module() is None else "uvloop"


def run(main: Coroutine[Any, Any, T]) -> T:
    """``asyncio.run(main)`` on the chosen loop."""
    uvloop = uvloop_module()
    if uvloop is None:
        return asyncio.run(main)
    result: T = uvloop.run(main)
    return result
