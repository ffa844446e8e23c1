"""Issue 15: hostile log files that once exhausted a machine, built here (no large blobs).

- many concatenated gzip members / LZ4 skippable frames / LZ4 frames / zstd frames: decompression
  time is linear in the payload (once quadratic: 4 MiB of empty gzip members took 8.3 s);
- a small compressed batch expanding to tens of millions of minimal records: the list-returning
  readers refuse it (RecordLimitError) before decompressing, the streaming ones (dump-log) read it
  one record at a time, in memory bounded by the decompression limit;
- a record header key that is not UTF-8: dump-log shows it as Kafka's tool does (U+FFFD).

Bounds checked, by running the reader in a subprocess under ``resource`` limits: address space at
most the interpreter's baseline + 512 MiB, and a wall-clock limit of a few seconds.
"""

from __future__ import annotations

import gzip
import struct
import time
from pathlib import Path

import lz4.frame
import pytest
import zstandard

from kafka_meta_proto.log.compression import CompressionType, decompress

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
def test_many_members_or_frames_decompress_in_linear_time(codec, build):
    # Quadratic walking showed as 16x the time for 4x the input; linear is ~4x. Time 1 MiB and
    # 4 MiB and require both under a second per MiB and a ratio far from 16.
    small, large = build(MIB // 4), build(MIB)
    times = []
    for payload in (small, large):
        start = time.perf_counter()
        out = decompress(codec, payload)
        times.append(time.perf_counter() - start)
    frame = lz4.frame.compress(b"x", content_checksum=True)
    assert len(out) == (len(large) // len(frame) if build is many_lz4_frames else 0)
    assert times[1] < 2.0
    assert times[1] < 10 * max(times[0], 0.005)


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
    start = time.perf_counter()
    with pytest.raises(RecordLimitError, match="records count 1000001 .* base offset 0") as info:
        decode_batch(data)
    assert info.value.position == 0
    assert time.perf_counter() - start < 0.1
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
import resource, sys, time
sys.path[:0] = {paths!r}
import kafka_meta_proto.dump, kafka_meta_proto.log.segment, kafka_meta_proto.image
def status(name):
    for line in open("/proc/self/status"):
        if line.startswith(name + ":"):
            return int(line.split()[1]) * 1024
base_vm, base_rss = status("VmSize"), status("VmRSS")
resource.setrlimit(resource.RLIMIT_AS, (base_vm + {extra}, base_vm + {extra}))
start = time.perf_counter()
try:
{body}
    outcome = "ok " + repr(result)
except MemoryError:
    outcome = "MemoryError"
except Exception as exc:
    outcome = type(exc).__name__ + " " + str(exc)[:200]
peak = status("VmHWM") - base_rss
print(outcome)
print(round(time.perf_counter() - start, 3), peak // (1 << 20))
"""


def run_limited(tmp_path, body: str, extra_mib: int = 512, timeout: float = 60) -> tuple[str, float, int]:
    """Run ``body`` (setting ``result``) with the address space capped at the interpreter's
    baseline + ``extra_mib``: ``(outcome, seconds, peak RSS MiB above the baseline)``."""
    import subprocess
    import sys
    import textwrap

    import kafka_meta_proto

    paths = [str(Path(kafka_meta_proto.__file__).parents[1])]
    script = RUNNER.format(paths=paths, extra=extra_mib << 20, body=textwrap.indent(body, "    "))
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=timeout, cwd=tmp_path)  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    outcome, figures = done.stdout.strip().splitlines()[-2:]
    seconds, peak = figures.split()
    return outcome, float(seconds), int(peak)


FULL = 38_000_000  # minimal records in ~254 MiB: the hostile batch, just under the limit


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
    outcome, seconds, peak = run_limited(tmp_path, body)
    assert outcome.startswith("RecordLimitError"), outcome
    assert seconds < 2 and peak < 64


def test_image_streams_the_full_hostile_batch(tmp_path, full_hostile_log):
    # A strict image stops at the first record (a null value is no metadata record), after
    # decompressing the section (< 256 MiB; the decompressor's pieces and their join make the
    # peak twice that), without building the records.
    body = f"""
from kafka_meta_proto.image import MetadataImage
result = MetadataImage().replay_segment({str(full_hostile_log)!r})
"""
    outcome, seconds, peak = run_limited(tmp_path, body, extra_mib=768)
    assert outcome.startswith("ReplayError"), outcome
    assert seconds < 5 and peak < 2 * 256 + 64


def test_lenient_image_streams_a_batch_of_many_records(tmp_path):
    path = tmp_path / "00000000000000000000.log"
    path.write_bytes(hostile_batch(300_000))
    body = f"""
from kafka_meta_proto.image import MetadataImage
image = MetadataImage(strict=False).replay_segment({str(path)!r})
result = (len(image.problems), image.problems[-1])
"""
    outcome, seconds, peak = run_limited(tmp_path, body)
    assert outcome == "ok (1001, '... 299000 more problems not kept')", outcome
    assert seconds < 10 and peak < 64


DUMP = """
import io, os
from kafka_meta_proto.dump import dump
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
    outcome, seconds, peak = run_limited(tmp_path, body)
    # status 1: every record's offset delta is 0 (non-consecutive) and its value null
    lines = 0 if as_json else 1 + 1000 + 1
    assert outcome == f"ok (1, {lines})", outcome
    assert peak < 64
    assert seconds < 10


@pytest.mark.slow
@pytest.mark.parametrize("as_json", [False, True], ids=["text", "json"])
def test_dump_log_streams_the_full_hostile_batch(tmp_path, full_hostile_log, as_json):
    body = DUMP.replace("PATH", repr(str(full_hostile_log))).replace("AS_JSON", repr(as_json))
    outcome, seconds, peak = run_limited(tmp_path, body, extra_mib=768, timeout=900)
    lines = 0 if as_json else 1 + 1000 + 1
    assert outcome == f"ok (1, {lines})", outcome
    assert peak < 2 * 256 + 64  # the decompressed section (< 256 MiB, twice while joined)
    assert seconds < 600


@pytest.mark.parametrize(
    "build", [many_gzip_members, many_lz4_skippable_frames], ids=["gzip-members", "lz4-skippable"]
)
def test_batch_of_many_empty_members_is_read_in_bounded_time(tmp_path, build):
    from kafka_meta_proto.log.header import MIN_BATCH_LENGTH, pack_header, seal

    codec = CompressionType.GZIP if build is many_gzip_members else CompressionType.LZ4
    payload = build(4 * MIB)  # 4 MiB: 8.3 s (gzip) and 31 s (LZ4) before the fix
    header = pack_header(0, MIN_BATCH_LENGTH + len(payload), 0, int(codec), 0, 0, 0, -1, -1, -1, 0)
    path = tmp_path / "00000000000000000000.log"
    path.write_bytes(seal(header, payload))
    body = f"result = [len(b.records) for _, b in kafka_meta_proto.log.segment.SegmentReader({str(path)!r})]"
    outcome, seconds, peak = run_limited(tmp_path, body)
    assert outcome == "ok [0]", outcome
    assert seconds < 4 and peak < 64


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
    code = f"import sys; from kafka_meta_proto.dump import dump; sys.exit(dump([{str(path)!r}]))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, env=env, timeout=60)
    assert b"Traceback" not in done.stderr, done.stderr
    assert "headerKeys: [ok-\ufffd\ufffd-\u00e9,plain]" in done.stdout.decode("utf-8")
