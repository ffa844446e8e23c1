#!/usr/bin/env python
"""Mutation fuzzer for the generated decoders: bad bytes must give DecodeError, nothing else.

    .venv/bin/python tools/fuzz.py --budget 1000000 --seed 7 [--jobs 2] [--only FetchRequest ...]
                                   [--report fuzz-report.jsonl]
    .venv/bin/python tools/fuzz.py --logs --budget 100000 --seed 7   # the log readers instead

With ``--logs`` the inputs are mutated record batches (hostile shapes among the seeds) read by the
batch readers, whole and streamed, and by dump-log: see "Log readers" below for what counts.

Seeds (valid encodings): every golden vector under tests/data/golden (Kafka's serializer wrote them:
tools/golden_vectors.py; ``--vectors`` takes another folder laid out alike, such as
../shared/kafka-reference/vectors) whose message and version this package ships, plus a few messages
per (message, version) built by a seeded random value generator from each class's ``_FIELDS``, so
messages without golden vectors are fuzzed too. Each input is one seed put through one to four
mutations (bit flips, bytes set to 0x00/0xff/0x7f/0x80, truncation, length-field inflation, splices
of two encodings, inserted, deleted, overwritten and duplicated regions), then decoded strictly at
the seed's version, or at another version of the same message one time in ten.

Outcomes:
  clean        decode succeeded, and the message re-encodes (size() agreeing) to bytes that decode
               to the same message and re-encode to the same bytes
  DecodeError  decode raised DecodeError naming a field path (unless it is the trailing-bytes
               error) and an offset inside the input
  other        anything else: another exception, a DecodeError without a path or with an offset
               outside the input, an input whose checks take over --timeout seconds (a hang), a decode whose
               traced allocations exceed 256 KiB + 512 bytes per input byte (checked on a sample,
               --mem-every), or a clean decode whose re-encoding fails or does not round-trip
  slow         a decode taking over 50 ms (re-timed twice; the fastest of three counts); counted
               in addition to its outcome

One known deviation is noted rather than counted as "other": a clean decode of unknown tagged
fields that are out of tag order re-encodes them sorted, so the re-decoded message differs only in
that order (kind "unsorted-unknown-tags" in the report; a few per chunk are kept).

Each "other" (up to --max-findings) and each slow input goes to --report as a JSON line with the
message, version, hex input and traceback; the first few are printed. The last stdout line is
exactly ``N inputs, C clean, D DecodeError, X other, S slow``; the exit status is 1 when X > 0.

A run is deterministic for a seed: input i comes from ``Random(f"kmp-fuzz/{seed}/{i // CHUNK}")`` whatever
--jobs is, and inputs are made one at a time inside the workers, never held all at once.
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import random
import signal
import sys
import time
import tracemalloc
import traceback
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT / "src") not in sys.path:  # run from a checkout without installing
    sys.path.insert(0, str(ROOT / "src"))

from kafka_meta_proto import DecodeError  # noqa: E402
from kafka_meta_proto.registries import qualified_class as message_class  # noqa: E402
from kafka_meta_proto.registries import qualified_names  # noqa: E402

# Every shipped message: Kafka's registry's, then the diskless design's own as "diskless:Name".
ALL_NAMES = qualified_names()
from kafka_meta_proto.uuid import Uuid  # noqa: E402

DEFAULT_VECTORS = ROOT / "tests" / "data" / "golden"
CHUNK = 500  # inputs per deterministic chunk (one Random per chunk)
SLOW_SECONDS = 0.05
GENERATED_PER_TARGET = 4
MEMORY_BASE = 256 * 1024
MEMORY_PER_BYTE = 512
PRINT_FIRST = 5
NOTE_KINDS = ("unsorted-unknown-tags",)
NOTES_PER_CHUNK = 2  # notes (known, not counted as other) kept per chunk for the report
TRAILING = "trailing bytes after the message"


# -- Seeds: a seeded random value generator over _FIELDS ---------------------------------------

from kafka_meta_proto.schema_info import INT_RANGES as INT_BOUNDS  # noqa: E402
TEXT_POOL = "abcxyzAZ09-_. /\u00e9\u00df\u4e2d\u6587\U0001f600"


def _int(rng: random.Random, type_name: str) -> int:
    lo, hi = INT_BOUNDS[type_name]
    r = rng.random()
    if r < 0.3:
        return rng.choice((lo, hi, 0, max(lo, -1), 1))
    if r < 0.7:
        return rng.randint(max(lo, -100), min(hi, 1000))
    return rng.randint(lo, hi)


def _primitive(rng: random.Random, type_name: str):
    if type_name in INT_BOUNDS:
        return _int(rng, type_name)
    if type_name == "bool":
        return rng.random() < 0.5
    if type_name == "float64":
        return rng.choice((0.0, -0.0, 1.5, -2.25, math.inf, 1e300, rng.uniform(-1e9, 1e9)))
    if type_name == "string":
        n = rng.choice((0, 0, 1, 3, 8, 20))
        if rng.random() < 0.7:
            return "".join(rng.choice("abcdefghijklmnopqrstuvwxyz_-.0123456789") for _ in range(n))
        return "".join(rng.choice(TEXT_POOL) for _ in range(n))
    if type_name in ("bytes", "records"):
        return rng.randbytes(rng.choice((0, 1, 5, 16, 40)))
    if type_name == "uuid":
        return Uuid.ZERO_UUID if rng.random() < 0.2 else Uuid(rng.randbytes(16))
    raise ValueError(f"unknown primitive type {type_name}")


def random_struct(cls, version: int, flexible: bool, rng: random.Random, depth: int = 0):
    """An instance of a generated struct class with random values valid at ``version``."""
    kwargs = {}
    for f in cls._FIELDS:
        if not f.present(version):
            continue
        if f.is_tagged(version) and flexible and rng.random() < 0.3:
            continue  # tagged: left at its default
        if f.is_nullable(version) and rng.random() < 0.15:
            kwargs[f.name] = None
            continue
        if f.is_array:
            n = rng.choice((0, 1, 1, 2, 3)) if depth < 3 else rng.choice((0, 1))
            if f.struct is not None:
                kwargs[f.name] = [random_struct(f.struct, version, flexible, rng, depth + 1) for _ in range(n)]
            else:
                kwargs[f.name] = [_primitive(rng, f.element_type) for _ in range(n)]
        elif f.struct is not None:
            kwargs[f.name] = random_struct(f.struct, version, flexible, rng, depth + 1)
        else:
            kwargs[f.name] = _primitive(rng, f.type)
    if flexible and rng.random() < 0.25:
        known = [f.tag for f in cls._FIELDS if f.tag is not None]
        first = max(known, default=-1) + 1
        tags = sorted(rng.sample(range(first, first + 30), rng.randint(1, 3)))
        kwargs["unknown_tagged_fields"] = tuple((t, rng.randbytes(rng.choice((0, 1, 4, 9)))) for t in tags)
    return cls(**kwargs)


def generated_seeds(cls, version: int, seed: int) -> list[bytes]:
    rng = random.Random(f"kmp-fuzz-seeds/{seed}/{cls.NAME}/{version}")
    out = []
    try:
        out.append(cls().encode(version))
    except Exception:  # the defaults need not be encodable at every version
        pass
    flexible = cls.is_flexible(version)
    for _ in range(GENERATED_PER_TARGET * 3):
        if len(out) > GENERATED_PER_TARGET:
            break
        try:
            out.append(random_struct(cls, version, flexible, rng).encode(version))
        except Exception:  # a value combination the encoder refuses: draw again
            continue
    return out


@dataclass
class Corpus:
    targets: list  # (name, version), sorted
    seeds: dict  # (name, version) -> [bytes]
    versions: dict  # name -> [versions]
    golden: int = 0
    generated: int = 0


def read_vectors(folder: Path):
    """(name, version, bytes) of every vector in ``folder/SET/*.jsonl`` (one SET per release)."""
    for path in sorted(folder.glob("*/*.jsonl")):
        for line in path.read_text(encoding="utf-8").split("\n"):
            if line.strip():
                vec = json.loads(line)
                yield vec["name"], vec["version"], bytes.fromhex(vec["hex"])


def build_corpus(seed: int, only=None, vectors: Path | None = DEFAULT_VECTORS) -> Corpus:
    names = sorted(only) if only else ALL_NAMES
    seeds: dict = {}
    versions = {}
    for name in names:
        cls = message_class(name)
        versions[name] = list(cls.versions())
        for v in cls.versions():
            seeds[(name, v)] = []
    corpus = Corpus([], seeds, versions)
    if vectors is not None and vectors.is_dir():
        for name, version, data in read_vectors(vectors):
            if (name, version) in seeds and data not in seeds[(name, version)]:
                seeds[(name, version)].append(data)
                corpus.golden += 1
    for name in names:
        cls = message_class(name)
        for v in cls.versions():
            made = generated_seeds(cls, v, seed)
            seeds[(name, v)].extend(made)
            corpus.generated += len(made)
    corpus.targets = sorted(t for t, s in seeds.items() if s)
    return corpus


# -- Mutations ---------------------------------------------------------------------------------

INTERESTING_BYTES = (0x00, 0xFF, 0x7F, 0x80, 0x01, 0xFE)
BIG_INT32 = (0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 0xFFFFFFFE, 0xFFFFFFFB, 0x00010000, 0x0FFFFFFF, 0x7FFFFFF0)
BIG_INT16 = (0x7FFF, 0x8000, 0xFFFF, 0xFFFE, 0xFFFB, 0x0100, 0x7FFE)
BIG_UVARINTS = (
    b"\x80\x80\x80\x80\x08",  # 2**31
    b"\xff\xff\xff\xff\x07",  # 2**31 - 1
    b"\xff\xff\xff\xff\x0f",  # 2**32 - 1
    b"\xff\xff\xff\xff\x7f",  # 2**35 - 1: five bytes, more than 32 bits
    b"\x80\x80\x80\x80\x80\x01",  # six bytes
    b"\xff\xff\x03",  # 65535
    b"\x80\x80\x02",  # 32768
    b"\x80\x00",  # zero, not minimally encoded
    b"\x80",  # truncated
    b"\x00",  # null
)


def _length_candidates(data: bytes, p: int) -> list[str]:
    """Which length encodings the bytes at ``p`` could be: small, non-negative, within the rest."""
    n = len(data)
    kinds = []
    if p + 4 <= n and 0 <= int.from_bytes(data[p : p + 4], "big", signed=True) <= n - p - 4:
        kinds.append("int32")
    if p + 2 <= n and 0 <= int.from_bytes(data[p : p + 2], "big", signed=True) <= n - p - 2:
        kinds.append("int16")
    if p < n and 1 <= data[p] < 0x80 and data[p] - 1 <= n - p - 1:
        kinds.append("uvarint")
    return kinds


def m_flip(data: bytearray, rng, corpus, target):
    for _ in range(rng.choice((1, 1, 2, 3, 4))):
        p = rng.randrange(len(data))
        data[p] ^= 1 << rng.randrange(8)
    return "flip"


def m_set_byte(data: bytearray, rng, corpus, target):
    p = rng.randrange(len(data))
    data[p] = rng.choice(INTERESTING_BYTES)
    return f"set@{p}"


def m_truncate(data: bytearray, rng, corpus, target):
    p = rng.randrange(len(data))
    del data[p:]
    return f"truncate@{p}"


def m_inflate(data: bytearray, rng, corpus, target):
    """Find a position that looks like a length or count and make it hostile."""
    n = len(data)
    p, kinds = rng.randrange(n), []
    for _ in range(16):
        q = rng.randrange(n)
        kinds = _length_candidates(data, q)
        if kinds:
            p = q
            break
    kind = rng.choice(kinds) if kinds else rng.choice(("int32", "int16", "uvarint"))
    r = rng.random()
    if kind == "int32" and p + 4 <= n:
        old = int.from_bytes(data[p : p + 4], "big", signed=True)
        value = rng.choice(BIG_INT32) if r < 0.7 else (old + rng.choice((-1, 1, n))) & 0xFFFFFFFF
        data[p : p + 4] = value.to_bytes(4, "big")
    elif kind == "int16" and p + 2 <= n:
        old = int.from_bytes(data[p : p + 2], "big", signed=True)
        value = rng.choice(BIG_INT16) if r < 0.7 else (old + rng.choice((-1, 1, n))) & 0xFFFF
        data[p : p + 2] = value.to_bytes(2, "big")
    else:
        kind = "uvarint"
        if r < 0.7:
            data[p : p + 1] = rng.choice(BIG_UVARINTS)
        else:
            data[p] = (data[p] + rng.choice((-1, 1, 2))) & 0x7F
    return f"inflate-{kind}@{p}"


def m_splice(data: bytearray, rng, corpus, target):
    other_target = target if rng.random() < 0.7 else rng.choice(corpus.targets)
    other = rng.choice(corpus.seeds[other_target])
    p = rng.randrange(len(data) + 1)
    q = rng.randrange(len(other) + 1)
    data[p:] = other[q:]
    return f"splice@{p}+{q}"


def m_insert(data: bytearray, rng, corpus, target):
    p = rng.randrange(len(data) + 1)
    if rng.random() < 0.5:
        chunk = bytes([rng.choice(INTERESTING_BYTES)]) * rng.randint(1, 8)
    else:
        chunk = rng.randbytes(rng.randint(1, 8))
    data[p:p] = chunk
    return f"insert@{p}"


def m_delete(data: bytearray, rng, corpus, target):
    p = rng.randrange(len(data))
    del data[p : p + rng.randint(1, 8)]
    return f"delete@{p}"


def m_overwrite(data: bytearray, rng, corpus, target):
    p = rng.randrange(len(data))
    k = min(rng.randint(1, 8), len(data) - p)
    data[p : p + k] = rng.randbytes(k)
    return f"overwrite@{p}"


def m_duplicate(data: bytearray, rng, corpus, target):
    i = rng.randrange(len(data))
    j = min(len(data), i + rng.randint(1, 64))
    region = data[i:j]
    k = j if rng.random() < 0.5 else rng.randrange(len(data) + 1)
    data[k:k] = region * rng.choice((1, 1, 2, 5))
    return f"dup@{i}:{j}->{k}"


MUTATIONS = (
    (m_flip, 3),
    (m_set_byte, 3),
    (m_truncate, 2),
    (m_inflate, 4),
    (m_splice, 2),
    (m_insert, 2),
    (m_delete, 2),
    (m_overwrite, 1),
    (m_duplicate, 2),
)
_MUTATORS = [m for m, w in MUTATIONS for _ in range(w)]


def mutate(seed_bytes: bytes, rng: random.Random, corpus: Corpus, target) -> tuple[bytes, list[str]]:
    data = bytearray(seed_bytes)
    ops = []
    for _ in range(rng.choice((1, 1, 1, 1, 1, 1, 2, 2, 3, 4))):
        if not data:
            op = m_insert if rng.random() < 0.5 else m_splice
        else:
            op = rng.choice(_MUTATORS)
        ops.append(op(data, rng, corpus, target))
    return bytes(data), ops


# -- Checking one input ------------------------------------------------------------------------


class Hang(BaseException):
    """Raised by the alarm when checking one input (decode, re-timing, memory check, re-encode)
    takes longer than --timeout; not an Exception, so nothing on the way catches it."""


def _on_alarm(signum, frame):
    raise Hang()


def _tag_of(item):
    return item[0]


def _same(a, b, sort_unknown: bool = False) -> bool:
    """Equality where NaN floats equal themselves (decoded float64 fields may hold NaN);
    with ``sort_unknown``, unknown tagged fields compare in tag order (stable, as the encoder
    writes them) rather than in the order they were read."""
    if a == b:
        return True
    if isinstance(a, float) and isinstance(b, float):
        return math.isnan(a) and math.isnan(b)
    if type(a) is not type(b):
        return False
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y, sort_unknown) for x, y in zip(a, b))
    slots = getattr(type(a), "__slots__", None)
    if slots:
        for s in slots:
            x, y = getattr(a, s), getattr(b, s)
            if sort_unknown and s == "unknown_tagged_fields":
                x, y = sorted(x, key=_tag_of), sorted(y, key=_tag_of)
            if not _same(x, y, sort_unknown):
                return False
        return True
    return False


@dataclass
class Settings:
    timeout: float = 5.0
    mem_every: int = 200  # check allocations on one input in this many
    max_findings: int = 1000
    logs: bool = False  # fuzz the log readers instead of the message decoders


@dataclass
class ChunkResult:
    inputs: int = 0
    clean: int = 0
    decode_errors: int = 0
    other: int = 0
    slow: int = 0
    findings: list = field(default_factory=list)  # dicts for the report
    kinds: dict = field(default_factory=dict)  # finding kind -> count


def _finding(kind, name, version, seed_version, data, ops, detail, tb=None, **extra) -> dict:
    d = {
        "kind": kind,
        "message": name,
        "version": version,
        "seed_version": seed_version,
        "mutations": ops,
        "hex": data.hex(),
        "error": detail,
    }
    if tb:
        d["traceback"] = tb
    d.update(extra)
    return d


def _timed_decode(cls, data, version):
    """Decode once: (outcome, value, seconds), outcome in ok / error / exception."""
    t0 = time.perf_counter()
    try:
        msg = cls.decode(data, version)
        outcome, value = "ok", msg
    except DecodeError as e:
        outcome, value = "error", e
    except Exception as e:  # noqa: BLE001 - the whole point
        outcome, value = "exception", (e, traceback.format_exc())
    return outcome, value, time.perf_counter() - t0


def check_input(cls, name, version, seed_version, data, ops, check_memory: bool):
    """Classify one input: ("clean" | "error" | "other", finding or None, slow finding or None).

    Raises Hang when the alarm set by the caller goes off."""
    outcome, value, elapsed = _timed_decode(cls, data, version)
    slow = None
    if elapsed > SLOW_SECONDS:
        times = [elapsed]
        for _ in range(2):
            times.append(_timed_decode(cls, data, version)[2])
        if min(times) > SLOW_SECONDS:
            slow = _finding("slow", name, version, seed_version, data, ops, f"{min(times) * 1000:.1f} ms")
    if outcome == "exception":
        exc, tb = value
        return "other", _finding("exception", name, version, seed_version, data, ops, repr(exc), tb), slow
    if check_memory:
        tracemalloc.start()
        try:
            try:
                cls.decode(data, version)
            except DecodeError:
                pass
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        limit = MEMORY_BASE + MEMORY_PER_BYTE * len(data)
        if peak > limit:
            detail = f"decode allocated {peak} bytes (limit {limit} for {len(data)} input bytes)"
            return "other", _finding("memory", name, version, seed_version, data, ops, detail), slow
    if outcome == "error":
        e = value
        problems = []
        if e.offset is None or not 0 <= e.offset <= len(data):
            problems.append(f"offset {e.offset!r} outside the input of {len(data)} bytes")
        if not e.path and TRAILING not in e.reason:
            problems.append("no field path")
        try:
            str(e)
        except Exception as exc:  # noqa: BLE001
            problems.append(f"str() raised {exc!r}")
        if problems:
            detail = "; ".join(problems) + f": {e.reason!r} path={e.path!r}"
            return "other", _finding("unlocated-error", name, version, seed_version, data, ops, detail), slow
        return "error", None, slow
    msg = value
    try:
        out = msg.encode(version)
        size = msg.size(version)
        back = cls.decode(out, version)
        again = back.encode(version)
        problems = []
        if size != len(out):
            problems.append(f"size() {size} != {len(out)} encoded bytes")
        if again != out:
            problems.append("re-encoding the re-decoded message gives other bytes")
        if not _same(back, msg):
            if _same(back, msg, sort_unknown=True) and not problems:
                # Known and reported: unknown tagged fields read out of tag order come back
                # sorted. Noted (kind "unsorted-unknown-tags"), not counted as "other".
                detail = f"unknown tagged fields out of tag order; re-encoded {out.hex()}"
                note = _finding("unsorted-unknown-tags", name, version, seed_version, data, ops, detail)
                return "clean", note, slow
            problems.append("the re-encoding decodes to a different message")
        if problems:
            detail = "; ".join(problems) + f"; re-encoded {out.hex()}"
            return "other", _finding("reencode", name, version, seed_version, data, ops, detail), slow
    except Exception as exc:  # noqa: BLE001
        tb = traceback.format_exc()
        return "other", _finding("reencode", name, version, seed_version, data, ops, repr(exc), tb), slow
    return "clean", None, slow


# -- Log readers (--logs) ----------------------------------------------------------------------
#
# Seeds are record batches: ordinary ones in every codec, a control batch, two batches back to
# back, and the hostile shapes (thousands of records from a small payload, a count of
# 2**31 - 1, thousands of gzip members, LZ4 frames and skippable frames, snappy chunks and zstd
# frames). Each input is read with the CRC unchecked (so that mutations reach the records) by the
# whole-batch reader (decode_batch), the streaming one (scan + BatchView.records, and the pieces
# reader with 4 KiB pieces), and dump-log (text and --json); the first two also from a
# bytearray, a memoryview and an mmap of the input. "other": any exception but a DecodeError
# from the readers, any exception from dump-log, a streamed result other than the whole
# reader's (other records, or success where it fails, or failure where it succeeds), a result
# or error from another buffer type than from bytes (other type or text), a
# streaming read whose traced allocations pass LOG_MEMORY_BASE + LOG_MEMORY_PER_BYTE per input
# byte, or a read past --timeout; "slow": over LOG_SLOW_SECONDS (fastest of three).

LOG_TARGET = ("log", 2)
LOG_SLOW_SECONDS = 0.25
LOG_MEMORY_BASE = 4 << 20  # a few decompressed pieces (1 MiB each) and the record being read
LOG_MEMORY_PER_BYTE = 64
LOG_PIECE = 4096  # the pieces reader's piece size: records cross piece boundaries all the time


def log_seeds() -> list[bytes]:
    import gzip
    import struct

    import cramjam
    import lz4.block
    import lz4.frame
    import zstandard

    from kafka_meta_proto.log import CompressionType, Record, RecordBatch, control_key
    from kafka_meta_proto.log.compression import compress
    from kafka_meta_proto.log.header import MIN_BATCH_LENGTH, pack_header, seal
    from kafka_meta_proto.log.records import encode_records

    noop = b"\x01\x14\x00\x00"
    minimal = b"\x0c\x00\x00\x00\x01\x01\x00"  # a record with null key and value

    def batch(codec, payload: bytes, count: int) -> bytes:
        header = pack_header(0, MIN_BATCH_LENGTH + len(payload), 0, int(codec), max(count - 1, 0),
                             0, 0, -1, -1, -1, count)  # fmt: skip
        return seal(header, payload)

    records = [Record(value=noop, headers=[("h", b"v")]), Record(key=b"k", value=b"\x01\x02\x00\x00"),
               Record(value=bytes(range(200)))]  # fmt: skip
    seeds = [RecordBatch.create(records, compression=c).encode() for c in CompressionType]
    marker = Record(key=control_key(0), value=b"\x00\x00\x00\x00\x00\x00")
    seeds.append(RecordBatch.create([marker], control=True).encode())
    seeds.append(seeds[0] + seeds[4])
    lz4_empty = lz4.frame.compress(b"", block_size=lz4.frame.BLOCKSIZE_MAX64KB, content_checksum=False)
    one = compress(CompressionType.GZIP, minimal)
    kafka_lz4 = lz4.frame.compress(minimal, block_size=lz4.frame.BLOCKSIZE_MAX64KB, block_linked=False,
                                   content_checksum=False, store_size=False)  # fmt: skip
    seeds += [
        batch(CompressionType.ZSTD, zstandard.ZstdCompressor().compress(minimal * 5_000), 5_000),
        batch(CompressionType.GZIP, gzip.compress(minimal * 5_000, mtime=0), 5_000),
        batch(CompressionType.ZSTD, zstandard.ZstdCompressor().compress(minimal * 50), 2**31 - 1),
        batch(CompressionType.GZIP, gzip.compress(b"", mtime=0) * 2000 + one, 1),
        batch(CompressionType.LZ4, struct.pack("<II", 0x184D2A50, 0) * 2000 + kafka_lz4, 1),
        batch(CompressionType.LZ4, lz4.frame.compress(minimal, content_checksum=True) * 1000, 1000),
        batch(CompressionType.SNAPPY, b"\x82SNAPPY\x00" + struct.pack(">ii", 1, 1)
              + (struct.pack(">i", len(b := bytes(cramjam.snappy.compress_raw(minimal)))) + b) * 1000, 1000),
        batch(CompressionType.ZSTD, zstandard.ZstdCompressor().compress(minimal) * 1000, 1000),
        batch(CompressionType.NONE, encode_records([Record(value=bytes(40_000))]), 1),
    ]  # fmt: skip
    return seeds


def build_log_corpus() -> Corpus:
    seeds = log_seeds()
    return Corpus([LOG_TARGET], {LOG_TARGET: seeds}, {LOG_TARGET[0]: [LOG_TARGET[1]]}, generated=len(seeds))


def _whole_read(data):
    from kafka_meta_proto.log import LogFormatError, decode_batch

    try:
        return "ok", decode_batch(data, verify_crc=False)[0].records
    except LogFormatError as exc:
        return "error", exc


def _streamed_read(data):
    """Every batch's records by the streaming reader; for the batch at position 0, ("ok",
    records) or ("error", exc); None when no batch with sound framing starts there."""
    from kafka_meta_proto.log import BufferSource, LogFormatError
    from kafka_meta_proto.log.scanning import Damage, scan

    first = None
    for item in scan(BufferSource(data), verify_crc=False):
        if type(item) is Damage:
            continue
        records = []
        try:
            for record in item.records():
                if item.position == 0:
                    records.append(record)
            outcome = ("ok", records)
        except LogFormatError as exc:
            outcome = ("error", exc)
        if item.position == 0:
            first = outcome
    return first


def _mapped(data: bytes):
    import mmap

    buf = mmap.mmap(-1, len(data))
    buf.write(data)
    return buf


LOG_BUFFERS = {"bytearray": bytearray, "memoryview": memoryview, "mmap": _mapped}  # bytes: the reference


def _comparable(outcome):
    """An outcome of _whole_read / _streamed_read with its error as type and text."""
    if outcome is None or outcome[0] == "ok":
        return outcome
    return "error", type(outcome[1]), str(outcome[1])


def _buffer_types_differ(data, whole, streamed) -> str | None:
    """Which buffer type reads ``data`` otherwise than bytes, and how; None if none does."""
    expected = _comparable(whole), _comparable(streamed)
    for kind, make in LOG_BUFFERS.items():
        if not data and kind == "mmap":
            continue  # (an anonymous map has at least a byte)
        buf = make(data)
        got = _comparable(_whole_read(buf)), _comparable(_streamed_read(buf))
        if got != expected:
            return f"{kind}: {got[0]!r:.200}, {got[1]!r:.200}; bytes: {expected[0]!r:.200}, {expected[1]!r:.200}"
    return None


def _pieces_read(data):
    """The first batch's records read across LOG_PIECE pieces, as ("ok", n) or ("error", type);
    None for an uncompressed or control batch."""
    from kafka_meta_proto.log import LogFormatError
    from kafka_meta_proto.log.batch import read_frame
    from kafka_meta_proto.log.compression import iter_decompress
    from kafka_meta_proto.log.header import ATTR_COMPRESSION, ATTR_CONTROL, HEADER_SIZE
    from kafka_meta_proto.log.records import iter_records_in_pieces

    try:
        header = read_frame(data, 0, len(data))
        codec = header.attributes & ATTR_COMPRESSION
        if not codec or header.attributes & ATTR_CONTROL:
            return None  # (the streaming reader checks control keys too: not compared)
        end = 12 + header.batch_length
        pieces = iter_decompress(codec, data[HEADER_SIZE:end], piece=LOG_PIECE)
        return "ok", sum(1 for _ in iter_records_in_pieces(pieces, header.records_count))
    except LogFormatError as exc:
        return "error", type(exc).__name__


def _dump(data, directory: Path) -> None:
    from kafka_meta_proto.tools.dump import dump_file, iter_json_records

    path = directory / "00000000000000000000.log"
    path.write_bytes(data)
    dump_file(path, _NULL_TEXT)
    for _ in iter_json_records(path):
        pass


class _NullText:
    def write(self, text: str) -> int:
        return len(text)


_NULL_TEXT = _NullText()


def _same_outcome(whole, streamed) -> str | None:
    """Why the streaming reader's first batch differs from the whole reader's, or None. When both
    fail they may name different problems: the whole reader decompresses everything, then frames
    every record, then checks control keys, where the streaming one meets them in batch order."""
    from kafka_meta_proto.log import RecordLimitError

    if streamed is None or (whole[0] == "error" and isinstance(whole[1], RecordLimitError)):
        return None  # no batch at 0 (the whole reader says why), or too many for a list
    if whole[0] == "ok":
        if streamed[0] != "ok" or streamed[1] != whole[1]:
            return f"whole read {len(whole[1])} records, streamed {streamed[0]}"
        return None
    if streamed[0] == "ok":
        return f"whole read failed ({whole[1].reason}), streamed read {len(streamed[1])} records"
    return None


def check_log_input(data: bytes, ops, check_memory: bool, directory: Path):
    """Classify one log input as check_input does a message."""
    name, version = LOG_TARGET
    t0 = time.perf_counter()
    try:
        whole = _whole_read(data)
        streamed = _streamed_read(data)
        pieces = _pieces_read(data)
        buffers = _buffer_types_differ(data, whole, streamed)
    except Exception as exc:  # noqa: BLE001 - the whole point
        return "other", _finding("exception", name, version, version, data, ops, repr(exc), traceback.format_exc()), None
    elapsed = time.perf_counter() - t0
    try:
        _dump(data, directory)
    except Exception as exc:  # noqa: BLE001 - dump-log reports problems, it never raises
        return "other", _finding("dump-exception", name, version, version, data, ops, repr(exc), traceback.format_exc()), None
    slow = None
    if elapsed > LOG_SLOW_SECONDS:  # re-timed twice: the fastest of three counts
        for _ in range(2):
            t0 = time.perf_counter()
            _whole_read(data), _streamed_read(data), _pieces_read(data)
            elapsed = min(elapsed, time.perf_counter() - t0)
        if elapsed > LOG_SLOW_SECONDS:
            slow = _finding("slow", name, version, version, data, ops, f"{elapsed * 1000:.1f} ms")
    problem = _same_outcome(whole, streamed)
    if problem is None and pieces is not None and streamed is not None and pieces[0] != streamed[0]:
        problem = f"read across {LOG_PIECE}-byte pieces: {pieces}, streamed: {streamed[0]}"
    if buffers:
        return "other", _finding("buffer-type-differs", name, version, version, data, ops, buffers), slow
    if problem:
        return "other", _finding("streamed-differs", name, version, version, data, ops, problem), slow
    if check_memory:
        tracemalloc.start()
        try:
            _streamed_read(data)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        limit = LOG_MEMORY_BASE + LOG_MEMORY_PER_BYTE * len(data)
        if peak > limit:
            detail = f"streaming read allocated {peak} bytes (limit {limit} for {len(data)} input bytes)"
            return "other", _finding("memory", name, version, version, data, ops, detail), slow
    return ("clean" if whole[0] == "ok" else "error"), None, slow


# -- Running chunks ----------------------------------------------------------------------------

_STATE: dict = {}


def _init_worker(seed: int, only, vectors, settings: Settings) -> None:
    key = (seed, tuple(only or ()), str(vectors), settings.logs)
    if _STATE.get("key") != key:
        _STATE["corpus"] = build_log_corpus() if settings.logs else build_corpus(seed, only, vectors)
        _STATE["key"] = key
    _STATE["seed"] = seed
    _STATE["settings"] = settings
    if settings.logs:
        import tempfile

        _STATE["classes"] = {}
        _STATE["directory"] = Path(tempfile.mkdtemp(prefix="kmp-fuzz-logs-"))
    else:
        _STATE["classes"] = {n: message_class(n) for n in _STATE["corpus"].versions}
    alarm = hasattr(signal, "setitimer") and settings.timeout > 0
    try:
        if alarm:
            signal.signal(signal.SIGALRM, _on_alarm)
    except ValueError:  # not the main thread
        alarm = False
    _STATE["alarm"] = alarm


def run_chunk(job: tuple[int, int]) -> ChunkResult:
    chunk_index, count = job
    corpus: Corpus = _STATE["corpus"]
    settings: Settings = _STATE["settings"]
    classes = _STATE["classes"]
    alarm = _STATE["alarm"]
    rng = random.Random(f"kmp-fuzz/{_STATE['seed']}/{chunk_index}")
    res = ChunkResult()
    for _ in range(count):
        target = rng.choice(corpus.targets)
        name, seed_version = target
        data, ops = mutate(rng.choice(corpus.seeds[target]), rng, corpus, target)
        version = seed_version if rng.random() < 0.9 else rng.choice(corpus.versions[name])
        check_mem = rng.random() * settings.mem_every < 1  # one draw always: same inputs for any --mem-every
        if alarm:
            signal.setitimer(signal.ITIMER_REAL, settings.timeout)
        try:
            if settings.logs:
                kind, finding, slow = check_log_input(data, ops, check_mem, _STATE["directory"])
            else:
                kind, finding, slow = check_input(classes[name], name, version, seed_version, data, ops, check_mem)
        except Hang:
            detail = f"not done after {settings.timeout} s"
            kind, finding, slow = "other", _finding("hang", name, version, seed_version, data, ops, detail), None
        finally:
            if alarm:
                signal.setitimer(signal.ITIMER_REAL, 0)
        res.inputs += 1
        if kind == "clean":
            res.clean += 1
            if finding is not None:  # a note about a clean decode
                res.kinds[finding["kind"]] = res.kinds.get(finding["kind"], 0) + 1
                if res.kinds[finding["kind"]] <= NOTES_PER_CHUNK and len(res.findings) < settings.max_findings:
                    res.findings.append(finding)
        elif kind == "error":
            res.decode_errors += 1
        else:
            res.other += 1
            res.kinds[finding["kind"]] = res.kinds.get(finding["kind"], 0) + 1
            if len(res.findings) < settings.max_findings:
                res.findings.append(finding)
        if slow is not None:
            res.slow += 1
            res.kinds["slow"] = res.kinds.get("slow", 0) + 1
            if len(res.findings) < settings.max_findings:
                res.findings.append(slow)
    return res


def chunks(budget: int):
    for i, start in enumerate(range(0, budget, CHUNK)):
        yield i, min(CHUNK, budget - start)


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--budget", type=int, required=True, help="number of inputs to try")
    p.add_argument("--seed", type=int, required=True, help="random seed; a run is deterministic for it")
    p.add_argument("--only", nargs="+", metavar="NAME",
                   help="fuzz only these messages (diskless:NAME for the diskless design's)")  # fmt: skip
    p.add_argument("--report", type=Path, help="write findings (other and slow) here as JSON lines")
    p.add_argument("--jobs", type=int, default=2, help="worker processes (default 2; 1 runs in-process)")
    p.add_argument("--vectors", type=Path, default=DEFAULT_VECTORS, help="golden vectors folder")
    p.add_argument("--timeout", type=float, default=5.0, help="seconds before a decode counts as a hang")
    p.add_argument("--mem-every", type=int, default=200, help="trace allocations of one input in N (0: never)")
    p.add_argument("--max-findings", type=int, default=1000, help="findings kept for the report")
    p.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    p.add_argument("--logs", action="store_true",
                   help="fuzz the record batch readers and dump-log instead of the message decoders")  # fmt: skip
    args = p.parse_args(argv)
    if args.logs and args.only:
        p.error("--only names messages: it does not go with --logs")
    if args.budget < 0 or args.jobs < 1:
        p.error("--budget must be >= 0 and --jobs >= 1")
    if args.only:
        unknown = sorted(set(args.only) - set(ALL_NAMES))
        if unknown:
            p.error(f"no such message: {', '.join(unknown)}")
    return args


def main(argv=None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    settings = Settings(args.timeout, args.mem_every, args.max_findings, args.logs)
    vectors = args.vectors if args.vectors and args.vectors.is_dir() else None
    started = time.perf_counter()
    previous_alarm = signal.getsignal(signal.SIGALRM) if hasattr(signal, "SIGALRM") else None
    # Build the corpus here too: it reports the seed counts, and forked workers inherit it.
    _init_worker(args.seed, args.only, vectors, settings)
    corpus = _STATE["corpus"]
    if not args.quiet:
        where = vectors if vectors else "no golden vectors found"
        print(
            f"fuzz: seed {args.seed}, budget {args.budget}, {args.jobs} job(s), {len(corpus.targets)} "
            f"(message, version) targets, {corpus.golden} golden + {corpus.generated} generated seeds "
            f"({where})",
            file=sys.stderr,
        )
    total = ChunkResult()
    kept = 0
    printed = 0
    report = args.report.open("w", encoding="utf-8") if args.report else None
    pool = None
    try:
        if report:
            header = {"tool": "tools/fuzz.py", "seed": args.seed, "budget": args.budget, "only": args.only,
                      "logs": args.logs}  # fmt: skip
            report.write(json.dumps(header) + "\n")
        if args.jobs == 1:
            results = map(run_chunk, chunks(args.budget))
        else:
            methods = multiprocessing.get_all_start_methods()
            ctx = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
            pool = ctx.Pool(args.jobs, _init_worker, (args.seed, args.only, vectors, settings))
            results = pool.imap(run_chunk, chunks(args.budget), chunksize=1)
        next_progress = max(args.budget // 10, 1)
        for res in results:
            total.inputs += res.inputs
            total.clean += res.clean
            total.decode_errors += res.decode_errors
            total.other += res.other
            total.slow += res.slow
            for k, n in res.kinds.items():
                total.kinds[k] = total.kinds.get(k, 0) + n
            for f in res.findings:
                if kept >= args.max_findings:
                    break
                kept += 1
                if report:
                    report.write(json.dumps(f) + "\n")
                if printed < PRINT_FIRST and f["kind"] not in NOTE_KINDS:
                    printed += 1
                    print(f"--- {f['kind']}: {f['message']} v{f['version']} (seed v{f['seed_version']}, {' '.join(f['mutations'])})")
                    print(f"    input: {f['hex'][:400]}{'...' if len(f['hex']) > 400 else ''}")
                    print(f"    {f['error']}")
                    if f.get("traceback"):
                        print("    " + f["traceback"].rstrip().replace("\n", "\n    "))
            if not args.quiet and total.inputs >= next_progress and total.inputs < args.budget:
                rate = total.inputs / (time.perf_counter() - started)
                print(f"fuzz: {total.inputs} inputs, {total.other} other, {rate:.0f}/s", file=sys.stderr)
                next_progress += max(args.budget // 10, 1)
        if pool is not None:
            pool.close()
            pool.join()
            pool = None
    finally:
        if pool is not None:
            pool.terminate()
        if previous_alarm is not None:
            try:
                signal.signal(signal.SIGALRM, previous_alarm)
            except ValueError:
                pass
        if report:
            summary = {
                "inputs": total.inputs,
                "clean": total.clean,
                "decode_error": total.decode_errors,
                "other": total.other,
                "slow": total.slow,
                "kinds": total.kinds,
                "seconds": round(time.perf_counter() - started, 1),
            }
            report.write(json.dumps({"summary": summary}) + "\n")
            report.close()
    if not args.quiet:
        elapsed = time.perf_counter() - started
        kinds = ", ".join(f"{k} {n}" for k, n in sorted(total.kinds.items())) or "no findings"
        print(f"fuzz: {elapsed:.1f} s ({total.inputs / max(elapsed, 1e-9):.0f} inputs/s); {kinds}", file=sys.stderr)
    print(
        f"{total.inputs} inputs, {total.clean} clean, {total.decode_errors} DecodeError, "
        f"{total.other} other, {total.slow} slow"
    )
    sys.stdout.flush()
    return 1 if total.other else 0


if __name__ == "__main__":
    sys.exit(main())
