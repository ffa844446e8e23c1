"""The broker transitions of kraft.brokers, which the image and the audit both apply: the state
each record leaves and the problem it finds."""

from __future__ import annotations

import pytest

from kafka_meta_proto.kraft.brokers import (
    ALREADY_FENCED,
    CHANGE,
    FENCE_BROKER,
    NEVER_REGISTERED,
    NOT_FENCED,
    NOT_REGISTERED,
    REGISTER,
    UNFENCE_BROKER,
    UNREGISTER,
    WRONG_EPOCH,
    BrokerState,
    apply_broker,
    op_of_change,
)
from kafka_meta_proto.kraft.rules import FENCE, FENCING_UNCHANGED, UNFENCE

LIVE = BrokerState(True, 7, False)


def test_a_registration_is_never_a_problem_and_sets_the_fencing():
    assert apply_broker(NEVER_REGISTERED, REGISTER, 3, True) == (BrokerState(True, 3, True), None)
    assert apply_broker(LIVE, REGISTER, 2, False) == (BrokerState(True, 2, False), None)


@pytest.mark.parametrize("op", [UNREGISTER, FENCE_BROKER, UNFENCE_BROKER, CHANGE])
def test_a_broker_never_registered_or_unregistered_is_not_registered(op):
    assert apply_broker(NEVER_REGISTERED, op, 7)[1] == NOT_REGISTERED
    assert apply_broker(BrokerState(False, 7, False), op, 7)[1] == NOT_REGISTERED


def test_unregistering_keeps_the_epoch_it_names_and_checks_no_epoch():
    assert apply_broker(LIVE, UNREGISTER, 9) == (BrokerState(False, 9, False), None)


@pytest.mark.parametrize("op", [FENCE_BROKER, UNFENCE_BROKER, CHANGE])
def test_another_epoch_is_a_problem(op):
    assert apply_broker(LIVE, op, 6)[1] == WRONG_EPOCH


def test_fencing_twice_and_unfencing_an_unfenced_broker_are_problems_that_still_apply():
    fenced = BrokerState(True, 7, True)
    assert apply_broker(LIVE, FENCE_BROKER, 7) == (fenced, None)
    assert apply_broker(fenced, FENCE_BROKER, 7) == (fenced, ALREADY_FENCED)
    assert apply_broker(fenced, UNFENCE_BROKER, 7) == (LIVE, None)
    assert apply_broker(LIVE, UNFENCE_BROKER, 7) == (LIVE, NOT_FENCED)
    assert apply_broker(LIVE, CHANGE, 7) == (LIVE, None)


def test_a_registration_change_acts_by_its_fenced_value():
    assert [op_of_change(v) for v in (FENCE, UNFENCE, FENCING_UNCHANGED, 5, None)] == [
        FENCE_BROKER, UNFENCE_BROKER, CHANGE, CHANGE, CHANGE]  # fmt: skip
