"""Produce over loopback with the package's client: acks 0, 1 and all, every codec as sent,
idempotent producers, and each refusal with Kafka's error code."""

from __future__ import annotations

import pytest

from kafka_meta_proto.client import ConnectionClosed, connect
from kafka_meta_proto.error_codes import ErrorCode
from kafka_meta_proto.log import CompressionType, SegmentReader, list_segments
from kafka_meta_proto.log.header import TimestampType
from kafka_meta_proto.messages import ProduceRequest

from .helpers import (
    answers_of,
    batch,
    batches_of,
    fetch_request,
    one_broker,
    produce,
    produce_request,
    run,
)


async def read_all(setup, topic="events", partition=0):
    response = await setup.conn.send(fetch_request(setup, {(topic, partition): 0}))
    answer = list(answers_of(response).values())[0]
    assert answer.error_code == 0
    return answer


@pytest.mark.parametrize("codec", list(CompressionType))
def test_each_codec_is_stored_as_sent_and_read_back(tmp_path, codec):
    async def main():
        async with one_broker(tmp_path) as setup:
            sent = batch([b"first", b"second", b"third"], compression=codec)
            answer = await produce(setup, "events", 0, sent)
            assert (answer.error_code, answer.base_offset, answer.log_start_offset) == (0, 0, 0)
            assert answer.log_append_time_ms == -1
            again = await produce(setup, "events", 0, sent)
            assert again.base_offset == 3
            fetched = await read_all(setup)
            assert fetched.high_watermark == 6
            got = batches_of(fetched.records)
            assert [b.base_offset for b in got] == [0, 3]
            assert all(b.compression == codec and b.partition_leader_epoch == 0 for b in got)
            assert bytes(fetched.records)[61 - 40:len(sent)] == sent[21:]  # payload as sent
            return setup.broker.replicas.get("events", 0).directory

    directory = run(main())
    with SegmentReader(list_segments(directory)[0].path) as reader:
        assert [batch.base_offset for _, batch in reader] == [0, 3]


def test_acks_zero_gets_no_answer_and_the_records_are_written(tmp_path):
    async def main():
        async with one_broker(tmp_path) as setup:
            request = ProduceRequest(acks=0, topic_data=[ProduceRequest.TopicProduceData(
                name="events", topic_id=setup.topic_id("events"),
                partition_data=[ProduceRequest.PartitionProduceData(index=0, records=batch([b"x"]))])])  # fmt: skip
            await setup.conn.send_oneway(request)
            answer = await produce(setup, "events", 0, batch([b"y"]), acks=-1)
            assert answer.base_offset == 1

    run(main())


def test_a_refused_acks_zero_produce_closes_the_connection(tmp_path):
    async def main():
        async with one_broker(tmp_path) as setup:
            request = ProduceRequest(acks=0, topic_data=[ProduceRequest.TopicProduceData(
                name="events", topic_id=setup.topic_id("events"),
                partition_data=[ProduceRequest.PartitionProduceData(index=7, records=batch([b"x"]))])])  # fmt: skip
            await setup.conn.send_oneway(request)
            with pytest.raises(ConnectionClosed):
                await produce(setup, "events", 0, batch([b"y"]), acks=-1)

    run(main())


def test_refusals(tmp_path):
    async def main():
        async with one_broker(tmp_path, {"events": 1, "strict": 1},
                              {"strict": {"min.insync.replicas": "2"}}) as setup:  # fmt: skip
            assert (await produce(setup, "events", 0, batch([b"x"]), acks=2)).error_code == ErrorCode.INVALID_REQUIRED_ACKS
            assert (await produce(setup, "events", 5, batch([b"x"]))).error_code == ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
            assert (await produce(setup, "nothing", 0, batch([b"x"]), version=12)).error_code == ErrorCode.UNKNOWN_TOPIC_OR_PARTITION
            assert (await produce(setup, "nothing", 0, batch([b"x"]), version=13)).error_code == ErrorCode.UNKNOWN_TOPIC_ID
            refused = await produce(setup, "strict", 0, batch([b"x"]), acks=-1)
            assert refused.error_code == ErrorCode.NOT_ENOUGH_REPLICAS
            assert (await produce(setup, "strict", 0, batch([b"x"]), acks=1)).error_code == 0
            corrupt = await produce(setup, "events", 0, batch([b"x"])[:-1] + b"\x01")
            assert (corrupt.error_code, corrupt.base_offset) == (ErrorCode.CORRUPT_MESSAGE, -1)
            two = await produce(setup, "events", 0, batch([b"x"]) + batch([b"y"]))
            assert two.error_code == ErrorCode.INVALID_RECORD and "exactly one" in two.error_message
            assert (await read_all(setup)).high_watermark == 0  # nothing refused was written

    run(main())


def test_not_the_leader_points_to_the_leader(tmp_path):
    async def main():
        async with one_broker(tmp_path) as setup:
            setup.metadata.register_broker(1, "127.0.0.1", 1)  # a broker elsewhere
            setup.metadata.create_topic("theirs", 1, replicas=[[1, 0]])
            answer = await setup.conn.send(produce_request(setup, "theirs", 0, batch([b"x"])))
            partition = answer.responses[0].partition_responses[0]
            assert partition.error_code == ErrorCode.NOT_LEADER_OR_FOLLOWER
            assert (partition.current_leader.leader_id, partition.current_leader.leader_epoch) == (1, 0)
            assert [(n.node_id, n.port) for n in answer.node_endpoints] == [(1, 1)]

    run(main())


def test_log_append_time_topics_stamp_the_broker_time(tmp_path):
    async def main():
        async with one_broker(tmp_path, configs={"events": {"message.timestamp.type": "LogAppendTime"}}) as setup:
            answer = await produce(setup, "events", 0, batch([b"a", b"b"], timestamp=5, compression=2))
            assert answer.log_append_time_ms > 1_000_000_000_000
            stored = batches_of((await read_all(setup)).records)[0]
            assert stored.timestamp_type == TimestampType.LOG_APPEND_TIME
            assert stored.max_timestamp == answer.log_append_time_ms

    run(main())


def test_idempotent_producer_duplicates_sequences_and_epochs(tmp_path):
    async def main():
        async with one_broker(tmp_path) as setup:
            first = batch([b"a", b"b"], producer=(1000, 0, 0))
            assert (await produce(setup, "events", 0, first)).base_offset == 0
            assert (await produce(setup, "events", 0, batch([b"c"], producer=(1000, 0, 2)))).base_offset == 2
            retried = await produce(setup, "events", 0, first)  # a retry: the original offsets
            assert (retried.error_code, retried.base_offset) == (0, 0)
            gap = await produce(setup, "events", 0, batch([b"d"], producer=(1000, 0, 5)))
            assert gap.error_code == ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER
            bumped = await produce(setup, "events", 0, batch([b"e"], producer=(1000, 1, 0)))
            assert (bumped.error_code, bumped.base_offset) == (0, 3)
            stale = await produce(setup, "events", 0, batch([b"f"], producer=(1000, 0, 3)))
            assert stale.error_code == ErrorCode.INVALID_PRODUCER_EPOCH
            assert (await read_all(setup)).high_watermark == 4

    run(main())


def test_producer_state_survives_a_restart(tmp_path):
    async def main():
        async with one_broker(tmp_path) as setup:
            sent = batch([b"a"], producer=(9, 0, 0))
            await produce(setup, "events", 0, sent)
            await setup.broker.stop()
            await setup.broker.start()
            setup.metadata.register_broker(0, *setup.broker.address)
            async with await connect(*setup.broker.address) as conn:
                setup.conn, old = conn, setup.conn
                assert (await produce(setup, "events", 0, sent)).base_offset == 0  # still a duplicate
                assert (await produce(setup, "events", 0, batch([b"b"], producer=(9, 0, 1)))).base_offset == 1
                setup.conn = old

    run(main())
