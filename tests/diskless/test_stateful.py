"""A rule-based state machine drives a coordinator over the wire against a small in-memory model
of the design's rules (offsets without gaps, log start offsets, idempotent producers whose state
outlives their deleted batches, soft deletion), with leader restarts and a read-only replica in
the mix; after every step the invariants are checked through the wire: each partition's batches
are gap-free and unique from its log start offset to its high watermark and equal the model's,
the high watermark never went down, the log start offset is never above it, every batch is in a
live object, and the objects soft deleted are exactly those no live batch uses."""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from diskless.helpers import T1, T2, Clock
from diskless.wire_client import served
from kafka_meta_proto.diskless import BatchCoordinator
from kafka_meta_proto.error_codes import ErrorCode as E

TOPICS = (T1, T2)
PRODUCERS = (None, 1, 2)  # None: no producer id
INT32_WRAP = 1 << 31


@dataclass
class ModelBatch:
    key: str
    at: int
    size: int
    base: int
    last: int
    pid: int
    epoch: int
    base_seq: int
    last_seq: int


@dataclass
class ModelPartition:
    log_start: int = 0
    high_watermark: int = 0
    batches: list[ModelBatch] = field(default_factory=list)
    # per producer id, its last five batches of its current epoch, deleted records or not (the
    # clock stays put: no producer expires)
    producers: dict[int, list[ModelBatch]] = field(default_factory=dict)

    def retain(self, batch: ModelBatch) -> None:
        mine = [b for b in self.producers.get(batch.pid, []) if b.epoch == batch.epoch]
        self.producers[batch.pid] = (mine + [batch])[-5:]


class Model:
    """The design's rules, kept as simply as they can be said."""

    def __init__(self):
        self.partitions: dict[tuple, ModelPartition] = {}
        self.topics: dict = {}
        self.objects: dict[str, int] = {}  # key -> live bytes

    def error_for(self, topic, partition):
        if topic not in self.topics:
            return E.UNKNOWN_TOPIC_ID
        return None if partition < self.topics[topic] else E.UNKNOWN_TOPIC_OR_PARTITION

    def producer_answer(self, part, pid, epoch, base_seq, last_seq):
        """(error, duplicate batch or None), Kafka's idempotence rules."""
        mine = list(reversed(part.producers.get(pid, [])))
        if pid < 0 or not mine:
            return 0, None
        current = mine[0].epoch
        if epoch == current:
            for b in mine:
                if (b.base_seq, b.last_seq) == (base_seq, last_seq):
                    return 0, b
            nxt = (mine[0].last_seq + 1) % INT32_WRAP
            return (0 if base_seq == nxt else E.OUT_OF_ORDER_SEQUENCE_NUMBER), None
        if epoch < current:
            return E.INVALID_PRODUCER_EPOCH, None
        return (0 if base_seq == 0 else E.OUT_OF_ORDER_SEQUENCE_NUMBER), None

    def commit(self, key, entries):
        if key in self.objects:
            return [(E.INVALID_REQUEST, -1, -1, -1, False)] * len(entries)
        answers, live = [], 0
        for topic, partition, at, size, count, _, _, pid, epoch, base_seq in entries:
            error = self.error_for(topic, partition)
            if error is not None:
                answers.append((error, -1, -1, -1, False))
                continue
            part = self.partitions[(topic, partition)]
            last_seq = -1 if pid < 0 else (base_seq + count - 1) % INT32_WRAP
            error, duplicate = self.producer_answer(part, pid, epoch, base_seq, last_seq)
            if error:
                answers.append((error, -1, -1, -1, False))
            elif duplicate is not None:
                answers.append((0, duplicate.base, 5, part.log_start, True))
            else:
                base = part.high_watermark
                part.batches.append(ModelBatch(key, at, size, base, base + count - 1, pid, epoch, base_seq, last_seq))
                if pid >= 0:
                    part.retain(part.batches[-1])
                part.high_watermark += count
                live += size
                answers.append((0, base, -1, part.log_start, False))
        self.objects[key] = live
        return answers

    def drop(self, batches):
        for b in batches:
            self.objects[b.key] -= b.size

    def delete_records(self, topic, partition, offset):
        error = self.error_for(topic, partition)
        if error is not None:
            return error
        part = self.partitions[(topic, partition)]
        offset = part.high_watermark if offset == -1 else offset
        if not 0 <= offset <= part.high_watermark:
            return E.OFFSET_OUT_OF_RANGE
        if offset > part.log_start:
            self.drop([b for b in part.batches if b.last < offset])
            part.batches = [b for b in part.batches if b.last >= offset]
            part.log_start = offset
        return 0

    def soft_deleted(self):
        return sorted(key for key, live in self.objects.items() if live == 0)


class CoordinatorMachine(RuleBasedStateMachine):
    def __init__(self):
        super().__init__()
        self.dir = Path(tempfile.mkdtemp(prefix="kmp-diskless-"))
        self.loop = asyncio.new_event_loop()
        self.model = Model()
        self.keys = 0
        self.watermarks: dict[tuple, int] = {}
        self.replica = BatchCoordinator(self.dir / "replica", follow=self.dir / "leader")
        self.replica_call, self._replica_ctx = self._serve(self.replica)
        self._open_leader()

    def _serve(self, coordinator):
        context = served(coordinator)
        call, _ = self.loop.run_until_complete(context.__aenter__())
        return call, context

    def _open_leader(self):
        self.leader = BatchCoordinator(self.dir / "leader", clock=Clock(5))
        self.call, self._leader_ctx = self._serve(self.leader)

    def _close_leader(self):
        self.loop.run_until_complete(self._leader_ctx.__aexit__(None, None, None))
        self.leader.close()

    def run(self, coroutine):
        return self.loop.run_until_complete(coroutine)

    def teardown(self):
        with contextlib.suppress(Exception):
            self._close_leader()
            self.run(self._replica_ctx.__aexit__(None, None, None))
            self.replica.close()
        self.loop.close()
        shutil.rmtree(self.dir, ignore_errors=True)

    @initialize()
    def a_first_topic(self):
        self.init(T1, 2)

    # -- rules ------------------------------------------------------------------------------------

    @rule(topic=st.sampled_from(TOPICS), count=st.integers(-1, 3))
    def init(self, topic, count):
        known = self.model.topics.get(topic, 0)
        want = E.INVALID_PARTITIONS if count <= 0 or count < known else 0
        assert self.run(self.call.init({topic: count})) == [want]
        if not want:
            self.model.topics[topic] = count
            for p in range(known, count):
                self.model.partitions[(topic, p)] = ModelPartition()

    @rule(data=st.data(), reuse_key=st.integers(0, 9))
    def commit(self, data, reuse_key):
        if reuse_key == 0 and self.model.objects:  # now and then a key committed before
            key = data.draw(st.sampled_from(sorted(self.model.objects)))
        else:
            self.keys += 1
            key = f"obj-{self.keys}"
        entries = []
        for n in range(data.draw(st.integers(1, 3))):
            topic, partition = self._partition(data)
            count = data.draw(st.integers(1, 4))
            pid = data.draw(st.sampled_from(PRODUCERS))
            epoch, seq = (-1, -1) if pid is None else (data.draw(st.integers(0, 2)), self._sequence(data, topic, partition, pid))
            entries.append((topic, partition, n * 100, 100, count, 5, 0, -1 if pid is None else pid, epoch, seq))
        want = self.model.commit(key, entries)
        got = self.run(self.call.commit(1, [(t, p, key, *rest) for t, p, *rest in entries]))
        assert got == want

    def _partition(self, data):
        """Mostly a partition that exists, sometimes any (one of an unknown topic, or beyond)."""
        known = sorted(self.model.partitions, key=str)
        if known and data.draw(st.integers(0, 5)):
            return data.draw(st.sampled_from(known))
        return data.draw(st.sampled_from(TOPICS)), data.draw(st.integers(0, 3))

    def _sequence(self, data, topic, partition, pid):
        """Mostly the next sequence or a duplicate's, sometimes any."""
        part = self.model.partitions.get((topic, partition))
        mine = part.producers.get(pid, []) if part else []
        choices = [0, data.draw(st.integers(0, 20))]
        if mine:
            choices += [mine[-1].last_seq + 1, mine[-1].base_seq, mine[0].base_seq]
        return data.draw(st.sampled_from(choices))

    @rule(data=st.data())
    def delete_records(self, data):
        topic, partition = self._partition(data)
        part = self.model.partitions.get((topic, partition), ModelPartition())
        offset = data.draw(st.integers(part.log_start - 1, part.high_watermark + 1) | st.sampled_from([-2, -1]))
        want = self.model.delete_records(topic, partition, offset)
        assert self.run(self.call.delete_records([(topic, partition, offset)])) == [want]

    @precondition(lambda self: sum(len(p.batches) for p in self.model.partitions.values()) >= 4)
    @rule(topic=st.sampled_from(TOPICS))
    def delete_topic(self, topic):
        known = topic in self.model.topics
        assert self.run(self.call.delete_topics([topic])) == [0 if known else E.UNKNOWN_TOPIC_ID]
        if known:
            for p in range(self.model.topics.pop(topic)):
                self.model.drop(self.model.partitions.pop((topic, p)).batches)
                self.watermarks.pop((topic, p), None)

    @rule()
    def delete_files(self):
        gone = self.model.soft_deleted()
        self.leader.delete_files(gone)
        for key in gone:  # forgotten: the key may be committed again, as a new object
            del self.model.objects[key]

    @rule()
    def restart_leader(self):
        self._close_leader()
        self._open_leader()

    @precondition(lambda self: self.model.partitions)
    @rule(data=st.data())
    def the_replica_agrees(self, data):
        topic, partition = data.draw(st.sampled_from(sorted(self.model.partitions, key=str)))
        part = self.model.partitions[(topic, partition)]
        offset = data.draw(st.integers(part.log_start, part.high_watermark))
        ask, max_bytes = [(topic, partition, offset, data.draw(st.integers(0, 500)))], data.draw(st.integers(0, 500))
        assert self.run(self.replica_call.find(ask, max_bytes)) == self.run(self.call.find(ask, max_bytes))
        asks = [(topic, partition, ts) for ts in (-1, -2, -3, 5)]
        assert self.run(self.replica_call.list_offsets(asks)) == self.run(self.call.list_offsets(asks))
        assert self.run(self.replica_call.commit(1, [(topic, partition, "r", 0, 100, 1, 5, 0, -1, -1, -1)]))[0][0] == E.NOT_COORDINATOR

    # -- invariants -------------------------------------------------------------------------------

    @invariant()
    def partitions_hold_the_models_batches_without_gaps(self):
        for (topic, partition), part in self.model.partitions.items():
            found = self.run(self.call.find([(topic, partition, part.log_start, 1 << 30)], 1 << 30))
            _, error, log_start, high_watermark, *_ = found[0]
            assert (error, log_start, high_watermark) == (0, part.log_start, part.high_watermark)
            assert log_start <= high_watermark
            assert high_watermark >= self.watermarks.get((topic, partition), 0)  # never down
            self.watermarks[(topic, partition)] = high_watermark
            batches = [f[4:] for f in found if f[4]]
            assert batches == [(b.key, b.at, b.size, b.base, b.last) for b in part.batches]
            for before, after in zip(batches, batches[1:]):
                assert after[3] == before[4] + 1  # gap-free and unique
            if batches:
                assert batches[0][3] <= log_start <= batches[0][4] and batches[-1][4] == high_watermark - 1
            assert all(key in self.model.objects and self.model.objects[key] > 0 for key, *_ in batches)

    @invariant()
    def soft_deleted_objects_are_those_no_live_batch_uses(self):
        files = [f.object_key for f in self.leader.get_files_to_delete()]
        assert sorted(files) == self.model.soft_deleted()


SETTINGS = dict(stateful_step_count=40, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])  # fmt: skip


class TestAgainstTheModel(CoordinatorMachine.TestCase):  # type: ignore[name-defined]
    settings = settings(max_examples=10, **SETTINGS)


@pytest.mark.slow
class TestAgainstTheModelAtLength(CoordinatorMachine.TestCase):  # type: ignore[name-defined]
    settings = settings(max_examples=150, **SETTINGS)
