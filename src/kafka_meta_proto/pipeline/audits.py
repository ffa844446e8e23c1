"""The audits: each a DataFrame of violations, computed with Spark window functions.

The metadata audits replay each cluster's records in order (``seq``: the log offset; for a
snapshot replayed before the log, see ``inputs.stream_plan``) and look, per key, at what came
before a record: a window partitioned by cluster and key, ordered by ``seq``, with
``last(..., ignorenulls)`` over the rows before it giving the state "as of" that record. No
cluster's log has to fit in one task: the work is spread by (cluster, key).

Every violation row: ``audit, check, cluster, file, offset, subject, detail`` and ``status``.
A check marked *history* needs every earlier record (a reference to a topic or broker never seen
can come from records that were lost); such a violation found in a cluster whose replay did not
start from an empty cluster, or after a stretch of the log that could not be read (a quarantined
batch), is reported with status ``unverifiable`` rather than ``violation``.
"""

from __future__ import annotations

from dataclasses import dataclass

from enum import StrEnum

from pyspark.sql import DataFrame, Window
from pyspark.sql import functions as F

from ..kraft_rules import (
    CONFIG_TOPIC,
    DISKLESS_CONFIG,
    DISKLESS_TOPIC,
    FENCE,
    PRODUCER_ID_BLOCK_SIZE,
    UNFENCE,
)
from ..log.control import CONTROL_TYPE_NAMES, SNAPSHOT_FOOTER, SNAPSHOT_HEADER
from ..log.names import SEGMENT_NAME_REGEX
from .columns import Issue
from .inputs import SEGMENT

TOPIC_RESOURCE = CONFIG_TOPIC
UNMAPPED_GRACE_MS = 300_000  # a diskless topic's partitions must be mapped within 5 minutes


class Audit(StrEnum):
    PRODUCER_IDS = "producer-ids"
    TOPIC_IDS = "topic-ids"
    BROKERS = "brokers"
    DISKLESS = "diskless"
    LOG = "log"


class Check(StrEnum):
    OVERLAPPING_BLOCK = "overlapping block"
    BROKER_NOT_AT_CURRENT_EPOCH = "broker not at current epoch"
    TOPIC_ID_REUSED = "topic id reused"
    NAME_RECREATED_WHILE_LIVE = "name re-created while live"
    UNKNOWN_TOPIC_ID = "unknown topic id"
    REMOVED_TOPIC_ID = "removed topic id"
    EPOCH_NOT_INCREASING = "epoch not increasing"
    INCARNATION_CHANGED = "incarnation changed"
    ILLEGAL_TRANSITION = "illegal transition"
    MAPPING_OF_UNKNOWN_PARTITION = "mapping of unknown partition"
    MAPPING_OF_NON_DISKLESS_TOPIC = "mapping of non-diskless topic"
    COORDINATOR_OUT_OF_RANGE = "coordinator out of range"
    CONFLICTING_MAPPINGS = "conflicting mappings"
    UNMAPPED_PARTITION = "unmapped partition"
    OFFSET_GAP = "offset gap"
    DUPLICATE_OFFSETS = "duplicate offsets"
    CRC_MISMATCH = "crc mismatch"
    LEADER_EPOCH_REGRESSION = "leader epoch regression"
    RECORD_OFFSETS = "record offsets"
    SEGMENT_NAME = "segment name"
    SNAPSHOT_FRAME = "snapshot frame"
    TRUNCATED_TAIL = Issue.TRUNCATED_TAIL.value
    UNREADABLE_BYTES = Issue.UNREADABLE_BYTES.value
    MALFORMED_BATCH = Issue.MALFORMED_BATCH.value
    UNDECODABLE_RECORD = Issue.UNDECODABLE_RECORD.value


class Event(StrEnum):
    """The typed tables the metadata audits read (tables.table_name of each record type)."""

    PRODUCER_IDS = "producer_ids_record"
    REGISTER_BROKER = "register_broker_record"
    UNREGISTER_BROKER = "unregister_broker_record"
    FENCE_BROKER = "fence_broker_record"
    UNFENCE_BROKER = "unfence_broker_record"
    BROKER_REGISTRATION_CHANGE = "broker_registration_change_record"
    TOPIC = "topic_record"
    REMOVE_TOPIC = "remove_topic_record"
    PARTITION = "partition_record"
    PARTITION_CHANGE = "partition_change_record"
    TOPIC_PARTITION_TO_BATCH_COORDINATOR_MAPPING = "topic_partition_to_batch_coordinator_mapping"
    CONFIG = "config_record"


E = Event

# audit -> [(check, what it means, needs the full history)]
AUDITS = {
    Audit.PRODUCER_IDS: [
        (Check.OVERLAPPING_BLOCK, "a ProducerIdsRecord's block (the 1000 ids below nextProducerId) starts before "
                              "the end of the blocks handed out before it", False),
        (Check.BROKER_NOT_AT_CURRENT_EPOCH, "the block goes to a broker that is not registered, or not at the "
                                        "epoch it names", True),
    ],
    Audit.TOPIC_IDS: [
        (Check.TOPIC_ID_REUSED, "a TopicRecord with a topic id some earlier TopicRecord already had", False),
        (Check.NAME_RECREATED_WHILE_LIVE, "a TopicRecord for a name whose previous topic id was not removed", True),
        (Check.UNKNOWN_TOPIC_ID, "a partition record or RemoveTopicRecord naming a topic id never created", True),
        (Check.REMOVED_TOPIC_ID, "a partition record or RemoveTopicRecord naming a removed topic id", False),
    ],
    Audit.BROKERS: [
        (Check.EPOCH_NOT_INCREASING, "a RegisterBrokerRecord whose epoch is not above the broker's previous one", False),
        (Check.INCARNATION_CHANGED, "two registrations of one broker epoch with different incarnation ids", False),
        (Check.ILLEGAL_TRANSITION, "fence of a fenced broker, unfence of an unfenced one, or a change naming an "
                               "unregistered broker or an epoch other than its current one", True),
    ],
    Audit.DISKLESS: [
        (Check.MAPPING_OF_UNKNOWN_PARTITION, "a coordinator mapping for a topic id or partition that does not exist", True),
        (Check.MAPPING_OF_NON_DISKLESS_TOPIC, f"a coordinator mapping for a topic without {DISKLESS_CONFIG}=true", True),
        (Check.COORDINATOR_OUT_OF_RANGE, f"a coordinator partition that {DISKLESS_TOPIC} does not have", True),
        (Check.CONFLICTING_MAPPINGS, "one partition mapped to two coordinator partitions in one batch or snapshot", False),
        (Check.UNMAPPED_PARTITION, "a partition of a diskless topic with no coordinator partition "
                               f"{UNMAPPED_GRACE_MS // 60000} minutes after the topic was created", True),
    ],
    Audit.LOG: [
        (Check.OFFSET_GAP, "offsets missing between two batches", False),
        (Check.DUPLICATE_OFFSETS, "a batch holding offsets an earlier batch already holds", False),
        (Check.CRC_MISMATCH, "a batch whose CRC-32C does not match (quarantined)", False),
        (Check.LEADER_EPOCH_REGRESSION, "a batch written in a lower leader epoch than an earlier batch", False),
        (Check.RECORD_OFFSETS, "a batch whose record offset deltas are not 0..n-1", False),
        (Check.SEGMENT_NAME, "a segment whose first offset is not the offset in its name", False),
        (Check.SNAPSHOT_FRAME, "a snapshot not starting with SnapshotHeader at offset 0 or not ending with "
                           "SnapshotFooter", False),
        (Check.TRUNCATED_TAIL, "a file ending inside a batch (quarantined)", False),
        (Check.UNREADABLE_BYTES, "bytes between two sound batches that are no batch (quarantined)", False),
        (Check.MALFORMED_BATCH, "a batch with a sound CRC whose records do not parse (quarantined)", False),
        (Check.UNDECODABLE_RECORD, "a record value the generated classes cannot decode (quarantined)", False),
    ],
}
HISTORY_CHECKS = {(a, c) for a, checks in AUDITS.items() for c, _, h in checks if h}
VIOLATION_COLUMNS = ["audit", "check", "status", "cluster", "file", "offset", "subject", "detail"]


# The fields of the typed tables the metadata audits read, under common names: one narrow,
# cached "events" frame serves every audit (table -> {event column: typed table column}).
EVENT_FIELDS = {
    E.PRODUCER_IDS: {"broker_id": "brokerId", "epoch": "brokerEpoch", "next_id": "nextProducerId"},
    E.REGISTER_BROKER: {"broker_id": "brokerId", "epoch": "brokerEpoch", "incarnation": "incarnationId",
                               "fenced": "fenced"},
    E.UNREGISTER_BROKER: {"broker_id": "brokerId", "epoch": "brokerEpoch"},
    E.FENCE_BROKER: {"broker_id": "id", "epoch": "epoch"},
    E.UNFENCE_BROKER: {"broker_id": "id", "epoch": "epoch"},
    E.BROKER_REGISTRATION_CHANGE: {"broker_id": "brokerId", "epoch": "brokerEpoch", "fenced": "fenced"},
    E.TOPIC: {"name": "name", "topic_id": "topicId"},
    E.REMOVE_TOPIC: {"topic_id": "topicId"},
    E.PARTITION: {"topic_id": "topicId", "partition": "partitionId"},
    E.PARTITION_CHANGE: {"topic_id": "topicId", "partition": "partitionId"},
    E.TOPIC_PARTITION_TO_BATCH_COORDINATOR_MAPPING: {"topic_id": "topicId", "partition": "partitionIndex",
                                                     "coordinator": "batchCoordinatorPartitionIndex"},
    E.CONFIG: {"name": "resourceName", "config_value": "value"},
}  # fmt: skip
EVENT_TYPES = {
    "broker_id": "int", "epoch": "bigint", "next_id": "bigint", "incarnation": "string", "fenced": "int",
    "name": "string", "topic_id": "string", "partition": "int", "coordinator": "int", "config_value": "string",
}  # fmt: skip
EVENT_META = ["cluster", "file", "file_kind", "batch_offset", "offset", "seq", "timestamp"]


def event_frame(read, plan: DataFrame) -> DataFrame:
    """The records the metadata audits need, as one frame with a ``type`` column and the
    EVENT_TYPES columns, limited to each cluster's replay and ordered by ``seq``.

    ``read(table)`` gives a typed table (None when there is none); ``plan`` has, per replayed
    file, ``cluster, file, min_offset, seq_shift`` (see job.plan_rows)."""
    frames = []
    for table, fields in EVENT_FIELDS.items():
        frame = read(table)
        if frame is None:
            continue
        if table == E.CONFIG:  # only diskless.enable of topics matters
            frame = frame.where((F.col("resourceType") == TOPIC_RESOURCE) & (F.col("name") == DISKLESS_CONFIG))
        columns = [F.col(c) for c in EVENT_META if c != "seq"] + [F.lit(table).alias("type")]
        for name, kind in EVENT_TYPES.items():
            source = fields.get(name)
            if source is None:
                columns.append(F.lit(None).cast(kind).alias(name))
            elif table == E.REGISTER_BROKER and name == "fenced":  # boolean -> the change record's 1 / -1
                columns.append(F.when(F.col(source), FENCE).otherwise(UNFENCE).alias(name))
            else:
                columns.append(F.col(source).cast(kind).alias(name))
        frames.append(frame.select(*columns))
    if not frames:
        schema = ", ".join([f"`{c}` {'string' if c in ('cluster', 'file', 'file_kind') else 'bigint'}" for c in EVENT_META]
                           + ["`type` string"] + [f"`{n}` {k}" for n, k in EVENT_TYPES.items()])  # fmt: skip
        return plan.sparkSession.createDataFrame([], schema)
    events = _union(frames).join(F.broadcast(plan.select("cluster", "file", "min_offset", "seq_shift")), ["cluster", "file"])
    events = events.where(F.col("offset") >= F.col("min_offset")).withColumn("seq", F.col("offset") + F.col("seq_shift"))
    return events.drop("min_offset", "seq_shift")


@dataclass
class AuditInput:
    """What the audits read: ``events`` (see event_frame), ``batches`` and ``issues`` (every
    batch header and quarantine row), ``clusters`` (per cluster ``complete``, ``damaged_seq``)."""

    events: DataFrame
    batches: DataFrame
    issues: DataFrame
    clusters: DataFrame

    def typed(self, table: str) -> DataFrame:
        return self.events.where(F.col("type") == table)


def _before(*keys) -> Window:
    return Window.partitionBy(*keys).orderBy("seq").rowsBetween(Window.unboundedPreceding, -1)


def _counted(column: str, noun: str):
    """"1 record", "5 records" (null when the count is)."""
    n = F.col(column)
    return F.when(n == 1, F.lit(f"1 {noun}")).when(n.isNotNull(), F.format_string(f"%d {noun}s", n))


def _violations(df: DataFrame, audit: str, check: str, subject, detail) -> DataFrame:
    return df.select(
        F.lit(audit).alias("audit"),
        F.lit(check).alias("check"),
        F.col("cluster"),
        F.col("file"),
        F.col("offset").cast("bigint").alias("offset"),
        F.col("seq").cast("bigint").alias("seq"),
        subject.cast("string").alias("subject"),
        detail.cast("string").alias("detail"),
    )


def _union(frames: list[DataFrame]) -> DataFrame:
    out = frames[0]
    for frame in frames[1:]:
        out = out.unionByName(frame)
    return out


# --- producer ids ----------------------------------------------------------------------------


def producer_ids(inp: AuditInput) -> DataFrame:
    audit = Audit.PRODUCER_IDS
    blocks = inp.typed(E.PRODUCER_IDS)
    start = F.col("next_id") - PRODUCER_ID_BLOCK_SIZE
    earlier = Window.partitionBy("cluster").orderBy("seq").rowsBetween(Window.unboundedPreceding, -1)
    overlap = blocks.withColumn("prev_end", F.max("next_id").over(earlier)).where(
        F.col("prev_end").isNotNull() & (start < F.col("prev_end"))
    )
    found = [
        _violations(
            overlap, audit, Check.OVERLAPPING_BLOCK,
            F.format_string("producer ids %d-%d", start, F.col("next_id") - 1),
            F.format_string("block %d-%d (nextProducerId %d) overlaps ids handed out before it (up to %d)",
                            start, F.col("next_id") - 1, F.col("next_id"), F.col("prev_end") - 1),
        )
    ]  # fmt: skip

    # the broker's registration as of each block: the last Register/UnregisterBrokerRecord
    events = inp.events.where(F.col("type").isin(E.PRODUCER_IDS, E.REGISTER_BROKER, E.UNREGISTER_BROKER))
    state = F.when(F.col("type") == E.REGISTER_BROKER, F.struct(F.lit(True).alias("registered"), F.col("epoch").alias("epoch"))).when(
        F.col("type") == E.UNREGISTER_BROKER, F.struct(F.lit(False).alias("registered"), F.col("epoch").alias("epoch"))
    )
    events = events.withColumn("cur", F.last(state, ignorenulls=True).over(_before("cluster", "broker_id")))
    # Kafka's snapshots carry the newest ProducerIdsRecord with broker -1, epoch -1
    from_snapshot = (F.col("seq") < 0) & (F.col("broker_id") == -1)
    bad = events.where(
        (F.col("type") == E.PRODUCER_IDS) & ~from_snapshot
        & (F.col("cur").isNull() | ~F.col("cur.registered") | (F.col("cur.epoch") != F.col("epoch")))
    )  # fmt: skip
    detail = (
        F.when(F.col("cur").isNull(), F.format_string("broker %d, epoch %d, was never registered", "broker_id", "epoch"))
        .when(~F.col("cur.registered"), F.format_string("broker %d is unregistered", "broker_id"))
        .otherwise(F.format_string("broker %d is registered at epoch %d; the block names epoch %d",
                                   "broker_id", "cur.epoch", "epoch"))
    )  # fmt: skip
    found.append(_violations(bad, audit, Check.BROKER_NOT_AT_CURRENT_EPOCH, F.format_string("broker %d", "broker_id"), detail))
    return _union(found)


# --- topic ids -------------------------------------------------------------------------------


def topic_ids(inp: AuditInput) -> DataFrame:
    audit = Audit.TOPIC_IDS
    events = inp.events.where(
        F.col("type").isin(E.TOPIC, E.REMOVE_TOPIC, E.PARTITION, E.PARTITION_CHANGE)
    )
    topics = events.where(F.col("type") == E.TOPIC)
    found = []

    by_id = Window.partitionBy("cluster", "topic_id").orderBy("seq")
    reused = (
        topics.withColumn("prev_name", F.lag("name").over(by_id))
        .withColumn("prev_offset", F.lag("offset").over(by_id))
        .where(F.col("prev_name").isNotNull())
    )
    found.append(_violations(
        reused, audit, Check.TOPIC_ID_REUSED, F.format_string("topic %s", "name"),
        F.format_string("topic id %s of '%s' was already used by '%s' (TopicRecord at offset %d)",
                        "topic_id", "name", "prev_name", "prev_offset"),
    ))  # fmt: skip

    # per topic id, in order: the state before each record (live / removed / never created),
    # and for each creation the first removal of the id after it
    following = by_id.rowsBetween(1, Window.unboundedFollowing)
    state = F.when(F.col("type") == E.TOPIC, "live").when(F.col("type") == E.REMOVE_TOPIC, "removed")
    lifecycle = events.withColumn("cur", F.last(state, ignorenulls=True).over(_before("cluster", "topic_id"))).withColumn(
        "removed_seq",
        F.first(F.when(F.col("type") == E.REMOVE_TOPIC, F.col("seq")), ignorenulls=True).over(following),
    )
    creations = lifecycle.where(F.col("type") == E.TOPIC)
    by_name = Window.partitionBy("cluster", "name").orderBy("seq")
    recreated = (
        creations.withColumn("prev_id", F.lag("topic_id").over(by_name))
        .withColumn("prev_removed", F.lag("removed_seq").over(by_name))
        .withColumn("prev_offset", F.lag("offset").over(by_name))
        .where(F.col("prev_id").isNotNull() & (F.col("prev_removed").isNull() | (F.col("prev_removed") > F.col("seq"))))
    )
    found.append(_violations(
        recreated, audit, Check.NAME_RECREATED_WHILE_LIVE, F.format_string("topic %s", "name"),
        F.format_string("'%s' created again (topic id %s) while topic id %s (TopicRecord at offset %d) is not removed",
                        "name", "topic_id", "prev_id", "prev_offset"),
    ))  # fmt: skip

    refs = lifecycle.where(F.col("type") != E.TOPIC)
    ref = (
        F.when(F.col("type") == E.PARTITION, F.format_string("PartitionRecord for partition %d", "partition"))
        .when(F.col("type") == E.PARTITION_CHANGE, F.format_string("PartitionChangeRecord for partition %d", "partition"))
        .otherwise(F.lit("RemoveTopicRecord"))
    )  # fmt: skip
    found.append(_violations(
        refs.where(F.col("cur").isNull()), audit, Check.UNKNOWN_TOPIC_ID, F.format_string("topic id %s", "topic_id"),
        F.format_string("%s of topic id %s, which no TopicRecord created", ref, "topic_id"),
    ))  # fmt: skip
    found.append(_violations(
        refs.where(F.col("cur") == "removed"), audit, Check.REMOVED_TOPIC_ID, F.format_string("topic id %s", "topic_id"),
        F.format_string("%s of topic id %s, which was removed", ref, "topic_id"),
    ))  # fmt: skip
    return _union(found)


# --- brokers ---------------------------------------------------------------------------------


def brokers(inp: AuditInput) -> DataFrame:
    audit = Audit.BROKERS
    events = inp.events.where(F.col("type").isin(
        E.REGISTER_BROKER, E.UNREGISTER_BROKER, E.FENCE_BROKER, E.UNFENCE_BROKER,
        E.BROKER_REGISTRATION_CHANGE,
    ))  # fmt: skip
    regs = events.where(F.col("type") == E.REGISTER_BROKER)
    by_broker = Window.partitionBy("cluster", "broker_id").orderBy("seq")
    prev = (
        regs.withColumn("prev_epoch", F.lag("epoch").over(by_broker))
        .withColumn("prev_incarnation", F.lag("incarnation").over(by_broker))
        .withColumn("prev_offset", F.lag("offset").over(by_broker))
    )
    found = [
        _violations(
            prev.where(F.col("prev_epoch").isNotNull() & (F.col("epoch") <= F.col("prev_epoch"))),
            audit, Check.EPOCH_NOT_INCREASING, F.format_string("broker %d", "broker_id"),
            F.format_string("broker %d registered with epoch %d, not above its previous epoch %d (offset %d)",
                            "broker_id", "epoch", "prev_epoch", "prev_offset"),
        ),
        _violations(
            prev.where((F.col("epoch") == F.col("prev_epoch")) & (F.col("incarnation") != F.col("prev_incarnation"))),
            audit, Check.INCARNATION_CHANGED, F.format_string("broker %d", "broker_id"),
            F.format_string("broker %d epoch %d registered with incarnation %s, earlier with %s",
                            "broker_id", "epoch", "incarnation", "prev_incarnation"),
        ),
    ]  # fmt: skip

    op = (
        F.when(F.col("type") == E.REGISTER_BROKER, "register")
        .when(F.col("type") == E.UNREGISTER_BROKER, "unregister")
        .when(F.col("type") == E.FENCE_BROKER, "fence")
        .when(F.col("type") == E.UNFENCE_BROKER, "unfence")
        .when(F.col("fenced") == FENCE, "fence")
        .when(F.col("fenced") == UNFENCE, "unfence")
        .otherwise("change")
    )
    reg = F.when(F.col("op") == "register", F.struct(F.lit(True).alias("registered"), F.col("epoch").alias("epoch"))).when(
        F.col("op") == "unregister", F.struct(F.lit(False).alias("registered"), F.col("epoch").alias("epoch"))
    )
    fenced_after = F.when(F.col("op") == "register", F.col("fenced") == FENCE).when(F.col("op") == "fence", True).when(
        F.col("op") == "unfence", False
    )
    before = _before("cluster", "broker_id")
    events = (
        events.withColumn("op", op)
        .withColumn("cur", F.last(reg, ignorenulls=True).over(before))
        .withColumn("fenced_now", F.last(fenced_after, ignorenulls=True).over(before))
    )
    registered = F.col("cur").isNotNull() & F.col("cur.registered")
    problem = (
        F.when(F.col("op") == "register", F.lit(None))
        .when(~registered, F.format_string("%s of broker %d epoch %d, which is not registered", "op", "broker_id", "epoch"))
        .when(F.col("op") == "unregister", F.lit(None))
        .when(F.col("cur.epoch") != F.col("epoch"),
              F.format_string("%s of broker %d names epoch %d; its registration is epoch %d", "op", "broker_id", "epoch", "cur.epoch"))
        .when((F.col("op") == "fence") & F.col("fenced_now"),
              F.format_string("fence of broker %d epoch %d, which is already fenced", "broker_id", "epoch"))
        .when((F.col("op") == "unfence") & ~F.col("fenced_now"),
              F.format_string("unfence of broker %d epoch %d, which is not fenced", "broker_id", "epoch"))
    )  # fmt: skip
    bad = events.withColumn("problem", problem).where(F.col("problem").isNotNull())
    found.append(_violations(bad, audit, Check.ILLEGAL_TRANSITION, F.format_string("broker %d", "broker_id"), F.col("problem")))
    return _union(found)


# --- diskless --------------------------------------------------------------------------------


def diskless(inp: AuditInput) -> DataFrame:
    audit = Audit.DISKLESS
    is_map = F.col("type") == E.TOPIC_PARTITION_TO_BATCH_COORDINATOR_MAPPING
    events = inp.events.where(F.col("type").isin(
        E.TOPIC, E.REMOVE_TOPIC, E.PARTITION, E.CONFIG,
        E.TOPIC_PARTITION_TO_BATCH_COORDINATOR_MAPPING,
    ))  # fmt: skip

    # per topic id: the incarnation a record belongs to (its TopicRecord), live or removed
    topic_state = F.when(
        F.col("type") == E.TOPIC,
        F.struct(F.lit(True).alias("live"), F.col("name").alias("name"), F.col("seq").alias("created"),
                 F.col("timestamp").alias("created_ts")),
    ).when(
        F.col("type") == E.REMOVE_TOPIC,
        F.struct(F.lit(False).alias("live"), F.lit(None).cast("string").alias("name"), F.lit(None).cast("bigint").alias("created"),
                 F.lit(None).cast("bigint").alias("created_ts")),
    )  # fmt: skip
    by_topic = events.where(F.col("type") != E.CONFIG).withColumn(
        "cur", F.last(topic_state, ignorenulls=True).over(_before("cluster", "topic_id"))
    )
    # per partition: was it created (a PartitionRecord) in the topic's current incarnation
    by_topic = by_topic.withColumn(
        "last_part", F.last(F.when(F.col("type") == E.PARTITION, F.col("seq")), ignorenulls=True).over(
            _before("cluster", "topic_id", "partition")
        )
    ).where(is_map | (F.col("type") == E.TOPIC))
    maps = by_topic.where(is_map).withColumn("topic_name", F.col("cur.name"))
    # diskless.enable of the topic's name, since its TopicRecord (which resets it)
    flags = events.where(F.col("type").isin(E.TOPIC, E.CONFIG)).select(
        "cluster", "seq", F.col("name").alias("topic_name"),
        F.when(F.col("type") == E.TOPIC, F.lit("")).otherwise(F.coalesce(F.lower("config_value"), F.lit(""))).alias("flag"),
    )  # fmt: skip
    maps = maps.unionByName(flags, allowMissingColumns=True).withColumn(
        "flag_now", F.last("flag", ignorenulls=True).over(_before("cluster", "topic_name"))
    ).where(is_map)

    # partitions of the coordinators' topic, per cluster (it only ever grows)
    coordinator_topics = events.where((F.col("type") == E.TOPIC) & (F.col("name") == DISKLESS_TOPIC)).select(
        "cluster", "topic_id"
    ).distinct()
    coordinator_parts = (
        events.where(F.col("type") == E.PARTITION)
        .join(coordinator_topics, ["cluster", "topic_id"])
        .groupBy("cluster")
        .agg((F.max("partition") + 1).alias("coordinator_partitions"))
    )
    maps = maps.join(coordinator_parts, "cluster", "left")

    live = F.col("cur.live")
    subject = F.format_string("topic id %s partition %d", "topic_id", "partition")
    found = [
        _violations(
            maps.where(live.isNull() | ~live | F.col("last_part").isNull() | (F.col("last_part") < F.col("cur.created"))),
            audit, Check.MAPPING_OF_UNKNOWN_PARTITION, subject,
            F.when(live.isNull(), F.format_string("topic id %s was never created", "topic_id"))
            .when(~live, F.format_string("topic id %s was removed", "topic_id"))
            .otherwise(F.format_string("topic '%s' has no partition %d", "topic_name", "partition")),
        ),
        _violations(
            maps.where(live & (F.coalesce(F.col("flag_now"), F.lit("")) != "true")),
            audit, Check.MAPPING_OF_NON_DISKLESS_TOPIC, subject,
            F.format_string(f"topic '%s' is not diskless ({DISKLESS_CONFIG} is not true)", "topic_name"),
        ),
        _violations(
            maps.where((F.col("coordinator") < 0) | (F.col("coordinator") >= F.col("coordinator_partitions"))),
            audit, Check.COORDINATOR_OUT_OF_RANGE, subject,
            F.format_string(f"coordinator partition %d; {DISKLESS_TOPIC} has %s", "coordinator",
                            F.coalesce(F.col("coordinator_partitions").cast("string"), F.lit("no partitions"))),
        ),
    ]  # fmt: skip

    group = F.when(F.col("file_kind") == SEGMENT, F.col("batch_offset")).otherwise(F.lit(-1))
    conflicts = (
        events.where(is_map).withColumn("grp", group)
        .groupBy("cluster", "file", "grp", "topic_id", "partition")
        .agg(F.countDistinct("coordinator").alias("n"), F.min("offset").alias("offset"), F.min("seq").alias("seq"),
             F.sort_array(F.collect_set("coordinator")).alias("coordinators"))
        .where(F.col("n") > 1)
    )  # fmt: skip
    found.append(_violations(
        conflicts, audit, Check.CONFLICTING_MAPPINGS, subject,
        F.format_string("mapped to coordinator partitions %s at once", F.array_join(F.col("coordinators").cast("array<string>"), ", ")),
    ))  # fmt: skip

    # at the end of the replay, every partition of a live diskless topic has a mapping
    last = Window.partitionBy("cluster", "topic_id").orderBy(F.col("seq").desc())
    live_topics = (
        events.where(F.col("type").isin(E.TOPIC, E.REMOVE_TOPIC))
        .withColumn("rank", F.row_number().over(last))
        .where((F.col("rank") == 1) & (F.col("type") == E.TOPIC))
        .select("cluster", "topic_id", "name", F.col("seq").alias("created"), F.col("timestamp").alias("created_ts"))
    )
    final_flag = (
        flags.withColumn("rank", F.row_number().over(Window.partitionBy("cluster", "topic_name").orderBy(F.col("seq").desc())))
        .where((F.col("rank") == 1) & (F.col("flag") == "true"))
        .select("cluster", F.col("topic_name").alias("name"))
    )
    end = inp.batches.groupBy("cluster").agg(F.max("timestamp").alias("end_ts"))
    diskless_topics = live_topics.join(final_flag, ["cluster", "name"]).join(end, "cluster").where(
        F.col("created_ts") < F.col("end_ts") - UNMAPPED_GRACE_MS
    ).select("cluster", "topic_id", F.col("name").alias("topic_name"), "created")
    members = events.where(F.col("type").isin(E.PARTITION, E.TOPIC_PARTITION_TO_BATCH_COORDINATOR_MAPPING)).join(
        diskless_topics, ["cluster", "topic_id"]
    ).where(F.col("seq") > F.col("created"))
    mapped = members.where(is_map).select("cluster", "topic_id", "partition").distinct()
    unmapped = members.where(F.col("type") == E.PARTITION).join(mapped, ["cluster", "topic_id", "partition"], "left_anti")
    found.append(_violations(
        unmapped, audit, Check.UNMAPPED_PARTITION, subject,
        F.format_string("partition %d of diskless topic '%s' has no coordinator partition", "partition", "topic_name"),
    ))  # fmt: skip
    return _union(found)


# --- the log itself --------------------------------------------------------------------------


def log(inp: AuditInput) -> DataFrame:
    audit = Audit.LOG
    b = inp.batches.withColumn("last", F.col("batch_offset") + F.col("last_offset_delta")).withColumn(
        "grp", F.when(F.col("file_kind") == SEGMENT, F.lit("")).otherwise(F.col("file"))
    ).withColumn("seq", F.col("batch_offset"))
    order = Window.partitionBy("cluster", "grp").orderBy("batch_offset", "file", "position")
    earlier = order.rowsBetween(Window.unboundedPreceding, -1)
    b = (
        b.withColumn("prev_last", F.max("last").over(earlier))
        .withColumn("prev_epoch", F.max("leader_epoch").over(earlier))
        .withColumn("row", F.row_number().over(order))
        .withColumn("rows", F.count(F.lit(1)).over(Window.partitionBy("cluster", "grp")))
        .withColumn("offset", F.col("batch_offset"))
    )
    subject = F.format_string("offsets %d-%d", "batch_offset", "last")
    found = [
        _violations(b.where(F.col("batch_offset") > F.col("prev_last") + 1), audit, Check.OFFSET_GAP, subject,
                    F.format_string("offsets %d-%d are in no batch", F.col("prev_last") + 1, F.col("batch_offset") - 1)),
        _violations(b.where(F.col("batch_offset") <= F.col("prev_last")), audit, Check.DUPLICATE_OFFSETS, subject,
                    F.format_string("offsets %d-%d are also in an earlier batch", "batch_offset",
                                    F.least(F.col("last"), F.col("prev_last")))),
        _violations(b.where(~F.col("crc_ok")), audit, Check.CRC_MISMATCH, subject,
                    F.concat(F.format_string("batch at byte %d: CRC-32C mismatch; ", "position"),
                             _counted("records_count", "record"), F.lit(" quarantined"))),
        _violations(b.where(F.col("leader_epoch") < F.col("prev_epoch")), audit, Check.LEADER_EPOCH_REGRESSION, subject,
                    F.format_string("leader epoch %d after a batch of epoch %d", "leader_epoch", "prev_epoch")),
        _violations(b.where(~F.col("offsets_ok")), audit, Check.RECORD_OFFSETS, subject,
                    F.format_string("%d records, lastOffsetDelta %d, offset deltas not 0..n-1", "records_count", "last_offset_delta")),
    ]  # fmt: skip

    first = F.split(F.coalesce(F.col("control_types"), F.lit("")), ",")
    snap = b.where(F.col("grp") != "")
    bad_start = snap.where((F.col("row") == 1) & ((F.col("batch_offset") != 0) | (F.element_at(first, 1) != CONTROL_TYPE_NAMES[SNAPSHOT_HEADER])))
    bad_end = snap.where((F.col("row") == F.col("rows")) & (F.element_at(first, -1) != CONTROL_TYPE_NAMES[SNAPSHOT_FOOTER]))
    found.append(_violations(bad_start, audit, Check.SNAPSHOT_FRAME, F.col("file"),
                             F.lit("the snapshot does not start with a SnapshotHeader control batch at offset 0")))
    found.append(_violations(bad_end, audit, Check.SNAPSHOT_FRAME, F.col("file"),
                             F.lit("the snapshot does not end with a SnapshotFooter control batch")))

    segments = inp.batches.where(F.col("file_kind") == SEGMENT).groupBy("cluster", "file").agg(
        F.min("batch_offset").alias("offset")
    ).withColumn("named", F.regexp_extract("file", SEGMENT_NAME_REGEX + "$", 1).cast("bigint")).withColumn("seq", F.col("offset"))
    found.append(_violations(segments.where(F.col("named") != F.col("offset")), audit, Check.SEGMENT_NAME, F.col("file"),
                             F.format_string("first offset %d, name says %d", "offset", "named")))

    issues = inp.issues.where(F.col("issue") != Issue.CORRUPT_BATCH).withColumn("offset", F.coalesce("offset", "batch_offset"))
    issues = issues.withColumn("seq", F.col("offset"))
    for check in (Check.TRUNCATED_TAIL, Check.UNREADABLE_BYTES, Check.MALFORMED_BATCH, Check.UNDECODABLE_RECORD):
        found.append(_violations(
            issues.where(F.col("issue") == check), audit, check, F.format_string("byte %d", "position"),
            F.concat_ws("; ", F.col("detail"),
                        F.concat(_counted("records_lost", "record"), F.lit(" quarantined")),
                        _counted("bytes_lost", "byte")),
        ))  # fmt: skip
    return _union(found)


AUDIT_FUNCTIONS = {
    Audit.PRODUCER_IDS: producer_ids,
    Audit.TOPIC_IDS: topic_ids,
    Audit.BROKERS: brokers,
    Audit.DISKLESS: diskless,
    Audit.LOG: log,
}


def with_status(violations: DataFrame, clusters: DataFrame) -> DataFrame:
    """Mark history-dependent findings that lost or missing records could explain as unverifiable."""
    history = F.lit(False)
    for audit, check in sorted(HISTORY_CHECKS):
        history = history | ((F.col("audit") == audit) & (F.col("check") == check))
    doubtful = ~F.col("complete") | (F.col("damaged_seq").isNotNull() & (F.col("seq") > F.col("damaged_seq")))
    status = F.when(history & doubtful, "unverifiable").otherwise("violation")
    return violations.join(F.broadcast(clusters), "cluster", "left").withColumn("status", status).select(
        *VIOLATION_COLUMNS
    )
