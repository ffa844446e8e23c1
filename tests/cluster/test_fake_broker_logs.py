"""The fake broker's partition files next to Kafka's: the same produced batches, sent to a real
broker and to ours, lie in the segment byte for byte (base offsets and leader epochs stamped
alike), and Kafka's DumpLogSegments reads our files as it reads its own."""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path

import pytest

from cluster.test_log_tools import kafka_dump_log
from kafka_meta_proto.client import connect
from kafka_meta_proto.error_codes import ErrorCode
from kafka_meta_proto.log import CompressionType, Record, RecordBatch
from kafka_meta_proto.messages import CreateTopicsRequest, ProduceRequest
from testing.broker.helpers import one_broker, produce

pytestmark = [pytest.mark.cluster, pytest.mark.slow]  # real Kafka clusters: minutes

TOPIC = "fake-broker-bytes"
BROKER = 2  # the real broker holding the partition


def batches() -> list[bytes]:
    """Batches as producers send them: each codec, keys and headers, an idempotent producer."""
    made = []
    for i, codec in enumerate(CompressionType):
        records = [Record(offset_delta=j, timestamp_delta=j, key=b"k%d" % j if j % 2 else None,
                          value=b"value %d/%d " % (i, j) * 5, headers=[("h", b"%d" % j)])
                   for j in range(3)]  # fmt: skip
        made.append(RecordBatch.create(records, base_timestamp=1_700_000_000_000 + i, compression=codec,
                                       producer_id=4242, producer_epoch=0, base_sequence=3 * i).encode())  # fmt: skip
    return made


async def produce_to_kafka(cluster) -> None:
    async with await connect(*cluster.bootstrap[0]) as conn:
        assignment = CreateTopicsRequest.CreatableReplicaAssignment(partition_index=0, broker_ids=[BROKER])
        created = await conn.send(CreateTopicsRequest(timeout_ms=30000, topics=[
            CreateTopicsRequest.CreatableTopic(name=TOPIC, num_partitions=-1, replication_factor=-1,
                                               assignments=[assignment])]))  # fmt: skip
        assert created.topics[0].error_code in (0, ErrorCode.TOPIC_ALREADY_EXISTS)
        topic_id = created.topics[0].topic_id
    async with await connect("127.0.0.1", cluster.node(BROKER).port) as conn:
        for data in batches():
            for _ in range(120):  # until the broker has learnt of the topic
                answer = await conn.send(ProduceRequest(acks=-1, timeout_ms=30000, topic_data=[
                    ProduceRequest.TopicProduceData(name=TOPIC, topic_id=topic_id, partition_data=[
                        ProduceRequest.PartitionProduceData(index=0, records=data)])]))  # fmt: skip
                code = answer.responses[0].partition_responses[0].error_code
                if not ErrorCode.for_code(code).retriable and code != ErrorCode.UNKNOWN_TOPIC_ID:
                    break
                await asyncio.sleep(0.25)
            assert code == 0, ErrorCode.for_code(code)


async def produce_to_ours(directory: Path) -> Path:
    async with one_broker(directory, {TOPIC: 1}) as setup:
        for data in batches():
            assert (await produce(setup, TOPIC, 0, data, acks=-1)).error_code == 0
        return setup.broker.replicas.get(TOPIC, 0).directory


def test_the_fake_broker_writes_the_segment_kafka_writes(cluster):
    asyncio.run(asyncio.wait_for(produce_to_kafka(cluster), 120))
    # Kafka's files copied at once: the broker may move its segment on before the tool reads it
    # (DumpLogSegments once found it gone in CI)
    kafka_dir = cluster.data_dir(cluster.node(BROKER)) / f"{TOPIC}-0"
    copied = Path(tempfile.mkdtemp(prefix="kafka-broker-"))
    for name in ("00000000000000000000.log", "partition.metadata"):
        (copied / name).write_bytes((kafka_dir / name).read_bytes())
    kafka_segment = copied / "00000000000000000000.log"
    ours_dir = asyncio.run(produce_to_ours(Path(tempfile.mkdtemp(prefix="fake-broker-"))))
    our_segment = ours_dir / "00000000000000000000.log"
    assert our_segment.read_bytes() == kafka_segment.read_bytes()
    decoded = [kafka_dump_log(cluster, [path], "--deep-iteration") for path in (kafka_segment, our_segment)]
    theirs, ours = ([line for line in lines if not line.startswith("Dumping ")] for lines in decoded)
    assert ours == theirs
    assert sum("isvalid: true" in line for line in ours) == len(batches())
    checkpoint = (ours_dir / "leader-epoch-checkpoint").read_text()
    assert checkpoint == "0\n1\n0 0\n"
    kafka_metadata = (kafka_segment.parent / "partition.metadata").read_text()
    our_metadata = (ours_dir / "partition.metadata").read_text()
    assert [line.split(":")[0] for line in our_metadata.splitlines()] == [
        line.split(":")[0] for line in kafka_metadata.splitlines()
    ] and our_metadata.startswith("version: 0\n")
