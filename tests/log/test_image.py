"""MetadataImage: replaying the real KRaft logs, and Kafka's replay rules on hand-built records."""

from __future__ import annotations

from pathlib import Path

import pytest

from kafka_meta_proto import DISKLESS_REGISTRY, kraft, message_class
from kafka_meta_proto.kraft.image import (
    DIRECTORY_MIGRATING,
    DIRECTORY_UNASSIGNED,
    MetadataImage,
    ReplayError,
)
from kafka_meta_proto.log import ControlRecordType, Record, RecordBatch, control_key, list_snapshots
from kafka_meta_proto.uuid import Uuid

from .reference import KRAFT_LOGS, SKIP_REASON, real_log_files

M = message_class
FOO = Uuid.from_string("v9meXjI1RVKB-NSvF0GXDA")
BAR = Uuid.from_string("KvRvTJ8ySCKlg6lqt9pfXw")
DIR_A = Uuid.from_string("AiSXPLrdRM-HREWplhnaNA")
DIR_B = Uuid.from_string("vuFdPhP_V3HjMM-sCpnodw")


# --- building records and files -------------------------------------------------------------


def register_broker(broker_id=1, epoch=10, fenced=True, incarnation=None, **kw):
    R = M("RegisterBrokerRecord")
    return R(
        broker_id=broker_id,
        broker_epoch=epoch,
        incarnation_id=incarnation or Uuid.random(),
        end_points=[
            R.BrokerEndpoint(name="PLAINTEXT", host="localhost", port=9092, security_protocol=0)
        ],
        features=[
            R.BrokerFeature(
                name="metadata.version", min_supported_version=1, max_supported_version=21
            )
        ],
        rack=None,
        fenced=fenced,
        **kw,
    )


def topic(name="foo", topic_id=FOO):
    return M("TopicRecord")(name=name, topic_id=topic_id)


def partition(index=0, topic_id=FOO, replicas=(1, 2, 3), leader=1, directories=None, **kw):
    return M("PartitionRecord")(
        partition_id=index, topic_id=topic_id, replicas=list(replicas), isr=list(replicas), removing_replicas=[],
        adding_replicas=[], leader=leader, leader_epoch=0, partition_epoch=0,
        directories=list(directories) if directories is not None else [], **kw,
    )  # fmt: skip


def change(index=0, topic_id=FOO, **kw):
    return M("PartitionChangeRecord")(partition_id=index, topic_id=topic_id, **kw)


def metadata_batch(messages, base_offset, epoch=1):
    records = [
        Record(offset_delta=i, value=kraft.encode_record_value(m, m.HIGHEST_VERSION))
        for i, m in enumerate(messages)
    ]
    return RecordBatch.create(
        records,
        base_offset=base_offset,
        base_timestamp=1_700_000_000_000,
        partition_leader_epoch=epoch,
    )


def control_batch(control_type, message, base_offset, epoch=1):
    record = Record(key=control_key(control_type), value=message.encode(0))
    return RecordBatch.create([record], base_offset=base_offset, base_timestamp=1_700_000_000_000,
                              control=True, partition_leader_epoch=epoch)  # fmt: skip


def write_snapshot(directory: Path, messages, end_offset: int, epoch: int = 1) -> Path:
    path = directory / f"{end_offset:020d}-{epoch:010d}.checkpoint"
    batches = [
        control_batch(ControlRecordType.SNAPSHOT_HEADER, M("SnapshotHeaderRecord")(), 0, epoch),
        metadata_batch(messages, 1, epoch),
        control_batch(
            ControlRecordType.SNAPSHOT_FOOTER, M("SnapshotFooterRecord")(), len(messages) + 1, epoch
        ),
    ]
    path.write_bytes(b"".join(b.encode() for b in batches))
    return path


def write_segment(directory: Path, base_offset: int, messages, epoch: int = 1) -> Path:
    """A segment holding one batch per message, at consecutive offsets from base_offset."""
    path = directory / f"{base_offset:020d}.log"
    path.write_bytes(
        b"".join(
            metadata_batch([m], base_offset + i, epoch).encode() for i, m in enumerate(messages)
        )
    )
    return path


def image_of(*messages, strict=True) -> MetadataImage:
    return MetadataImage(strict=strict).replay(messages)


# --- the real logs ------------------------------------------------------------------------------


def metadata_dirs() -> list[Path]:
    return (
        sorted(p for p in KRAFT_LOGS.rglob("__cluster_metadata-0") if p.is_dir())
        if KRAFT_LOGS.is_dir()
        else []
    )


def real_metadata_files() -> list:
    files = [
        p
        for p in real_log_files()
        if p.suffix == ".checkpoint" or p.parent.name == "__cluster_metadata-0"
    ]
    if not files:
        return [pytest.param(None, marks=pytest.mark.skip(reason=SKIP_REASON), id="no-reference")]
    return [pytest.param(p, id=str(p.relative_to(KRAFT_LOGS))) for p in files]


@pytest.mark.parametrize("path", real_metadata_files())
def test_every_real_file_replays_without_a_problem(path):
    if path.suffix == ".checkpoint":
        image = MetadataImage.from_snapshot(path)  # strict: any refused record raises
    else:
        image = MetadataImage().replay_segment(path)
    assert image.problems == []
    assert image.transaction is None, "a file ends inside a metadata transaction"
    assert image.metadata_version is not None  # every file sets metadata.version
    # Internal consistency: partitions belong to their topics, directories match replicas.
    for t in image.topics.values():
        for p in t.partitions.values():
            assert len(p.directories) == len(p.replicas)
            assert set(p.isr) <= set(p.replicas)
            assert p.leader == -1 or p.leader in p.replicas


def _real(*parts) -> Path:
    path = KRAFT_LOGS.joinpath(*parts)
    if not path.exists():
        pytest.skip(SKIP_REASON)
    return path


def test_real_log_with_topics_deleted_and_recreated_brokers():
    image = MetadataImage.from_log_dir(
        _real("ichwansh03__kafka-migration-log4j2", "1b8babcc3074", "data", "__cluster_metadata-0")
    )
    # first_topic was created (offset 191) and removed again (offset 327).
    assert sorted(image.topics_by_name) == ["__consumer_offsets", "learn-kafka"]
    assert Uuid.from_string("3rRiSJWoStS_jKosjd7CtQ") not in image.topics
    offsets = image.topic("__consumer_offsets")
    assert offsets.id == Uuid.from_string("n9iCnMtFQd-sBc4BsJNK7w")
    assert sorted(offsets.partitions) == list(range(50))
    assert image.configs[(2, "__consumer_offsets")] == {
        "compression.type": "producer", "cleanup.policy": "compact", "segment.bytes": "104857600"}  # fmt: skip
    learn = image.topic(BAR)
    assert learn.name == "learn-kafka"
    # The last shutdown left every partition leaderless; each leader change bumped the epochs.
    p0 = learn.partitions[0]
    assert p0.leader == -1 and p0.replicas == [1] and p0.isr == [1]
    assert p0.leader_epoch == p0.partition_epoch > 0
    assert p0.directories == [DIR_B]
    # One broker, re-registered at each restart; the last registration is epoch 9690, then fenced.
    assert list(image.brokers) == [1]
    broker = image.brokers[1]
    assert broker.epoch == 9690
    assert str(broker.incarnation_id) == "7_iY11K-R62SkERyzC-7hw"
    assert broker.fenced and broker.in_controlled_shutdown
    assert broker.listeners["PLAINTEXT"].port == 9092
    assert list(image.controllers) == [1]
    assert str(image.controllers[1].incarnation_id) == "C4MJdTkIQm--fNHGqBOGTA"
    assert image.features == {"metadata.version": 21}
    assert image.zk_migration_state == 0
    assert (
        image.producer_ids.next_producer_id,
        image.producer_ids.broker_id,
        image.producer_ids.broker_epoch,
    ) == (1000, 1, 63)
    assert image.offset == 9800 and image.epoch == 13


def test_real_log_broker_restarts_and_leaderless_partition():
    image = MetadataImage.from_log_dir(
        _real(
            "codecrafters-io__kafka-tester",
            "0873daebd31a",
            "internal",
            "test_helpers",
            "pass_all",
            "kraft-combined-logs",
        )
    )
    foo = image.topic("foo")
    assert str(foo.id) == "fZi4qEpCTsik-rzkyV0Ypg"
    p = foo.partitions[0]
    # leader 1 -> -1 -> 1 -> -1: three leader changes, three partition changes.
    assert (p.leader, p.leader_epoch, p.partition_epoch) == (-1, 3, 3)
    assert p.replicas == [1] and p.directories == [DIR_A]
    broker = image.brokers[1]
    assert broker.epoch == 83 and broker.fenced and broker.in_controlled_shutdown


def test_real_snapshot_then_empty_log_dir():
    directory = _real("renoagilsaputra__kafka", "722ee80223f9", "data", "__cluster_metadata-0")
    [snapshot] = list_snapshots(directory)
    from_snapshot = MetadataImage.from_snapshot(snapshot.path)
    from_dir = MetadataImage.from_log_dir(directory)
    assert from_dir == from_snapshot
    assert from_dir.snapshot_id == (7111, 1)
    assert from_dir.offset == 7110  # the snapshot holds offsets below 7111
    assert sorted(from_dir.topics_by_name) == ["__consumer_offsets", "belajarkafka"]
    assert len(from_dir.topic("__consumer_offsets").partitions) == 50
    assert from_dir.producer_ids.next_producer_id == 1000


def test_topic_names_in_the_real_logs():
    dirs = metadata_dirs()
    if not dirs:
        pytest.skip(SKIP_REASON)
    names = set()
    for d in dirs:
        names |= set(MetadataImage.from_log_dir(d).topics_by_name)
    assert names == {"foo", "learn-kafka", "__consumer_offsets", "belajarkafka"}


def test_bootstrap_checkpoints_only_set_metadata_version():
    boots = [p for p in real_log_files() if p.name == "bootstrap.checkpoint"]
    if not boots:
        pytest.skip(SKIP_REASON)
    for path in boots:
        image = MetadataImage.from_snapshot(path)
        assert list(image.features) == ["metadata.version"]
        assert image.brokers == {} and image.topics == {}
        assert image.offset == -1 and image.snapshot_id == (0, 0)


# --- replay rules -------------------------------------------------------------------------------


def test_remove_topic_drops_its_partitions_configs_and_diskless_mapping():
    image = image_of(
        topic("foo", FOO), partition(0), partition(1),
        topic("bar", BAR), partition(0, BAR),
        M("ConfigRecord")(resource_type=2, resource_name="foo", name="retention.ms", value="1000"),
        M("ConfigRecord")(resource_type=2, resource_name="bar", name="retention.ms", value="2000"),
        DISKLESS_REGISTRY.message_class("TopicPartitionToBatchCoordinatorMapping")(partition_index=1, topic_id=FOO, batch_coordinator_partition_index=7),
        M("RemoveTopicRecord")(topic_id=FOO),
    )  # fmt: skip
    assert list(image.topics) == [BAR]
    assert image.topic("foo") is None
    assert image.configs == {(2, "bar"): {"retention.ms": "2000"}}
    assert image.diskless == {}
    # A partition of the removed topic can no longer be changed.
    with pytest.raises(ReplayError, match="no topic has id"):
        image.apply(change(0, FOO, leader=2))


def test_partition_change_changes_only_what_it_carries():
    image = image_of(
        topic(), partition(0, replicas=(1, 2, 3), leader=1, directories=[DIR_A, DIR_B, DIR_A])
    )
    before = image.topics[FOO].partitions[0]
    assert (before.leader_epoch, before.partition_epoch) == (0, 0)

    image.apply(change(isr=[1, 2]))  # ISR only: the leader epoch stays
    p = image.topics[FOO].partitions[0]
    assert p.isr == [1, 2] and p.replicas == [1, 2, 3] and p.leader == 1
    assert (p.leader_epoch, p.partition_epoch) == (0, 1)
    assert p.directories == [DIR_A, DIR_B, DIR_A]

    image.apply(change(leader=2))  # a new leader: both epochs
    p = image.topics[FOO].partitions[0]
    assert p.leader == 2 and p.isr == [1, 2]
    assert (p.leader_epoch, p.partition_epoch) == (1, 2)

    image.apply(
        change(leader=2)
    )  # naming the same leader again still starts a leader epoch (as Kafka)
    assert (
        image.topics[FOO].partitions[0].leader_epoch,
        image.topics[FOO].partitions[0].partition_epoch,
    ) == (2, 3)

    image.apply(change(leader=-1))  # leaderless
    p = image.topics[FOO].partitions[0]
    assert p.leader == -1 and (p.leader_epoch, p.partition_epoch) == (3, 4)

    image.apply(change(leader_recovery_state=1))
    assert image.topics[FOO].partitions[0].leader_recovery_state == 1
    image.apply(change())  # nothing carried: only the partition epoch moves
    p = image.topics[FOO].partitions[0]
    assert (
        p.leader_recovery_state == 1
        and p.leader == -1
        and (p.leader_epoch, p.partition_epoch) == (3, 6)
    )


def test_partition_change_of_replicas_keeps_known_directories():
    image = image_of(topic(), partition(0, replicas=(1, 2), directories=[DIR_A, DIR_B]))
    image.apply(change(replicas=[2, 4], adding_replicas=[4], removing_replicas=[1]))
    p = image.topics[FOO].partitions[0]
    assert p.replicas == [2, 4] and p.adding_replicas == [4] and p.removing_replicas == [1]
    assert p.directories == [DIR_B, DIRECTORY_UNASSIGNED]
    image.apply(change(directories=[DIR_A, DIR_A]))
    assert image.topics[FOO].partitions[0].directories == [DIR_A, DIR_A]
    image.apply(change(eligible_leader_replicas=[4], last_known_elr=[2]))
    p = image.topics[FOO].partitions[0]
    assert p.elr == [4] and p.last_known_elr == [2] and p.adding_replicas == [4]


def test_partition_record_without_directories_is_migrating():
    image = image_of(topic(), partition(0, replicas=(1, 2)))
    assert image.topics[FOO].partitions[0].directories == [DIRECTORY_MIGRATING, DIRECTORY_MIGRATING]


def test_records_naming_absent_things_are_refused_or_skipped():
    with pytest.raises(ReplayError, match="no topic has id"):
        image_of(partition(0))
    with pytest.raises(ReplayError, match="partition 3 of topic foo"):
        image_of(topic(), change(3, leader=1))
    with pytest.raises(ReplayError, match="not registered"):
        image_of(M("FenceBrokerRecord")(id=5, epoch=1))
    with pytest.raises(ReplayError, match="epoch 9 is not its registered epoch 10"):
        image_of(
            register_broker(1, 10),
            M("BrokerRegistrationChangeRecord")(broker_id=1, broker_epoch=9, fenced=-1),
        )
    lenient = image_of(partition(0), topic(), partition(0), strict=False)
    assert len(lenient.problems) == 1 and "offset 0" in lenient.problems[0]
    assert list(lenient.topics[FOO].partitions) == [0]
    assert lenient.offset == 2 and lenient.records_applied == 3


def test_newest_producer_ids_record_wins():
    P = M("ProducerIdsRecord")
    image = image_of(
        P(broker_id=1, broker_epoch=5, next_producer_id=1000),
        P(broker_id=2, broker_epoch=7, next_producer_id=2000),
    )
    assert (
        image.producer_ids.next_producer_id,
        image.producer_ids.broker_id,
        image.producer_ids.broker_epoch,
    ) == (2000, 2, 7)


def test_fencing_through_both_record_kinds():
    change_record = M("BrokerRegistrationChangeRecord")
    image = image_of(register_broker(1, 10, fenced=True))
    assert image.brokers[1].fenced
    image.apply(M("UnfenceBrokerRecord")(id=1, epoch=10))
    assert not image.brokers[1].fenced
    image.apply(M("FenceBrokerRecord")(id=1, epoch=10))
    assert image.brokers[1].fenced
    image.apply(change_record(broker_id=1, broker_epoch=10, fenced=-1))
    assert not image.brokers[1].fenced
    image.apply(change_record(broker_id=1, broker_epoch=10, fenced=0, in_controlled_shutdown=1))
    assert not image.brokers[1].fenced and image.brokers[1].in_controlled_shutdown
    image.apply(change_record(broker_id=1, broker_epoch=10, fenced=1, log_dirs=[DIR_A]))
    assert image.brokers[1].fenced and image.brokers[1].directories == [DIR_A]
    image.apply(change_record(broker_id=1, broker_epoch=10))  # all "no change"
    assert (
        image.brokers[1].fenced
        and image.brokers[1].in_controlled_shutdown
        and image.brokers[1].directories == [DIR_A]
    )
    with pytest.raises(ReplayError, match="unknown Fenced value 2"):
        image.apply(change_record(broker_id=1, broker_epoch=10, fenced=2))


def test_reregistration_replaces_and_unregistration_removes():
    first, second = Uuid.random(), Uuid.random()
    image = image_of(
        register_broker(1, 10, fenced=False, incarnation=first), register_broker(2, 11)
    )
    image.apply(
        M("BrokerRegistrationChangeRecord")(broker_id=1, broker_epoch=10, in_controlled_shutdown=1)
    )
    image.apply(register_broker(1, 20, fenced=True, incarnation=second))
    broker = image.brokers[1]
    assert (broker.epoch, broker.incarnation_id, broker.fenced, broker.in_controlled_shutdown) == (
        20,
        second,
        True,
        False,
    )
    with pytest.raises(ReplayError):  # the old epoch no longer applies
        image.apply(M("UnfenceBrokerRecord")(id=1, epoch=10))
    image.apply(M("UnregisterBrokerRecord")(broker_id=2, broker_epoch=11))
    assert list(image.brokers) == [1]


def test_controllers_configs_features_and_migration_state():
    C = M("RegisterControllerRecord")
    config = M("ConfigRecord")
    image = image_of(
        C(controller_id=3000, incarnation_id=Uuid.random(), zk_migration_ready=False,
          end_points=[C.ControllerEndpoint(name="CONTROLLER", host="c", port=9093, security_protocol=0)]),
        config(resource_type=4, resource_name="", name="log.retention.ms", value="1"),
        config(resource_type=4, resource_name="1", name="a", value="x"),
        config(resource_type=4, resource_name="1", name="a", value=None),
        config(resource_type=4, resource_name="9", name="gone", value=None),
        M("FeatureLevelRecord")(name="metadata.version", feature_level=21),
        M("FeatureLevelRecord")(name="group.version", feature_level=1),
        M("FeatureLevelRecord")(name="group.version", feature_level=0),
        M("ZkMigrationStateRecord")(zk_migration_state=3),
    )  # fmt: skip
    assert image.controllers[3000].listeners["CONTROLLER"].port == 9093
    assert image.configs == {(4, ""): {"log.retention.ms": "1"}}
    assert image.features == {"metadata.version": 21} and image.metadata_version == 21
    assert image.zk_migration_state == 3


def test_acls_quotas_scram_tokens():
    acl_id = Uuid.random()
    Q = M("ClientQuotaRecord")
    alice = [
        Q.EntityData(entity_type="user", entity_name="alice"),
        Q.EntityData(entity_type="client-id", entity_name=None),
    ]
    image = image_of(
        M("AccessControlEntryRecord")(id=acl_id, resource_type=2, resource_name="foo", pattern_type=3,
                                      principal="User:alice", host="*", operation=3, permission_type=3),
        Q(entity=alice, key="producer_byte_rate", value=1024.0),
        Q(entity=alice, key="consumer_byte_rate", value=2048.0),
        Q(entity=list(reversed(alice)), key="consumer_byte_rate", remove=True),
        M("UserScramCredentialRecord")(name="alice", mechanism=1, salt=b"s", stored_key=b"k", server_key=b"v", iterations=4096),
        M("UserScramCredentialRecord")(name="alice", mechanism=2, salt=b"s", stored_key=b"k", server_key=b"v", iterations=8192),
        M("RemoveUserScramCredentialRecord")(name="alice", mechanism=1),
        M("DelegationTokenRecord")(owner="User:alice", requester="User:alice", renewers=["User:bob"], issue_timestamp=1,
                                   max_timestamp=3, expiration_timestamp=2, token_id="t1"),
        M("DelegationTokenRecord")(owner="User:bob", requester="User:bob", renewers=[], issue_timestamp=1,
                                   max_timestamp=3, expiration_timestamp=2, token_id="t2"),
        M("RemoveDelegationTokenRecord")(token_id="t2"),
    )  # fmt: skip
    assert image.acls[acl_id].principal == "User:alice"
    assert image.client_quotas == {
        (("client-id", None), ("user", "alice")): {"producer_byte_rate": 1024.0}
    }
    assert list(image.scram) == [(2, "alice")] and image.scram[(2, "alice")].iterations == 8192
    assert list(image.delegation_tokens) == ["t1"]
    image.apply(M("RemoveAccessControlEntryRecord")(id=acl_id))
    assert image.acls == {}
    with pytest.raises(ReplayError, match="no ACL has that id"):
        image.apply(M("RemoveAccessControlEntryRecord")(id=acl_id))


def test_aborted_transaction_rolls_back_and_ended_one_stays():
    image = image_of(
        topic("foo", FOO),
        M("BeginTransactionRecord")(name="create bar"),
        topic("bar", BAR), partition(0, BAR),
        M("AbortTransactionRecord")(reason="test"),
        M("BeginTransactionRecord")(name=None),
        partition(0, FOO),
    )  # fmt: skip
    assert image.transaction == ""
    image.apply(M("EndTransactionRecord")())
    assert image.transaction is None
    assert list(image.topics_by_name) == ["foo"] and list(image.topics[FOO].partitions) == [0]
    assert image.offset == 7
    with pytest.raises(ReplayError, match="outside any transaction"):
        image.apply(M("EndTransactionRecord")())


def test_offsets_and_noop_records():
    image = MetadataImage().replay([(10, topic()), (11, M("NoOpRecord")()), (15, partition(0))])
    assert image.offset == 15 and image.records_applied == 3
    decoded = kraft.decode_record_value(kraft.encode_record_value(M("NoOpRecord")(), 0))
    image.apply(decoded)
    assert image.offset == 16


# --- snapshots and log directories ---------------------------------------------------------------


def test_snapshot_replaces_the_image(tmp_path):
    snapshot = write_snapshot(tmp_path, [M("FeatureLevelRecord")(name="metadata.version", feature_level=20),
                                         topic("bar", BAR), partition(0, BAR)], end_offset=100, epoch=4)  # fmt: skip
    image = image_of(topic("foo", FOO), partition(0), register_broker(1, 10))
    image.load_snapshot(snapshot)
    assert list(image.topics_by_name) == ["bar"]
    assert image.brokers == {}
    assert (image.offset, image.epoch, image.snapshot_id) == (99, 4, (100, 4))


def test_log_dir_starts_at_newest_snapshot_and_replays_what_follows(tmp_path):
    write_snapshot(tmp_path, [topic("old", Uuid.random())], end_offset=3, epoch=1)
    write_snapshot(tmp_path, [topic("foo", FOO), partition(0)], end_offset=5, epoch=2)
    # Segment 0 holds offsets 0-6: 0-4 are in the newest snapshot already and must not be replayed again
    # (offset 2 would otherwise re-create topic "gone").
    write_segment(tmp_path, 0, [topic("a", Uuid.random()), M("NoOpRecord")(), topic("gone", Uuid.random()),
                                M("NoOpRecord")(), M("NoOpRecord")(),
                                change(0, FOO, leader=2), topic("bar", BAR)], epoch=2)  # fmt: skip
    write_segment(tmp_path, 7, [partition(0, BAR), M("RemoveTopicRecord")(topic_id=FOO)], epoch=3)
    image = MetadataImage.from_log_dir(tmp_path)
    assert list(image.topics_by_name) == ["bar"]
    assert (image.offset, image.epoch, image.snapshot_id) == (8, 3, (5, 2))
    # A log dir holding __cluster_metadata-0 works too.
    parent = tmp_path / "logs"
    (parent / "__cluster_metadata-0").mkdir(parents=True)
    for f in tmp_path.glob("0*"):
        (parent / "__cluster_metadata-0" / f.name).write_bytes(f.read_bytes())
    assert MetadataImage.from_log_dir(parent) == image


def test_log_dir_without_snapshot_and_with_a_gap_is_noted(tmp_path):
    write_segment(tmp_path, 10, [topic()])
    with pytest.raises(ReplayError, match="offsets 0 to 9"):
        MetadataImage.from_log_dir(tmp_path)
    lenient = MetadataImage.from_log_dir(tmp_path, strict=False)
    assert list(lenient.topics_by_name) == ["foo"] and len(lenient.problems) == 1


def test_missing_log_dir(tmp_path):
    with pytest.raises(FileNotFoundError):
        MetadataImage.from_log_dir(tmp_path / "nope")


def test_clear_elr_of_one_topic_or_of_all():
    with_elr = dict(eligible_leader_replicas=[2], last_known_elr=[3])
    image = image_of(
        topic("foo", FOO), partition(0, **with_elr), partition(1, **with_elr),
        topic("bar", BAR), partition(0, BAR, **with_elr),
        M("ClearElrRecord")(topic_name="foo"),
    )  # fmt: skip
    foo, bar = image.topics[FOO].partitions, image.topics[BAR].partitions
    assert [(p.elr, p.last_known_elr) for p in foo.values()] == [([], [])] * 2
    assert (bar[0].elr, bar[0].last_known_elr) == ([2], [3])
    image.apply(M("ClearElrRecord")(topic_name=""))
    assert (image.topics[BAR].partitions[0].elr, image.topics[BAR].partitions[0].last_known_elr) == ([], [])
    with pytest.raises(ReplayError, match="cannot clear the ELRs of topic baz"):
        image.apply(M("ClearElrRecord")(topic_name="baz"))


def test_cordoned_log_dirs_from_registration_and_change():
    change_record = M("BrokerRegistrationChangeRecord")
    image = image_of(register_broker(1, 10, log_dirs=[DIR_A, DIR_B], cordoned_log_dirs=[DIR_B]))
    assert image.brokers[1].cordoned_directories == [DIR_B]
    image.apply(change_record(broker_id=1, broker_epoch=10))  # null: no change
    assert image.brokers[1].cordoned_directories == [DIR_B]
    image.apply(change_record(broker_id=1, broker_epoch=10, cordoned_log_dirs=[]))
    assert image.brokers[1].cordoned_directories == []
