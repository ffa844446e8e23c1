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

What each record does is written as a function of the image in ``image_brokers``,
``image_topics``, ``image_settings`` and ``image_transactions`` (``HANDLERS`` maps a record's name
to it); whether Kafka refuses a broker or topic record is the rule ``kraft.brokers`` /
``kraft.topics`` states for the audit as well.

Records that name something absent (a partition of an unknown topic, a fence for a broker epoch
that is not the registered one...) are errors in Kafka. A strict image raises ``ReplayError``; a
lenient one (``strict=False``) skips the record and notes the problem in ``problems``.

``offset`` is the offset of the last record applied (for a snapshot: its end offset - 1, the last
offset it contains), ``epoch`` the leader epoch of the batch that carried it and ``timestamp``
that batch's max timestamp.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any, Callable, Union

from .. import registries
from ..message import Message
from ..messages import REGISTRY
from ..registries import RegistryLike
from ..uuid import Uuid
from . import image_brokers, image_files, image_settings, image_topics, image_transactions
from .records import MetadataRecord

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

MAX_PROBLEMS_KEPT = 1000  # a lenient image's problems kept; the rest are counted in the last line
# What the image applies: a message, or a record value decoded by ``kraft.records``.
MetadataRecordLike = Union[Message, MetadataRecord]
# What a record does to the image, by the record's name: the image_* modules' handlers.
Handler = Callable[["MetadataImage", Any], None]
HANDLERS: dict[str, Handler] = {
    **image_brokers.HANDLERS,
    **image_topics.HANDLERS,
    **image_settings.HANDLERS,
    **image_transactions.HANDLERS,
}


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
        return image_files.replay_segment(self, path, min_offset)

    def _registry_for(self, path: str | os.PathLike[str]) -> RegistryLike:
        """The registry to read a file with: the image's, else the one the file's marker names."""
        return self.registry or registries.for_path(path) or REGISTRY

    def replay_batches(
        self,
        batches: Iterable[RecordBatch | tuple[int, RecordBatch]],
        *,
        min_offset: int = 0,
        registry: RegistryLike = None,
    ) -> MetadataImage:
        """Apply the metadata records of record batches (control batches are skipped), read with
        ``registry`` (default: the image's, else Kafka's)."""
        return image_files.replay_batches(
            self, batches, min_offset, registry or self.registry or REGISTRY
        )

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
        handler = HANDLERS.get(message.NAME)
        try:
            if handler is None:
                raise ReplayError(f"no replay rule for {message.NAME}")
            handler(self, message)
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
