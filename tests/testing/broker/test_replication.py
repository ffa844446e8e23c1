"""Two brokers sharing one image: the leader copies each append to its running in-sync
follower, a stopped follower is caught up (and truncated where it diverged) when it is back, a
follower answers consumers from Fetch v11 and a new leader takes over with a new epoch."""

from __future__ import annotations

from contextlib import AsyncExitStack

from kafka_meta_proto.client import connect
from kafka_meta_proto.error_codes import ErrorCode
from kafka_meta_proto.testing.broker import Broker, StaticMetadata

from .helpers import Setup, answers_of, batch, batches_of, fetch_request, produce, run, values_of


async def two_brokers(stack: AsyncExitStack, tmp_path) -> tuple[StaticMetadata, list[Broker]]:
    metadata = StaticMetadata()
    brokers = [Broker(n, tmp_path / f"broker-{n}", cluster_id=metadata.cluster_id, metadata=metadata)
               for n in (0, 1)]  # fmt: skip
    for broker in brokers:
        broker.peers = {b.node_id: b for b in brokers}
        await broker.start()
        stack.push_async_callback(broker.stop)
        metadata.register_broker(broker.node_id, *broker.address)
    metadata.create_topic("events", 1, replicas=[[0, 1]])
    return metadata, brokers


async def connected(stack: AsyncExitStack, broker: Broker, metadata: StaticMetadata) -> Setup:
    return Setup(broker, metadata, await stack.enter_async_context(await connect(*broker.address)))


async def restart(broker: Broker, metadata: StaticMetadata) -> None:
    await broker.start()
    metadata.register_broker(broker.node_id, *broker.address)


def values_on(broker: Broker) -> list[bytes | None]:
    partition = broker.replicas.get("events", 0)
    values, offset = [], 0
    while offset < partition.high_watermark:  # one segment a read, as Kafka reads
        batches = batches_of(partition.read(offset, 1 << 30, at_least_one=True))
        values += [record.value for b in batches for record in b.records]
        offset = batches[-1].next_offset
    return values


def test_appends_reach_the_follower_before_the_answer(tmp_path):
    async def main():
        async with AsyncExitStack() as stack:
            metadata, (leader, follower) = await two_brokers(stack, tmp_path)
            setup = await connected(stack, leader, metadata)
            for acks in (1, -1):
                assert (await produce(setup, "events", 0, batch([b"acks %d" % acks]), acks=acks)).error_code == 0
            assert values_on(follower) == [b"acks 1", b"acks -1"]
            assert follower.replicas.get("events", 0).high_watermark == 2
            on_follower = await connected(stack, follower, metadata)
            refused = await produce(on_follower, "events", 0, batch([b"x"]))
            assert (refused.error_code, refused.current_leader.leader_id) == (ErrorCode.NOT_LEADER_OR_FOLLOWER, 0)
            request = fetch_request(on_follower, {("events", 0): 0})
            old = list(answers_of(await on_follower.conn.send(request, 10)).values())[0]
            assert old.error_code == ErrorCode.NOT_LEADER_OR_FOLLOWER
            new = list(answers_of(await on_follower.conn.send(request, 11)).values())[0]
            assert values_of(new.records) == [b"acks 1", b"acks -1"]  # KIP-392: read from a follower

    run(main())


def test_a_stopped_follower_is_caught_up_and_a_new_leader_takes_over(tmp_path):
    async def main():
        async with AsyncExitStack() as stack:
            metadata, (first, second) = await two_brokers(stack, tmp_path)
            setup = await connected(stack, first, metadata)
            await produce(setup, "events", 0, batch([b"both"]))
            await second.stop()
            await produce(setup, "events", 0, batch([b"only first"]))
            await restart(second, metadata)
            assert values_on(second) == [b"both"]  # its log is back as it was
            await produce(setup, "events", 0, batch([b"after"]))
            assert values_on(second) == [b"both", b"only first", b"after"]
            metadata.move_leader("events", 0, 1)
            moved = await connected(stack, second, metadata)
            answer = await produce(moved, "events", 0, batch([b"new leader"]))
            assert answer.base_offset == 3
            stored = batches_of(second.replicas.get("events", 0).read(3, 1 << 20, True))
            assert stored[0].partition_leader_epoch == 1
            assert values_on(first) == [b"both", b"only first", b"after", b"new leader"]

    run(main())


def test_a_diverged_follower_is_truncated_to_the_leaders_log(tmp_path):
    async def main():
        async with AsyncExitStack() as stack:
            metadata, (first, second) = await two_brokers(stack, tmp_path)
            setup = await connected(stack, first, metadata)
            await produce(setup, "events", 0, batch([b"kept"]))
            await second.stop()
            await produce(setup, "events", 0, batch([b"lost"]))  # only the old leader has it
            await first.stop()
            await restart(second, metadata)
            metadata.move_leader("events", 0, 1, isr=[1])
            moved = await connected(stack, second, metadata)
            await produce(moved, "events", 0, batch([b"new"]))
            await restart(first, metadata)
            metadata.move_leader("events", 0, 1, isr=[1, 0])
            await produce(moved, "events", 0, batch([b"newer"]))
            assert values_on(first) == [b"kept", b"new", b"newer"]
            epochs = (first.replicas.get("events", 0).directory / "leader-epoch-checkpoint").read_text()
            assert epochs.splitlines()[2:] == ["0 0", "1 1", "2 2"]  # its "lost" epoch-0 batch is gone

    run(main())


def test_a_follower_left_below_the_leaders_log_start_starts_again_there(tmp_path):
    async def main():
        async with AsyncExitStack() as stack:
            metadata, (first, second) = await two_brokers(stack, tmp_path)
            setup = await connected(stack, first, metadata)
            await produce(setup, "events", 0, batch([b"old"]))
            await second.stop()
            for value in (b"a", b"b", b"c"):
                await produce(setup, "events", 0, batch([value]))
            first.replicas.get("events", 0).delete_records(3)
            await restart(second, metadata)
            await produce(setup, "events", 0, batch([b"d"]))
            follower = second.replicas.get("events", 0)
            assert (follower.log_start_offset, follower.log_end_offset) == (3, 5)
            assert values_of(follower.read(3, 1 << 20, True)) == [b"c", b"d"]

    run(main())


def log_bytes(broker: Broker) -> bytes:
    partition = broker.replicas.get("events", 0)
    return b"".join(partition.files.batch_bytes(stored) for stored in partition.files.batches)


def test_the_follower_gets_the_bytes_the_leader_wrote_and_the_leader_lets_the_request_go(tmp_path):
    async def main():
        async with AsyncExitStack() as stack:
            metadata, (leader, follower) = await two_brokers(stack, tmp_path)
            metadata.set_config(2, "events", "message.timestamp.type", "LogAppendTime")
            setup = await connected(stack, leader, metadata)
            for compression in (0, 1, 4):
                sent = batch([b"c%d" % compression] * 3, compression=compression)
                assert (await produce(setup, "events", 0, sent)).error_code == 0
            written = log_bytes(leader)
            assert written == log_bytes(follower) and len(batches_of(written)) == 3
            partition = leader.replicas.get("events", 0)
            last = partition.files.batches[-1]
            assert partition.batch_pieces(-1) == (partition.files.batch_bytes(last),)

    run(main())
