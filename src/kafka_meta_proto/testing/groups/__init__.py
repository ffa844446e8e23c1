"""The fake cluster's group coordinator: the classic consumer-group protocol (join, sync,
heartbeat, leave), committed offsets and FindCoordinator, as Kafka's group coordinator (the
classic groups of Kafka 4's new coordinator) answers them.

- ``coordinator``: ``GroupCoordinator``, shared by the brokers, and its registration on each;
- ``state``: a group and its members (states, generations, leader, static members);
- ``rebalance``: preparing and completing rebalances, and the deadlines (``GroupSettings``);
- ``joining``, ``membership``: JoinGroup; SyncGroup, Heartbeat and LeaveGroup;
- ``offsets``, ``admin``: committed offsets; DescribeGroups, ListGroups, DeleteGroups;
- ``*_handlers``, ``service``: the same on the wire, at each version;
- ``find_coordinator``: which broker coordinates a group;
- ``clock``: time (a manual clock for tests).
"""

from __future__ import annotations

from .clock import Clock, ManualClock, SystemClock
from .coordinator import DEFAULT_INITIAL_REBALANCE_DELAY_MS, GroupCoordinator
from .find_coordinator import coordinator_of, find_coordinator_handler
from .rebalance import GroupSettings
from .state import COMPLETING_REBALANCE, DEAD, EMPTY, PREPARING_REBALANCE, STABLE

__all__ = [
    "COMPLETING_REBALANCE",
    "DEAD",
    "DEFAULT_INITIAL_REBALANCE_DELAY_MS",
    "EMPTY",
    "PREPARING_REBALANCE",
    "STABLE",
    "Clock",
    "GroupCoordinator",
    "GroupSettings",
    "ManualClock",
    "SystemClock",
    "coordinator_of",
    "find_coordinator_handler",
]
