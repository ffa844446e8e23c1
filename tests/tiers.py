"""One check, two tiers: a share of a sweep in the fast suite, the whole sweep in the slow tier
(``bash test.sh -m slow``; .ci/run runs both), so the fast suite keeps its budget and no check
goes unmade.

    test_x, test_x_sweep = hypothesis_twins(200, 1000, data=st.binary())(_x)

    @pytest.mark.parametrize("budget", share_and_sweep(1000, 3000))
    def test_y(budget): ...
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings


def hypothesis_twins(fast: int, slow: int, **strategies: Any) -> Callable[..., tuple[Any, Any]]:
    """``body`` made into two hypothesis tests drawing the same ``strategies``: ``fast``
    examples in the fast suite, ``slow`` in the slow tier (no deadline, no example database,
    no health check: the sweeps are long on purpose)."""

    def twins(body: Callable[..., None]) -> tuple[Any, Any]:
        def drawn(examples: int) -> Any:
            return settings(max_examples=examples, deadline=None, database=None,
                            suppress_health_check=list(HealthCheck))(given(**strategies)(body))  # fmt: skip

        return drawn(fast), pytest.mark.slow(drawn(slow))

    return twins


def share_and_sweep(fast: int, slow: int) -> list[Any]:
    """Parameters for a size: ``fast`` in the fast suite, ``slow`` in the slow tier."""
    return [pytest.param(fast, id=f"{fast}"), pytest.param(slow, id=f"{slow}", marks=pytest.mark.slow)]
