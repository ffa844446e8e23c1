"""Issue 15: hostile log files that once exhausted a machine, built here (no large blobs).

- many concatenated gzip members / LZ4 skippable frames / LZ4 frames / zstd frames: decompression
  work is linear in the payload, counted in calls and in bytes handed to the decompressor (once
  quadratic: 4 MiB of empty gzip members took 8.3 s);
- a small compressed batch expanding to tens of millions of minimal records: the list-returning
  readers refuse it (RecordLimitError) before decompressing, the streaming ones (records(),
  dump-log, the image, the pipeline's decode stage) read it one record at a time, decompressing a
  piece at a time: memory bounded by a piece and a record, not by the batch;
- each hostile shape (many gzip members, LZ4 frames and skippable frames, snappy chunks, zstd
  frames, 160 MiB of 32 KiB records) through every streaming reader, under resource limits;
- a record header key that is not UTF-8: dump-log shows it as Kafka's tool does (U+FFFD).

Bounds checked, by running the reader in a subprocess under ``resource`` limits: address space at
most the interpreter's baseline + 256 MiB (512 MiB for the list readers' refusals), peak RSS as
each test says. No test here asserts a time: bench/hostile_batches.py measures speed.
"""

from __future__ import annotations

import gzip
import struct
import zlib
from pathlib import Path

import lz4.frame
import pytest
import zstandard

from kafka_meta_proto.log.compression import CompressionType, decompress
from work_count import calls_made, raised_after

MIB = 1 << 20


def many_gzip_members(size: int) -> bytes:
    member = gzip.compress(b"", mtime=0)
    return member * (size // len(member))


def many_lz4_skippable_frames(size: int) -> bytes:
    empty = lz4.frame.compress(b"", block_size=lz4.frame.BLOCKSIZE_MAX64KB, content_checksum=False)
    return struct.pack("<II", 0x184D2A50, 0) * (size // 8) + empty


def many_lz4_frames(size: int) -> bytes:
    frame = lz4.frame.compress(b"x", content_checksum=True)
    return frame * (size // len(frame))


def many_zstd_frames(size: int) -> bytes:
    frame = zstandard.ZstdCompressor().compress(b"")
    return frame * (size // len(frame))


# each builder's repeated unit, in bytes
MEMBER_SIZE = {
    many_gzip_members: len(gzip.compress(b"", mtime=0)),
    many_lz4_skippable_frames: 8,
    many_lz4_frames: len(lz4.frame.compress(b"x", content_checksum=True)),
    many_zstd_frames: len(zstandard.ZstdCompressor().compress(b"")),
}


@pytest.mark.parametrize(
    "codec, build",
    [
        (CompressionType.GZIP, many_gzip_members),
        (CompressionType.LZ4, many_lz4_skippable_frames),
        (CompressionType.LZ4, many_lz4_frames),
        (CompressionType.ZSTD, many_zstd_frames),
    ],
    ids=["gzip-members", "lz4-skippable", "lz4-frames", "zstd-frames"],
)
def test_many_members_or_frames_decompress_with_linear_work(codec, build):
    # Quadratic walking showed as 16x the time for 4x the input. Counted in calls (Python and C):
    # linear work makes about 4x the calls for 4x the input, and a bounded number per member.
    small, large = build(MIB // 4), build(MIB)
    _, small_calls = calls_made(decompress, codec, small)
    out, large_calls = calls_made(decompress, codec, large)
    frame = lz4.frame.compress(b"x", content_checksum=True)
    assert len(out) == (len(large) // len(frame) if build is many_lz4_frames else 0)
    assert large_calls < 5 * small_calls, (small_calls, large_calls)
    members = len(large) // MEMBER_SIZE[build]
    assert large_calls < 20 * members + 1000, (large_calls, "calls for", members, "members")


class _CountingZlib:
    """zlib for the decompressors, counting the input bytes handed to inflate: a walk that hands
    each member the rest of the payload (once the cause of 8.3 s for 4 MiB) counts far more bytes
    than the payload holds, though it makes no more calls."""

    def __init__(self):
        self.fed = 0

    def decompressobj(self, *args):
        inflate = zlib.decompressobj(*args)
        counter = self

        class Counted:
            def decompress(self, data, *rest):
                counter.fed += len(data)
                return inflate.decompress(data, *rest)

            def __getattr__(self, name):
                return getattr(inflate, name)

        return Counted()


def test_gzip_members_are_each_handed_only_their_own_bytes(monkeypatch):
    from kafka_meta_proto.log import decompressors

    counting = _CountingZlib()
    monkeypatch.setattr(decompressors, "zlib", counting)
    payload = many_gzip_members(MIB)
    assert decompress(CompressionType.GZIP, payload) == b""
    # at most the payload plus a first small window per member (the linear walk's overlap)
    members = len(payload) // MEMBER_SIZE[many_gzip_members]
    bound = len(payload) + members * decompressors._FIRST_STEP
    assert counting.fed <= bound, (counting.fed, "bytes fed for", len(payload))


def test_an_empty_zstd_frame_does_not_hide_the_frames_after_it():
    c = zstandard.ZstdCompressor()
    assert decompress(CompressionType.ZSTD, c.compress(b"") + c.compress(b"def")) == b"def"


def test_gzip_members_split_anywhere_still_read():
    payload = b"".join(gzip.compress(bytes([i]) * (i * 1000), mtime=0) for i in range(1, 40))
    assert decompress(CompressionType.GZIP, payload) == b"".join(
        bytes([i]) * (i * 1000) for i in range(1, 40)
    )


def test_gzip_members_past_the_limit_are_refused():
    from kafka_meta_proto.log.errors import CompressionError

    payload = gzip.compress(b"a" * 1000, mtime=0) * 20
    with pytest.raises(CompressionError, match="limit"):
        decompress(CompressionType.GZIP, payload, max_size=5000)
    assert decompress(CompressionType.GZIP, payload, max_size=20000) == b"a" * 20000


# --- records per byte ---------------------------------------------------------------------

MINIMAL_RECORD = b"\x0c\x00\x00\x00\x01\x01\x00"  # length 6, attrs, ts 0, offset 0, null key/value


def hostile_batch(count: int, codec=CompressionType.ZSTD, header_count: int | None = None,
                  record: bytes = MINIMAL_RECORD) -> bytes:  # fmt: skip
    """A batch whose compressed records section holds ``count`` copies of ``record``."""
    from kafka_meta_proto.log.compression import compress
    from kafka_meta_proto.log.header import MIN_BATCH_LENGTH, pack_header, seal

    if codec == CompressionType.ZSTD and count * len(record) > 8 * MIB:
        # Compressed in pieces: the records section itself need not be held.
        c = zstandard.ZstdCompressor().compressobj()
        chunk = record * (MIB // len(record))
        parts = [c.compress(chunk) for _ in range(count // (MIB // len(record)))]
        parts.append(c.compress(record * (count % (MIB // len(record)))))
        parts.append(c.flush())
        payload = b"".join(parts)
    else:
        payload = compress(codec, record * count)
    n = count if header_count is None else header_count
    header = pack_header(0, MIN_BATCH_LENGTH + len(payload), 0, int(codec), max(n - 1, 0),
                         0, 0, -1, -1, -1, n)  # fmt: skip
    return seal(header, payload)


def test_list_readers_refuse_a_batch_over_the_record_limit_before_decompressing():
    from kafka_meta_proto.log import MAX_RECORDS_PER_BATCH, RecordLimitError, decode_batch

    data = hostile_batch(MAX_RECORDS_PER_BATCH + 1)
    with pytest.raises(RecordLimitError, match="records count 1000001 .* base offset 0") as info:
        calls_made(decode_batch, data)
    assert info.value.position == 0
    # refused from the header: a handful of calls, no decompressor's (the section is never read)
    error, calls = raised_after(decode_batch, data)
    assert isinstance(error, RecordLimitError) and calls < 200, calls
    batch, _ = decode_batch(data, max_records=MAX_RECORDS_PER_BATCH + 1)
    assert len(batch.records) == MAX_RECORDS_PER_BATCH + 1


@pytest.mark.parametrize("header_count, match", [(999, "left over"), (1001, "cannot fit|runs past")])
def test_more_or_fewer_records_than_the_count_is_a_record_count_error(header_count, match):
    from kafka_meta_proto.log import BufferSource, RecordCountError, decode_batch
    from kafka_meta_proto.log.scanning import scan

    data = hostile_batch(1000, header_count=header_count)
    with pytest.raises(RecordCountError, match=match) as info:
        decode_batch(data)
    assert info.value.position == 0
    (view,) = scan(BufferSource(data))
    with pytest.raises(RecordCountError, match=match):
        for _ in view.records():
            pass


def test_streaming_reads_a_batch_over_the_limit_one_record_at_a_time():
    from kafka_meta_proto.log import MAX_RECORDS_PER_BATCH, BufferSource
    from kafka_meta_proto.log.scanning import scan

    (view,) = scan(BufferSource(hostile_batch(MAX_RECORDS_PER_BATCH + 5)))
    assert sum(1 for _ in view.records()) == MAX_RECORDS_PER_BATCH + 5


# --- under resource limits, in a subprocess --------------------------------------------------

RUNNER = r"""
import resource, sys
sys.path[:0] = {paths!r}
import kafka_meta_proto.tools.dump, kafka_meta_proto.log.segment, kafka_meta_proto.kraft.image
{prelude}
def status(name):
    for line in open("/proc/self/status"):
        if line.startswith(name + ":"):
            return int(line.split()[1]) * 1024
base_vm, base_rss = status("VmSize"), status("VmRSS")
resource.setrlimit(resource.RLIMIT_AS, (base_vm + {extra}, base_vm + {extra}))
try:
{body}
    outcome = "ok " + repr(result)
except MemoryError:
    outcome = "MemoryError"
except Exception as exc:
    outcome = type(exc).__name__ + " " + str(exc)[:200]
peak = status("VmHWM") - base_rss
print(outcome)
print(peak // (1 << 20))
"""


def run_limited(tmp_path, body: str, extra_mib: int = 512, timeout: float = 600,
                prelude: str = "") -> tuple[str, int]:  # fmt: skip
    """Run ``body`` (setting ``result``) with the address space capped at the interpreter's
    baseline + ``extra_mib``: ``(outcome, peak RSS MiB above the baseline)``. ``prelude`` runs
    before the baseline is taken (imports). ``timeout`` only stops a hang; speed is bench/'s."""
    import subprocess
    import sys
    import textwrap

    import kafka_meta_proto

    paths = [str(Path(kafka_meta_proto.__file__).parents[1])]
    script = RUNNER.format(paths=paths, extra=extra_mib << 20, body=textwrap.indent(body, "    "),
                           prelude=prelude)  # fmt: skip
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=timeout, cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    outcome, peak = done.stdout.strip().splitlines()[-2:]
    return outcome, int(peak)


FULL = 38_000_000  # minimal records in ~254 MiB: the hostile batch, just under the limit
# The streaming readers' bounds (docs/log-format.md): peak RSS above the interpreter's baseline
# (the pipeline's: its Arrow buffers of up to 65,536 rows) with the address space capped at the
# baseline + LIMIT_MIB.
STREAM_PEAK_MIB = 64
PIPELINE_PEAK_MIB = 192
LIMIT_MIB = 256


def hang_guard(section: int, records: int) -> float:
    """Seconds after which a reader is taken to hang: ten times what a loaded machine needs."""
    return 60 + 10 * section / MIB + 400e-6 * records


@pytest.fixture(scope="module")
def full_hostile_log(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("hostile") / "00000000000000000000.log"
    path.write_bytes(hostile_batch(FULL))
    return path


@pytest.mark.parametrize("reader", ["SegmentReader", "BatchReader", "decode_batch"])
def test_list_readers_refuse_the_full_hostile_batch_in_bounded_memory(tmp_path, full_hostile_log, reader):
    body = {
        "SegmentReader": "result = sum(1 for _ in kafka_meta_proto.log.segment.SegmentReader(PATH))",
        "BatchReader": "result = sum(1 for _ in kafka_meta_proto.log.segment.BatchReader(open(PATH, 'rb').read()))",
        "decode_batch": "from kafka_meta_proto.log import decode_batch\nresult = decode_batch(open(PATH, 'rb').read())",
    }[reader].replace("PATH", repr(str(full_hostile_log)))
    outcome, peak = run_limited(tmp_path, body)
    assert outcome.startswith("RecordLimitError"), outcome
    assert peak < 64


def test_image_streams_the_full_hostile_batch(tmp_path, full_hostile_log):
    # A strict image stops at the first record (a null value is no metadata record), having
    # decompressed one piece of the section, without building the records.
    body = f"""
from kafka_meta_proto.kraft.image import MetadataImage
result = MetadataImage().replay_segment({str(full_hostile_log)!r})
"""
    outcome, peak = run_limited(tmp_path, body, extra_mib=LIMIT_MIB)
    assert outcome.startswith("ReplayError"), outcome
    assert peak < STREAM_PEAK_MIB


def test_lenient_image_streams_a_batch_of_many_records(tmp_path):
    path = tmp_path / "00000000000000000000.log"
    path.write_bytes(hostile_batch(300_000))
    body = f"""
from kafka_meta_proto.kraft.image import MetadataImage
image = MetadataImage(strict=False).replay_segment({str(path)!r})
result = (len(image.problems), image.problems[-1])
"""
    outcome, peak = run_limited(tmp_path, body)
    assert outcome == "ok (1001, '... 299000 more problems not kept')", outcome
    assert peak < 64


DUMP = """
import io, os
from kafka_meta_proto.tools.dump import dump
err = io.StringIO()
out = open(os.devnull, "w", encoding="utf-8", errors="strict")
rc = dump([PATH], out, err, as_json=AS_JSON)
result = (rc, len(err.getvalue().splitlines()))
"""


@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
def test_dump_log_streams_a_batch_of_many_records(tmp_path, as_json):
    # 300,000 minimal records (2 MiB of records from a 1.4 KiB batch): over the all-records
    # limit's reach only when streamed; the memory must not follow the record count.
    path = tmp_path / "00000000000000000000.log"
    path.write_bytes(hostile_batch(300_000))
    body = DUMP.replace("PATH", repr(str(path))).replace("AS_JSON", repr(as_json))
    outcome, peak = run_limited(tmp_path, body)
    # status 1: every record's offset delta is 0 (non-consecutive) and its value null
    lines = 0 if as_json else 1 + 1000 + 1
    assert outcome == f"ok (1, {lines})", outcome
    assert peak < 64


@pytest.mark.slow
@pytest.mark.exhaustive
@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
def test_dump_log_streams_the_full_hostile_batch(tmp_path, full_hostile_log, as_json):
    body = DUMP.replace("PATH", repr(str(full_hostile_log))).replace("AS_JSON", repr(as_json))
    outcome, peak = run_limited(tmp_path, body, extra_mib=LIMIT_MIB,
                                 timeout=hang_guard(FULL * len(MINIMAL_RECORD), FULL))
    lines = 0 if as_json else 1 + 1000 + 1
    assert outcome == f"ok (1, {lines})", outcome
    assert peak < STREAM_PEAK_MIB  # a piece and a record, not the 255 MiB section


@pytest.mark.parametrize(
    "build", [many_gzip_members, many_lz4_skippable_frames], ids=["gzip-members", "lz4-skippable"]
)
def test_batch_of_many_empty_members_is_read_with_bounded_work(tmp_path, build):
    from kafka_meta_proto.log.header import MIN_BATCH_LENGTH, pack_header, seal
    from kafka_meta_proto.log.segment import SegmentReader

    codec = CompressionType.GZIP if build is many_gzip_members else CompressionType.LZ4

    def write(size: int) -> Path:
        payload = build(size)  # 4 MiB: 8.3 s (gzip) and 31 s (LZ4) before the fix
        header = pack_header(0, MIN_BATCH_LENGTH + len(payload), 0, int(codec), 0, 0, 0, -1, -1, -1, 0)
        path = tmp_path / f"{size}" / "00000000000000000000.log"
        path.parent.mkdir()
        path.write_bytes(seal(header, payload))
        return path

    def read(path: Path) -> list[int]:
        return [len(b.records) for _, b in SegmentReader(path)]

    small, large = write(MIB), write(4 * MIB)
    assert calls_made(read, small)[0] == [0]
    (_, small_calls), (_, large_calls) = calls_made(read, small), calls_made(read, large)
    assert large_calls < 5 * small_calls, (small_calls, large_calls)  # linear, not quadratic
    body = f"result = [len(b.records) for _, b in kafka_meta_proto.log.segment.SegmentReader({str(large)!r})]"
    outcome, peak = run_limited(tmp_path, body)
    assert outcome == "ok [0]", outcome
    assert peak < 64


def test_dump_log_shows_a_header_key_that_is_not_utf8_as_kafka_does(tmp_path):
    from kafka_meta_proto.log import RecordBatch
    from kafka_meta_proto.log.records import Record

    key = b"ok-\xff\xfe-\xc3\xa9".decode("utf-8", "surrogateescape")
    batch = RecordBatch.create([Record(value=b"\x00", headers=[(key, b"v"), ("plain", None)])])
    path = tmp_path / "00000000000000000000.log"
    path.write_bytes(batch.encode())
    import subprocess
    import sys

    import kafka_meta_proto

    env = {"PYTHONIOENCODING": "utf-8", "PYTHONPATH": str(Path(kafka_meta_proto.__file__).parents[1])}
    code = f"import sys; from kafka_meta_proto.tools.dump import dump; sys.exit(dump([{str(path)!r}]))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, env=env, timeout=60)
    assert b"Traceback" not in done.stderr, done.stderr
    assert "headerKeys: [ok-\ufffd\ufffd-\u00e9,plain]" in done.stdout.decode("utf-8")


# --- streaming readers on every hostile shape, under resource limits -------------------------
#
# Each shape is a batch built here whose compressed payload is small and whose records section
# is either many records in many members/frames/chunks, or far larger than the memory bound
# (160 MiB of 32 KiB records, 255 MiB of 7-byte records): a reader that held the section, or
# its records, would pass the bound (STREAM_PEAK_MIB and the others, above).

NOOP_RECORD = b"\x14\x00\x00\x00\x01\x08\x01\x14\x00\x00\x00"  # a NoOpRecord value, 11 bytes
BIG_VALUE = 32757  # the value length that makes a record exactly 32 KiB


def big_record() -> bytes:
    from kafka_meta_proto.log.records import Record, encode_records

    record = encode_records([Record(value=bytes(BIG_VALUE))])
    assert len(record) == 32 * 1024
    return record


def _xerial(blocks: list[bytes]) -> bytes:
    return b"\x82SNAPPY\x00" + struct.pack(">ii", 1, 1) + b"".join(
        struct.pack(">i", len(b)) + b for b in blocks
    )


def _kafka_lz4_frame(blocks: list[bytes]) -> bytes:
    """An LZ4 frame laid out as Kafka writes it (64 KiB independent blocks, no checksums)."""
    return b"\x04\x22\x4d\x18\x60\x40\x82" + b"".join(
        struct.pack("<I", len(b)) + b for b in blocks
    ) + b"\x00\x00\x00\x00"


def _streamed(compressobj, unit: bytes, times: int) -> bytes:
    parts = [compressobj.compress(unit) for _ in range(times)]
    parts.append(compressobj.flush())
    return b"".join(parts)


def shape(name: str) -> tuple[int, bytes, int, int]:
    """``(codec, payload, records, records section bytes)`` of a hostile shape."""
    import cramjam
    import lz4.block
    import zlib

    many = 100_000
    if name == "gzip-members":
        return CompressionType.GZIP, gzip.compress(NOOP_RECORD, mtime=0) * many, many, many * 11
    if name == "lz4-frames":
        frame = lz4.frame.compress(NOOP_RECORD, content_checksum=True, block_checksum=True)
        return CompressionType.LZ4, frame * many, many, many * 11
    if name == "lz4-skippable":
        frame = _kafka_lz4_frame([lz4.block.compress(NOOP_RECORD, store_size=False)])
        skippable = struct.pack("<II", 0x184D2A5F, 16) + bytes(16)
        return CompressionType.LZ4, (skippable * 4 + frame) * many, many, many * 11
    if name == "snappy-chunks":
        block = bytes(cramjam.snappy.compress_raw(NOOP_RECORD))
        return CompressionType.SNAPPY, _xerial([block] * many), many, many * 11
    if name == "zstd-frames":
        frame = zstandard.ZstdCompressor().compress(NOOP_RECORD)
        return CompressionType.ZSTD, frame * many, many, many * 11
    big = 5 * 1024  # 32 KiB records: 160 MiB of records section
    if name == "big-gzip":
        c = zlib.compressobj(6, zlib.DEFLATED, 31)
        return CompressionType.GZIP, _streamed(c, big_record(), big), big, big << 15
    if name == "big-snappy":
        block = bytes(cramjam.snappy.compress_raw(big_record()))
        return CompressionType.SNAPPY, _xerial([block] * big), big, big << 15
    if name == "big-lz4":
        block = lz4.block.compress(big_record() * 2, store_size=False)
        return CompressionType.LZ4, _kafka_lz4_frame([block] * (big // 2)), big, big << 15
    if name == "big-zstd":
        c = zstandard.ZstdCompressor().compressobj()
        return CompressionType.ZSTD, _streamed(c, big_record(), big), big, big << 15
    codec = {"zstd-38M": CompressionType.ZSTD, "gzip-38M": CompressionType.GZIP}[name]
    return codec, None, FULL, FULL * len(MINIMAL_RECORD)


def write_shape(directory: Path, name: str) -> tuple[Path, int, int]:
    """The shape as a one-batch segment file: ``(path, records, records section bytes)``."""
    codec, payload, count, section = shape(name)
    path = directory / "00000000000000000000.log"
    if payload is None:  # the 38M-record shapes
        if codec == CompressionType.GZIP:
            import zlib

            unit = MINIMAL_RECORD * (MIB // len(MINIMAL_RECORD))
            c = zlib.compressobj(6, zlib.DEFLATED, 31)
            payload = _streamed(c, unit, count // (MIB // len(MINIMAL_RECORD)))
            rest = count % (MIB // len(MINIMAL_RECORD))
            c = zlib.compressobj(6, zlib.DEFLATED, 31)
            payload += _streamed(c, MINIMAL_RECORD, rest)  # a second member
            path.write_bytes(_sealed(codec, payload, count))
        else:
            path.write_bytes(hostile_batch(count))
        return path, count, section
    path.write_bytes(_sealed(codec, payload, count))
    return path, count, section


def _sealed(codec, payload: bytes, count: int) -> bytes:
    from kafka_meta_proto.log.header import MIN_BATCH_LENGTH, pack_header, seal

    header = pack_header(0, MIN_BATCH_LENGTH + len(payload), 0, int(codec), count - 1, 0, 0,
                         -1, -1, -1, count)  # fmt: skip
    return seal(header, payload)


READERS = {
    # the records, streamed (what the image and the shell replay use)
    "records": """
from kafka_meta_proto.log.scanning import scan
from kafka_meta_proto.log.source import MappedFile
with MappedFile(PATH) as source:
    result = sum(sum(1 for _ in view.records()) for view in scan(source))
""",
    # the pipeline's decode stage: RECORD rows + undecodable-record ISSUE rows
    "pipeline": """
from kafka_meta_proto.pipeline.decode import decode_unit, RECORD, ISSUE
import os
size = os.path.getsize(PATH)
unit = dict(cluster="c", file="f", kind="log", uri=PATH, start=0, end=size)
result = 0
for batch in decode_unit(unit):
    kind = batch.column("kind")[0].as_py()
    if kind == RECORD:
        result += batch.num_rows
    elif kind == ISSUE:
        result += sum(1 for i in batch.column("issue").to_pylist() if i == "undecodable record")
""",
}
READERS["dump-text"] = """
import os
from kafka_meta_proto.tools.dump import dump_file
out = open(os.devnull, "w", encoding="utf-8", errors="strict")
result = dump_file(PATH, out).records
"""
READERS["dump-json"] = """
import io, os, json
from kafka_meta_proto.tools.dump import dump
class Count(io.TextIOBase):
    lines = 0
    def write(self, text):
        self.lines += text.count("\\n")
        return len(text)
out = Count()
dump([PATH], out, io.StringIO(), as_json=True)
result = out.lines
"""

WARM_ARROW = """
import kafka_meta_proto.pipeline.decode, pyarrow
pyarrow.array(["x" * 44000] * 200, pyarrow.string())
"""
FAST = ["gzip-members", "big-zstd"]
SHAPES = ["gzip-members", "lz4-frames", "lz4-skippable", "snappy-chunks", "zstd-frames",
          "big-gzip", "big-snappy", "big-lz4", "big-zstd", "zstd-38M", "gzip-38M"]  # fmt: skip


def _cases():
    for name in SHAPES:
        for reader in READERS:
            if name.endswith("38M") and (reader.startswith("dump") or reader == "pipeline" and name != "zstd-38M"):
                continue  # dump-log on the 38M-record batch: test_dump_log_streams_the_full_hostile_batch
            fast = name in FAST and reader in ("records", "dump-text")
            marks = () if fast else (pytest.mark.slow, pytest.mark.exhaustive)  # minutes each
            yield pytest.param(name, reader, id=f"{name}-{reader}", marks=marks)


@pytest.mark.parametrize("name, reader", list(_cases()))
def test_streaming_readers_hold_memory_bounded_by_a_record(tmp_path, name, reader):
    path, count, section = write_shape(tmp_path, name)
    body = READERS[reader].replace("PATH", repr(str(path)))
    # (pyarrow reserves its arenas when imported and on its first strings: before the baseline)
    prelude = WARM_ARROW if reader == "pipeline" else ""
    outcome, peak = run_limited(tmp_path, body, extra_mib=LIMIT_MIB, timeout=hang_guard(section, count),
                                         prelude=prelude)  # fmt: skip
    assert outcome == f"ok {count}", outcome  # (dump --json: one line per record)
    bound = PIPELINE_PEAK_MIB if reader == "pipeline" else STREAM_PEAK_MIB
    assert peak < (LIMIT_MIB if name.endswith("38M") else bound), (peak, "MiB above the baseline")
