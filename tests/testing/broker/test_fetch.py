"""Fetch over loopback: by name and by topic id, byte limits, offsets out of range, long polls
that end on new data or on max_wait, and fetch sessions as Kafka keeps them."""

from __future__ import annotations

import asyncio

from kafka_meta_proto.error_codes import ErrorCode
from kafka_meta_proto.uuid import Uuid

from .helpers import answers_of, batch, fetch_request, one_broker, produce, run, values_of

TWO = {"events": 2}


def test_by_name_and_by_topic_id(tmp_path):
    async def main():
        async with one_broker(tmp_path) as setup:
            await produce(setup, "events", 0, batch([b"a", b"b"]))
            request = fetch_request(setup, {("events", 0): 1})
            by_name = answers_of(await setup.conn.send(request, 12))[("events", 0)]
            by_id = answers_of(await setup.conn.send(request, 13))[(setup.topic_id("events"), 0)]
            assert values_of(by_name.records) == values_of(by_id.records) == [b"a", b"b"]  # whole batch
            assert (by_id.high_watermark, by_id.last_stable_offset, by_id.log_start_offset) == (2, 2, 0)
            assert by_id.aborted_transactions is None
            request.isolation_level = 1
            committed = answers_of(await setup.conn.send(request))[(setup.topic_id("events"), 0)]
            assert committed.aborted_transactions == []

    run(main())


def test_errors_per_partition(tmp_path):
    async def main():
        async with one_broker(tmp_path) as setup:
            await produce(setup, "events", 0, batch([b"a"]))
            request = fetch_request(setup, {("events", 0): 5})
            answer = list(answers_of(await setup.conn.send(request)).values())[0]
            assert (answer.error_code, answer.high_watermark) == (ErrorCode.OFFSET_OUT_OF_RANGE, -1)
            request = fetch_request(setup, {("events", 0): 1})
            assert list(answers_of(await setup.conn.send(request)).values())[0].error_code == 0
            request.topics[0].partitions[0].current_leader_epoch = 3
            assert list(answers_of(await setup.conn.send(request)).values())[0].error_code == ErrorCode.UNKNOWN_LEADER_EPOCH
            request = fetch_request(setup, {("events", 0): 0})
            request.topics[0].topic_id = Uuid.random()
            request.topics[0].topic = "nothing"
            assert list(answers_of(await setup.conn.send(request, 13)).values())[0].error_code == ErrorCode.UNKNOWN_TOPIC_ID
            assert list(answers_of(await setup.conn.send(request, 12)).values())[0].error_code == ErrorCode.UNKNOWN_TOPIC_OR_PARTITION

    run(main())


def test_byte_limits_keep_whole_batches_and_the_first_gets_through(tmp_path):
    async def main():
        async with one_broker(tmp_path, TWO) as setup:
            for partition in (0, 1):
                for i in range(3):
                    await produce(setup, "events", partition, batch([b"x" * 100, bytes([i])]))
            small = fetch_request(setup, {("events", 0): 0, ("events", 1): 0}, partition_max_bytes=10)
            answers = answers_of(await setup.conn.send(small))
            assert len(values_of(answers[(setup.topic_id("events"), 0)].records)) == 2  # one batch
            assert values_of(answers[(setup.topic_id("events"), 1)].records) == []
            whole = fetch_request(setup, {("events", 0): 0, ("events", 1): 0}, max_bytes=400)
            answers = answers_of(await setup.conn.send(whole))
            sizes = [len(values_of(answers[(setup.topic_id("events"), p)].records)) for p in (0, 1)]
            assert sizes == [4, 0]  # two batches of ~170 bytes, then the request's limit

    run(main())


def test_a_long_poll_ends_on_new_data(tmp_path):
    async def main():
        async with one_broker(tmp_path) as setup:
            request = fetch_request(setup, {("events", 0): 0}, max_wait_ms=20000, min_bytes=1)
            waiting = asyncio.ensure_future(setup.conn.send(request))
            await asyncio.sleep(0.2)
            assert not waiting.done()
            await produce(setup, "events", 0, batch([b"news"]))
            answer = list(answers_of(await asyncio.wait_for(waiting, 10)).values())[0]
            assert values_of(answer.records) == [b"news"]

    run(main())


def test_a_long_poll_ends_on_max_wait_with_nothing(tmp_path):
    async def main():
        async with one_broker(tmp_path) as setup:
            await produce(setup, "events", 0, batch([b"old"]))
            request = fetch_request(setup, {("events", 0): 1}, max_wait_ms=300, min_bytes=1)
            waiting = asyncio.ensure_future(setup.conn.send(request))
            await asyncio.sleep(0.1)
            assert not waiting.done()  # held until max_wait passes
            answer = list(answers_of(await asyncio.wait_for(waiting, 10)).values())[0]
            assert (answer.error_code, answer.records, answer.high_watermark) == (0, b"", 1)
            enough = fetch_request(setup, {("events", 0): 0}, max_wait_ms=20000, min_bytes=1)
            assert values_of(list(answers_of(await setup.conn.send(enough)).values())[0].records) == [b"old"]

    run(main())


def test_sessions_incremental_answers_and_errors(tmp_path):
    async def main():
        async with one_broker(tmp_path, TWO) as setup:
            key0, key1 = (setup.topic_id("events"), 0), (setup.topic_id("events"), 1)
            opened = await setup.conn.send(fetch_request(setup, {("events", 0): 0, ("events", 1): 0},
                                                         session_epoch=0))  # fmt: skip
            session = opened.session_id
            assert session != 0 and set(answers_of(opened)) == {key0, key1}
            await produce(setup, "events", 1, batch([b"p1"]))
            # epoch 1, naming nothing: only the partition with news is answered
            news = await setup.conn.send(fetch_request(setup, {}, session_id=session, session_epoch=1))
            assert news.session_id == session and list(answers_of(news)) == [key1]
            assert values_of(answers_of(news)[key1].records) == [b"p1"]
            # the client moves partition 1 on; nothing new anywhere: an empty answer
            quiet = await setup.conn.send(fetch_request(setup, {("events", 1): 1}, session_id=session,
                                                        session_epoch=2))  # fmt: skip
            assert answers_of(quiet) == {}
            # partition 0 forgotten: its news is no longer answered
            await produce(setup, "events", 0, batch([b"p0"]))
            forgot = await setup.conn.send(fetch_request(setup, {}, session_id=session, session_epoch=3,
                                                         forgotten=[("events", 0)]))  # fmt: skip
            assert answers_of(forgot) == {}
            stale = await setup.conn.send(fetch_request(setup, {}, session_id=session, session_epoch=3))
            assert (stale.error_code, stale.session_id) == (ErrorCode.INVALID_FETCH_SESSION_EPOCH, 0)
            unknown = await setup.conn.send(fetch_request(setup, {}, session_id=session + 1, session_epoch=1))
            assert unknown.error_code == ErrorCode.FETCH_SESSION_ID_NOT_FOUND
            by_name = await setup.conn.send(fetch_request(setup, {}, session_id=session, session_epoch=4), 12)
            assert by_name.error_code == ErrorCode.FETCH_SESSION_TOPIC_ID_ERROR
            closed = await setup.conn.send(fetch_request(setup, {("events", 0): 0}, session_id=session,
                                                         session_epoch=-1))  # fmt: skip
            assert closed.session_id == 0 and values_of(answers_of(closed)[key0].records) == [b"p0"]
            gone = await setup.conn.send(fetch_request(setup, {}, session_id=session, session_epoch=5))
            assert gone.error_code == ErrorCode.FETCH_SESSION_ID_NOT_FOUND

    run(main())


def test_an_incremental_long_poll_waits_on_every_partition_of_the_session(tmp_path):
    async def main():
        async with one_broker(tmp_path, TWO) as setup:
            opened = await setup.conn.send(fetch_request(setup, {("events", 0): 0, ("events", 1): 0},
                                                         session_epoch=0))  # fmt: skip
            request = fetch_request(setup, {}, session_id=opened.session_id, session_epoch=1,
                                    max_wait_ms=20000, min_bytes=1)  # fmt: skip
            waiting = asyncio.ensure_future(setup.conn.send(request))
            await asyncio.sleep(0.2)
            await produce(setup, "events", 1, batch([b"late"]))
            answer = await asyncio.wait_for(waiting, 10)
            assert list(answers_of(answer)) == [(setup.topic_id("events"), 1)]

    run(main())


def test_a_consumer_reads_on_across_rolled_segments(tmp_path):
    async def main():
        async with one_broker(tmp_path, configs={"events": {"segment.bytes": "300"}}) as setup:
            for i in range(10):
                await produce(setup, "events", 0, batch([b"%d" % i * 50]))
            directory = setup.broker.replicas.get("events", 0).directory
            assert len(list(directory.glob("*.log"))) > 3
            got, offset = [], 0
            while offset < 10:
                answer = list(answers_of(await setup.conn.send(fetch_request(setup, {("events", 0): offset}))).values())[0]
                values = values_of(answer.records)
                assert values, offset
                got += values
                offset += len(values)
            assert got == [b"%d" % i * 50 for i in range(10)]

    run(main())
