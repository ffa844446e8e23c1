"""A broker's registration as the KRaft rules see it, and what the broker records do to it.

Written once for everything that replays a metadata log: the image refuses a record that names a
broker that is not registered, or an epoch other than its registered one (Kafka's controller
refuses those too); the audit reports those and also a fence of a fenced broker or an unfence of
an unfenced one. ``apply_broker`` gives the new state and the problem found; what is done about
the problem (an error, a finding, nothing) is the caller's choice.
"""

from __future__ import annotations

from typing import NamedTuple

from .rules import FENCE, UNFENCE

# What a broker record does (a BrokerRegistrationChangeRecord by its Fenced value, see op_of_change).
REGISTER = "register"
UNREGISTER = "unregister"
FENCE_BROKER = "fence"
UNFENCE_BROKER = "unfence"
CHANGE = "change"

# The problems apply_broker finds.
NOT_REGISTERED = "not registered"  # no registration, or an unregistered one
WRONG_EPOCH = "wrong epoch"  # the record names an epoch other than the registered one
ALREADY_FENCED = "already fenced"  # a fence of a fenced broker
NOT_FENCED = "not fenced"  # an unfence of an unfenced broker
# The problems Kafka refuses a record for: the others are harmless to the state.
REFUSED = (NOT_REGISTERED, WRONG_EPOCH)


class BrokerState(NamedTuple):
    """What the broker records say of one broker id."""

    registered: bool | None = None  # None: never registered; False: unregistered
    epoch: int | None = None  # of the last RegisterBrokerRecord / UnregisterBrokerRecord
    fenced: bool | None = None  # as the last record that said so left it


NEVER_REGISTERED = BrokerState()


def op_of_change(fenced: int | None) -> str:
    """What a BrokerRegistrationChangeRecord does, by its Fenced value."""
    return FENCE_BROKER if fenced == FENCE else UNFENCE_BROKER if fenced == UNFENCE else CHANGE


def broker_problem(state: BrokerState, op: str, epoch: int | None) -> str | None:
    """The problem with applying ``op`` naming ``epoch`` to a broker in ``state`` (None if none)."""
    if op == REGISTER:
        return None
    if not state.registered:
        return NOT_REGISTERED
    if op == UNREGISTER:
        return None
    if state.epoch != epoch:
        return WRONG_EPOCH
    if op == FENCE_BROKER and state.fenced is True:
        return ALREADY_FENCED
    if op == UNFENCE_BROKER and state.fenced is False:
        return NOT_FENCED
    return None


def apply_broker(
    state: BrokerState, op: str, epoch: int | None, fenced: bool | None = None
) -> tuple[BrokerState, str | None]:
    """The broker's state after ``op`` and the problem found (None if none). ``fenced`` is the
    RegisterBrokerRecord's Fenced flag (only a registration reads it). The state follows the
    record even when the record was a problem: a replay that reports goes on from what the log
    says."""
    problem = broker_problem(state, op, epoch)
    if op == REGISTER:
        return BrokerState(True, epoch, fenced), problem
    if op == UNREGISTER:
        return BrokerState(False, epoch, state.fenced), problem
    if op == FENCE_BROKER and state.fenced is not True:
        return BrokerState(state.registered, state.epoch, True), problem
    if op == UNFENCE_BROKER and state.fenced is not False:
        return BrokerState(state.registered, state.epoch, False), problem
    return state, problem
