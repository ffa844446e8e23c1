"""The controller quorum: elections (LeaderChange control batches) and controller restarts."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..log.control import LEADER_CHANGE, control_key
from .config import NOOP_INTERVAL_MS
from .model import LeaderChangeMessage, _uuid
from .image_records import register_controller_record
from .log_output import write_batch

if TYPE_CHECKING:
    from .state import Cluster


def elect_leader(sim: Cluster, first: bool = False) -> None:
    """A controller election: the new leader writes a LeaderChange control batch in its epoch.

    Later elections follow the active controller's failure: after an election timeout another
    voter (or, with a single controller, the same one after its restart) takes over.
    """
    rng = sim.rng
    old = sim.leader
    if not first:
        others = [c for c in sim.controllers if c != old]
        sim.leader = rng.choice(others) if others else old
        sim.now += rng.randint(1000, 4000)  # election timeout and vote
        sim.next_noop = max(sim.next_noop, sim.now + NOOP_INTERVAL_MS)
    sim.epoch += 1
    voters = [LeaderChangeMessage.Voter(voter_id=c) for c in sim.controllers]
    majority = len(sim.controllers) // 2 + 1
    granting = [sim.leader] + rng.sample(
        [c for c in sim.controllers if c != sim.leader], majority - 1
    )
    message = LeaderChangeMessage(version=0, leader_id=sim.leader, voters=voters,
                                  granting_voters=[LeaderChangeMessage.Voter(voter_id=c) for c in sorted(granting)])  # fmt: skip
    write_batch(sim, [(message, 0)], control_keys=[control_key(LEADER_CHANGE)])
    if not first and (old == sim.leader or rng.random() < 0.7):  # the failed controller restarts
        delay = rng.randint(60, 200) if old == sim.leader else rng.randint(10_000, 90_000)
        sim.schedule(delay, lambda: restart_controller(sim, old, elect=False))


def register_controller(sim: Cluster, controller: int) -> None:
    write_batch(sim, [(register_controller_record(sim, controller), 0)])
    sim.controller_registered.add(controller)


def restart_controller(sim: Cluster, controller: int, elect: bool = True) -> None:
    """A controller process restarts with a new incarnation; the active one loses leadership."""
    if elect and controller == sim.leader:
        elect_leader(sim)
        return
    sim.controller_incarnations[controller] = _uuid(sim.rng)
    register_controller(sim, controller)
