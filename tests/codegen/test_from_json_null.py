"""from_json refuses null where the field is not nullable in the version, at once and naming the
field (as encode would refuse it later), and takes null where the field is nullable."""

from __future__ import annotations

import pytest

from kafka_meta_proto import DecodeError, message_class
from kafka_meta_proto.uuid import Uuid

TOPIC_ID = Uuid(bytes(range(16)))


def refused(cls, obj, version) -> DecodeError:
    with pytest.raises(DecodeError) as info:
        cls.from_json(obj, version)
    assert "null but not nullable" in info.value.reason
    assert f"{cls.NAME} v{version} (JSON)" in str(info.value)
    return info.value


def test_topic_record_name():
    TopicRecord = message_class("TopicRecord")
    obj = TopicRecord(name="orders", topic_id=TOPIC_ID).to_json(0)
    assert refused(TopicRecord, {**obj, "name": None}, 0).path == "name"


@pytest.mark.parametrize(
    "key, path",
    [
        ("brokerId", "brokerId"),  # an int
        ("fenced", "fenced"),  # a tagged int
        ("logDirs", "logDirs"),  # a tagged array, not nullable
    ],
)
def test_fields_of_every_kind(key, path):
    Record = message_class("BrokerRegistrationChangeRecord")
    obj = Record(broker_id=1, broker_epoch=2, log_dirs=[TOPIC_ID]).to_json(3)
    assert refused(Record, {**obj, key: None}, 3).path == path


def test_a_struct_that_is_not_nullable():
    FetchRequest = message_class("FetchRequest")
    obj = FetchRequest(replica_state=FetchRequest.ReplicaState(replica_id=1, replica_epoch=2)).to_json(15)
    assert refused(FetchRequest, {**obj, "replicaState": None}, 15).path == "replicaState"


def metadata_response():
    MR = message_class("MetadataResponse")
    topic = MR.MetadataResponseTopic(
        name="orders",
        topic_id=TOPIC_ID,
        partitions=[MR.MetadataResponsePartition(partition_index=0, replica_nodes=[1, 2], isr_nodes=[1])],
    )
    return MR, MR(cluster_id="c1", topics=[topic])


def test_nested_paths_and_array_elements():
    MR, msg = metadata_response()
    obj = msg.to_json(11)
    obj["topics"][0]["name"] = None  # nullable from version 12 only
    assert refused(MR, obj, 11).path == "topics[0].name"
    obj = msg.to_json(11)
    obj["topics"][0]["partitions"][0]["isrNodes"] = [1, None]
    assert refused(MR, obj, 11).path == "topics[0].partitions[0].isrNodes[1]"


def test_nullable_fields_take_null():
    MR, msg = metadata_response()
    obj = msg.to_json(12)
    obj["topics"][0]["name"] = None
    obj["clusterId"] = None
    back = MR.from_json(obj, 12)
    assert back.topics[0].name is None and back.cluster_id is None
    assert MR.from_json(back.to_json(12), 12) == back

    Record = message_class("BrokerRegistrationChangeRecord")
    obj = Record(broker_id=1, broker_epoch=2).to_json(3)
    assert Record.from_json({**obj, "cordonedLogDirs": None}, 3).cordoned_log_dirs is None
