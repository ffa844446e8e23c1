"""Codecs: round trips, payloads framed the way Kafka frames them, malformed input, size limits."""

from __future__ import annotations

import os
import struct

import zlib

import cramjam
import lz4.block
import lz4.frame
import pytest
from work_count import peak_allocated
import zstandard

from kafka_meta_proto.errors import EncodeError
from kafka_meta_proto.log import (
    CompressionError,
    CompressionType,
    LogFormatError,
    compress,
    decompress,
)

CODECS = [c for c in CompressionType if c != CompressionType.NONE]


def _payloads():
    compressible = b"".join(b"record-%06d:" % i + b"metadata " * (i % 7) for i in range(8000))
    return {
        "empty": b"",
        "one byte": b"x",
        "small": b"hello kafka " * 10,
        "incompressible 100k": os.urandom(100_000),
        "compressible ~150k": compressible,
        "exactly one snappy block": compressible[: 32 * 1024],
        "one lz4 block and a byte": compressible[: 64 * 1024 + 1],
    }


@pytest.mark.parametrize("codec", list(CompressionType))
@pytest.mark.parametrize("name,data", list(_payloads().items()))
def test_round_trip(codec, name, data):
    packed = compress(codec, data)
    assert decompress(codec, packed) == data
    assert decompress(codec, bytearray(packed)) == data
    assert decompress(codec, memoryview(packed)) == data


# --- payloads built by hand, the way Kafka's Java classes frame them ----------------------

XERIAL_HEADER = b"\x82SNAPPY\x00" + b"\x00\x00\x00\x01" + b"\x00\x00\x00\x01"


def _raw_snappy_literal(data: bytes) -> bytes:
    """A raw snappy block holding ``data`` as one literal (len <= 256), per the format spec."""
    assert 0 < len(data) <= 256
    preamble = (
        bytes([len(data)]) if len(data) < 128 else bytes([len(data) & 0x7F | 0x80, len(data) >> 7])
    )
    tag = bytes([(len(data) - 1) << 2]) if len(data) <= 60 else bytes([60 << 2, len(data) - 1])
    return preamble + tag + data


def test_reads_xerial_framed_snappy_built_by_hand():
    blocks = [_raw_snappy_literal(b"first block "), _raw_snappy_literal(b"second " * 30)]
    payload = XERIAL_HEADER + b"".join(struct.pack(">i", len(b)) + b for b in blocks)
    assert decompress(CompressionType.SNAPPY, payload) == b"first block " + b"second " * 30


def test_reads_raw_snappy_like_snappy_java():
    """snappy-java's SnappyInputStream reads a payload without the magic as raw snappy."""
    assert decompress(CompressionType.SNAPPY, _raw_snappy_literal(b"plain")) == b"plain"
    data = b"a longer raw snappy payload " * 500
    assert decompress(CompressionType.SNAPPY, bytes(cramjam.snappy.compress_raw(data))) == data


def test_writes_xerial_framing_in_32k_blocks():
    data = os.urandom(70_000)
    packed = compress(CompressionType.SNAPPY, data)
    assert packed[:16] == XERIAL_HEADER
    pos, pieces = 16, []
    while pos < len(packed):
        (size,) = struct.unpack_from(">i", packed, pos)
        pieces.append(bytes(cramjam.snappy.decompress_raw(packed[pos + 4 : pos + 4 + size])))
        pos += 4 + size
    assert [len(p) for p in pieces] == [32768, 32768, 70_000 - 65536]
    assert b"".join(pieces) == data
    assert compress(CompressionType.SNAPPY, b"") == XERIAL_HEADER


def xxh32(data: bytes, seed: int = 0) -> int:
    """XXH32, written out from the specification (for LZ4 frame header checksums)."""
    p1, p2, p3, p4, p5, mask = 2654435761, 2246822519, 3266489917, 668265263, 374761393, 0xFFFFFFFF

    def rotl(x, r):
        return ((x << r) | (x >> (32 - r))) & mask

    n, i = len(data), 0
    if n >= 16:
        v = [(seed + p1 + p2) & mask, (seed + p2) & mask, seed, (seed - p1) & mask]
        while i + 16 <= n:
            for lane in range(4):
                (word,) = struct.unpack_from("<I", data, i + 4 * lane)
                v[lane] = rotl((v[lane] + word * p2) & mask, 13) * p1 & mask
            i += 16
        h = (rotl(v[0], 1) + rotl(v[1], 7) + rotl(v[2], 12) + rotl(v[3], 18)) & mask
    else:
        h = (seed + p5) & mask
    h = (h + n) & mask
    while i + 4 <= n:
        (word,) = struct.unpack_from("<I", data, i)
        h = rotl((h + word * p3) & mask, 17) * p4 & mask
        i += 4
    while i < n:
        h = rotl((h + data[i] * p5) & mask, 11) * p1 & mask
        i += 1
    h ^= h >> 15
    h = h * p2 & mask
    h ^= h >> 13
    h = h * p3 & mask
    return h ^ (h >> 16)


def _kafka_lz4_header() -> bytes:
    # Lz4BlockOutputStream: FLG = version 1 | independent blocks; BD = 64 KiB; then the
    # header checksum over FLG and BD only (magic v2; v0 wrongly included the magic too).
    descriptor = bytes([0x60, 0x40])
    return b"\x04\x22\x4d\x18" + descriptor + bytes([(xxh32(descriptor) >> 8) & 0xFF])


def test_xxh32_matches_the_specification_vectors():
    assert xxh32(b"") == 0x02CC5D05
    assert xxh32(b"a") == 0x550D7456
    assert xxh32(b"abc") == 0x32D153FF


def test_writes_kafkas_lz4_frame_header():
    assert _kafka_lz4_header() == bytes.fromhex("04224d18604082")
    packed = compress(CompressionType.LZ4, b"data " * 1000)
    assert packed.startswith(_kafka_lz4_header())
    assert packed.endswith(b"\x00\x00\x00\x00")  # end mark, no content checksum


def test_reads_lz4_frame_built_by_hand():
    compressible = b"compressible " * 2000
    block = lz4.block.compress(compressible, store_size=False)
    stored = b"stored as is"
    payload = (
        _kafka_lz4_header()
        + struct.pack("<I", len(block))
        + block
        + struct.pack("<I", len(stored) | 0x80000000)  # high bit: block kept uncompressed
        + stored
        + b"\x00\x00\x00\x00"
    )
    assert decompress(CompressionType.LZ4, payload) == compressible + stored
    # The wrong, magic-v0 style header checksum is refused for v2 batches, as Kafka does.
    broken = bytearray(payload)
    broken[6] = (xxh32(bytes(payload[:6])) >> 8) & 0xFF
    assert broken[6] != payload[6]
    with pytest.raises(CompressionError):
        decompress(CompressionType.LZ4, bytes(broken))


@pytest.mark.parametrize(
    "options",
    [
        dict(block_checksum=True, content_checksum=True),
        dict(store_size=True),
        dict(block_size=lz4.frame.BLOCKSIZE_MAX4MB),
    ],
    ids=["checksums", "content size", "4 MiB blocks"],
)
def test_reads_other_valid_lz4_frames(options):
    data = os.urandom(1000) + b"z" * 200_000
    packed = lz4.frame.compress(data, block_linked=False, **options)
    assert decompress(CompressionType.LZ4, packed) == data
    assert decompress(CompressionType.LZ4, packed + packed) == data + data


def test_reads_gzip_the_way_java_writes_it():
    data = b"java.util.zip.GZIPOutputStream " * 300
    deflater = zlib.compressobj(6, zlib.DEFLATED, -15)
    body = deflater.compress(data) + deflater.flush()
    header = bytes([0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 0])  # no name, no mtime, as Java writes
    trailer = struct.pack("<II", zlib.crc32(data), len(data))
    payload = header + body + trailer
    assert decompress(CompressionType.GZIP, payload) == data
    # GZIPInputStream also reads concatenated members.
    assert decompress(CompressionType.GZIP, payload + payload) == data + data


def test_reads_zstd_streaming_frames_and_concatenated_frames():
    data = b"zstd-jni streams without a content size " * 400
    streamed = zstandard.ZstdCompressor(level=3, write_content_size=False, write_checksum=True)
    frame = streamed.compress(data)
    assert zstandard.get_frame_parameters(frame).content_size == zstandard.CONTENTSIZE_UNKNOWN
    assert decompress(CompressionType.ZSTD, frame) == data
    assert (
        decompress(CompressionType.ZSTD, frame + compress(CompressionType.ZSTD, b"more"))
        == data + b"more"
    )
    sized = compress(CompressionType.ZSTD, data)  # states its content size: the one-call path
    assert zstandard.get_frame_parameters(sized).content_size == len(data)
    assert decompress(CompressionType.ZSTD, sized + sized) == data + data
    with pytest.raises(CompressionError):
        decompress(CompressionType.ZSTD, sized + b"\x00")


# --- malformed input ---------------------------------------------------------------------


@pytest.mark.parametrize("codec", CODECS)
def test_malformed_payloads_raise_compression_error(codec):
    packed = compress(codec, b"some records, compressed " * 2000)
    bad_inputs = {
        "empty": b"",
        "zeros": b"\x00" * 64,
        "noise": bytes(range(256)) * 4,
        "cut in half": packed[: len(packed) // 2],
        "last byte missing": packed[:-1],
        "junk after": packed + b"junk",
        "body flipped": packed[:20] + bytes(b ^ 0x5A for b in packed[20:40]) + packed[40:],
    }
    for name, bad in bad_inputs.items():
        if codec == CompressionType.SNAPPY and name == "body flipped":
            continue  # raw snappy has no checksum: flipped literals decode to other bytes
        with pytest.raises(CompressionError):
            decompress(codec, bad)
            pytest.fail(f"{name} accepted")


@pytest.mark.parametrize("codec", [5, 6, 7])
def test_unknown_codec(codec):
    with pytest.raises(LogFormatError, match="unknown compression type"):
        decompress(codec, b"x")
    with pytest.raises(EncodeError, match="unknown compression type"):
        compress(codec, b"x")


def test_xerial_block_length_past_the_end():
    payload = XERIAL_HEADER + struct.pack(">i", 1 << 30) + b"\x00" * 10
    with pytest.raises(CompressionError, match="exceeds"):
        decompress(CompressionType.SNAPPY, payload)
    with pytest.raises(CompressionError, match="block length"):
        decompress(CompressionType.SNAPPY, XERIAL_HEADER + b"\x00\x00")


# --- expansion limits --------------------------------------------------------------------


@pytest.mark.parametrize("codec", CODECS)
def test_expansion_past_the_limit_is_refused_promptly(codec):
    bomb = compress(codec, b"\x00" * (16 << 20))
    # refused once the limit is passed, not after inflating all 16 MiB: memory follows the limit
    refused, peak = peak_allocated(decompress, codec, bomb, 1 << 20)
    assert isinstance(refused, CompressionError) and "limit" in str(refused), refused
    assert peak < 4 << 20, (peak, "bytes held at once")
    assert len(decompress(codec, compress(codec, b"y" * 5000), max_size=5000)) == 5000
    with pytest.raises(CompressionError, match="limit"):
        decompress(codec, compress(codec, b"y" * 5000), max_size=4999)


def test_raw_snappy_declaring_a_huge_length_is_refused_before_decoding():
    payload = b"\xff\xff\xff\xff\x0f" + b"\x00" * 8  # claims 4 GiB
    with pytest.raises(CompressionError, match="limit"):
        decompress(CompressionType.SNAPPY, payload)


def test_lz4_frame_declaring_a_huge_content_size_is_refused():
    descriptor = bytes([0x68, 0x40]) + struct.pack("<Q", 1 << 40)  # content size flag set
    payload = (
        b"\x04\x22\x4d\x18" + descriptor + bytes([(xxh32(descriptor) >> 8) & 0xFF]) + b"\x00" * 4
    )
    with pytest.raises(CompressionError, match="limit"):
        decompress(CompressionType.LZ4, payload)


def test_large_lz4_input_takes_the_bounded_path():
    data = os.urandom(50_000) * 3
    # A content checksum sends the frame to python-lz4's frame decoder; 255 x the input
    # exceeds these limits, so it decodes incrementally under the cap.
    packed = lz4.frame.compress(data, block_linked=False, content_checksum=True, store_size=False)
    assert decompress(CompressionType.LZ4, packed, max_size=len(data)) == data
    with pytest.raises(CompressionError, match="limit"):
        decompress(CompressionType.LZ4, packed, max_size=len(data) - 1)
    with pytest.raises(CompressionError):
        decompress(CompressionType.LZ4, packed[:-3], max_size=len(data))


@pytest.mark.parametrize("block_size", [5, 6, 7], ids=["256 KiB", "1 MiB", "4 MiB"])
def test_reads_kafka_layout_with_larger_blocks(block_size):
    data = os.urandom(300_000) + b"q" * (5 << 20)
    packed = lz4.frame.compress(data, block_size=block_size, block_linked=False, store_size=False)
    assert packed[5] == 0x40 + ((block_size - 4) << 4)  # the block size really is in the header
    assert decompress(CompressionType.LZ4, packed) == data


def test_reads_linked_block_frames():
    data = b"linked blocks refer back to earlier ones " * 5000
    packed = lz4.frame.compress(data, block_linked=True, store_size=False)
    assert packed[4] & 0x20 == 0  # not independent
    assert decompress(CompressionType.LZ4, packed) == data


def test_lz4_block_longer_than_the_block_size():
    payload = _kafka_lz4_header() + struct.pack("<I", (64 << 10) + 1) + b"\x00" * ((64 << 10) + 1)
    with pytest.raises(CompressionError, match="block length"):
        decompress(CompressionType.LZ4, payload + b"\x00" * 4)
