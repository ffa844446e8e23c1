"""ListOffsets with every special timestamp, OffsetForLeaderEpoch across leader epochs, and
DeleteRecords moving the log start offset."""

from __future__ import annotations

from kafka_meta_proto.error_codes import ErrorCode
from kafka_meta_proto.messages import (
    DeleteRecordsRequest,
    ListOffsetsRequest,
    OffsetForLeaderEpochRequest,
)

from .helpers import answers_of, batch, fetch_request, one_broker, produce, run


async def list_offset(setup, timestamp, *, epoch=-1, version=None, partition=0):
    request = ListOffsetsRequest(replica_id=-1, topics=[ListOffsetsRequest.ListOffsetsTopic(
        name="events", partitions=[ListOffsetsRequest.ListOffsetsPartition(
            partition_index=partition, timestamp=timestamp, current_leader_epoch=epoch)])])  # fmt: skip
    answer = (await setup.conn.send(request, version)).topics[0].partitions[0]
    return answer.error_code, answer.offset, answer.timestamp, answer.leader_epoch


async def end_offset(setup, epoch, current=-1):
    request = OffsetForLeaderEpochRequest(replica_id=-1, topics=[OffsetForLeaderEpochRequest.OffsetForLeaderTopic(
        topic="events", partitions=[OffsetForLeaderEpochRequest.OffsetForLeaderPartition(
            partition=0, leader_epoch=epoch, current_leader_epoch=current)])])  # fmt: skip
    answer = (await setup.conn.send(request)).topics[0].partitions[0]
    return answer.error_code, answer.leader_epoch, answer.end_offset


async def delete_records(setup, offset):
    request = DeleteRecordsRequest(timeout_ms=1000, topics=[DeleteRecordsRequest.DeleteRecordsTopic(
        name="events", partitions=[DeleteRecordsRequest.DeleteRecordsPartition(
            partition_index=0, offset=offset)])])  # fmt: skip
    answer = (await setup.conn.send(request)).topics[0].partitions[0]
    return answer.error_code, answer.low_watermark


def test_list_offsets_special_timestamps_and_by_time(tmp_path):
    async def main():
        async with one_broker(tmp_path) as setup:
            await produce(setup, "events", 0, batch([b"a", b"b"], timestamp=1000))  # 1000, 1001
            await produce(setup, "events", 0, batch([b"c"], timestamp=5000))
            await produce(setup, "events", 0, batch([b"d", b"e"], timestamp=2000))  # 2000, 2001
            assert await list_offset(setup, -2) == (0, 0, -1, 0)
            assert await list_offset(setup, -1) == (0, 5, -1, 0)
            assert await list_offset(setup, -3) == (0, 2, 5000, 0)
            assert await list_offset(setup, -4) == (0, 0, -1, 0)
            assert await list_offset(setup, -5) == (0, -1, -1, -1)
            assert await list_offset(setup, 1001) == (0, 1, 1001, 0)
            assert await list_offset(setup, 1500) == (0, 2, 5000, 0)  # the first at or after
            assert await list_offset(setup, 6000) == (0, -1, -1, -1)
            assert (await list_offset(setup, -1, epoch=1))[0] == ErrorCode.UNKNOWN_LEADER_EPOCH
            assert (await list_offset(setup, -1, partition=3))[0] == ErrorCode.UNKNOWN_TOPIC_OR_PARTITION

    run(main())


def test_offset_for_leader_epoch_follows_the_epoch_cache(tmp_path):
    async def main():
        async with one_broker(tmp_path) as setup:
            await produce(setup, "events", 0, batch([b"a", b"b"]))
            setup.metadata.move_leader("events", 0, 0)  # re-elected: leader epoch 1
            assert (await list_offset(setup, -1))[3] == 1
            # the new epoch starts at the log end offset at once, before any append
            assert await end_offset(setup, 0) == (0, 0, 2)
            assert await end_offset(setup, 1) == (0, 1, 2)
            await produce(setup, "events", 0, batch([b"c"]))
            assert await end_offset(setup, 0) == (0, 0, 2)
            assert await end_offset(setup, 1) == (0, 1, 3)
            assert await end_offset(setup, 7) == (0, -1, -1)
            assert (await end_offset(setup, 0, current=0))[0] == ErrorCode.FENCED_LEADER_EPOCH
            directory = setup.broker.replicas.get("events", 0).directory
            assert (directory / "leader-epoch-checkpoint").read_text() == "0\n2\n0 0\n1 2\n"

    run(main())


def test_delete_records_moves_the_log_start_offset(tmp_path):
    async def main():
        async with one_broker(tmp_path) as setup:
            for value in (b"a", b"b", b"c"):
                await produce(setup, "events", 0, batch([value]))
            assert await delete_records(setup, 2) == (0, 2)
            assert await delete_records(setup, 9) == (ErrorCode.OFFSET_OUT_OF_RANGE, -1)
            assert await list_offset(setup, -2) == (0, 2, -1, 0)
            request = fetch_request(setup, {("events", 0): 0})
            answer = list(answers_of(await setup.conn.send(request)).values())[0]
            assert answer.error_code == ErrorCode.OFFSET_OUT_OF_RANGE
            answer = list(answers_of(await setup.conn.send(fetch_request(setup, {("events", 0): 2}))).values())[0]
            assert answer.log_start_offset == 2
            assert await delete_records(setup, -1) == (0, 3)  # -1: up to the high watermark

    run(main())
