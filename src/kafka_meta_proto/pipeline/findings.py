"""What the audits find, and how: the audits and their checks (``AUDITS``, with what each check
means and whether it needs the whole history), and ``Findings``, a cluster's violations with
their status, handed on as Arrow batches of VIOLATION_SCHEMA. The replays in audits.py add to it.
"""

from __future__ import annotations

from collections.abc import Iterator

import pyarrow as pa

from .._strenum import StrEnum
from ..kraft.rules import DISKLESS_CONFIG, DISKLESS_TOPIC
from .columns import Issue

UNMAPPED_GRACE_MS = 300_000  # a diskless topic's partitions must be mapped within 5 minutes
OUT_ROWS = 8192  # violations per Arrow batch handed on


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
VIOLATION_SCHEMA = pa.schema([("audit", pa.string()), ("check", pa.string()), ("status", pa.string()),
                              ("cluster", pa.string()), ("file", pa.string()), ("offset", pa.int64()),
                              ("subject", pa.string()), ("detail", pa.string())])  # fmt: skip
VIOLATION_DDL = ("audit STRING, `check` STRING, status STRING, cluster STRING, file STRING, offset BIGINT, "
                 "subject STRING, detail STRING")  # fmt: skip
VIOLATION, UNVERIFIABLE = "violation", "unverifiable"

def _s(value) -> str:
    """A value in a finding's text as Spark's format_string wrote it (null as "null")."""
    return "null" if value is None else str(value)


def _counted(n, noun: str) -> str | None:
    """"1 record", "5 records" (None when the count is)."""
    return None if n is None else f"1 {noun}" if n == 1 else f"{n} {noun}s"


class Findings:
    """The violations of one cluster, with their status, handed on in batches."""

    def __init__(self, cluster: str, complete: bool):
        self.cluster = cluster
        self.complete = complete
        self.damaged_seq = None  # the first replayed position that could not be read
        self.rows: list[tuple] = []

    def add(self, audit: str, check: str, file, offset, seq, subject, detail) -> None:
        status = VIOLATION
        if (audit, check) in HISTORY_CHECKS and (
            not self.complete or (self.damaged_seq is not None and seq is not None and seq > self.damaged_seq)
        ):
            status = UNVERIFIABLE
        self.rows.append((str(audit), str(check), status, self.cluster, file, offset, subject, detail))

    def batches(self, final: bool = False) -> Iterator[pa.RecordBatch]:
        if self.rows and (final or len(self.rows) >= OUT_ROWS):
            columns = list(zip(*self.rows))
            self.rows = []
            yield pa.RecordBatch.from_arrays([pa.array(c, f.type) for c, f in zip(columns, VIOLATION_SCHEMA)],
                                             schema=VIOLATION_SCHEMA)  # fmt: skip
