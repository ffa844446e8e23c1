"""The store's hot queries: the statements a commit and a find run use the indexes meant for them
(checked on the SQL the store really sends, with SQLite's EXPLAIN QUERY PLAN), and the
one-statement read of many partitions' offsets answers like the one-partition read."""

from __future__ import annotations

from diskless.helpers import T1, T2, Clock, batch
from kafka_meta_proto.diskless import BatchCoordinator
from kafka_meta_proto.diskless.types import CreateTopicAndPartitionsRequest, FindBatchRequest
from kafka_meta_proto.diskless.types import TopicIdPartition
from kafka_meta_proto.uuid import Uuid


def plans(store, call):
    """The query plan of every SELECT ``call()`` sends to the store's connection."""
    sent: list[str] = []
    store.db.set_trace_callback(sent.append)
    try:
        call()
    finally:
        store.db.set_trace_callback(None)
    selects = [sql for sql in sent if sql.lstrip().upper().startswith("SELECT")]
    assert selects, "the call sent no SELECT"
    return {
        sql: [row[3] for row in store.db.execute("EXPLAIN QUERY PLAN " + sql)] for sql in selects
    }


def coordinator_with_batches(tmp_path):
    c = BatchCoordinator(tmp_path / "c", clock=Clock())
    c.create_topic_and_partitions([CreateTopicAndPartitionsRequest(T1, "t", 4)])
    for n in range(3):
        tps = [TopicIdPartition(T1, p) for p in range(4)]
        c.commit_file(f"o{n}", 1, 400, [batch(tp, producer=(7, 0, n * 10)) for tp in tps])
    return c


def test_a_find_walks_the_offset_index_without_sorting(tmp_path):
    with coordinator_with_batches(tmp_path) as c:
        found = plans(
            c.reader,
            lambda: c.find_batches(
                [FindBatchRequest(TopicIdPartition(T1, 1), 5, 1 << 20)], 1 << 20
            ),
        )
        batch_reads = [plan for sql, plan in found.items() if "FROM batches" in sql]
        # SEARCH batches USING INDEX batches_by_offset (topic_id=? AND partition=? AND last_offset>?)
        assert batch_reads == [
            [
                "SEARCH batches USING INDEX batches_by_offset (topic_id=? AND partition=? AND last_offset>?)"
            ]
        ]


def test_a_commit_reads_its_partitions_and_producers_by_primary_key(tmp_path):
    with coordinator_with_batches(tmp_path) as c:
        tps = [TopicIdPartition(T1, p) for p in range(4)]
        found = plans(
            c.store,
            lambda: c.commit_file("o9", 1, 400, [batch(tp, producer=(7, 0, 30)) for tp in tps]),
        )
        partition_reads = [plan for sql, plan in found.items() if "FROM partitions" in sql]
        # one statement for the four partitions, a range of the primary key (they are close)
        assert partition_reads == [
            ["SEARCH partitions USING PRIMARY KEY (topic_id=? AND partition>? AND partition<?)"]
        ]
        producer_reads = [plan for sql, plan in found.items() if "producer_id =" in sql]
        assert producer_reads, "an idempotent batch looks its producer up"
        for plan in producer_reads:
            # the retained batches by key: that producer's rows only
            assert plan == [
                "SEARCH producer_batches USING PRIMARY KEY (topic_id=? AND partition=? AND producer_id=?)"
            ]


def test_offsets_of_partitions_far_apart_are_looked_up_by_key(tmp_path):
    with coordinator_with_batches(tmp_path) as c:
        c.create_topic_and_partitions([CreateTopicAndPartitionsRequest(T1, "t", 1000)])
        found = plans(c.store, lambda: c.store.partition_offsets(T1, [0, 500, 999]))
        # each asked partition by the primary key, not a walk over the thousand
        [plan] = found.values()
        assert plan[0] == "SEARCH partitions USING PRIMARY KEY (topic_id=? AND partition=?)"
        assert not any(step.startswith("SCAN partitions") for step in plan)
        assert c.store.partition_offsets(T1, [0, 500, 999, 1000]) == {
            0: (0, 30), 500: (0, 0), 999: (0, 0)
        }


def test_many_partitions_offsets_in_one_statement_answer_like_one_at_a_time(tmp_path):
    with coordinator_with_batches(tmp_path) as c:
        store = c.store
        asked = [0, 2, 3, 9, -1]  # 9 and -1 do not exist
        expected = {p: store.offsets(T1, p) for p in asked if store.offsets(T1, p) is not None}
        assert store.partition_offsets(T1, asked) == expected
        assert sorted(expected) == [0, 2, 3]
        assert expected[0] == (0, 30)
        assert store.partition_offsets(T2, [0, 1]) == {}  # an unknown topic
        assert store.partition_offsets(Uuid.ZERO_UUID, []) == {}
        assert store.partition_offsets(T1, [3, 0, 3]) == {0: (0, 30), 3: (0, 30)}  # repeats once
