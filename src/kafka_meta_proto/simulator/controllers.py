"""The controller quorum: elections (LeaderChange control batches) and controller restarts."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..log.control import LEADER_CHANGE, control_key
from .config import NOOP_INTERVAL_MS
from .model import LeaderChangeMessage, _uuid

if TYPE_CHECKING:
    from .state import Cluster


class ControllerEvents:
    """What the controllers do (a ClusterSimulation part)."""

    def elect_leader(self: Cluster, first: bool = False) -> None:
        """A controller election: the new leader writes a LeaderChange control batch in its epoch.

        Later elections follow the active controller's failure: after an election timeout another
        voter (or, with a single controller, the same one after its restart) takes over.
        """
        rng = self.rng
        old = self.leader
        if not first:
            others = [c for c in self.controllers if c != old]
            self.leader = rng.choice(others) if others else old
            self.now += rng.randint(1000, 4000)  # election timeout and vote
            self.next_noop = max(self.next_noop, self.now + NOOP_INTERVAL_MS)
        self.epoch += 1
        voters = [LeaderChangeMessage.Voter(voter_id=c) for c in self.controllers]
        majority = len(self.controllers) // 2 + 1
        granting = [self.leader] + rng.sample(
            [c for c in self.controllers if c != self.leader], majority - 1
        )
        message = LeaderChangeMessage(version=0, leader_id=self.leader, voters=voters,
                                      granting_voters=[LeaderChangeMessage.Voter(voter_id=c) for c in sorted(granting)])  # fmt: skip
        self.write_batch([(message, 0)], control_keys=[control_key(LEADER_CHANGE)])
        if not first and (
            old == self.leader or rng.random() < 0.7
        ):  # the failed controller restarts
            delay = rng.randint(60, 200) if old == self.leader else rng.randint(10_000, 90_000)
            self._schedule(delay, lambda: self.restart_controller(old, elect=False))

    def register_controller(self: Cluster, controller: int) -> None:
        self.write_batch([(self._register_controller_record(controller), 0)])
        self.controller_registered.add(controller)

    def restart_controller(self: Cluster, controller: int, elect: bool = True) -> None:
        """A controller process restarts with a new incarnation; the active one loses leadership."""
        if elect and controller == self.leader:
            self.elect_leader()
            return
        self.controller_incarnations[controller] = _uuid(self.rng)
        self.register_controller(controller)
