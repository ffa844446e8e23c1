"""One check, two tiers: a share of a sweep in the fast suite, the whole sweep in the slow tier
(``bash test.sh -m slow``; .ci/run runs both), so the fast suite keeps its budget and no check
goes unmade.

    test_x, test_x_sweep = hypothesis_twins(200, 1000, data=st.binary())(_x)

    @pytest.mark.parametrize("budget", share_and_sweep(1000, 3000))
    def test_y(budget): ...

    test_z, test_z_sweep = stateful_twins(SomeMachine, 25, 100, stateful_step_count=60)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis.stateful import RuleBasedStateMachine


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


def stateful_twins(machine: type[RuleBasedStateMachine], fast: int, slow: int,
                   **options: Any) -> tuple[type, type]:  # fmt: skip
    """Two test cases running hypothesis state ``machine``: ``fast`` examples in the fast suite,
    ``slow`` in the slow tier; ``options`` are further settings (no deadline: the steps vary)."""

    def case(examples: int) -> type:
        chosen = settings(max_examples=examples, deadline=None, **options)
        return type(f"{machine.__name__}{examples}", (machine.TestCase,), {"settings": chosen})

    return case(fast), pytest.mark.slow(case(slow))
