"""The metadata image: the cluster state a KRaft metadata log describes, built by replaying it.

A ``MetadataImage`` starts empty (or from a snapshot, which replaces whatever it held) and applies
metadata records one by one with the meaning Kafka's ``MetadataDelta`` gives them:

- brokers: ``RegisterBrokerRecord`` registers a broker, or replaces its registration (a restart
  brings a new epoch and incarnation id); ``UnregisterBrokerRecord`` removes it;
  ``FenceBrokerRecord`` / ``UnfenceBrokerRecord`` and ``BrokerRegistrationChangeRecord`` (Fenced
  1 fences, -1 unfences, 0 leaves it; InControlledShutdown 1 sets it; a non-empty LogDirs replaces
  the directories) change a registration whose epoch they name;
- controllers: ``RegisterControllerRecord``;
- topics: ``TopicRecord`` adds a topic, ``PartitionRecord`` a partition, ``PartitionChangeRecord``
  changes only the fields it carries and bumps the partition epoch (and the leader epoch whenever
  it names a leader, as ``PartitionRegistration.merge`` does), ``RemoveTopicRecord`` drops the
  topic with its partitions and its topic configs;
- ``ConfigRecord`` sets a config, or deletes it when the value is null;
- ``FeatureLevelRecord`` sets a feature level, level 0 removes the feature;
- ``ProducerIdsRecord``: the newest one wins;
- ACLs by id, client quotas by entity, SCRAM credentials by (mechanism, user), delegation tokens
  by token id, the ZooKeeper migration state;
- ``ClearElrRecord`` empties the eligible (and last known eligible) leader replicas of one topic's
  partitions, or of all topics when its topic name is empty;
- ``TopicPartitionToBatchCoordinatorMapping`` (record type 29) maps a diskless partition to the partition of
  ``__diskless-metadata`` that coordinates its batches (dropped with the topic);
- ``NoOpRecord`` only moves the offset; ``BeginTransactionRecord`` / ``EndTransactionRecord``
  bracket a metadata transaction and ``AbortTransactionRecord`` rolls the image back to where the
  transaction began, as Kafka's metadata loader does.

Records that name something absent (a partition of an unknown topic, a fence for a broker epoch
that is not the registered one...) are errors in Kafka. A strict image raises ``ReplayError``; a
lenient one (``strict=False``) skips the record and notes the problem in ``problems``.

``offset`` is the offset of the last record applied (for a snapshot: its end offset - 1, the last
offset it contains), ``epoch`` the leader epoch of the batch that carried it and ``timestamp``
that batch's max timestamp.
"""

from __future__ import annotations

import copy
import os
from collections.abc import Iterable
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any, Union

from .. import registries
from ..message import Message
from ..messages import REGISTRY
from ..registries import RegistryLike
from ..uuid import Uuid
from . import image_files
from .brokers import (
    FENCE_BROKER,
    NEVER_REGISTERED,
    NOT_REGISTERED,
    UNFENCE_BROKER,
    WRONG_EPOCH,
    BrokerState,
    broker_problem,
    op_of_change,
)
from .records import MetadataRecord, decode_record_value
from .rules import FENCE, FENCING_UNCHANGED, UNFENCE, fenced_after
from .topics import (
    ADD_PARTITION,
    CHANGE_PARTITION,
    LIVE,
    NEVER_CREATED,
    REMOVE,
    UNKNOWN_PARTITION,
    topic_problem,
)

# The parts are importable from here, where the image's users have always found them.
from .image_parts import (
    LEADER_RECOVERY_NO_CHANGE as LEADER_RECOVERY_NO_CHANGE,
    DIRECTORY_UNASSIGNED as DIRECTORY_UNASSIGNED,
    DIRECTORY_LOST as DIRECTORY_LOST,
    DIRECTORY_MIGRATING as DIRECTORY_MIGRATING,
    CONFIG_RESOURCE_TYPES as CONFIG_RESOURCE_TYPES,
    TOPIC_RESOURCE as TOPIC_RESOURCE,
    ZK_MIGRATION_STATES as ZK_MIGRATION_STATES,
    METADATA_VERSION as METADATA_VERSION,
    ReplayError as ReplayError,
    Endpoint as Endpoint,
    FeatureRange as FeatureRange,
    BrokerRegistration as BrokerRegistration,
    ControllerRegistration as ControllerRegistration,
    PartitionRegistration as PartitionRegistration,
    Topic as Topic,
    ProducerIds as ProducerIds,
    Acl as Acl,
    ScramCredential as ScramCredential,
    DelegationToken as DelegationToken,
    QuotaEntity as QuotaEntity,
)

if TYPE_CHECKING:
    from ..log.batch import RecordBatch
    from ..log.header import BatchHeader
    from ..log.records import Record
    from ..diskless_messages.topic_partition_to_batch_coordinator_mapping import (
        TopicPartitionToBatchCoordinatorMapping,
    )
    from ..messages.abort_transaction_record import AbortTransactionRecord
    from ..messages.access_control_entry_record import AccessControlEntryRecord
    from ..messages.begin_transaction_record import BeginTransactionRecord
    from ..messages.broker_registration_change_record import BrokerRegistrationChangeRecord
    from ..messages.clear_elr_record import ClearElrRecord
    from ..messages.client_quota_record import ClientQuotaRecord
    from ..messages.config_record import ConfigRecord
    from ..messages.delegation_token_record import DelegationTokenRecord
    from ..messages.end_transaction_record import EndTransactionRecord
    from ..messages.feature_level_record import FeatureLevelRecord
    from ..messages.fence_broker_record import FenceBrokerRecord
    from ..messages.no_op_record import NoOpRecord
    from ..messages.partition_change_record import PartitionChangeRecord
    from ..messages.partition_record import PartitionRecord
    from ..messages.producer_ids_record import ProducerIdsRecord
    from ..messages.register_broker_record import RegisterBrokerRecord
    from ..messages.register_controller_record import RegisterControllerRecord
    from ..messages.remove_access_control_entry_record import RemoveAccessControlEntryRecord
    from ..messages.remove_delegation_token_record import RemoveDelegationTokenRecord
    from ..messages.remove_topic_record import RemoveTopicRecord
    from ..messages.remove_user_scram_credential_record import RemoveUserScramCredentialRecord
    from ..messages.topic_record import TopicRecord
    from ..messages.unfence_broker_record import UnfenceBrokerRecord
    from ..messages.unregister_broker_record import UnregisterBrokerRecord
    from ..messages.unregister_controller_record import UnregisterControllerRecord
    from ..messages.user_scram_credential_record import UserScramCredentialRecord
    from ..messages.zk_migration_state_record import ZkMigrationStateRecord

MAX_PROBLEMS_KEPT = 1000  # a lenient image's problems kept; the rest are counted in the last line
# What the image applies: a message, or a record value decoded by ``kraft.records``.
MetadataRecordLike = Union[Message, MetadataRecord]


# --- the image ----------------------------------------------------------------------------


@dataclass
class MetadataImage:
    """The cluster metadata after replaying records. Plain data: read the fields directly."""

    brokers: dict[int, BrokerRegistration] = field(default_factory=dict)
    controllers: dict[int, ControllerRegistration] = field(default_factory=dict)
    topics: dict[Uuid, Topic] = field(default_factory=dict)  # by topic id
    configs: dict[tuple[int, str], dict[str, str]] = field(
        default_factory=dict
    )  # (resource type, name)
    features: dict[str, int] = field(default_factory=dict)
    zk_migration_state: int | None = None
    producer_ids: ProducerIds | None = None
    acls: dict[Uuid, Acl] = field(default_factory=dict)
    client_quotas: dict[QuotaEntity, dict[str, float]] = field(default_factory=dict)
    scram: dict[tuple[int, str], ScramCredential] = field(default_factory=dict)  # (mechanism, user)
    delegation_tokens: dict[str, DelegationToken] = field(default_factory=dict)
    diskless: dict[Uuid, dict[int, int]] = field(
        default_factory=dict
    )  # topic id -> partition -> coordinator partition
    # Where the image stands.
    offset: int = -1  # offset of the last record applied
    epoch: int = -1  # leader epoch of the batch holding it
    timestamp: int = -1  # max timestamp of that batch
    records_applied: int = 0
    snapshot_id: tuple[int, int] | None = (
        None  # (end offset, epoch) of the snapshot it started from
    )
    transaction: str | None = (
        None  # name of the open metadata transaction ("" if unnamed), else None
    )
    strict: bool = True
    problems: list[str] = field(default_factory=list)  # records skipped by a lenient image
    # The registry records are read with (a registry or a shipped one's name). None: for a file,
    # the one its registry marker names (simulate --diskless writes one), else Kafka's. The
    # diskless design's maps record type 29 to its coordinator mapping.
    registry: RegistryLike = field(default=None, repr=False)
    _before_transaction: dict[str, Any] | None = field(default=None, repr=False)

    # --- lookups -------------------------------------------------------------------------

    @property
    def topics_by_name(self) -> dict[str, Topic]:
        return {topic.name: topic for topic in self.topics.values()}

    def topic(self, name_or_id: str | Uuid) -> Topic | None:
        if isinstance(name_or_id, Uuid):
            return self.topics.get(name_or_id)
        for topic in self.topics.values():
            if topic.name == name_or_id:
                return topic
        return None

    @property
    def metadata_version(self) -> int | None:
        """The metadata.version feature level, if set."""
        return self.features.get(METADATA_VERSION)

    # --- loading -------------------------------------------------------------------------

    @classmethod
    def from_snapshot(
        cls, path: str | os.PathLike[str], *, strict: bool = True, registry: RegistryLike = None
    ) -> MetadataImage:
        """The image a snapshot file (``<offset>-<epoch>.checkpoint`` or ``bootstrap.checkpoint``) holds."""
        image = cls(strict=strict, registry=registry)
        image.load_snapshot(path)
        return image

    @classmethod
    def from_log_dir(
        cls,
        directory: str | os.PathLike[str],
        *,
        strict: bool = True,
        registry: RegistryLike = None,
    ) -> MetadataImage:
        image = cls(strict=strict, registry=registry)
        image.load_log_dir(directory)
        return image

    def load_snapshot(self, path: str | os.PathLike[str]) -> MetadataImage:
        """Replace the image with the one a snapshot holds."""
        return image_files.load_snapshot(self, path)

    def load_log_dir(self, directory: str | os.PathLike[str]) -> MetadataImage:
        """Replace the image with the state a ``__cluster_metadata-0`` directory holds
        (``image_files.load_log_dir`` says how)."""
        return image_files.load_log_dir(self, directory)

    def replay_segment(self, path: str | os.PathLike[str], *, min_offset: int = 0) -> MetadataImage:
        """Apply the metadata records of a ``*.log`` segment whose offset is at least ``min_offset``."""
        # Each batch's records are read one at a time: memory does not grow with a batch's
        # record count. A truncated tail ends the segment (as SegmentReader); other damage
        # raises, or for a lenient image is noted and skipped, as dump-log goes on past it.
        from ..log.errors import LogFormatError, TruncatedBatchError
        from ..log.scanning import Damage, scan
        from ..log.source import MappedFile

        path = Path(path)
        registry = self._registry_for(path)
        with MappedFile(path) as source:
            for item in scan(source):
                if isinstance(item, Damage):
                    if isinstance(item.error, TruncatedBatchError):
                        break
                    if self.strict:
                        item.error.file = path
                        raise item.error
                    self._problem(f"{item.kind} in {path} at byte {item.position} ({item.length} bytes): "
                                  f"{item.detail}", None, None)  # fmt: skip
                    continue
                header = item.header
                if header.is_control or header.last_offset < min_offset:
                    continue
                try:
                    self._replay_records(header, item.records(), min_offset, registry)
                except LogFormatError as exc:
                    exc.file = path
                    if exc.position is None:
                        exc.position = exc.offset = item.position
                    if self.strict:
                        raise
                    self._problem(
                        f"malformed batch in {path} at byte {item.position}: {exc}", None, None
                    )
                    continue
                self.timestamp = header.max_timestamp
        return self

    def _registry_for(self, path: str | os.PathLike[str]) -> RegistryLike:
        """The registry to read a file with: the image's, else the one the file's marker names."""
        return self.registry or registries.for_path(path) or REGISTRY

    def _replay_records(
        self,
        batch: BatchHeader | RecordBatch,
        records: Iterable[Record],
        min_offset: int,
        registry: RegistryLike,
    ) -> None:
        base_offset, epoch = batch.base_offset, batch.partition_leader_epoch
        for record in records:
            offset = base_offset + record.offset_delta
            if offset < min_offset:
                continue
            try:
                if record.value is None:  # the problem bytes(None) in decode_record_value gave
                    raise TypeError("cannot convert 'NoneType' object to bytes")
                decoded = decode_record_value(record.value, registry)
            except Exception as exc:
                self._problem(f"undecodable record: {exc}", offset, None)
                continue
            self.apply(decoded, offset=offset, epoch=epoch)

    def replay_batches(
        self,
        batches: Iterable[RecordBatch | tuple[int, RecordBatch]],
        *,
        min_offset: int = 0,
        registry: RegistryLike = None,
    ) -> MetadataImage:
        """Apply the metadata records of record batches (control batches are skipped), read with
        ``registry`` (default: the image's, else Kafka's)."""
        registry = registry or self.registry or REGISTRY
        for batch in batches:
            if isinstance(batch, tuple):  # (file position, batch) from a reader
                batch = batch[1]
            if batch.is_control or batch.last_offset < min_offset:
                continue
            self._replay_records(batch, batch.records, min_offset, registry)
            self.timestamp = batch.max_timestamp
        return self

    def replay(
        self, records: Iterable[MetadataRecordLike | tuple[int, MetadataRecordLike]]
    ) -> MetadataImage:
        """Apply records in order: messages, ``MetadataRecord``s or ``(offset, record)`` pairs."""
        for item in records:
            if isinstance(item, tuple):
                offset, item = item
                self.apply(item, offset=offset)
            else:
                self.apply(item)
        return self

    # --- applying one record -------------------------------------------------------------

    def apply(
        self, record: MetadataRecordLike, *, offset: int | None = None, epoch: int | None = None
    ) -> None:
        """Apply one record (a message or a ``MetadataRecord``) at ``offset`` (default: next)."""
        message: Message = record.message if isinstance(record, MetadataRecord) else record
        offset = self.offset + 1 if offset is None else offset
        handler = getattr(self, f"_on_{message.NAME}", None)
        try:
            if handler is None:
                raise ReplayError(f"no replay rule for {message.NAME}")
            handler(message)
        except ValueError as exc:  # ReplayError from the rules, ValueError from malformed data
            self._problem(str(exc), offset, message.NAME)
        self.offset = offset
        if epoch is not None:
            self.epoch = epoch
        self.records_applied += 1

    def _problem(self, message: str, offset: int | None, record: str | None) -> None:
        error = ReplayError(message, offset, record)
        if self.strict:
            raise error
        problems = self.problems
        if len(problems) < MAX_PROBLEMS_KEPT:
            problems.append(str(error))
            return
        # A hostile log can hold millions of undecodable records: keep a count past the first.
        more = int(problems[-1].split()[1]) + 1 if problems[-1].startswith("... ") else 1
        if more == 1:
            problems.append(f"... 1 more problem not kept")
        else:
            problems[-1] = f"... {more} more problems not kept"

    def _reset(self) -> None:
        fresh = type(self)(strict=self.strict)
        for f in fields(self):
            if f.name not in ("strict", "problems", "registry"):
                setattr(self, f.name, getattr(fresh, f.name))

    # brokers and controllers

    def _on_RegisterBrokerRecord(self, r: RegisterBrokerRecord) -> None:
        self.brokers[r.broker_id] = BrokerRegistration(
            id=r.broker_id,
            epoch=r.broker_epoch,
            incarnation_id=r.incarnation_id,
            listeners={
                e.name: Endpoint(e.name, e.host, e.port, e.security_protocol) for e in r.end_points
            },
            supported_features={
                f.name: FeatureRange(f.min_supported_version, f.max_supported_version)
                for f in r.features
            },
            rack=r.rack,
            fenced=r.fenced,
            in_controlled_shutdown=r.in_controlled_shutdown,
            is_migrating_zk_broker=r.is_migrating_zk_broker,
            directories=list(r.log_dirs),
            cordoned_directories=(
                None if r.cordoned_log_dirs is None else list(r.cordoned_log_dirs)
            ),
        )

    def _on_UnregisterBrokerRecord(self, r: UnregisterBrokerRecord) -> None:
        self.brokers.pop(r.broker_id, None)

    def _on_UnregisterControllerRecord(self, r: UnregisterControllerRecord) -> None:
        # Kafka 4.4: a controller's registration ends; like a broker's, unknown ids are no error
        self.controllers.pop(r.controller_id, None)

    def _broker(self, broker_id: int, epoch: int, op: str, action: str) -> BrokerRegistration:
        """The registration a broker record changes; a record Kafka refuses raises."""
        broker = self.brokers.get(broker_id)
        state = (
            NEVER_REGISTERED if broker is None else BrokerState(True, broker.epoch, broker.fenced)
        )
        problem = broker_problem(state, op, epoch)
        if problem == NOT_REGISTERED:
            raise ReplayError(f"cannot {action} broker {broker_id}: it is not registered")
        if problem == WRONG_EPOCH:
            raise ReplayError(
                f"cannot {action} broker {broker_id}: epoch {epoch} is not its registered epoch {state.epoch}"
            )
        assert broker is not None  # an absent broker is NOT_REGISTERED
        return broker

    def _on_FenceBrokerRecord(self, r: FenceBrokerRecord) -> None:
        self._broker(r.id, r.epoch, FENCE_BROKER, "fence").fenced = True

    def _on_UnfenceBrokerRecord(self, r: UnfenceBrokerRecord) -> None:
        self._broker(r.id, r.epoch, UNFENCE_BROKER, "unfence").fenced = False

    def _on_BrokerRegistrationChangeRecord(self, r: BrokerRegistrationChangeRecord) -> None:
        broker = self._broker(r.broker_id, r.broker_epoch, op_of_change(r.fenced), "change")
        if r.fenced not in (UNFENCE, FENCING_UNCHANGED, FENCE):
            raise ReplayError(f"unknown Fenced value {r.fenced}")
        if r.in_controlled_shutdown not in (0, 1):
            raise ReplayError(f"unknown InControlledShutdown value {r.in_controlled_shutdown}")
        broker.fenced = fenced_after(r.fenced, broker.fenced)
        if r.in_controlled_shutdown == 1:
            broker.in_controlled_shutdown = True
        if r.log_dirs:
            broker.directories = list(r.log_dirs)
        if r.cordoned_log_dirs is not None:  # null (the default) leaves the cordoned set alone
            broker.cordoned_directories = list(r.cordoned_log_dirs)

    def _on_RegisterControllerRecord(self, r: RegisterControllerRecord) -> None:
        self.controllers[r.controller_id] = ControllerRegistration(
            id=r.controller_id,
            incarnation_id=r.incarnation_id,
            zk_migration_ready=r.zk_migration_ready,
            listeners={
                e.name: Endpoint(e.name, e.host, e.port, e.security_protocol) for e in r.end_points
            },
            supported_features={
                f.name: FeatureRange(f.min_supported_version, f.max_supported_version)
                for f in r.features
            },
        )

    # topics and partitions

    def _topic_for(self, topic_id: Uuid, op: str, action: str, partition_id: int = -1) -> Topic:
        """The topic a topic or partition record names (kraft.topics); one Kafka refuses raises."""
        topic = self.topics.get(topic_id)
        has_partition = topic is not None and partition_id in topic.partitions
        problem = topic_problem(NEVER_CREATED if topic is None else LIVE, op, has_partition)
        if problem is not None and topic is None:  # never created, or removed and forgotten
            raise ReplayError(f"cannot {action}: no topic has id {topic_id}")
        assert topic is not None
        if problem == UNKNOWN_PARTITION:
            raise ReplayError(f"cannot {action} of topic {topic.name}: it does not exist")
        return topic

    def _on_TopicRecord(self, r: TopicRecord) -> None:
        self.topics[r.topic_id] = Topic(r.name, r.topic_id)

    def _on_RemoveTopicRecord(self, r: RemoveTopicRecord) -> None:
        topic = self._topic_for(r.topic_id, REMOVE, "remove topic")
        del self.topics[r.topic_id]
        self.configs.pop((TOPIC_RESOURCE, topic.name), None)
        self.diskless.pop(r.topic_id, None)

    def _on_PartitionRecord(self, r: PartitionRecord) -> None:
        topic = self._topic_for(r.topic_id, ADD_PARTITION, f"add partition {r.partition_id}")
        topic.partitions[r.partition_id] = PartitionRegistration.from_record(r)

    def _on_PartitionChangeRecord(self, r: PartitionChangeRecord) -> None:
        action = f"change partition {r.partition_id}"
        topic = self._topic_for(r.topic_id, CHANGE_PARTITION, action, r.partition_id)
        topic.partitions[r.partition_id] = topic.partitions[r.partition_id].merge(r)

    def _on_ClearElrRecord(self, r: ClearElrRecord) -> None:
        # Empty the eligible and last-known-eligible leader replicas of one topic's partitions, or
        # of every topic's when TopicName is empty (written when the ELR feature is turned off).
        if r.topic_name:
            topics = [t for t in self.topics.values() if t.name == r.topic_name]
            if not topics:
                raise ReplayError(
                    f"cannot clear the ELRs of topic {r.topic_name}: it does not exist"
                )
        else:
            topics = list(self.topics.values())
        for topic in topics:
            for partition in topic.partitions.values():
                partition.elr = []
                partition.last_known_elr = []

    def _on_TopicPartitionToBatchCoordinatorMapping(
        self, r: TopicPartitionToBatchCoordinatorMapping
    ) -> None:
        self.diskless.setdefault(r.topic_id, {})[
            r.partition_index
        ] = r.batch_coordinator_partition_index

    # configs, features, producer ids

    def _on_ConfigRecord(self, r: ConfigRecord) -> None:
        key = (r.resource_type, r.resource_name)
        if r.value is None:
            configs = self.configs.get(key)
            if configs is not None:
                configs.pop(r.name, None)
                if not configs:
                    del self.configs[key]
        else:
            self.configs.setdefault(key, {})[r.name] = r.value

    def _on_FeatureLevelRecord(self, r: FeatureLevelRecord) -> None:
        if r.feature_level == 0:
            self.features.pop(r.name, None)
        else:
            self.features[r.name] = r.feature_level

    def _on_ZkMigrationStateRecord(self, r: ZkMigrationStateRecord) -> None:
        self.zk_migration_state = r.zk_migration_state

    def _on_ProducerIdsRecord(self, r: ProducerIdsRecord) -> None:
        self.producer_ids = ProducerIds(r.next_producer_id, r.broker_id, r.broker_epoch)

    # security and quotas

    def _on_AccessControlEntryRecord(self, r: AccessControlEntryRecord) -> None:
        self.acls[r.id] = Acl(r.id, r.resource_type, r.resource_name, r.pattern_type, r.principal, r.host,
                              r.operation, r.permission_type)  # fmt: skip

    def _on_RemoveAccessControlEntryRecord(self, r: RemoveAccessControlEntryRecord) -> None:
        if self.acls.pop(r.id, None) is None:
            raise ReplayError(f"cannot remove ACL {r.id}: no ACL has that id")

    def _on_ClientQuotaRecord(self, r: ClientQuotaRecord) -> None:
        entity = tuple(sorted((part.entity_type, part.entity_name) for part in r.entity))
        if r.remove:
            quotas = self.client_quotas.get(entity)
            if quotas is not None:
                quotas.pop(r.key, None)
                if not quotas:
                    del self.client_quotas[entity]
        else:
            self.client_quotas.setdefault(entity, {})[r.key] = r.value

    def _on_UserScramCredentialRecord(self, r: UserScramCredentialRecord) -> None:
        self.scram[(r.mechanism, r.name)] = ScramCredential(
            r.name, r.mechanism, r.salt, r.stored_key, r.server_key, r.iterations
        )

    def _on_RemoveUserScramCredentialRecord(self, r: RemoveUserScramCredentialRecord) -> None:
        self.scram.pop((r.mechanism, r.name), None)

    def _on_DelegationTokenRecord(self, r: DelegationTokenRecord) -> None:
        self.delegation_tokens[r.token_id] = DelegationToken(
            r.token_id,
            r.owner,
            r.requester,
            list(r.renewers),
            r.issue_timestamp,
            r.max_timestamp,
            r.expiration_timestamp,
        )

    def _on_RemoveDelegationTokenRecord(self, r: RemoveDelegationTokenRecord) -> None:
        self.delegation_tokens.pop(r.token_id, None)

    # markers

    def _on_NoOpRecord(self, r: NoOpRecord) -> None:
        pass

    _STATE = ("brokers", "controllers", "topics", "configs", "features", "zk_migration_state", "producer_ids",
              "acls", "client_quotas", "scram", "delegation_tokens", "diskless")  # fmt: skip

    def _on_BeginTransactionRecord(self, r: BeginTransactionRecord) -> None:
        if self.transaction is not None:
            raise ReplayError(
                f"a metadata transaction begins inside transaction {self.transaction!r}"
            )
        self._before_transaction = copy.deepcopy(
            {name: getattr(self, name) for name in self._STATE}
        )
        self.transaction = r.name or ""

    def _on_EndTransactionRecord(self, r: EndTransactionRecord) -> None:
        if self.transaction is None:
            raise ReplayError("a metadata transaction ends outside any transaction")
        self.transaction = self._before_transaction = None

    def _on_AbortTransactionRecord(self, r: AbortTransactionRecord) -> None:
        if self.transaction is None:
            raise ReplayError("a metadata transaction is aborted outside any transaction")
        before = self._before_transaction
        assert before is not None  # set when the transaction began
        for name, value in before.items():
            setattr(self, name, value)
        self.transaction = self._before_transaction = None
