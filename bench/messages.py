"""Encode and decode speed, side by side with kio and kafka-python, on the same bytes.

    .venv/bin/python bench/messages.py               full run (a few minutes on 2 cores)
    .venv/bin/python bench/messages.py --quick       smoke run (seconds)
    .venv/bin/python bench/messages.py --write-docs  also rewrite the results in docs/performance.md
    .venv/bin/python bench/messages.py --profile CASE  cProfile our decode and encode of one case

For every case this library encodes the message once; those bytes are the case. Each peer
decodes them with its public API and encodes what it decoded, and the run stops unless that is
byte-identical (a peer without the message, or one that cannot represent it, is reported n/a
with the reason). Then each library decodes the bytes and encodes its own decoded object, in
interleaved rounds (every contender once per round, order rotated), and the table gives the
median round. A hand-written straight-line ``struct`` codec for MetadataResponse v12 20x10
(the pure-Python floor: no validation, no error paths, same objects out) runs in the same
rounds. ``size()`` is timed against ``len(encode())``.

Timing uses ``timeit`` (garbage collector off during a sample, as timeit does) with the number of
calls per sample calibrated to ~``--sample`` seconds.

The script re-runs itself with glibc's allocator fixed (``GLIBC_TUNABLES``: large blocks from the
heap, the heap never trimmed). By default glibc moves its mmap threshold as blocks are freed, so
whether a 1 MiB buffer costs ~250 page faults (~500 us) depended on what the previous contender
had allocated: kio's 1 MiB encode measured 230 or 790 us from one run to the next. Fixed, every
contender pays for its copies and nothing else.
"""

from __future__ import annotations

import argparse
import datetime
import gc
import importlib.metadata
import io
import os
import platform
import random
import re
import statistics
import struct
import sys
import time
import timeit
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import kafka_meta_proto
from kafka_meta_proto import kraft, message_class
from kafka_meta_proto.uuid import Uuid

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs" / "performance.md"
BEGIN, END = "<!-- bench/messages.py: begin -->", "<!-- bench/messages.py: end -->"

OURS, KIO, KP, FLOOR = "kafka_meta_proto", "kio", "kafka-python", "floor (hand-written)"


# -- Cases -----------------------------------------------------------------------------------------


@dataclass
class Case:
    key: str
    title: str
    name: str  # message class name ("" for the KRaft batch)
    version: int
    msg: object  # our message (or the list of (record, version) for the KRaft batch)
    data: bytes = b""  # our encoding: the bytes every library decodes
    count: int = 1  # messages per operation (records for the KRaft batch)
    values: list = field(default_factory=list)  # KRaft batch: the record values


def _uuid(rng: random.Random) -> Uuid:
    return Uuid(rng.randbytes(16))


def metadata_response(topics: int, partitions: int, brokers: int = 5):
    MR = message_class("MetadataResponse")
    rng = random.Random(topics * 1000 + partitions)
    return MR(
        throttle_time_ms=0,
        brokers=[
            MR.MetadataResponseBroker(node_id=b, host=f"broker-{b}.kafka.prod.example.com", port=9092, rack=f"eu-west-1{'abc'[b % 3]}")
            for b in range(brokers)
        ],
        cluster_id="MkU3OEVBNTcwNTJENDM2Qk",
        controller_id=1,
        topics=[
            MR.MetadataResponseTopic(
                error_code=0,
                name=f"orders.events-{t:04d}",
                topic_id=_uuid(rng),
                is_internal=False,
                partitions=[
                    MR.MetadataResponsePartition(
                        error_code=0,
                        partition_index=p,
                        leader_id=(t + p) % brokers,
                        leader_epoch=rng.randrange(0, 40),
                        replica_nodes=[(t + p + r) % brokers for r in range(3)],
                        isr_nodes=[(t + p + r) % brokers for r in range(3 if p % 7 else 2)],
                        offline_replicas=[],
                    )
                    for p in range(partitions)
                ],
                topic_authorized_operations=-2147483648,
            )
            for t in range(topics)
        ],
    )


def fetch_request(topics: int, partitions: int):
    FR = message_class("FetchRequest")
    rng = random.Random(7)
    return FR(
        replica_id=-1,
        max_wait_ms=500,
        min_bytes=1,
        max_bytes=52428800,
        isolation_level=1,
        session_id=0,
        session_epoch=-1,
        topics=[
            FR.FetchTopic(
                topic_id=_uuid(rng),
                partitions=[
                    FR.FetchPartition(
                        partition=p,
                        current_leader_epoch=rng.randrange(0, 30),
                        fetch_offset=rng.randrange(0, 10**9),
                        last_fetched_epoch=-1,
                        log_start_offset=-1,
                        partition_max_bytes=1048576,
                    )
                    for p in range(partitions)
                ],
            )
            for _ in range(topics)
        ],
        forgotten_topics_data=[],
        rack_id="",
    )


def fetch_response(total: int = 1 << 20, partitions: int = 8):
    FR = message_class("FetchResponse")
    rng = random.Random(11)
    each = total // partitions
    return FR(
        throttle_time_ms=0,
        error_code=0,
        session_id=1234567,
        responses=[
            FR.FetchableTopicResponse(
                topic="orders.events",
                partitions=[
                    FR.PartitionData(
                        partition_index=p,
                        error_code=0,
                        high_watermark=10_000_000 + p,
                        last_stable_offset=10_000_000 + p,
                        log_start_offset=0,
                        aborted_transactions=None,
                        preferred_read_replica=-1,
                        records=rng.randbytes(each),
                    )
                    for p in range(partitions)
                ],
            )
        ],
    )


def broker_heartbeat():
    return message_class("BrokerHeartbeatRequest")(
        broker_id=3, broker_epoch=4294967396, current_metadata_offset=18_446_744, want_fence=False, want_shut_down=False
    )


def leader_and_isr(topics: int = 50, partitions: int = 20):
    LI = message_class("LeaderAndIsrRequest")
    rng = random.Random(5)
    brokers = 6
    return LI(
        controller_id=3000,
        is_kraft_controller=True,
        controller_epoch=7,
        broker_epoch=4294967396,
        type=0,
        topic_states=[
            LI.LeaderAndIsrTopicState(
                topic_name=f"payments.ledger-{t:03d}",
                topic_id=_uuid(rng),
                partition_states=[
                    LI.LeaderAndIsrPartitionState(
                        partition_index=p,
                        controller_epoch=7,
                        leader=(t + p) % brokers,
                        leader_epoch=rng.randrange(0, 50),
                        isr=[(t + p + r) % brokers for r in range(3)],
                        partition_epoch=rng.randrange(0, 100),
                        replicas=[(t + p + r) % brokers for r in range(3)],
                        adding_replicas=[],
                        removing_replicas=[],
                        is_new=False,
                        leader_recovery_state=0,
                    )
                    for p in range(partitions)
                ],
            )
            for t in range(topics)
        ],
        live_leaders=[LI.LeaderAndIsrLiveLeader(broker_id=b, host_name=f"broker-{b}.example.com", port=9092) for b in range(brokers)],
    )


def create_topics(topics: int = 50, configs: int = 8):
    """String-heavy: every topic with its configuration overrides."""
    CT = message_class("CreateTopicsRequest")
    keys = ["cleanup.policy", "retention.ms", "segment.bytes", "min.insync.replicas", "compression.type",
            "max.message.bytes", "message.timestamp.type", "retention.bytes", "segment.ms", "unclean.leader.election.enable"]  # fmt: skip
    rng = random.Random(19)
    return CT(
        topics=[
            CT.CreatableTopic(
                name=f"tenant-{t % 7}.orders.events-{t:04d}",
                num_partitions=rng.choice((3, 6, 12, 24)),
                replication_factor=3,
                assignments=[],
                configs=[CT.CreatableTopicConfig(name=k, value=str(rng.randrange(1, 10**9)) if rng.random() < 0.7 else None)
                         for k in keys[:configs]],  # fmt: skip
            )
            for t in range(topics)
        ],
        timeout_ms=30000,
        validate_only=False,
    )


def produce_request(topics: int = 4, partitions: int = 64, record_bytes: int = 200):
    """Many partitions, each with a small record batch."""
    PR = message_class("ProduceRequest")
    rng = random.Random(23)
    return PR(
        transactional_id=None,
        acks=-1,
        timeout_ms=30000,
        topic_data=[
            PR.TopicProduceData(
                name=f"clicks.stream-{t}",
                partition_data=[PR.PartitionProduceData(index=p, records=rng.randbytes(record_bytes)) for p in range(partitions)],
            )
            for t in range(topics)
        ],
    )


def _stable(cls) -> int:
    return cls.HIGHEST_VERSION - 1 if cls.LATEST_VERSION_UNSTABLE else cls.HIGHEST_VERSION


def kraft_records(n: int = 10_000):
    """A metadata log's mix: mostly partition state, then topics, configs, no-ops, brokers."""
    rng = random.Random(3)
    C = message_class
    topics = [(_uuid(rng), f"orders.events-{i:04d}") for i in range(max(1, n // 12))]
    dirs = [_uuid(rng) for _ in range(6)]

    def replicas():
        return rng.sample(range(6), 3)

    def partition():
        tid = rng.choice(topics)[0]
        r = replicas()
        return C("PartitionRecord")(
            partition_id=rng.randrange(0, 12), topic_id=tid, replicas=r, isr=r[:], leader=r[0],
            leader_epoch=rng.randrange(0, 20), partition_epoch=rng.randrange(0, 40), directories=[dirs[i] for i in r],
        )  # fmt: skip

    def change():
        r = replicas()
        return C("PartitionChangeRecord")(
            partition_id=rng.randrange(0, 12), topic_id=rng.choice(topics)[0], isr=r[:2], leader=r[0] if rng.random() < 0.5 else -2
        )

    def topic():
        tid, name = rng.choice(topics)
        return C("TopicRecord")(name=name, topic_id=tid)

    def config():
        return C("ConfigRecord")(resource_type=2, resource_name=rng.choice(topics)[1], name="retention.ms", value=str(rng.randrange(10**6, 10**9)))

    def broker():
        RB = C("RegisterBrokerRecord")
        b = rng.randrange(0, 6)
        return RB(
            broker_id=b, incarnation_id=_uuid(rng), broker_epoch=rng.randrange(1, 10**6),
            end_points=[RB.BrokerEndpoint(name="PLAINTEXT", host=f"broker-{b}.example.com", port=9092, security_protocol=0)],
            features=[RB.BrokerFeature(name="metadata.version", min_supported_version=1, max_supported_version=21),
                      RB.BrokerFeature(name="kraft.version", min_supported_version=0, max_supported_version=1)],
            rack=f"eu-west-1{'abc'[b % 3]}", fenced=True, log_dirs=[dirs[b]],
        )  # fmt: skip

    def change_broker():
        return C("BrokerRegistrationChangeRecord")(broker_id=rng.randrange(0, 6), broker_epoch=rng.randrange(1, 10**6), fenced=0)

    def unfence():
        return C("UnfenceBrokerRecord")(id=rng.randrange(0, 6), epoch=rng.randrange(1, 10**6))

    def noop():
        return C("NoOpRecord")()

    def producer_ids():
        return C("ProducerIdsRecord")(broker_id=1, broker_epoch=rng.randrange(1, 10**6), next_producer_id=rng.randrange(0, 10**9))

    def feature():
        return C("FeatureLevelRecord")(name="metadata.version", feature_level=21)

    mix = [(partition, 40), (change, 25), (topic, 8), (config, 8), (noop, 10), (broker, 2), (change_broker, 2),
           (unfence, 2), (producer_ids, 2), (feature, 1)]  # fmt: skip
    makers = [m for m, weight in mix for _ in range(weight)]
    out = []
    for _ in range(n):
        rec = rng.choice(makers)()
        out.append((rec, _stable(type(rec))))
    return out


def build_cases(quick: bool) -> list[Case]:
    cases = [
        Case("mr20x10", "MetadataResponse v12, 20 topics x 10 partitions", "MetadataResponse", 12, metadata_response(20, 10)),
        Case("mr100x12", "MetadataResponse v12, 100 topics x 12 partitions", "MetadataResponse", 12, metadata_response(100, 12)),
        Case("fetchreq", "FetchRequest v13, 10 topics x 10 partitions", "FetchRequest", 13, fetch_request(10, 10)),
        Case("fetchresp", "FetchResponse v12, 1 MiB of records (8 x 128 KiB)", "FetchResponse", 12, fetch_response()),
        Case("heartbeat", "BrokerHeartbeatRequest v1", "BrokerHeartbeatRequest", 1, broker_heartbeat()),
        Case("leaderisr", "LeaderAndIsrRequest v7, 1,000 partitions (50 x 20)", "LeaderAndIsrRequest", 7, leader_and_isr()),
        Case("mr400x25", "MetadataResponse v12, 400 topics x 25 partitions (10,000)", "MetadataResponse", 12, metadata_response(400, 25)),
        Case("createtopics", "CreateTopicsRequest v7, 50 topics x 8 configs", "CreateTopicsRequest", 7, create_topics()),
        Case("produce", "ProduceRequest v9, 256 partitions (4 x 64) of 200-byte batches", "ProduceRequest", 9, produce_request()),
        Case("kraft", "10,000 KRaft metadata records (record values)", "", 0, kraft_records(1000 if quick else 10_000)),
    ]
    if quick:
        cases[-1].title = "1,000 KRaft metadata records (record values; --quick)"
    for c in cases:
        if c.key == "kraft":
            c.values = [kraft.encode_record_value(m, v) for m, v in c.msg]
            c.data = b"".join(c.values)
            c.count = len(c.values)
        else:
            c.data = c.msg.encode(c.version)
    return cases


# -- Contenders ------------------------------------------------------------------------------------


class NotAvailable(Exception):
    """A peer that has no such message, or cannot represent this case."""


@dataclass
class Codec:
    decode: Callable[[], object]
    encode: Callable[[], bytes]
    note: str = ""


def ours(case: Case) -> Codec:
    if case.key == "kraft":
        values = case.values
        decode_value, encode_value = kraft.decode_record_value, kraft.encode_record_value
        recs = [(r.message, r.version) for r in map(decode_value, values)]
        return Codec(
            decode=lambda: [decode_value(v) for v in values],
            encode=lambda: [encode_value(m, v) for m, v in recs],
        )
    cls, data, version = type(case.msg), case.data, case.version
    decoded = cls.decode(data, version)
    return Codec(decode=lambda: cls.decode(data, version), encode=lambda: decoded.encode(version))


KIO_MODULES = {
    "MetadataResponse": "kio.schema.metadata.v{v}.response",
    "FetchRequest": "kio.schema.fetch.v{v}.request",
    "FetchResponse": "kio.schema.fetch.v{v}.response",
    "BrokerHeartbeatRequest": "kio.schema.broker_heartbeat.v{v}.request",
    "LeaderAndIsrRequest": "kio.schema.leader_and_isr.v{v}.request",
    "CreateTopicsRequest": "kio.schema.create_topics.v{v}.request",
    "ProduceRequest": "kio.schema.produce.v{v}.request",
}


def kio_codec(case: Case) -> Codec:
    if case.key == "kraft":
        raise NotAvailable("kio has no KRaft metadata record classes (PartitionRecord, TopicRecord...)")
    import importlib

    from kio.serial import entity_reader, entity_writer

    try:
        module = importlib.import_module(KIO_MODULES[case.name].format(v=case.version))
    except ImportError:
        raise NotAvailable(f"kio {version(KIO)} has no {case.name} (removed from Kafka 4.0's schemas)") from None
    cls = getattr(module, case.name)
    read, write = entity_reader(cls), entity_writer(cls)
    data = case.data
    obj, used = read(data, 0)
    if used != len(data):
        raise NotAvailable(f"kio read {used} of {len(data)} bytes")

    def encode():
        buf = io.BytesIO()
        write(buf, obj)
        return buf.getvalue()

    return Codec(decode=lambda: read(data, 0), encode=encode)


KP_CLASSES = {
    "MetadataResponse": "kafka.protocol.metadata:MetadataResponse",
    "FetchRequest": "kafka.protocol.consumer:FetchRequest",
    "FetchResponse": "kafka.protocol.consumer:FetchResponse",
    "CreateTopicsRequest": "kafka.protocol.admin:CreateTopicsRequest",
    "ProduceRequest": "kafka.protocol.producer:ProduceRequest",
}


def kp_codec(case: Case) -> Codec:
    if case.key == "kraft":
        raise NotAvailable("kafka-python has no KRaft metadata record classes")
    where = KP_CLASSES.get(case.name)
    if where is None:
        raise NotAvailable(f"kafka-python {version(KP)} has no {case.name} (a broker/controller API)")
    import importlib

    module, _, name = where.partition(":")
    cls = getattr(importlib.import_module(module), name)
    data, v = case.data, case.version
    try:
        obj = cls.decode(data, version=v)
    except Exception as e:  # a version it lacks, or bytes it reads otherwise
        raise NotAvailable(f"kafka-python {version(KP)} cannot decode {case.name} v{v}: {type(e).__name__}: {e}") from None
    # A decoded kafka-python message has no header slot set; encode() reads it.
    obj._header = None
    return Codec(decode=lambda: cls.decode(data, version=v), encode=lambda: obj.encode(version=v), note="")


# -- The floor: hand-written straight-line struct codec for MetadataResponse v12 ------------------

_new = object.__new__
_FI32 = [struct.Struct(">%di" % n) for n in range(64)]
_FC_I32 = [struct.Struct(">B%di" % n) for n in range(64)]  # compact length byte + n int32
_I32, _I32_B = struct.Struct(">i"), struct.Struct(">iB")
_PART = struct.Struct(">hiiiB")
_TOPIC_TAIL = struct.Struct(">16s?B")
_TOPIC_END = struct.Struct(">iB")


def _floor_uvarint(buf, pos):
    value = shift = 0
    while True:
        b = buf[pos]
        pos += 1
        value |= (b & 0x7F) << shift
        if b < 0x80:
            return value, pos
        shift += 7


def _floor_str(buf, pos):
    n = buf[pos]
    if n >= 0x80:
        n, pos = _floor_uvarint(buf, pos)
    else:
        pos += 1
    if n == 0:
        return None, pos
    end = pos + n - 1
    return buf[pos:end].decode(), end


def floor_decode(buf, MR=None):
    MR = MR or message_class("MetadataResponse")
    Broker, Topic, Part = MR.MetadataResponseBroker, MR.MetadataResponseTopic, MR.MetadataResponsePartition
    (throttle, n) = _I32_B.unpack_from(buf, 0)
    pos = 5
    brokers = []
    for _ in range(n - 1):
        b = _new(Broker)
        (b.node_id,) = _I32.unpack_from(buf, pos)
        b.host, pos = _floor_str(buf, pos + 4)
        (b.port,) = _I32.unpack_from(buf, pos)
        b.rack, pos = _floor_str(buf, pos + 4)
        pos += 1  # no tagged fields
        b.unknown_tagged_fields = ()
        brokers.append(b)
    cluster_id, pos = _floor_str(buf, pos)
    controller_id, n = _I32_B.unpack_from(buf, pos)
    pos += 5
    topics = []
    for _ in range(n - 1):
        t = _new(Topic)
        (t.error_code,) = struct.unpack_from(">h", buf, pos)
        t.name, pos = _floor_str(buf, pos + 2)
        raw, t.is_internal, k = _TOPIC_TAIL.unpack_from(buf, pos)
        u = _new(Uuid)
        u.bytes = raw
        t.topic_id = u
        pos += 18
        parts = []
        for _ in range(k - 1):
            p = _new(Part)
            p.error_code, p.partition_index, p.leader_id, p.leader_epoch, k = _PART.unpack_from(buf, pos)
            pos += 15
            p.replica_nodes = [*_FI32[k - 1].unpack_from(buf, pos)]
            pos += 4 * k - 4
            k = buf[pos] - 1
            p.isr_nodes = [*_FI32[k].unpack_from(buf, pos + 1)]
            pos += 1 + 4 * k
            k = buf[pos] - 1
            p.offline_replicas = [*_FI32[k].unpack_from(buf, pos + 1)]
            pos += 2 + 4 * k  # and the empty tagged-field section
            p.unknown_tagged_fields = ()
            parts.append(p)
        t.partitions = parts
        (t.topic_authorized_operations,) = _I32.unpack_from(buf, pos)
        pos += 5
        t.unknown_tagged_fields = ()
        topics.append(t)
    m = _new(MR)
    m.throttle_time_ms, m.brokers, m.cluster_id, m.controller_id, m.topics = throttle, brokers, cluster_id, controller_id, topics
    m.cluster_authorized_operations = -2147483648
    m.error_code = 0  # a v13 field; v12 leaves it at its default
    m.unknown_tagged_fields = ()
    return m


def _floor_put_str(out, s):
    if s is None:
        out.append(0)
        return
    b = s.encode()
    out.append(len(b) + 1)  # the floor's strings are all shorter than 127 bytes
    out += b


def floor_encode(m) -> bytes:
    out = bytearray(_I32_B.pack(m.throttle_time_ms, len(m.brokers) + 1))
    for b in m.brokers:
        out += _I32.pack(b.node_id)
        _floor_put_str(out, b.host)
        out += _I32.pack(b.port)
        _floor_put_str(out, b.rack)
        out.append(0)
    _floor_put_str(out, m.cluster_id)
    out += _I32_B.pack(m.controller_id, len(m.topics) + 1)
    for t in m.topics:
        out += struct.pack(">h", t.error_code)
        _floor_put_str(out, t.name)
        out += _TOPIC_TAIL.pack(t.topic_id.bytes, t.is_internal, len(t.partitions) + 1)
        for p in t.partitions:
            out += _PART.pack(p.error_code, p.partition_index, p.leader_id, p.leader_epoch, len(p.replica_nodes) + 1)
            out += _FI32[len(p.replica_nodes)].pack(*p.replica_nodes)
            out += _FC_I32[len(p.isr_nodes)].pack(len(p.isr_nodes) + 1, *p.isr_nodes)
            out += _FC_I32[len(p.offline_replicas)].pack(len(p.offline_replicas) + 1, *p.offline_replicas)
            out.append(0)
        out += _TOPIC_END.pack(t.topic_authorized_operations, 0)
    out.append(0)
    return bytes(out)


COPY_FLOOR = "floor: the copies alone"


def copy_floor(case: Case) -> Codec:
    """For the 1 MiB FetchResponse: only what any codec returning bytes must do. Decoding copies
    each records blob out of the input (a bytes slice); encoding joins the parts into one bytes."""
    msg = case.msg
    spans, pos = [], 0
    for topic in msg.responses:
        for p in topic.partitions:
            start = case.data.index(p.records, pos)
            spans.append((start, start + len(p.records)))
            pos = spans[-1][1]
    parts = []
    type(msg)._WRITERS[case.version](msg, parts)
    data = case.data
    return Codec(decode=lambda: [data[a:b] for a, b in spans], encode=lambda: b"".join(parts))


def floor_codec(case: Case) -> Codec:
    if case.key == "fetchresp":
        return copy_floor(case)
    if case.key != "mr20x10":
        raise NotAvailable("the floor is written for MetadataResponse v12 20x10 only")
    data = case.data
    decoded = floor_decode(data)
    if decoded != case.msg:
        raise SystemExit("the floor decoder does not reproduce the message")
    return Codec(decode=lambda: floor_decode(data), encode=lambda: floor_encode(decoded))


PEERS = [(KIO, kio_codec), (KP, kp_codec), (FLOOR, floor_codec)]


# -- Timing ----------------------------------------------------------------------------------------


# The clock samples are read from: wall time by default; --cpu-time switches to this process's
# CPU time, which a busy shared machine disturbs far less (time spent waiting for a core is not
# counted; cache and memory contention still are).
TIMER = time.perf_counter


def timed(fn, number: int) -> float:
    return timeit.Timer(fn, timer=TIMER).timeit(number=number)


def calibrate(fn, target: float) -> int:
    number = 1
    while True:
        t = timed(fn, number)
        if t >= target / 5 or number >= 1 << 20:
            return max(1, int(number * target / max(t, 1e-9)))
        number *= 4


def measure(contenders: dict, rounds: int, target: float) -> dict[object, list[float]]:
    """Seconds per call of each contender in each of the interleaved rounds."""
    numbers = {k: calibrate(fn, target) for k, fn in contenders.items()}
    samples: dict = {k: [] for k in contenders}
    keys = list(contenders)
    for r in range(rounds):
        for k in keys[r % len(keys) :] + keys[: r % len(keys)]:
            samples[k].append(timed(contenders[k], numbers[k]) / numbers[k])
    return samples


def paired(a: list[float], b: list[float]) -> float:
    """Median over rounds of a/b: a ratio from samples taken close together, so a load change
    between rounds moves both sides."""
    return statistics.median(x / y for x, y in zip(a, b))


def version(dist: str) -> str:
    name = {OURS: "kafka-meta-proto"}.get(dist, dist)
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return "?"


@dataclass
class Result:
    case: Case
    samples: dict  # (op, label) -> seconds per call, one per round
    na: dict[str, str]

    def time(self, op: str, label: str = OURS) -> float:
        return statistics.median(self.samples[(op, label)])

    def has(self, op: str, label: str) -> bool:
        return (op, label) in self.samples

    def speedup(self, op: str, peer: str) -> float:
        """How many times faster ours is than the peer (median of per-round ratios)."""
        return paired(self.samples[(op, peer)], self.samples[(op, OURS)])


def run_case(case: Case, rounds: int, target: float) -> Result:
    codecs = {OURS: ours(case)}
    na = {}
    for label, make in PEERS:
        try:
            codec = make(case)
        except NotAvailable as e:
            if label != FLOOR:
                na[label] = str(e)
            continue
        out = codec.encode()
        if out != case.data:
            raise SystemExit(f"{case.title}: {label} encodes {len(out)} bytes that differ from ours ({len(case.data)})")
        codecs[label] = codec
    if case.key == "kraft":
        if b"".join(codecs[OURS].encode()) != case.data:
            raise SystemExit("KRaft batch: our re-encoding differs")
    elif codecs[OURS].encode() != case.data:
        raise SystemExit(f"{case.title}: our re-encoding differs")
    contenders = {}
    for label, codec in codecs.items():
        contenders[("decode", label)] = codec.decode
        contenders[("encode", label)] = codec.encode
    if case.key == "kraft":
        recs = [(r, v) for r, v in case.msg]
        assert sum(r.size(v) for r, v in recs) == sum(len(r.encode(v)) for r, v in recs)
        contenders[("size", OURS)] = lambda: sum([r.size(v) for r, v in recs])
        contenders[("len", OURS)] = lambda: sum([len(r.encode(v)) for r, v in recs])
    else:
        m, v = case.msg, case.version
        assert m.size(v) == len(m.encode(v))
        contenders[("size", OURS)] = lambda: m.size(v)
        contenders[("len", OURS)] = lambda: len(m.encode(v))
    return Result(case, measure(contenders, rounds, target), na)


# -- Report ----------------------------------------------------------------------------------------


def fmt_time(sec: float) -> str:
    if sec >= 1e-3:
        return f"{sec * 1e3:.2f} ms"
    return f"{sec * 1e6:.1f} µs"


def fmt_rate(x: float) -> str:
    if x >= 1e6:
        return f"{x / 1e6:.2f} M"
    if x >= 1e3:
        return f"{x / 1e3:.1f} k"
    return f"{x:.1f}"


def ratio(a: float, b: float) -> str:
    return f"{a / b:.2f}x"


TARGETS = [
    # (description, op, peer, minimum speed-up of ours over the peer)
    ("decode >= 1.5x kio", "decode", KIO, 1.5),
    ("encode >= 5x kio", "encode", KIO, 5.0),
    ("decode >= 2x kafka-python", "decode", KP, 2.0),
    ("encode >= 3x kafka-python", "encode", KP, 3.0),
    ("decode within 1.3x of the pure-Python floor (speed-up >= 0.77x)", "decode", FLOOR, 1 / 1.3),
    ("encode within 1.3x of the pure-Python floor (speed-up >= 0.77x)", "encode", FLOOR, 1 / 1.3),
]


def report(results: list[Result]) -> str:
    lines = []
    w = lines.append
    for r in results:
        c = r.case
        mb = len(c.data) / 1e6
        w(f"### {c.title}")
        w("")
        w(f"{len(c.data):,} bytes{' in ' + format(c.count, ',') + ' record values' if c.count > 1 else ''}; msg/s counts "
          f"{'record values' if c.count > 1 else 'messages'}. Speed-up: how many times faster {OURS} is than the row's "
          "library (median of the per-round ratios).")
        w("")
        w("| library | decode | decode msg/s | decode MB/s | encode | encode msg/s | encode MB/s | speed-up: decode | speed-up: encode |")
        w("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
        for label in (OURS, KIO, KP, FLOOR):
            if r.has("decode", label):
                d, e = r.time("decode", label), r.time("encode", label)
                sd = "-" if label == OURS else f"{r.speedup('decode', label):.2f}x"
                se = "-" if label == OURS else f"{r.speedup('encode', label):.2f}x"
                name = COPY_FLOOR if (label == FLOOR and c.key == "fetchresp") else label
                w(f"| {name} | {fmt_time(d)} | {fmt_rate(c.count / d)} | {mb / d:.1f} | {fmt_time(e)} | "
                  f"{fmt_rate(c.count / e)} | {mb / e:.1f} | {sd} | {se} |")
            elif label in r.na:
                w(f"| {label} | n/a | | | n/a | | | | |")
        w("")
        for label, why in r.na.items():
            w(f"- {label}: n/a: {why}")
        w(f"- `size()`: {fmt_time(r.time('size'))} vs `len(encode())`: {fmt_time(r.time('len'))}: "
          f"**{paired(r.samples[('len', OURS)], r.samples[('size', OURS)]):.2f}x** faster")
        w("")
    w("### Targets")
    w("")
    w("| target | case | speed-up | met |")
    w("|---|---|---:|:---:|")
    for desc, op, peer, need in TARGETS:
        for r in results:
            if r.has(op, peer) and not (peer == FLOOR and r.case.key != "mr20x10"):
                s = r.speedup(op, peer)
                w(f"| {desc} | {r.case.key} | {s:.2f}x | {'yes' if s >= need else '**no**'} |")
    for r in results:
        s = paired(r.samples[("len", OURS)], r.samples[("size", OURS)])
        w(f"| size() >= 3x faster than len(encode()) | {r.case.key} | {s:.2f}x | {'yes' if s >= 3 else '**no**'} |")
    w("")
    return "\n".join(lines)


def machine() -> str:
    cpu = "?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        cpu = platform.processor() or "?"
    try:
        usable = len(os.sched_getaffinity(0))
    except AttributeError:
        usable = os.cpu_count()
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "?"
    return (
        f"- CPU: {cpu}, {os.cpu_count()} logical cores ({usable} usable by this process)\n"
        f"- Python {platform.python_version()} ({platform.python_implementation()}), {platform.system()} {platform.release()}\n"
        f"- {OURS} {version(OURS)}, kio {version(KIO)} (its readers are the compiled `kio._kio_native`), "
        f"kafka-python {version(KP)}; timing with timeit\n"
        f"- clock: {'process CPU time (--cpu-time)' if TIMER is time.process_time else 'wall time'}\n"
        f"- codec: {kafka_meta_proto.active_codec()}{' (' + why + ')' if (why := kafka_meta_proto.codec.why_pure_python()) else ''}\n"
        f"- allocator: GLIBC_TUNABLES={os.environ.get('GLIBC_TUNABLES', '(unset)')}\n"
        f"- load average at the start: {load}\n"
        f"- date: {datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%d %H:%M UTC')}"
    )


def write_docs(body: str) -> None:
    block = f"{BEGIN}\n{body}\n{END}"
    if DOCS.exists():
        text = DOCS.read_text(encoding="utf-8")
        if BEGIN in text and END in text:
            text = re.sub(re.escape(BEGIN) + ".*?" + re.escape(END), lambda _: block, text, flags=re.S)
        else:
            text = text.rstrip() + "\n\n" + block + "\n"
    else:
        text = "# Performance\n\nRegenerate the results with `.venv/bin/python bench/messages.py --write-docs`.\n\n" + block + "\n"
    DOCS.write_text(text, encoding="utf-8")


def profile(case: Case) -> None:
    import cProfile
    import pstats

    codec = ours(case)
    for op in ("decode", "encode"):
        fn = getattr(codec, op)
        number = calibrate(fn, 0.5)
        pr = cProfile.Profile()
        pr.enable()
        for _ in range(number):
            fn()
        pr.disable()
        print(f"\n== {case.title}: {op} x {number} ==")
        pstats.Stats(pr).sort_stats("tottime").print_stats(12)


# see the docstring: every contender sees the same allocator, whatever ran before it
ALLOCATOR = "glibc.malloc.mmap_threshold=33554432:glibc.malloc.trim_threshold=1073741824"


def fixed_allocator() -> None:
    """Re-run this script with ALLOCATOR in force (glibc reads its tunables at start-up only)."""
    if sys.platform.startswith("linux") and os.environ.get("GLIBC_TUNABLES") != ALLOCATOR:
        os.environ["GLIBC_TUNABLES"] = ALLOCATOR
        os.execv(sys.executable, [sys.executable, *sys.argv])


def main(argv=None) -> int:
    if argv is None:
        fixed_allocator()
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="a smoke run: few short rounds, 1,000 KRaft records")
    ap.add_argument("--write-docs", action="store_true", help=f"rewrite the results block of {DOCS.relative_to(ROOT)}")
    ap.add_argument("--rounds", type=int, help="interleaved rounds per case (default 9, quick 3)")
    ap.add_argument("--sample", type=float, help="seconds per timed sample (default 0.1, quick 0.01)")
    ap.add_argument("--only", nargs="+", help="case keys to run")
    ap.add_argument("--profile", metavar="CASE", help="cProfile our decode and encode of one case and exit")
    ap.add_argument("--cpu-time", action="store_true", help="time with this process's CPU time instead of wall time")
    args = ap.parse_args(argv)
    global TIMER
    if args.cpu_time:
        TIMER = time.process_time
    rounds = args.rounds or (3 if args.quick else 9)
    target = args.sample or (0.01 if args.quick else 0.1)

    started = time.perf_counter()
    cases = build_cases(args.quick)
    if args.profile:
        profile(next(c for c in cases if c.key == args.profile))
        return 0
    if args.only:
        cases = [c for c in cases if c.key in args.only]
    head = machine()
    print(head, flush=True)
    results = []
    for case in cases:
        print(f"... {case.title}", file=sys.stderr, flush=True)
        gc.collect()
        results.append(run_case(case, rounds, target))
    body = report(results)
    took = time.perf_counter() - started
    text = (
        f"{head}\n- rounds per case: {rounds}, ~{target:g} s per sample, median round reported; "
        f"whole run {took:.0f} s{' (--quick)' if args.quick else ''}\n\n{body}"
    )
    print()
    print(body)
    print(f"run took {took:.0f} s", file=sys.stderr)
    if args.write_docs:
        write_docs(text)
        print(f"wrote {DOCS}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
