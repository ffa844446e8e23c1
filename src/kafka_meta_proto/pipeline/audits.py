"""The audits: each cluster's history replayed in order, in the Python workers, rule by rule.

The workers that decode write, per cluster, the narrow sorted files the audits read (events.py).
Each audit task takes whole clusters; for each it merges those files (every one is sorted, so a
merge is a stream) and replays:

- the quarantined problems: the log audit's findings about them, and the first replayed position
  that could not be read (``damaged_seq``);
- the batch headers, per stream (the cluster's segments; each snapshot file) in offset order: the
  log audit, and the time the log ends;
- the metadata events in replay order (``seq``: the log offset; snapshot records first when a
  snapshot starts the replay, see ``inputs.stream_plan``): the producer-ids, topic-ids, brokers
  and diskless audits, as the controller would apply the records, keeping for each broker, topic
  id, topic name and partition only the state the rules read.

So the records are read once, in one pass, with no shuffle: the state held is that of the
cluster's metadata (its brokers, topic ids and names, and the partitions of its live topics), not
its log, which streams by. Findings are emitted as Arrow batches of VIOLATION_SCHEMA.

Every violation row: ``audit, check, status, cluster, file, offset, subject, detail``.
A check marked *history* needs every earlier record (a reference to a topic or broker never seen
can come from records that were lost); such a violation found in a cluster whose replay did not
start from an empty cluster, or after a stretch of the log that could not be read (a quarantined
batch), is reported with status ``unverifiable`` rather than ``violation``.
"""

from __future__ import annotations

import heapq
import re
from collections.abc import Iterator
from operator import itemgetter

import pyarrow as pa
import pyarrow.parquet as pq

from ..kraft.brokers import (
    ALREADY_FENCED,
    FENCE_BROKER,
    NEVER_REGISTERED,
    NOT_REGISTERED,
    REGISTER,
    UNFENCE_BROKER,
    UNREGISTER,
    WRONG_EPOCH,
    BrokerState,
    apply_broker,
    op_of_change,
)
from ..kraft.rules import DISKLESS_CONFIG, DISKLESS_TOPIC, FENCE, PRODUCER_ID_BLOCK_SIZE
from ..kraft.topics import (
    ADD_PARTITION,
    CHANGE_PARTITION,
    CREATE,
    LIVE,
    MAP_PARTITION,
    REMOVE,
    REMOVED_TOPIC,
    UNKNOWN_PARTITION,
    UNKNOWN_TOPIC,
    apply_topic,
    topic_problem,
)
from ..log.control import CONTROL_TYPE_NAMES, SNAPSHOT_FOOTER, SNAPSHOT_HEADER
from ..log.names import SEGMENT_NAME_REGEX
from .columns import Issue
from .events import EventType
# AUDITS and VIOLATION_DDL are read from here by the job (job.py)
from .findings import AUDITS, OUT_ROWS, UNMAPPED_GRACE_MS, VIOLATION_DDL, Audit, Check, Findings, _counted, _s
from .inputs import SEGMENT

MIN_LONG = -(1 << 63)
READ_ROWS = 8192  # rows per batch read from an audit file


A, K, T = Audit, Check, EventType
HEADER_NAME, FOOTER_NAME = CONTROL_TYPE_NAMES[SNAPSHOT_HEADER], CONTROL_TYPE_NAMES[SNAPSHOT_FOOTER]
SEGMENT_NAME = re.compile(SEGMENT_NAME_REGEX + "$")


# --- reading a cluster's audit files ----------------------------------------------------------


def _rows(source, columns: list[str] | None = None) -> Iterator[tuple]:
    """The rows of one Parquet file as tuples, batch by batch."""
    for batch in pq.ParquetFile(source).iter_batches(batch_size=READ_ROWS, columns=columns):
        yield from zip(*(column.to_pylist() for column in batch.columns))


def merged(sources: list, key) -> Iterator[tuple]:
    """The rows of sorted files, in order: a merge, so only one batch of each file is held."""
    if len(sources) == 1:
        return _rows(sources[0])
    return heapq.merge(*(_rows(s) for s in sources), key=key)


# --- the log ------------------------------------------------------------------------------------


def replay_issues(rows: Iterator[tuple], found: Findings) -> None:
    """The quarantined problems (a corrupt batch is found from its header, in replay_batches),
    and the first replayed position that could not be read."""
    for file, position, issue, detail, batch_offset, offset, records_lost, bytes_lost, seq in rows:
        if seq is not None and (found.damaged_seq is None or seq < found.damaged_seq):
            found.damaged_seq = seq
        if issue == Issue.CORRUPT_BATCH:
            continue
        at = offset if offset is not None else batch_offset
        lost = _counted(records_lost, "record")
        text = "; ".join(p for p in (detail, None if lost is None else f"{lost} quarantined",
                                     _counted(bytes_lost, "byte")) if p is not None)  # fmt: skip
        found.add(A.LOG, issue, file, at, at, f"byte {_s(position)}", text)


def replay_batches(rows: Iterator[tuple], found: Findings) -> int | None:
    """The log audit over the batch headers, stream by stream in offset order; returns the
    largest batch timestamp (where the log ends in time), None without batches."""
    end_ts = None
    stream = None
    prev_last = prev_epoch = None
    first = last = None
    segment_starts: dict[str, int] = {}
    for row in rows:
        (name, batch_offset, file, position, file_kind, last_delta, count, epoch, timestamp, crc_ok,
         offsets_ok, control_types) = row  # fmt: skip
        if name != stream:
            _snapshot_frame(stream, first, last, found)
            stream, prev_last, prev_epoch, first = name, None, None, row
        last = row
        if timestamp is not None and (end_ts is None or timestamp > end_ts):
            end_ts = timestamp
        if file_kind == SEGMENT and batch_offset is not None and file not in segment_starts:
            segment_starts[file] = batch_offset
        last_offset = None if batch_offset is None or last_delta is None else batch_offset + last_delta
        subject = f"offsets {_s(batch_offset)}-{_s(last_offset)}"
        if batch_offset is not None and prev_last is not None:
            if batch_offset > prev_last + 1:
                found.add(A.LOG, K.OFFSET_GAP, file, batch_offset, batch_offset, subject,
                          f"offsets {prev_last + 1}-{batch_offset - 1} are in no batch")
            elif batch_offset <= prev_last:
                upto = prev_last if last_offset is None else min(last_offset, prev_last)
                found.add(A.LOG, K.DUPLICATE_OFFSETS, file, batch_offset, batch_offset, subject,
                          f"offsets {batch_offset}-{upto} are also in an earlier batch")
        if crc_ok is False:
            lost = _counted(count, "record")
            found.add(A.LOG, K.CRC_MISMATCH, file, batch_offset, batch_offset, subject,
                      None if lost is None else f"batch at byte {_s(position)}: CRC-32C mismatch; {lost} quarantined")
        if epoch is not None and prev_epoch is not None and epoch < prev_epoch:
            found.add(A.LOG, K.LEADER_EPOCH_REGRESSION, file, batch_offset, batch_offset, subject,
                      f"leader epoch {epoch} after a batch of epoch {prev_epoch}")
        if offsets_ok is False:
            found.add(A.LOG, K.RECORD_OFFSETS, file, batch_offset, batch_offset, subject,
                      f"{_s(count)} records, lastOffsetDelta {_s(last_delta)}, offset deltas not 0..n-1")
        if last_offset is not None and (prev_last is None or last_offset > prev_last):
            prev_last = last_offset
        if epoch is not None and (prev_epoch is None or epoch > prev_epoch):
            prev_epoch = epoch
    _snapshot_frame(stream, first, last, found)
    for file, start in sorted(segment_starts.items()):
        match = SEGMENT_NAME.search(file)
        named = int(match.group(1)) if match else None
        if named is not None and named != start:
            found.add(A.LOG, K.SEGMENT_NAME, file, start, start, file, f"first offset {start}, name says {named}")
    return end_ts


def _snapshot_frame(stream, first, last, found: Findings) -> None:
    """A snapshot (any stream but the segments') starts with a SnapshotHeader batch at offset 0
    and ends with a SnapshotFooter batch."""
    if not stream:
        return
    types = (first[11] or "").split(",")
    if first[1] != 0 or types[0] != HEADER_NAME:
        found.add(A.LOG, K.SNAPSHOT_FRAME, first[2], first[1], first[1], first[2],
                  "the snapshot does not start with a SnapshotHeader control batch at offset 0")
    if (last[11] or "").split(",")[-1] != FOOTER_NAME:
        found.add(A.LOG, K.SNAPSHOT_FRAME, last[2], last[1], last[1], last[2],
                  "the snapshot does not end with a SnapshotFooter control batch")


# --- the metadata ---------------------------------------------------------------------------------


# event type -> what it does to a broker (a BrokerRegistrationChangeRecord: by its Fenced value)
BROKER_OPS = {T.REGISTER_BROKER: REGISTER, T.UNREGISTER_BROKER: UNREGISTER, T.FENCE_BROKER: FENCE_BROKER,
              T.UNFENCE_BROKER: UNFENCE_BROKER}  # fmt: skip


def _broker_problem_text(problem: str, op: str, broker_id, epoch, registered_epoch) -> str:
    """A broker transition's problem (kraft.brokers) as the audit words it."""
    if problem == NOT_REGISTERED:
        return f"{op} of broker {broker_id} epoch {epoch}, which is not registered"
    if problem == WRONG_EPOCH:
        return f"{op} of broker {broker_id} names epoch {epoch}; its registration is epoch {registered_epoch}"
    if problem == ALREADY_FENCED:
        return f"fence of broker {broker_id} epoch {epoch}, which is already fenced"
    return f"unfence of broker {broker_id} epoch {epoch}, which is not fenced"


class Topic:
    """One topic id: its life (created, removed), and its partitions in the current life."""

    __slots__ = ("first_name", "first_offset", "state", "removed_seq", "name", "created", "created_ts",
                 "last_partition", "partitions", "mapped", "max_partition")  # fmt: skip

    def __init__(self):
        self.first_name = self.first_offset = None  # of the last TopicRecord with this id
        self.state = None  # the id's life (kraft.topics): NEVER_CREATED (None), LIVE or REMOVED
        self.removed_seq = None  # the last RemoveTopicRecord's seq
        self.name = self.created = self.created_ts = None  # the current life's TopicRecord
        # made when first needed, dropped when the topic is removed: a cluster may have used
        # millions of topic ids, most of them long removed
        self.last_partition: dict[int, int] | None = None  # partition -> seq of its last PartitionRecord (this life)
        self.partitions: dict[int, list] | None = None  # PartitionRecords since the creation: partition -> [(file, offset, seq)]
        self.mapped: set[int] | None = None  # partitions mapped to a coordinator since the creation
        self.max_partition = None  # the highest partition of any PartitionRecord (the coordinators' topic)


class MetadataReplay:
    """The producer-ids, topic-ids, brokers and diskless audits over one cluster's events."""

    def __init__(self, found: Findings):
        self.found = found
        self.max_next_id = None
        self.brokers: dict[int, BrokerState] = {}
        self.last_register: dict[int, tuple] = {}  # broker id -> (epoch, incarnation, offset) of its last registration
        self.topics: dict[str, Topic] = {}
        self.creations: dict[str, tuple] = {}  # topic name -> (topic id, seq, offset) of its last TopicRecord
        self.flags: dict[str, str] = {}  # topic name -> diskless.enable as of now ("" when unset)
        self.coordinator_ids: set[str] = set()  # topic ids ever named __diskless-metadata
        self.range_checks: list[tuple] = []  # mappings whose coordinator may be out of range
        self.group = None  # (file, batch) of the mappings in self.group_maps
        self.group_maps: dict[tuple, list] = {}

    def topic(self, topic_id: str) -> Topic:
        t = self.topics.get(topic_id)
        if t is None:
            t = self.topics[topic_id] = Topic()
        return t

    def coordinator_partitions(self) -> int | None:
        highest = [self.topics[t].max_partition for t in self.coordinator_ids if self.topics[t].max_partition is not None]
        return max(highest) + 1 if highest else None

    def run(self, rows: Iterator[tuple], end_ts: int | None) -> Iterator[pa.RecordBatch]:
        """Replay the events; findings are handed on in batches as they pile up."""
        handlers = {T.PRODUCER_IDS: self.producer_ids, T.REGISTER_BROKER: self.broker_change,
                    T.UNREGISTER_BROKER: self.broker_change, T.FENCE_BROKER: self.broker_change,
                    T.UNFENCE_BROKER: self.broker_change, T.BROKER_REGISTRATION_CHANGE: self.broker_change,
                    T.TOPIC: self.topic_record, T.REMOVE_TOPIC: self.remove_topic, T.PARTITION: self.partition,
                    T.PARTITION_CHANGE: self.partition_change, T.MAPPING: self.mapping, T.CONFIG: self.config}  # fmt: skip
        found = self.found
        for row in rows:
            handlers[row[1]](row)
            if len(found.rows) >= OUT_ROWS:
                yield from found.batches()
        self.close_group()
        self.finish(end_ts)

    # producer ids

    def producer_ids(self, row) -> None:
        seq, _, file, _, _, offset, _, broker_id, epoch, next_id = row[:10]
        start = next_id - PRODUCER_ID_BLOCK_SIZE
        found = self.found
        if self.max_next_id is not None and start < self.max_next_id:
            found.add(A.PRODUCER_IDS, K.OVERLAPPING_BLOCK, file, offset, seq, f"producer ids {start}-{next_id - 1}",
                      f"block {start}-{next_id - 1} (nextProducerId {next_id}) overlaps ids handed out before it "
                      f"(up to {self.max_next_id - 1})")  # fmt: skip
        if self.max_next_id is None or next_id > self.max_next_id:
            self.max_next_id = next_id
        if seq < 0 and broker_id == -1:  # Kafka's snapshots carry the newest block as broker -1, epoch -1
            return
        state = self.brokers.get(broker_id, NEVER_REGISTERED)
        if state.registered is None:
            detail = f"broker {broker_id}, epoch {epoch}, was never registered"
        elif not state.registered:
            detail = f"broker {broker_id} is unregistered"
        elif state.epoch != epoch:
            detail = f"broker {broker_id} is registered at epoch {state.epoch}; the block names epoch {epoch}"
        else:
            return
        found.add(A.PRODUCER_IDS, K.BROKER_NOT_AT_CURRENT_EPOCH, file, offset, seq, f"broker {broker_id}", detail)

    # brokers

    def broker_change(self, row) -> None:
        seq, kind, file, _, _, offset, _, broker_id, epoch, _, incarnation, fenced = row[:12]
        found = self.found
        subject = f"broker {broker_id}"
        op = BROKER_OPS.get(kind) or op_of_change(fenced)
        if op == REGISTER:
            previous = self.last_register.get(broker_id)
            if previous is not None:
                prev_epoch, prev_incarnation, prev_offset = previous
                if epoch <= prev_epoch:
                    found.add(A.BROKERS, K.EPOCH_NOT_INCREASING, file, offset, seq, subject,
                              f"broker {broker_id} registered with epoch {epoch}, not above its previous epoch "
                              f"{prev_epoch} (offset {prev_offset})")  # fmt: skip
                if epoch == prev_epoch and incarnation != prev_incarnation:
                    found.add(A.BROKERS, K.INCARNATION_CHANGED, file, offset, seq, subject,
                              f"broker {broker_id} epoch {epoch} registered with incarnation {_s(incarnation)}, "
                              f"earlier with {_s(prev_incarnation)}")  # fmt: skip
            self.last_register[broker_id] = (epoch, incarnation, offset)
        state = self.brokers.get(broker_id, NEVER_REGISTERED)
        self.brokers[broker_id], problem = apply_broker(state, op, epoch, fenced == FENCE)
        if problem is not None:
            found.add(A.BROKERS, K.ILLEGAL_TRANSITION, file, offset, seq, subject,
                      _broker_problem_text(problem, op, broker_id, epoch, state.epoch))

    # topics

    def topic_record(self, row) -> None:
        seq, _, file, _, _, offset, timestamp = row[:7]
        name, topic_id = row[12], row[13]
        t = self.topic(topic_id)
        found = self.found
        if t.first_offset is not None:
            found.add(A.TOPIC_IDS, K.TOPIC_ID_REUSED, file, offset, seq, f"topic {_s(name)}",
                      f"topic id {topic_id} of '{_s(name)}' was already used by '{_s(t.first_name)}' "
                      f"(TopicRecord at offset {_s(t.first_offset)})")  # fmt: skip
        previous = self.creations.get(name)
        if previous is not None:
            prev_id, prev_seq, prev_offset = previous
            removed = self.topic(prev_id).removed_seq
            if removed is None or removed < prev_seq:
                found.add(A.TOPIC_IDS, K.NAME_RECREATED_WHILE_LIVE, file, offset, seq, f"topic {_s(name)}",
                          f"'{_s(name)}' created again (topic id {topic_id}) while topic id {prev_id} "
                          f"(TopicRecord at offset {prev_offset}) is not removed")  # fmt: skip
        self.creations[name] = (topic_id, seq, offset)
        t.first_name, t.first_offset = name, offset
        t.state, _ = apply_topic(t.state, CREATE)
        t.name, t.created, t.created_ts = name, seq, timestamp
        t.last_partition = t.partitions = t.mapped = None  # what came before belongs to an earlier life
        self.flags[name] = ""  # a new topic starts without the setting
        if name == DISKLESS_TOPIC:
            self.coordinator_ids.add(topic_id)

    def _topic_op(self, row, t: Topic, op: str) -> None:
        """Apply a partition record or RemoveTopicRecord to the topic id's life (kraft.topics);
        naming an id that is not live is a finding. A change's partition is not judged here:
        the audit has no check for it (the image refuses a change of a partition it lacks)."""
        t.state, problem = apply_topic(t.state, op)
        if problem is None:
            return
        seq, kind, file, offset, topic_id = row[0], row[1], row[2], row[5], row[13]
        what = "RemoveTopicRecord" if kind == T.REMOVE_TOPIC else (
            f"{'PartitionRecord' if kind == T.PARTITION else 'PartitionChangeRecord'} for partition {_s(row[14])}"
        )  # fmt: skip
        if problem == UNKNOWN_TOPIC:
            self.found.add(A.TOPIC_IDS, K.UNKNOWN_TOPIC_ID, file, offset, seq, f"topic id {topic_id}",
                           f"{what} of topic id {topic_id}, which no TopicRecord created")
        elif problem == REMOVED_TOPIC:
            self.found.add(A.TOPIC_IDS, K.REMOVED_TOPIC_ID, file, offset, seq, f"topic id {topic_id}",
                           f"{what} of topic id {topic_id}, which was removed")

    def remove_topic(self, row) -> None:
        t = self.topic(row[13])
        self._topic_op(row, t, REMOVE)
        t.removed_seq = row[0]
        t.name = t.created = t.created_ts = None
        t.last_partition = t.partitions = t.mapped = None

    def partition(self, row) -> None:
        seq, partition = row[0], row[14]
        t = self.topic(row[13])
        self._topic_op(row, t, ADD_PARTITION)
        if t.last_partition is None:
            t.last_partition = {}
        t.last_partition[partition] = seq
        if t.max_partition is None or (partition is not None and partition > t.max_partition):
            t.max_partition = partition
        if t.state == LIVE:
            if t.partitions is None:
                t.partitions = {}
            t.partitions.setdefault(partition, []).append((row[2], row[5], seq))

    def partition_change(self, row) -> None:
        self._topic_op(row, self.topic(row[13]), CHANGE_PARTITION)

    # diskless

    def config(self, row) -> None:
        value = row[16]
        self.flags[row[12]] = value.lower() if value is not None else ""

    def mapping(self, row) -> None:
        seq, _, file, file_kind, batch_offset, offset = row[:6]
        topic_id, partition, coordinator = row[13], row[14], row[15]
        t = self.topic(topic_id)
        found = self.found
        subject = f"topic id {topic_id} partition {_s(partition)}"
        has_partition = t.last_partition is not None and t.last_partition.get(partition) is not None
        problem = topic_problem(t.state, MAP_PARTITION, has_partition)
        if problem == UNKNOWN_TOPIC:
            detail = f"topic id {topic_id} was never created"
        elif problem == REMOVED_TOPIC:
            detail = f"topic id {topic_id} was removed"
        elif problem == UNKNOWN_PARTITION:
            detail = f"topic '{_s(t.name)}' has no partition {_s(partition)}"
        else:
            detail = None
        if detail is not None:
            found.add(A.DISKLESS, K.MAPPING_OF_UNKNOWN_PARTITION, file, offset, seq, subject, detail)
        if t.state == LIVE:
            if self.flags.get(t.name, "") != "true":
                found.add(A.DISKLESS, K.MAPPING_OF_NON_DISKLESS_TOPIC, file, offset, seq, subject,
                          f"topic '{_s(t.name)}' is not diskless ({DISKLESS_CONFIG} is not true)")
            if t.mapped is None:
                t.mapped = set()
            t.mapped.add(partition)
        # out of range is judged against the coordinators' topic at the end: keep what may be
        have = self.coordinator_partitions()
        if coordinator is not None and (coordinator < 0 or have is None or coordinator >= have):
            self.range_checks.append((file, offset, seq, subject, coordinator))
        # conflicting mappings: within one batch of a segment, or one snapshot
        group = (file, batch_offset if file_kind == SEGMENT else -1)
        if group != self.group:
            self.close_group()
            self.group = group
        entry = self.group_maps.get((topic_id, partition))
        if entry is None:
            self.group_maps[(topic_id, partition)] = [{coordinator}, offset, seq, subject]
        else:
            entry[0].add(coordinator)

    def close_group(self) -> None:
        for coordinators, offset, seq, subject in self.group_maps.values():
            if len(coordinators - {None}) > 1:
                listed = ", ".join(str(c) for c in sorted(coordinators - {None}))
                self.found.add(A.DISKLESS, K.CONFLICTING_MAPPINGS, self.group[0], offset, seq, subject,
                               f"mapped to coordinator partitions {listed} at once")
        self.group_maps = {}

    def finish(self, end_ts: int | None) -> None:
        have = self.coordinator_partitions()
        for file, offset, seq, subject, coordinator in self.range_checks:
            if coordinator < 0 or (have is not None and coordinator >= have):
                self.found.add(A.DISKLESS, K.COORDINATOR_OUT_OF_RANGE, file, offset, seq, subject,
                               f"coordinator partition {coordinator}; {DISKLESS_TOPIC} has "
                               f"{have if have is not None else 'no partitions'}")  # fmt: skip
        if end_ts is None:
            return
        for topic_id, t in self.topics.items():
            if t.state != LIVE or self.flags.get(t.name) != "true" or not t.created_ts < end_ts - UNMAPPED_GRACE_MS:
                continue
            for partition, records in (t.partitions or {}).items():
                if t.mapped is not None and partition in t.mapped:
                    continue
                for file, offset, seq in records:
                    self.found.add(A.DISKLESS, K.UNMAPPED_PARTITION, file, offset, seq,
                                   f"topic id {topic_id} partition {_s(partition)}",
                                   f"partition {_s(partition)} of diskless topic '{_s(t.name)}' has no coordinator partition")


# --- one cluster ----------------------------------------------------------------------------------


def audit_cluster(cluster: str, complete: bool, sources: dict[str, list]) -> Iterator[pa.RecordBatch]:
    """Every finding of one cluster. ``sources``: its audit files by kind (``events``,
    ``batches``, ``issues``), each a list of paths or open files."""
    found = Findings(cluster, complete)
    for source in sources.get("issues", []):
        replay_issues(_rows(source), found)
    yield from found.batches()
    batch_key = lambda r: (r[0], MIN_LONG if r[1] is None else r[1], r[2], r[3])  # noqa: E731
    end_ts = replay_batches(merged(sources.get("batches", []), batch_key), found)
    yield from found.batches()
    rows = merged(sources.get("events", []), itemgetter(0, 2, 5))
    yield from MetadataReplay(found).run(rows, end_ts)
    yield from found.batches(final=True)


# --- in Spark -------------------------------------------------------------------------------------

AUDIT_KINDS = ("issues", "batches", "events")
CLUSTER_DDL = "cluster_index INT, cluster STRING, complete BOOLEAN"


def cluster_sources(audit_uri: str, cluster_index: int) -> dict[str, list]:
    """A cluster's audit files (events.py) by kind: local paths, or files opened through
    pyarrow.fs for another URI."""
    from .inputs import is_local, local_path

    sources: dict[str, list] = {}
    if is_local(audit_uri):
        import os

        for kind in AUDIT_KINDS:
            folder = os.path.join(local_path(audit_uri), f"c{cluster_index}", kind)
            names = sorted(n for n in os.listdir(folder) if not n.startswith(".")) if os.path.isdir(folder) else []
            sources[kind] = [os.path.join(folder, n) for n in names]
        return sources
    from pyarrow import fs as pafs

    from ..log.source import arrow_uri

    filesystem, base = pafs.FileSystem.from_uri(arrow_uri(audit_uri))
    for kind in AUDIT_KINDS:
        selector = pafs.FileSelector(f"{base}/c{cluster_index}/{kind}", allow_not_found=True)
        infos = sorted((i for i in filesystem.get_file_info(selector) if not i.base_name.startswith(".")),
                       key=lambda i: i.path)  # fmt: skip
        sources[kind] = [filesystem.open_input_file(i.path) for i in infos]
    return sources


def replaying(audit_uri: str):
    """The function given to ``DataFrame.mapInArrow``: cluster rows (CLUSTER_DDL) in, their
    violations (VIOLATION_SCHEMA) out."""

    def run(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        import gc

        # the replay's state is many small objects without cycles (see sink.write_task)
        collecting = gc.isenabled()
        gc.disable()
        try:
            for batch in batches:
                for row in batch.to_pylist():
                    sources = cluster_sources(audit_uri, row["cluster_index"])
                    yield from audit_cluster(row["cluster"], row["complete"], sources)
                    gc.collect(1)
        finally:
            if collecting:
                gc.enable()

    return run
