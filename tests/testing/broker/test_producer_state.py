"""Idempotent producers' sequence and epoch checks, as Kafka's ProducerAppendInfo makes them."""

from __future__ import annotations

import pytest

from kafka_meta_proto.error_codes import ErrorCode
from kafka_meta_proto.log.header import read_header
from kafka_meta_proto.testing.broker.producer_state import (
    MAX_SEQUENCE,
    ProducerStateError,
    ProducerStates,
    last_sequence,
)

from .helpers import batch


def header(sequence: int, count: int = 2, epoch: int = 0, producer_id: int = 7):
    return read_header(batch([b"x"] * count, producer=(producer_id, epoch, sequence)))


def written(states: ProducerStates, first_offset: int, *args, **kwargs):
    h = header(*args, **kwargs)
    assert states.check(h) is None
    states.record(h, first_offset, 1000)
    return h


def refused(states: ProducerStates, h) -> ErrorCode:
    with pytest.raises(ProducerStateError) as caught:
        states.check(h)
    return caught.value.code


def test_a_new_producer_may_start_at_any_sequence_and_must_then_follow_on():
    states = ProducerStates()
    written(states, 0, 5)  # no state: accepted, as Kafka accepts since KIP-360
    written(states, 2, 7)
    assert refused(states, header(10)) == ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER
    assert refused(states, header(8, count=1)) == ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER
    assert states.check(header(9)) is None


def test_a_retried_batch_is_a_duplicate_answered_with_its_first_offsets():
    states = ProducerStates()
    for i in range(6):
        written(states, 10 + 2 * i, 2 * i)
    duplicate = states.check(header(8))
    assert duplicate is not None and (duplicate.first_offset, duplicate.last_offset) == (18, 19)
    # only the last five batches are kept: the first is out of sequence now
    assert refused(states, header(0)) == ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER
    # the same first sequence with another length is no duplicate
    assert refused(states, header(8, count=3)) == ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER


def test_epochs_older_are_refused_and_a_new_one_starts_at_zero():
    states = ProducerStates()
    written(states, 0, 0, epoch=3)
    assert refused(states, header(2, epoch=2)) == ErrorCode.INVALID_PRODUCER_EPOCH
    assert refused(states, header(2, epoch=4)) == ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER
    written(states, 2, 0, epoch=4)
    assert refused(states, header(0, epoch=3)) == ErrorCode.INVALID_PRODUCER_EPOCH


def test_sequences_wrap_after_the_largest_int32():
    h = header(MAX_SEQUENCE - 1, count=4)
    assert last_sequence(h) == 1  # MAX-1, MAX, 0, 1
    states = ProducerStates()
    written(states, 0, MAX_SEQUENCE - 1, count=4)
    assert states.check(header(2)) is None
    assert refused(states, header(0)) == ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER


def test_batches_without_a_producer_are_not_checked():
    states = ProducerStates()
    plain = read_header(batch([b"x"]))
    assert states.check(plain) is None
    states.record(plain, 0, 0)
    assert states.entries == {}
