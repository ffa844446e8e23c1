"""Talking to a real Kafka with our classes only: the package's client (``client.sync``), our
message classes and our record-batch writer. Every response must decode and re-encode to the bytes the
broker sent."""

from __future__ import annotations

import pytest

from cluster.helpers import connect, init_producer_id, send, until_settled
from kafka_meta_proto import Uuid, message_class
from kafka_meta_proto.error_codes import ErrorCode
from kafka_meta_proto.log.batch import Record, RecordBatch, decode_batch
from kafka_meta_proto.log.compression import CompressionType

ApiVersionsRequest = message_class("ApiVersionsRequest")
CreateTopicsRequest = message_class("CreateTopicsRequest")
DeleteTopicsRequest = message_class("DeleteTopicsRequest")
FetchRequest = message_class("FetchRequest")
InitProducerIdRequest = message_class("InitProducerIdRequest")
ListOffsetsRequest = message_class("ListOffsetsRequest")
MetadataRequest = message_class("MetadataRequest")
OffsetForLeaderEpochRequest = message_class("OffsetForLeaderEpochRequest")
ProduceRequest = message_class("ProduceRequest")

pytestmark = [pytest.mark.cluster, pytest.mark.slow]  # real Kafka clusters: minutes


@pytest.fixture
def conn(cluster):
    with connect(*cluster.bootstrap[0]) as connection:
        yield connection


def create_topic_answer(conn, name: str, partitions: int = 1, replication: int = 2):
    topic = CreateTopicsRequest.CreatableTopic(
        name=name, num_partitions=partitions, replication_factor=replication
    )
    return send(conn, CreateTopicsRequest(topics=[topic], timeout_ms=30000), 7).body.topics[0]


def create_topic(conn, name: str, partitions: int = 1, replication: int = 2) -> Uuid:
    result = create_topic_answer(conn, name, partitions, replication)
    assert result.error_code == 0, result
    return result.topic_id


def metadata_by_id(conn, topic_id: Uuid):
    request = MetadataRequest(
        topics=[MetadataRequest.MetadataRequestTopic(topic_id=topic_id, name=None)]
    )
    return until_settled(lambda: send(conn, request, 12).body.topics[0], lambda t: t.error_code)


def leader_of(conn, topic_id: Uuid, partition: int = 0) -> int:
    topic = metadata_by_id(conn, topic_id)
    assert topic.error_code == 0, topic
    return next(p.leader_id for p in topic.partitions if p.partition_index == partition)


def connect_to(cluster, node_id: int):
    return connect("127.0.0.1", cluster.node(node_id).port)


def test_api_versions_are_all_ones_we_speak(conn):
    """Every api key and version range the broker advertises is one we can encode and decode."""
    body = send(
        conn,
        ApiVersionsRequest(client_software_name="kafka-meta-proto", client_software_version="0"),
        3,
    ).body
    assert body.error_code == 0
    gaps = []
    for api in body.api_keys:
        try:
            ours = message_class_for(api.api_key)
        except KeyError:
            gaps.append(f"api key {api.api_key}: not shipped")
            continue
        missing = [
            v for v in range(api.min_version, api.max_version + 1) if v not in ours.versions()
        ]
        if missing:
            gaps.append(f"{ours.NAME} (key {api.api_key}): versions {missing} missing")
    assert not gaps, "\n".join(gaps)


def message_class_for(api_key: int):
    from kafka_meta_proto import request_class, response_class

    response_class(api_key)
    return request_class(api_key)


def test_topic_ids_metadata_delete_and_recreate(conn):
    """A topic is found by name and by ID; deleted by ID; the same name created again gets a new
    ID (the topic-ID design's promise)."""
    first = create_topic(conn, "ids-topic", partitions=2)
    assert first != Uuid(bytes(16))
    by_name = MetadataRequest(topics=[MetadataRequest.MetadataRequestTopic(name="ids-topic")])
    topic = until_settled(lambda: send(conn, by_name, 12).body.topics[0], lambda t: t.error_code)
    assert (topic.error_code, topic.topic_id, len(topic.partitions)) == (0, first, 2)
    assert metadata_by_id(conn, first).name == "ids-topic"

    request = DeleteTopicsRequest(
        topics=[DeleteTopicsRequest.DeleteTopicState(name=None, topic_id=first)], timeout_ms=30000
    )
    deleted = send(conn, request, 6).body.responses[0]
    assert (deleted.error_code, deleted.topic_id, deleted.name) == (0, first, "ids-topic")

    second = until_settled(
        lambda: create_topic_answer(conn, "ids-topic", 2), lambda t: t.error_code
    )
    assert second.error_code == 0 and second.topic_id != first
    assert metadata_by_id(conn, second.topic_id).name == "ids-topic"
    assert metadata_by_id(conn, first).error_code == ErrorCode.UNKNOWN_TOPIC_ID


CODECS = [
    CompressionType.NONE,
    CompressionType.GZIP,
    CompressionType.SNAPPY,
    CompressionType.LZ4,
    CompressionType.ZSTD,
]


def test_idempotent_produce_and_fetch_each_codec(cluster, conn):
    """Batches we write, one per codec, produced idempotently, come back from Fetch by topic ID
    byte for byte (but for the offset and leader epoch the broker assigns)."""
    topic_id = create_topic(conn, "codecs")
    ids = init_producer_id(conn)
    assert ids.error_code == 0 and ids.producer_id >= 0

    with connect_to(cluster, leader_of(conn, topic_id)) as leader:
        sent = []
        for sequence, codec in enumerate(CODECS):
            records = [
                Record(offset_delta=i, timestamp_delta=i, key=f"k{i}".encode(), value=bytes([codec]) * (50 + i),
                       headers=[("codec", codec.name.encode()), ("empty", None)])
                for i in range(3)
            ]  # fmt: skip
            batch = RecordBatch.create(
                records, base_timestamp=1_700_000_000_000, compression=codec, producer_id=ids.producer_id,
                producer_epoch=ids.producer_epoch, base_sequence=3 * sequence,
            )  # fmt: skip
            body = batch.encode()
            partition = ProduceRequest.PartitionProduceData(index=0, records=body)
            request = ProduceRequest(
                transactional_id=None, acks=-1, timeout_ms=30000,
                topic_data=[ProduceRequest.TopicProduceData(name="codecs", partition_data=[partition])],
            )  # fmt: skip
            answer = send(leader, request, 11).body.responses[0].partition_responses[0]
            assert (answer.error_code, answer.base_offset) == (0, 3 * sequence), answer
            sent.append(body)

        fetch = FetchRequest(
            max_wait_ms=100, min_bytes=1, max_bytes=1 << 20, session_epoch=-1,
            topics=[FetchRequest.FetchTopic(topic_id=topic_id, partitions=[
                FetchRequest.FetchPartition(partition=0, fetch_offset=0, partition_max_bytes=1 << 20)])],
        )  # fmt: skip
        data = send(leader, fetch, 16).body.responses[0]
        assert data.topic_id == topic_id
        partition = data.partitions[0]
        assert (partition.error_code, partition.high_watermark) == (0, 3 * len(CODECS))
        records = bytes(partition.records)

    position, fetched = 0, []
    while position < len(records):
        batch, end = decode_batch(records, position)
        fetched.append((batch, records[position:end]))
        position = end
    assert len(fetched) == len(CODECS)
    for (batch, raw), ours, sequence in zip(fetched, sent, range(len(CODECS))):
        assert batch.base_offset == 3 * sequence
        assert (
            raw[8:12] == ours[8:12] and raw[16:] == ours[16:]
        )  # all but the offset and the leader epoch


def test_list_offsets_and_offset_for_leader_epoch(cluster, conn):
    topic_id = create_topic(conn, "offsets")
    with connect_to(cluster, leader_of(conn, topic_id)) as leader:
        batch = RecordBatch.create(
            [Record(offset_delta=i, value=b"v") for i in range(4)], base_timestamp=1000
        )
        partition = ProduceRequest.PartitionProduceData(index=0, records=batch.encode())
        request = ProduceRequest(acks=-1, timeout_ms=30000, transactional_id=None,
                                 topic_data=[ProduceRequest.TopicProduceData(name="offsets", partition_data=[partition])])  # fmt: skip
        # NOT_LEADER_OR_FOLLOWER is retriable: the leader named in metadata may not have taken
        # the partition over yet when the machine is busy, and a client tries again
        produced = until_settled(lambda: send(leader, request, 11).body.responses[0].partition_responses[0],
                                 lambda p: p.error_code)  # fmt: skip
        assert produced.error_code == 0, produced

        def offset_at(timestamp: int) -> int:
            part = ListOffsetsRequest.ListOffsetsPartition(partition_index=0, timestamp=timestamp)
            request = ListOffsetsRequest(
                replica_id=-1,
                topics=[ListOffsetsRequest.ListOffsetsTopic(name="offsets", partitions=[part])],
            )
            answer = send(leader, request, 8).body.topics[0].partitions[0]
            assert answer.error_code == 0, answer
            return answer.offset

        assert (offset_at(-2), offset_at(-1)) == (0, 4)  # earliest, latest

        epoch_part = OffsetForLeaderEpochRequest.OffsetForLeaderPartition(
            partition=0, current_leader_epoch=-1, leader_epoch=0
        )
        request = OffsetForLeaderEpochRequest(
            replica_id=-1,
            topics=[
                OffsetForLeaderEpochRequest.OffsetForLeaderTopic(
                    topic="offsets", partitions=[epoch_part]
                )
            ],
        )
        answer = send(leader, request, 4).body.topics[0].partitions[0]
        assert (answer.error_code, answer.leader_epoch, answer.end_offset) == (0, 0, 4)


def test_producer_id_blocks(cluster, conn):
    """Enough InitProducerId calls that the controller hands out a second block of producer IDs
    (AllocateProducerIds between broker and controller); every ID is new."""
    seen = set()
    for _ in range(1100):  # a block holds 1000 IDs
        answer = init_producer_id(conn)
        assert answer.error_code == 0, answer
        seen.add(answer.producer_id)
    assert len(seen) == 1100
    assert max(seen) // 1000 > min(seen) // 1000  # IDs from more than one block


def test_old_line_speaks_the_removed_versions(old_cluster):
    """The 3.9 line still serves versions Kafka 4.0 removed: Metadata v0... and Produce v3."""
    with connect(*old_cluster.bootstrap[0]) as conn:
        assert send(conn, ApiVersionsRequest(), 0).body.error_code == 0
        topic = CreateTopicsRequest.CreatableTopic(
            name="old", num_partitions=1, replication_factor=1
        )
        assert (
            send(conn, CreateTopicsRequest(topics=[topic], timeout_ms=30000), 0)
            .body.topics[0]
            .error_code
            == 0
        )
        by_name = MetadataRequest(topics=[MetadataRequest.MetadataRequestTopic(name="old")])
        topic = until_settled(lambda: send(conn, by_name, 0).body.topics[0], lambda t: t.error_code)
        assert topic.name == "old" and topic.error_code == 0
        batch = RecordBatch.create([Record(value=b"old")], base_timestamp=5)
        partition = ProduceRequest.PartitionProduceData(index=0, records=batch.encode())
        request = ProduceRequest(acks=-1, timeout_ms=30000, transactional_id=None,
                                 topic_data=[ProduceRequest.TopicProduceData(name="old", partition_data=[partition])])  # fmt: skip
        assert send(conn, request, 3).body.responses[0].partition_responses[0].error_code == 0
