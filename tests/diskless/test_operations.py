"""The coordinator's operations through its Python interface: offsets, idempotent producers (and
their state after deletions and expiry), finds, offsets by timestamp, deletions, retention, the
files to delete, and their error codes."""

from __future__ import annotations

import pytest

from diskless.helpers import START, T1, T2, Clock, batch
from kafka_meta_proto.diskless import BatchCoordinator
from kafka_meta_proto.diskless.coordinator import expired_batches
from kafka_meta_proto.diskless.store import PRODUCER_ID_EXPIRATION_MS
from kafka_meta_proto.diskless.types import (
    CommitBatchRequest,
    CommitBatchResponse,
    CreateTopicAndPartitionsRequest,
    DeleteRecordsRequest,
    FileToDelete,
    FindBatchRequest,
    ListOffsetsRequest,
    TopicIdPartition,
)
from kafka_meta_proto.error_codes import ErrorCode as E
from kafka_meta_proto.uuid import Uuid

P0, P1 = TopicIdPartition(T1, 0), TopicIdPartition(T1, 1)


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def coordinator(tmp_path, clock):
    with BatchCoordinator(tmp_path / "c", clock=clock) as c:
        assert c.create_topic_and_partitions([CreateTopicAndPartitionsRequest(T1, "t1", 2)]) == [E.NONE]
        yield c


def offsets(c, tp):
    found = c.list_offsets([ListOffsetsRequest(tp, -2), ListOffsetsRequest(tp, -1)])
    return found[0].offset, found[1].offset


def test_offsets_are_assigned_in_commit_order_without_gaps(coordinator, clock):
    a = coordinator.commit_file("o1", 3, 300, [batch(P0, 10), batch(P1, 4, byte_offset=100), batch(P0, 1, byte_offset=200)])
    assert [(r.error, r.assigned_base_offset, r.log_start_offset) for r in a] == [(E.NONE, 0, 0), (E.NONE, 0, 0), (E.NONE, 10, 0)]
    b = coordinator.commit_file("o2", 3, 100, [batch(P0, 5)])
    assert b == [CommitBatchResponse(E.NONE, 11, -1, 0, False)]
    assert offsets(coordinator, P0) == (0, 16) and offsets(coordinator, P1) == (0, 4)


def test_log_append_time_is_answered_for_log_append_time_batches_only(coordinator, clock):
    clock.now = 1234
    a = coordinator.commit_file("o", 1, 200, [batch(P0, timestamp_type=1), batch(P0, timestamp_type=0, byte_offset=100)])
    assert [r.log_append_time for r in a] == [1234, -1]
    found = coordinator.find_batches([FindBatchRequest(P0, 0, 1000)], 1000)[0].batches
    assert [b.metadata.log_append_timestamp for b in found] == [1234, 1234]


def test_bad_batches_and_unknown_partitions_get_their_codes_and_the_rest_commits(coordinator):
    bad = [
        batch(TopicIdPartition(T2, 0)),  # unknown topic id
        batch(TopicIdPartition(T1, 7)),  # a partition the topic does not have
        batch(P0, size=0),
        batch(P0, byte_offset=-1),
        batch(P0, timestamp_type=5),
        CommitBatchRequest(P0, 0, 10, 5, 4, 0, 0),  # last offset before the base offset
        CommitBatchRequest(P0, 0, 10, 0, 9, 0, 0, 5, 0, 0, 3),  # the sequences do not span the records
        batch(P0, 2),
    ]
    answers = coordinator.commit_file("o", 1, 100, bad)
    assert [r.error for r in answers] == [E.UNKNOWN_TOPIC_ID, E.UNKNOWN_TOPIC_OR_PARTITION] + [E.INVALID_REQUEST] * 5 + [E.NONE]
    assert answers[-1].assigned_base_offset == 0 and all(r.assigned_base_offset == -1 for r in answers[:-1])


def test_an_object_key_commits_once(coordinator):
    assert coordinator.commit_file("o", 1, 100, [batch(P0)])[0].error == E.NONE
    assert coordinator.commit_file("o", 1, 100, [batch(P0)]) == [CommitBatchResponse(E.INVALID_REQUEST)]
    assert coordinator.commit_file("", 1, 100, [batch(P0)]) == [CommitBatchResponse(E.INVALID_REQUEST)]
    assert offsets(coordinator, P0) == (0, 10)


def test_sizes_and_offsets_beyond_what_kafka_and_sqlite_hold_are_refused(coordinator):
    """Every number the state keeps fits an int64, and a batch's offsets an int32 delta, as in
    Kafka's record batches: a request past them is answered INVALID_REQUEST, never an error of the
    store (found by the test sending arbitrary requests)."""
    int64_max = (1 << 63) - 1
    assert coordinator.commit_file("huge", 1, int64_max + 1, [batch(P0)]) == [CommitBatchResponse(E.INVALID_REQUEST)]
    far = [batch(P0, byte_offset=1, size=int64_max),  # ends one byte past int64
           CommitBatchRequest(P0, 0, 10, 0, 1 << 31, 0, 0),  # 2**31 + 1 records: the delta is past int32
           batch(P0, size=int64_max - 100), batch(P1, size=int64_max - 100),  # together past int64
           batch(P0, 2)]  # fmt: skip
    answers = coordinator.commit_file("o", 1, int64_max, far)
    assert [a.error for a in answers] == [E.INVALID_REQUEST] * 2 + [E.NONE, E.INVALID_REQUEST, E.NONE]
    assert offsets(coordinator, P0) == (0, 12)


def test_idempotent_producer_duplicates_get_their_original_offsets(coordinator):
    stamp = START - 9  # recent: the producer is not expired
    first = coordinator.commit_file(
        "o1", 1, 100, [batch(P0, 10, producer=(7, 0, 0), max_timestamp=stamp)]
    )
    coordinator.commit_file("o2", 1, 100, [batch(P0, 10, producer=(8, 0, 0))])
    again = coordinator.commit_file("o3", 1, 100, [batch(P0, 10, producer=(7, 0, 0))])
    assert first[0].assigned_base_offset == 0
    assert again == [CommitBatchResponse(E.NONE, 0, stamp, 0, True)]  # Kafka's: its timestamp
    assert offsets(coordinator, P0) == (0, 20)
    assert [f.object_key for f in coordinator.get_files_to_delete()] == ["o3"]  # nothing of it is used


def test_duplicates_are_found_among_the_last_five_batches_only(coordinator):
    for n in range(6):
        coordinator.commit_file(f"o{n}", 1, 100, [batch(P0, 1, producer=(7, 0, n))])
    assert coordinator.commit_file("x1", 1, 100, [batch(P0, 1, producer=(7, 0, 1))])[0].is_duplicate
    old = coordinator.commit_file("x2", 1, 100, [batch(P0, 1, producer=(7, 0, 0))])[0]
    assert (old.error, old.is_duplicate) == (E.OUT_OF_ORDER_SEQUENCE_NUMBER, False)


def test_sequences_and_epochs_follow_kafkas_rules(coordinator):
    c = coordinator
    assert c.commit_file("a", 1, 100, [batch(P0, 5, producer=(7, 3, 40))])[0].error == E.NONE  # first: any sequence
    assert c.commit_file("b", 1, 100, [batch(P0, 5, producer=(7, 3, 46))])[0].error == E.OUT_OF_ORDER_SEQUENCE_NUMBER
    assert c.commit_file("c", 1, 100, [batch(P0, 5, producer=(7, 3, 45))])[0].error == E.NONE
    assert c.commit_file("d", 1, 100, [batch(P0, 5, producer=(7, 2, 50))])[0].error == E.INVALID_PRODUCER_EPOCH
    assert c.commit_file("e", 1, 100, [batch(P0, 5, producer=(7, 4, 50))])[0].error == E.OUT_OF_ORDER_SEQUENCE_NUMBER
    assert c.commit_file("f", 1, 100, [batch(P0, 5, producer=(7, 4, 0))])[0].error == E.NONE  # a new epoch at 0
    assert c.commit_file("g", 1, 100, [batch(P0, 5, producer=(7, 3, 50))])[0].error == E.INVALID_PRODUCER_EPOCH
    # in one commit, a later batch sees the earlier one
    two = c.commit_file("h", 1, 200, [batch(P0, 5, producer=(7, 4, 5)), batch(P0, 5, producer=(7, 4, 10), byte_offset=100)])
    assert [(r.error, r.assigned_base_offset) for r in two] == [(E.NONE, 15), (E.NONE, 20)]
    # the sequence wraps after 2**31 - 1
    assert c.commit_file("i", 1, 100, [batch(P1, 1, producer=(9, 0, (1 << 31) - 1))])[0].error == E.NONE
    assert c.commit_file("j", 1, 100, [batch(P1, 1, producer=(9, 0, 0))])[0].error == E.NONE


def produce(c, key, producer, tp=P0, count=5, **fields) -> CommitBatchResponse:
    """The answer to one idempotent batch, ``producer`` (id, epoch, base sequence), in an object
    of its own."""
    return c.commit_file(key, 1, 100, [batch(tp, count, producer=producer, **fields)])[0]


def retained(c, producer_id, tp=P0):
    """(epoch, base sequence) of the producer's retained batches, newest first."""
    found = c.store.retained_batches(tp.topic_id, tp.partition, producer_id)
    return [(b.producer_epoch, b.base_sequence) for b in found]


def test_a_new_epoch_replaces_the_retained_batches_and_five_are_kept(coordinator):
    for n in range(7):
        produce(coordinator, f"o{n}", (7, 0, n), count=1)
    assert retained(coordinator, 7) == [(0, 6), (0, 5), (0, 4), (0, 3), (0, 2)]
    produce(coordinator, "bump", (7, 1, 0), count=1)
    assert retained(coordinator, 7) == [(1, 0)]
    # in one commit as well: the batch of the new epoch leaves the one before it behind
    bumps = [batch(P0, 1, producer=(7, 1, 1)), batch(P0, 1, producer=(7, 2, 0), byte_offset=100)]
    assert [a.error for a in coordinator.commit_file("bumps", 1, 200, bumps)] == [E.NONE, E.NONE]
    assert retained(coordinator, 7) == [(2, 0)]


REMOVALS = {
    "DeleteRecords": lambda c: c.delete_records([DeleteRecordsRequest(P0, -1)])[0].low_watermark,
    "retention": lambda c: c.enforce_retention(P0, -1, 0),  # by size: nothing may stay
}


@pytest.mark.parametrize("remove", REMOVALS.values(), ids=REMOVALS.keys())
def test_a_producer_keeps_its_state_when_its_batches_are_removed(coordinator, remove):
    c = coordinator
    produce(c, "a", (7, 2, 0), max_timestamp=START - 2)
    produce(c, "b", (7, 2, 5), max_timestamp=START - 1)
    assert remove(c) == 10
    assert c.find_batches([FindBatchRequest(P0, 10, 1000)], 1000)[0].batches == []
    # a retry of a deleted batch is still a duplicate, answered with its original offsets
    assert produce(c, "b2", (7, 2, 5)) == CommitBatchResponse(E.NONE, 5, START - 1, 10, True)
    assert produce(c, "a2", (7, 2, 0)) == CommitBatchResponse(E.NONE, 0, START - 2, 10, True)
    assert produce(c, "gap", (7, 2, 11)).error == E.OUT_OF_ORDER_SEQUENCE_NUMBER
    assert produce(c, "stale", (7, 1, 10)).error == E.INVALID_PRODUCER_EPOCH
    assert produce(c, "next", (7, 2, 10))[:2] == (E.NONE, 10)
    assert offsets(c, P0) == (10, 15)


def test_a_producer_expires_a_day_after_its_newest_batch(coordinator, clock):
    c = coordinator
    produce(c, "a", (7, 2, 0), max_timestamp=START)
    c.delete_records([DeleteRecordsRequest(P0, -1)])
    clock.now = START + PRODUCER_ID_EXPIRATION_MS - 1
    assert produce(c, "b", (7, 2, 77)).error == E.OUT_OF_ORDER_SEQUENCE_NUMBER
    assert produce(c, "c", (7, 2, 0)).is_duplicate
    clock.now += 1  # expired: no state, any sequence and epoch
    assert produce(c, "d", (7, 1, 77), max_timestamp=clock.now)[:2] == (E.NONE, 5)
    # the state starts again from that batch alone: the batch of before is no duplicate now
    assert produce(c, "e", (7, 1, 0)).error == E.OUT_OF_ORDER_SEQUENCE_NUMBER
    assert produce(c, "f", (7, 1, 82))[:2] == (E.NONE, 10)


def test_a_log_append_time_batch_counts_its_append_time_for_expiry(coordinator, clock):
    c = coordinator
    produce(c, "a", (7, 0, 0), max_timestamp=0, timestamp_type=1)
    produce(c, "b", (7, 0, 0), tp=P1, max_timestamp=0)  # create time 0: long expired
    clock.now += PRODUCER_ID_EXPIRATION_MS - 1
    assert produce(c, "c", (7, 0, 77)).error == E.OUT_OF_ORDER_SEQUENCE_NUMBER
    assert produce(c, "d", (7, 0, 77), tp=P1).error == E.NONE


def test_a_batch_stamped_over_a_day_ago_leaves_no_state_even_in_its_own_commit(coordinator):
    old_then_any = [batch(P0, 1, producer=(7, 0, 0), max_timestamp=0),
                    batch(P0, 1, producer=(7, 0, 50), byte_offset=100)]  # fmt: skip
    assert [a.error for a in coordinator.commit_file("o", 1, 200, old_then_any)] == [E.NONE, E.NONE]
    assert retained(coordinator, 7) == [(0, 50)]


def test_a_topic_deleted_and_created_again_has_no_producer_state(coordinator):
    c = coordinator
    produce(c, "a", (7, 2, 0))
    produce(c, "b", (7, 2, 5))
    assert c.delete_topics([T1]) == [E.NONE] and retained(c, 7) == []
    assert c.create_topic_and_partitions([CreateTopicAndPartitionsRequest(T1, "t1", 2)]) == [E.NONE]
    assert produce(c, "c", (7, 2, 5)) == CommitBatchResponse(E.NONE, 0, -1, 0, False)
    assert produce(c, "d", (7, 0, 40)).error == E.INVALID_PRODUCER_EPOCH


def test_find_batches_respects_both_byte_limits_and_always_gives_a_first_batch(coordinator):
    coordinator.commit_file("o", 1, 1000, [batch(P0, 1, byte_offset=100 * i) for i in range(5)])
    coordinator.commit_file("p", 1, 1000, [batch(P1, 1, byte_offset=100 * i) for i in range(5)])

    def found(requests, total):
        return [[b.metadata.base_offset for b in r.batches] for r in coordinator.find_batches(requests, total)]

    assert found([FindBatchRequest(P0, 1, 250)], 1000) == [[1, 2]]
    assert found([FindBatchRequest(P0, 0, 1000), FindBatchRequest(P1, 0, 1000)], 350) == [[0, 1, 2], []]
    assert found([FindBatchRequest(P0, 0, 10)], 10) == [[0]]  # larger than both limits, still given
    assert found([FindBatchRequest(P0, 5, 100)], 100) == [[]]  # at the high watermark: nothing yet
    answer = coordinator.find_batches([FindBatchRequest(P0, 2, 100)], 100)[0]
    assert (answer.log_start_offset, answer.high_watermark, answer.batches[0].object_key) == (0, 5, "o")


def test_find_batches_error_codes(coordinator):
    coordinator.commit_file("o", 1, 100, [batch(P0, 5)])
    coordinator.delete_records([DeleteRecordsRequest(P0, 3)])
    requests = [FindBatchRequest(P0, 6, 100), FindBatchRequest(P0, 2, 100), FindBatchRequest(P0, 3, -1),
                FindBatchRequest(TopicIdPartition(T2, 0), 0, 100), FindBatchRequest(TopicIdPartition(T1, 2), 0, 100)]  # fmt: skip
    answers = coordinator.find_batches(requests, 1000)
    assert [a.error for a in answers] == [E.OFFSET_OUT_OF_RANGE, E.OFFSET_OUT_OF_RANGE, E.INVALID_REQUEST,
                                          E.UNKNOWN_TOPIC_ID, E.UNKNOWN_TOPIC_OR_PARTITION]  # fmt: skip
    assert (answers[0].log_start_offset, answers[0].high_watermark) == (3, 5)
    assert (answers[3].log_start_offset, answers[3].high_watermark, answers[3].batches) == (-1, -1, [])


def test_list_offsets_special_timestamps_and_search(coordinator, clock):
    clock.now = 500
    coordinator.commit_file("o", 1, 400, [
        batch(P0, 2, max_timestamp=100), batch(P0, 3, max_timestamp=300, byte_offset=100),
        batch(P0, 1, max_timestamp=200, byte_offset=200), batch(P0, 1, timestamp_type=1, max_timestamp=9, byte_offset=300),
    ])  # fmt: skip

    def ask(ts, tp=P0):
        a = coordinator.list_offsets([ListOffsetsRequest(tp, ts)])[0]
        return a.error, a.timestamp, a.offset

    assert ask(-2) == ask(-4) == (E.NONE, -1, 0)  # earliest, earliest local
    assert ask(-1) == (E.NONE, -1, 7)  # latest: the high watermark
    assert ask(-5) == ask(-6) == (E.NONE, -1, -1)  # latest tiered, earliest pending upload: nothing is tiered
    assert ask(-3) == (E.NONE, 500, 6)  # max timestamp: the log-append-time batch (one record)
    # Kafka's answer is the first record holding the largest timestamp: under LOG_APPEND_TIME a
    # batch's first; under create time (records unseen) the batch's last
    coordinator.create_topic_and_partitions([CreateTopicAndPartitionsRequest(T1, "t1", 3)])
    p2 = TopicIdPartition(T1, 2)
    coordinator.commit_file("p1", 1, 200, [batch(p2, 4, timestamp_type=1, max_timestamp=9),
                                           batch(p2, 3, max_timestamp=400, byte_offset=100)])  # fmt: skip
    assert ask(-3, p2) == (E.NONE, 500, 0)
    clock.now = 300
    coordinator.commit_file("p2", 1, 100, [batch(p2, 3, max_timestamp=600)])
    assert ask(-3, p2) == (E.NONE, 600, 9)
    assert ask(150) == (E.NONE, 300, 2)  # the first batch at or after 150
    assert ask(250) == (E.NONE, 300, 2)
    assert ask(301) == (E.NONE, 500, 6)
    assert ask(501) == (E.NONE, -1, -1)
    assert ask(-7)[0] == ask(-100)[0] == E.UNSUPPORTED_VERSION  # as Kafka's broker answers
    assert ask(-1, TopicIdPartition(T2, 0))[0] == E.UNKNOWN_TOPIC_ID
    assert ask(-3, P1) == (E.NONE, -1, -1)  # an empty partition
    # a log start inside a batch: never an offset below it, as Kafka's search
    coordinator.delete_records([DeleteRecordsRequest(P0, 3)])
    assert ask(150) == (E.NONE, 300, 3)
    found = coordinator.find_batches([FindBatchRequest(P0, ask(150)[2], 1000)], 1000)[0]
    assert (found.error, found.batches[0].metadata.base_offset) == (E.NONE, 2)


def test_delete_records_moves_the_log_start_and_soft_deletes_emptied_objects(coordinator, clock):
    coordinator.commit_file("o1", 1, 200, [batch(P0, 5), batch(P1, 5, byte_offset=100)])
    coordinator.commit_file("o2", 1, 100, [batch(P0, 5)])
    clock.now += 10
    answers = coordinator.delete_records([
        DeleteRecordsRequest(P0, 5), DeleteRecordsRequest(P0, 3), DeleteRecordsRequest(P1, 11),
        DeleteRecordsRequest(P1, -5), DeleteRecordsRequest(TopicIdPartition(T2, 0), 0),
    ])  # fmt: skip
    assert [(a.error, a.low_watermark) for a in answers] == [
        (E.NONE, 5), (E.NONE, 5), (E.OFFSET_OUT_OF_RANGE, 0), (E.OFFSET_OUT_OF_RANGE, 0), (E.UNKNOWN_TOPIC_ID, -1)]
    assert coordinator.get_files_to_delete() == []  # o1 still holds P1's batch
    coordinator.delete_records([DeleteRecordsRequest(P1, -1)])
    assert coordinator.get_files_to_delete() == [FileToDelete("o1", clock.now)]
    assert offsets(coordinator, P0) == (5, 10)
    # a log start inside a batch keeps that batch (Kafka deletes whole batches only)
    coordinator.delete_records([DeleteRecordsRequest(P0, 7)])
    assert [b.metadata.base_offset for b in coordinator.find_batches([FindBatchRequest(P0, 7, 1000)], 1000)[0].batches] == [5]


def test_files_are_forgotten_only_once_soft_deleted(coordinator):
    coordinator.commit_file("o1", 1, 100, [batch(P0, 5)])
    coordinator.commit_file("o2", 1, 100, [batch(P1, 5)])
    coordinator.delete_records([DeleteRecordsRequest(P0, -1)])
    assert coordinator.is_safe_to_delete_file("o1") and not coordinator.is_safe_to_delete_file("o2")
    assert coordinator.is_safe_to_delete_file("never-committed")
    coordinator.delete_files(["o1", "o2"])
    assert coordinator.get_files_to_delete() == []
    assert not coordinator.is_safe_to_delete_file("o2")
    assert coordinator.find_batches([FindBatchRequest(P1, 0, 1000)], 1000)[0].batches[0].object_key == "o2"


def test_delete_topics_drops_partitions_and_frees_objects(coordinator):
    coordinator.create_topic_and_partitions([CreateTopicAndPartitionsRequest(T2, "t2", 1)])
    t2 = TopicIdPartition(T2, 0)
    coordinator.commit_file("o", 1, 200, [batch(P0, 5), batch(t2, 5, byte_offset=100)])
    assert coordinator.delete_topics([T1, Uuid(bytes(16)), T1]) == [E.NONE, E.UNKNOWN_TOPIC_ID, E.UNKNOWN_TOPIC_ID]
    assert coordinator.list_offsets([ListOffsetsRequest(P0, -1)])[0].error == E.UNKNOWN_TOPIC_ID
    assert coordinator.get_files_to_delete() == []
    coordinator.delete_topics([T2])
    assert [f.object_key for f in coordinator.get_files_to_delete()] == ["o"]


def test_creating_partitions(coordinator):
    create = coordinator.create_topic_and_partitions
    assert create([CreateTopicAndPartitionsRequest(T1, "t1", 2)]) == [E.NONE]  # the same again
    assert create([CreateTopicAndPartitionsRequest(T1, "t1", 1)]) == [E.INVALID_PARTITIONS]
    assert create([CreateTopicAndPartitionsRequest(T2, "t2", 0)]) == [E.INVALID_PARTITIONS]
    assert create([CreateTopicAndPartitionsRequest(Uuid(bytes(16)), "z", 1)]) == [E.INVALID_REQUEST]
    coordinator.commit_file("o", 1, 100, [batch(P0, 5)])
    assert create([CreateTopicAndPartitionsRequest(T1, "t1", 3)]) == [E.NONE]
    assert offsets(coordinator, TopicIdPartition(T1, 2)) == (0, 0) and offsets(coordinator, P0) == (0, 5)
    # Kafka's controller adds at most 10,000 partitions a request: more is refused whole, at once
    assert create([CreateTopicAndPartitionsRequest(T2, "t2", 2**31 - 1)]) == [E.POLICY_VIOLATION]
    two = [CreateTopicAndPartitionsRequest(T2, "t2", 10_000), CreateTopicAndPartitionsRequest(T1, "t1", 4)]
    assert create(two) == [E.POLICY_VIOLATION] * 2
    assert coordinator.store.num_partitions(T2) is None and coordinator.store.num_partitions(T1) == 3
    assert create([CreateTopicAndPartitionsRequest(T2, "t2", 9_999), CreateTopicAndPartitionsRequest(T1, "t1", 4)]) == [0, 0]


def test_retention_by_time_and_by_size(coordinator, clock):
    clock.now = 1000
    coordinator.commit_file("o", 1, 300, [batch(P0, 2, max_timestamp=100), batch(P0, 2, max_timestamp=500, byte_offset=100),
                                          batch(P0, 2, max_timestamp=900, byte_offset=200)])  # fmt: skip
    assert coordinator.enforce_retention(P0, -1, -1) == 0
    assert coordinator.enforce_retention(P0, 600, -1) == 2  # the batch of 100 is over 600 ms old
    # by size, as Kafka: a batch goes only if what stays still holds retention_bytes
    assert coordinator.enforce_retention(P0, -1, 150) == 2  # 200 bytes; dropping one leaves 100
    assert coordinator.enforce_retention(P0, -1, 100) == 4  # 100 bytes stay, exactly the limit
    assert offsets(coordinator, P0) == (4, 6)
    with pytest.raises(KeyError):
        coordinator.enforce_retention(TopicIdPartition(T2, 0), 1, 1)


def test_retention_by_size_comes_before_time_and_keeps_the_limit():
    batches = [(1, 100, 60), (3, 900, 60), (5, 100, 60)]  # (last offset, timestamp, size)
    assert expired_batches(batches, 1000, -1, 100) == 1  # 120 stay; one more would leave 60
    assert expired_batches(batches, 1000, -1, 0) == 3
    assert expired_batches(batches, 1000, -1, 500) == 0  # under the limit: nothing
    assert expired_batches(batches, 1000, 500, -1) == 1  # by time, the oldest only: the next is new
    assert expired_batches(batches, 1000, 500, 100) == 1
    assert expired_batches(batches, 1000, 500, 30) == 3  # size takes two, then time the third
