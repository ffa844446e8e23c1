"""Time the candidate libraries for each Kafka compression codec.

Every candidate produces (or reads) the framing Kafka uses inside a record batch:
gzip stream, xerial-framed snappy, LZ4 frame with independent 64 KiB blocks and
no checksums, zstd frame. The payload is the records section of real KRaft
batches (the uncompressed bytes a producer would compress), repeated to size.

    .venv/bin/python bench/compression_codecs.py [--quick] [--rounds N]

Prints one table: MB/s of uncompressed data for compress and decompress, and the
compressed size as a ratio of the input. Times are process CPU time, best of
interleaved rounds, so other load on the machine skews them little. Rows marked
"bounded" cap the output size as the library's reader must; the
"-> kafka_meta_proto" rows are the library's own compress() / decompress().
"""

from __future__ import annotations

import argparse
import gzip
import struct
import sys
import time
import zlib
from pathlib import Path

import cramjam
import lz4.block
import lz4.frame
import snappy  # python-snappy
import zstandard

REFERENCE = Path(__file__).resolve().parents[1].parent / "shared" / "kafka-reference"

# --- framings built around a block codec -------------------------------------------------

_XERIAL_HEADER = b"\x82SNAPPY\x00" + struct.pack(">ii", 1, 1)
_XERIAL_BLOCK = 32 * 1024
_LZ4_HEADER = b"\x04\x22\x4d\x18\x60\x40\x82"  # magic, FLG, BD (64 KiB), header checksum
_LZ4_BLOCK = 64 * 1024
_U32LE = struct.Struct("<I")
_I32BE = struct.Struct(">i")


def xerial_compress(data: bytes, raw_compress) -> bytes:
    out = [_XERIAL_HEADER]
    for start in range(0, len(data), _XERIAL_BLOCK):
        block = raw_compress(data[start : start + _XERIAL_BLOCK])
        out.append(_I32BE.pack(len(block)))
        out.append(block)
    return b"".join(out)


def xerial_decompress(data: bytes, raw_decompress) -> bytes:
    pos, end, out = 16, len(data), []
    while pos < end:
        (size,) = _I32BE.unpack_from(data, pos)
        pos += 4
        out.append(raw_decompress(data[pos : pos + size]))
        pos += size
    return b"".join(out)


def lz4_frame_compress(data: bytes, block_compress) -> bytes:
    out = [_LZ4_HEADER]
    for start in range(0, len(data), _LZ4_BLOCK):
        chunk = data[start : start + _LZ4_BLOCK]
        block = block_compress(chunk)
        if len(block) >= len(chunk):
            out.append(_U32LE.pack(len(chunk) | 0x80000000))
            out.append(chunk)
        else:
            out.append(_U32LE.pack(len(block)))
            out.append(block)
    out.append(b"\x00\x00\x00\x00")
    return b"".join(out)


def lz4_frame_decompress(data: bytes, block_decompress) -> bytes:
    # Only the framing written above (FLG 0x60, no content size, no checksums).
    pos, out = 7, []
    while True:
        (word,) = _U32LE.unpack_from(data, pos)
        pos += 4
        if word == 0:
            return b"".join(out)
        size = word & 0x7FFFFFFF
        block = data[pos : pos + size]
        out.append(block if word & 0x80000000 else block_decompress(block))
        pos += size


def _zlib_gzip_compress(data: bytes) -> bytes:
    c = zlib.compressobj(6, zlib.DEFLATED, 31)
    return c.compress(data) + c.flush()


_LZ4_SCRATCH = bytearray(_LZ4_BLOCK)


def _cramjam_lz4_block_decompress(block: bytes) -> bytes:
    # decompress_block(output_len=) returns the whole output_len buffer, so decode into
    # a scratch buffer and copy out the part actually written.
    n = cramjam.lz4.decompress_block_into(block, _LZ4_SCRATCH)
    return bytes(_LZ4_SCRATCH[:n])


_ZSTD_C = zstandard.ZstdCompressor(level=3)
_ZSTD_D = zstandard.ZstdDecompressor()


def _zlib_gunzip_bounded(data: bytes, limit: int = 1 << 28) -> bytes:
    return zlib.decompressobj(31).decompress(data, limit + 1)


def _lz4_frame_bounded(data: bytes, limit: int = 1 << 28) -> bytes:
    return lz4.frame.LZ4FrameDecompressor().decompress(data, max_length=limit + 1)


def _zstd_fed_1k(data: bytes) -> bytes:
    d = _ZSTD_D.decompressobj()
    view = memoryview(data)
    return b"".join(d.decompress(view[i : i + 1024]) for i in range(0, len(view), 1024))


# (codec, library, compress, decompress); compress at Kafka's default level; None = not timed.
# "bounded" rows cap the output size, which the library's reader must do (see compression.py).
CANDIDATES = [
    ("gzip", "zlib (stdlib)", _zlib_gzip_compress, lambda d: zlib.decompressobj(31).decompress(d)),
    ("gzip", "zlib, bounded", None, _zlib_gunzip_bounded),
    ("gzip", "gzip (stdlib)", lambda d: gzip.compress(d, 6, mtime=0), gzip.decompress),
    (
        "gzip",
        "cramjam.gzip",
        lambda d: bytes(cramjam.gzip.compress(d, level=6)),
        lambda d: bytes(cramjam.gzip.decompress(d)),
    ),
    (
        "snappy",
        "cramjam.snappy (raw blocks)",
        lambda d: xerial_compress(d, lambda b: bytes(cramjam.snappy.compress_raw(b))),
        lambda d: xerial_decompress(d, lambda b: bytes(cramjam.snappy.decompress_raw(b))),
    ),
    (
        "snappy",
        "python-snappy",
        lambda d: xerial_compress(d, snappy.compress),
        lambda d: xerial_decompress(d, snappy.uncompress),
    ),
    (
        "lz4",
        "lz4.frame",
        lambda d: lz4.frame.compress(
            d, block_size=lz4.frame.BLOCKSIZE_MAX64KB, block_linked=False, store_size=False
        ),
        lz4.frame.decompress,
    ),
    ("lz4", "lz4.frame, bounded", None, _lz4_frame_bounded),
    (
        "lz4",
        "lz4.block + own framing",
        lambda d: lz4_frame_compress(d, lambda b: lz4.block.compress(b, store_size=False)),
        lambda d: lz4_frame_decompress(
            d, lambda b: lz4.block.decompress(b, uncompressed_size=_LZ4_BLOCK)
        ),
    ),
    (
        "lz4",
        "cramjam.lz4 (frame read)",
        lambda d: lz4_frame_compress(
            d, lambda b: bytes(cramjam.lz4.compress_block(b, store_size=False))
        ),
        lambda d: bytes(cramjam.lz4.decompress(d)),
    ),
    (
        "lz4",
        "cramjam.lz4 block + framing",
        None,
        lambda d: lz4_frame_decompress(d, _cramjam_lz4_block_decompress),
    ),
    (
        "zstd",
        "cramjam.zstd",
        lambda d: bytes(cramjam.zstd.compress(d, level=3)),
        lambda d: bytes(cramjam.zstd.decompress(d)),
    ),
    ("zstd", "zstandard", _ZSTD_C.compress, _ZSTD_D.decompress),
    ("zstd", "zstandard, bounded (1 KiB feed)", None, _zstd_fed_1k),
    (
        "zstd",
        "zstandard stream_reader",
        None,
        lambda d: _ZSTD_D.stream_reader(d, read_across_frames=True).read(),
    ),
]


def _library_rows():
    """The codecs as kafka_meta_proto.log.compression implements them (after the choice)."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "src"))
    from kafka_meta_proto.log import compression as c

    for codec in (
        c.CompressionType.GZIP,
        c.CompressionType.SNAPPY,
        c.CompressionType.LZ4,
        c.CompressionType.ZSTD,
    ):
        name = codec.name.lower()
        yield (
            name,
            "-> kafka_meta_proto",
            lambda d, codec=codec: c.compress(codec, d),
            lambda d, codec=codec: c.decompress(codec, d),
        )


def payload(size: int) -> bytes:
    """Records sections of real KRaft batches, concatenated and repeated up to `size`."""
    sections = []
    logs = sorted(REFERENCE.glob("real/kraft-logs/**/*.log"), key=lambda p: -p.stat().st_size)
    if logs:
        from kafka_meta_proto.log import BufferSource, scan
        from kafka_meta_proto.log.header import HEADER_SIZE

        for item in scan(BufferSource(logs[0].read_bytes())):
            if getattr(item, "data", None) is not None:
                sections.append(item.data[HEADER_SIZE:])
    blob = b"".join(sections) or bytes(range(256)) * 64  # synthetic only without the reference
    return (blob * (size // len(blob) + 1))[:size]


def calibrate(fn, arg, target: float) -> int:
    """Loop count that makes one timed run of ``fn(arg)`` take about ``target`` seconds."""
    number = 1
    while True:
        start = time.process_time()
        for _ in range(number):
            fn(arg)
        if time.process_time() - start >= target or number >= 1 << 20:
            return number
        number *= 2


def timed(fn, arg, number: int) -> float:
    start = time.process_time()
    for _ in range(number):
        fn(arg)
    return (time.process_time() - start) / number


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="shorter timing loops")
    parser.add_argument("--rounds", type=int, default=15, help="interleaved timing rounds")
    args = parser.parse_args(argv)
    budget = 0.1 if args.quick else 0.3
    print(
        f"python {sys.version.split()[0]}, cramjam {cramjam.__version__}, lz4 {lz4.__version__}, "
        f"zstandard {zstandard.__version__}, zlib {zlib.ZLIB_RUNTIME_VERSION}"
    )
    print(
        f"{'codec':7} {'size':>8} {'library':32} {'compress MB/s':>14}"
        f" {'decompress MB/s':>16} {'ratio':>6}"
    )
    rows = CANDIDATES + list(_library_rows())
    rows.sort(key=lambda row: ["gzip", "snappy", "lz4", "zstd"].index(row[0]))
    for size in (16 * 1024, 256 * 1024):
        data = payload(size)
        jobs = []  # (row index, "c" or "d", fn, arg, loop count)
        packed_sizes = {}
        for i, (codec, name, compress, decompress) in enumerate(rows):
            packed = (compress or _reference_compressor(rows, codec))(data)
            if decompress(packed) != data:
                raise SystemExit(f"{codec}/{name}: round trip failed")
            packed_sizes[i] = len(packed)
            if compress:
                jobs.append((i, "c", compress, data, calibrate(compress, data, budget / 10)))
            jobs.append((i, "d", decompress, packed, calibrate(decompress, packed, budget / 10)))
        # Rounds interleave all candidates, so a burst of load elsewhere hits them alike;
        # each keeps its best round.
        best = {}
        for _ in range(args.rounds):
            for i, op, fn, arg, number in jobs:
                seconds = timed(fn, arg, number)
                best[i, op] = min(best.get((i, op), seconds), seconds)
        for i, (codec, name, compress, _) in enumerate(rows):
            c_rate = f"{size / best[i, 'c'] / 1e6:14.0f}" if compress else f"{'-':>14}"
            d_rate = size / best[i, "d"] / 1e6
            label = f"{size // 1024} KiB"
            print(
                f"{codec:7} {label:>8} {name:32} {c_rate} {d_rate:16.0f}"
                f" {packed_sizes[i] / size:6.3f}"
            )
    return 0


def _reference_compressor(rows, codec: str):
    """For decompress-only rows: the first compressing candidate of the same codec."""
    return next(row[2] for row in rows if row[0] == codec and row[2] is not None)


if __name__ == "__main__":
    raise SystemExit(main())
