"""Kafka's record-batch compression codecs, in the framings Kafka writes and reads.

======  ==  =================================================================================
codec   id  payload of a compressed batch
======  ==  =================================================================================
none    0   the records as they are
gzip    1   a gzip stream (java.util.zip.GZIPOutputStream); concatenated members are read too
snappy  2   snappy-java's stream framing: magic ``82 'SNAPPY' 00``, int32 version 1, int32
            compatible version 1, then blocks of int32 length + raw snappy (32 KiB input each).
            snappy-java reads a payload without that magic as one raw snappy block, so this
            module does too.
lz4     3   an LZ4 frame (Kafka's Lz4BlockOutputStream): FLG 0x60 (version 1, independent
            blocks, no checksums, no content size), BD 0x40 (64 KiB blocks), header checksum
            byte = second byte of xxh32(FLG, BD), i.e. the correct one for magic v2 (only magic
            0 used the broken variant over the magic bytes too), blocks, end mark.
zstd    4   zstd frames (zstd-jni's stream); concatenated frames are read too
======  ==  =================================================================================

Libraries were chosen by timing (``bench/compression_codecs.py``, figures in
``docs/log-format.md``): cramjam to write gzip and zlib to read it, cramjam for snappy,
python-lz4 for LZ4 (its block decoder for frames laid out as Kafka writes them, its frame decoder
for any other), zstandard for zstd.

Decompression is bounded: ``decompress`` refuses to produce more than ``max_size`` bytes and
stops before allocating far past that, so a small hostile payload cannot expand into gigabytes.
Every codec failure comes out as CompressionError.
"""

from __future__ import annotations

import struct
import threading
import zlib
from enum import IntEnum

import cramjam
import lz4.block
import lz4.frame
import zstandard

from ..errors import EncodeError
from .errors import CompressionError, LogFormatError


class CompressionType(IntEnum):
    """The codec id kept in bits 0-2 of a batch's attributes."""

    NONE = 0
    GZIP = 1
    SNAPPY = 2
    LZ4 = 3
    ZSTD = 4


# A batch is at most ~2 GiB on disk; what it may expand to is a policy, not a format limit.
DEFAULT_MAX_DECOMPRESSED = 256 * 1024 * 1024

# Kafka's default levels: gzip -1 (zlib's 6), lz4 9 (the fast compressor), zstd 3.
GZIP_LEVEL = 6
ZSTD_LEVEL = 3

_INT32 = struct.Struct(">i")
_XERIAL_MAGIC = b"\x82SNAPPY\x00"
_XERIAL_HEADER = _XERIAL_MAGIC + struct.pack(">ii", 1, 1)
_XERIAL_BLOCK = 32 * 1024  # snappy-java's default block size, which Kafka uses

_LZ4_MAGIC = b"\x04\x22\x4d\x18"
# Frame headers with FLG 0x60 (independent blocks, no checksums, no content size) for each
# block size, with their header checksum byte: Kafka writes the first. -> block size.
_LZ4_PLAIN_HEADERS = {
    _LZ4_MAGIC + bytes((0x60, bd, hc)): size
    for bd, hc, size in (
        (0x40, 0x82, 64 << 10),
        (0x50, 0xFB, 256 << 10),
        (0x60, 0x51, 1 << 20),
        (0x70, 0x73, 4 << 20),
    )
}
_U32LE = struct.Struct("<I")
# zstd's worst case is ~32768:1 (a 4-byte RLE block yields a 128 KiB block), so feeding it
# 1 KiB at a time keeps each step's output under 32 MiB.
_ZSTD_STEP = 1024
_ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"

# zstandard's (de)compressor objects must not be shared between threads.
_local = threading.local()


def _zstd_compressor() -> zstandard.ZstdCompressor:
    c = getattr(_local, "zstd_c", None)
    if c is None:
        c = _local.zstd_c = zstandard.ZstdCompressor(level=ZSTD_LEVEL)
    return c


def _zstd_decompressor() -> zstandard.ZstdDecompressor:
    d = getattr(_local, "zstd_d", None)
    if d is None:
        d = _local.zstd_d = zstandard.ZstdDecompressor()
    return d


# --- compress ----------------------------------------------------------------------------


def _gzip_compress(data) -> bytes:
    return bytes(cramjam.gzip.compress(data, level=GZIP_LEVEL))


def _snappy_compress(data) -> bytes:
    out = [_XERIAL_HEADER]
    view = memoryview(data)
    for start in range(0, len(view), _XERIAL_BLOCK):
        block = bytes(cramjam.snappy.compress_raw(view[start : start + _XERIAL_BLOCK]))
        out.append(_INT32.pack(len(block)))
        out.append(block)
    return b"".join(out)


def _lz4_compress(data) -> bytes:
    # These options give exactly Kafka's frame header: 04 22 4D 18 60 40 82.
    return lz4.frame.compress(
        data,
        block_size=lz4.frame.BLOCKSIZE_MAX64KB,
        block_linked=False,
        content_checksum=False,
        block_checksum=False,
        store_size=False,
    )


def _zstd_compress(data) -> bytes:
    return _zstd_compressor().compress(data)


_COMPRESSORS = {
    CompressionType.GZIP: _gzip_compress,
    CompressionType.SNAPPY: _snappy_compress,
    CompressionType.LZ4: _lz4_compress,
    CompressionType.ZSTD: _zstd_compress,
}


def compress(codec: int, data) -> bytes:
    """Compress a batch's records bytes with ``codec`` in Kafka's framing."""
    if codec == CompressionType.NONE:
        return bytes(data)
    try:
        compressor = _COMPRESSORS[codec]
    except KeyError:
        raise EncodeError(f"unknown compression type {codec}") from None
    return compressor(data)


# --- decompress --------------------------------------------------------------------------


def _too_large(name: str, max_size: int) -> CompressionError:
    return CompressionError(f"{name} payload expands past the limit of {max_size} bytes")


# Payloads of many members or frames are walked by offset, each step fed at most a window of
# input that doubles while one member lasts: what a library copies per step (its unused input)
# is bounded by what that member took, so the time is linear in the payload whatever its framing.
_FIRST_STEP = 256
_MAX_STEP = 1 << 20


def _gzip_decompress(data, max_size: int) -> bytes:
    # The common case, one member: one call over the whole payload.
    d = zlib.decompressobj(31)
    first = d.decompress(data, max_size + 1)
    if len(first) > max_size:
        raise _too_large("gzip", max_size)
    if not d.eof:
        raise CompressionError("gzip stream ends before its trailer")
    rest = len(d.unused_data)
    if not rest:
        return first
    # More members (GZIPInputStream reads concatenated members): walk them by offset.
    view = memoryview(data)
    out = [first]
    total = len(first)
    end = len(view)
    pos = end - rest
    while pos < end:
        d = zlib.decompressobj(31)
        step = _FIRST_STEP
        while True:
            piece = view[pos : pos + step]
            chunk = d.decompress(piece, max_size - total + 1)
            while d.unconsumed_tail and len(chunk) <= max_size - total:
                total += len(chunk)
                out.append(chunk)
                chunk = d.decompress(d.unconsumed_tail, max_size - total + 1)
            total += len(chunk)
            if total > max_size:
                raise _too_large("gzip", max_size)
            out.append(chunk)
            if d.eof:
                pos += len(piece) - len(d.unused_data)
                break
            pos += len(piece)
            if pos >= end:
                raise CompressionError("gzip stream ends before its trailer")
            step = min(step * 2, _MAX_STEP)
    return b"".join(out)


def _snappy_raw(block, budget: int, max_size: int) -> bytes:
    # The raw format starts with its uncompressed length: check it before decoding.
    if cramjam.snappy.decompress_raw_len(block) > budget:
        raise _too_large("snappy", max_size)
    return bytes(cramjam.snappy.decompress_raw(block))


def _snappy_decompress(data, max_size: int) -> bytes:
    if bytes(data[:8]) != _XERIAL_MAGIC:
        return _snappy_raw(data, max_size, max_size)
    if len(data) < 16:
        raise CompressionError("snappy stream header is cut short")
    (version,) = _INT32.unpack_from(data, 8)
    if version < 1:
        raise CompressionError(f"snappy stream version {version} is not supported")
    out = []
    total = 0
    pos = 16
    end = len(data)
    while pos < end:
        if end - pos < 4:
            raise CompressionError("snappy stream ends inside a block length")
        (size,) = _INT32.unpack_from(data, pos)
        pos += 4
        if size < 0 or size > end - pos:
            raise CompressionError(f"snappy block length {size} exceeds the {end - pos} bytes left")
        block = _snappy_raw(data[pos : pos + size], max_size - total, max_size)
        total += len(block)
        out.append(block)
        pos += size
    return b"".join(out)


_LZ4_SKIPPABLE = 0x184D2A50  # magic of a skippable frame, low 4 bits free
_LZ4_BLOCK_SIZES = {4: 64 << 10, 5: 256 << 10, 6: 1 << 20, 7: 4 << 20}


def _lz4_decompress(data, max_size: int) -> bytes:
    """LZ4 frames and skippable frames back to back, walked by offset (linear time)."""
    view = memoryview(data)
    out = []
    total = 0
    pos = 0
    end = len(view)
    while True:  # one frame per pass
        if end - pos >= 8:
            (magic,) = _U32LE.unpack_from(view, pos)
            if magic & 0xFFFFFFF0 == _LZ4_SKIPPABLE:
                (size,) = _U32LE.unpack_from(view, pos + 4)
                if size > end - pos - 8:
                    raise CompressionError("lz4 skippable frame runs past the payload")
                pos += 8 + size
                if pos == end:
                    return b"".join(out)
                continue
        block_max = _LZ4_PLAIN_HEADERS.get(bytes(view[pos : pos + 7]))
        if block_max is None:
            # Not laid out as Kafka writes it: find where the frame ends, then let the frame
            # decoder read (and check) exactly that frame.
            frame_end, bound = _lz4_frame_extent(view, pos)
            chunk = _lz4_decode_frame(view[pos:frame_end], bound, max_size - total, max_size)
            total += len(chunk)
            out.append(chunk)
            pos = frame_end
            if pos == end:
                return b"".join(out)
            continue
        # Kafka's layout (independent blocks, no checksums, no content size, header checksum
        # matched above): split the blocks here and decode each alone, which is faster.
        pos += 7
        while True:
            if end - pos < 4:
                raise CompressionError("lz4 frame ends before its end mark")
            (word,) = _U32LE.unpack_from(view, pos)
            pos += 4
            if word == 0:  # end mark
                break
            size = word & 0x7FFFFFFF
            if size > block_max or size > end - pos:
                raise CompressionError(f"lz4 block length {size} is too large")
            block = view[pos : pos + size]
            pos += size
            if not word & 0x80000000:  # high bit set: block stored uncompressed
                block = lz4.block.decompress(block, uncompressed_size=block_max)
            else:
                block = bytes(block)
            total += len(block)
            if total > max_size:
                raise _too_large("lz4", max_size)
            out.append(block)
        if pos == end:
            return b"".join(out)


def _lz4_frame_extent(view, pos: int) -> tuple[int, int]:
    """``(end, bound)``: where the LZ4 frame at ``pos`` ends, and the most it can expand to."""
    end = len(view)
    if end - pos < 7 or bytes(view[pos : pos + 4]) != _LZ4_MAGIC:
        raise CompressionError("lz4 payload holds bytes that are not a frame")
    flg, bd = view[pos + 4], view[pos + 5]
    if flg >> 6 != 1:
        raise CompressionError(f"lz4 frame version {flg >> 6} is not supported")
    block_max = _LZ4_BLOCK_SIZES.get((bd >> 4) & 7)
    if block_max is None:
        raise CompressionError(f"lz4 frame block size code {(bd >> 4) & 7} is not valid")
    p = pos + 7 + (8 if flg & 0x08 else 0) + (4 if flg & 0x01 else 0)
    block_checksum = 4 if flg & 0x10 else 0
    bound = 0
    while True:
        if end - p < 4:
            raise CompressionError("lz4 frame ends before its end mark")
        (word,) = _U32LE.unpack_from(view, p)
        p += 4
        if word == 0:
            break
        size = word & 0x7FFFFFFF
        if size > block_max:
            raise CompressionError(f"lz4 block length {size} is too large")
        p += size + block_checksum
        bound += block_max
    p += 4 if flg & 0x04 else 0
    if p > end:
        raise CompressionError("lz4 frame runs past the payload")
    return p, bound


def _lz4_decode_frame(frame, bound: int, budget: int, max_size: int) -> bytes:
    """One whole LZ4 frame by python-lz4's frame decoder, never producing more than ``budget``."""
    if frame[4] & 0x08:  # a stated content size: the decoder would allocate it up front
        (declared,) = struct.unpack_from("<Q", frame, 6)
        if declared > budget:
            raise _too_large("lz4", max_size)
    if bound <= budget:
        chunk, used = lz4.frame.decompress(frame, return_bytes_read=True)
    else:
        d = lz4.frame.LZ4FrameDecompressor()
        chunk = d.decompress(frame, max_length=budget + 1)
        if len(chunk) > budget:
            raise _too_large("lz4", max_size)
        if not d.eof:
            raise CompressionError("lz4 frame ends before its end mark")
        used = len(frame)
    if used != len(frame) or len(chunk) > budget:
        raise CompressionError("lz4 frame is not what its block lengths say")
    return chunk


def _zstd_decompress(data, max_size: int) -> bytes:
    dctx = _zstd_decompressor()
    # Fast path: one frame that states its size within the limit decodes in one call, into a
    # buffer of exactly that size. zstd-jni (Kafka) streams frames without a stated size.
    if len(data) >= 6 and bytes(data[:4]) == _ZSTD_MAGIC:
        declared = zstandard.frame_content_size(data)
        if 0 < declared <= max_size:  # (an empty first frame would hide the rest)
            try:
                return dctx.decompress(data, allow_extra_data=False)
            except zstandard.ZstdError:
                pass  # several frames, or damage: the path below sorts out which
    view = memoryview(data)
    out = []
    total = 0
    pos = 0
    end = len(view)
    while True:  # one zstd frame per pass
        d = dctx.decompressobj()
        while not d.eof and pos < end:
            chunk = d.decompress(view[pos : pos + _ZSTD_STEP])
            pos += _ZSTD_STEP
            total += len(chunk)
            if total > max_size:
                raise _too_large("zstd", max_size)
            out.append(chunk)
        if not d.eof:
            raise CompressionError("zstd frame is cut short")
        # Whatever the frame left of the last piece fed to it starts the next frame.
        pos = min(pos, end) - len(d.unused_data)
        if pos == end:
            return b"".join(out)


_DECOMPRESSORS = {
    CompressionType.GZIP: _gzip_decompress,
    CompressionType.SNAPPY: _snappy_decompress,
    CompressionType.LZ4: _lz4_decompress,
    CompressionType.ZSTD: _zstd_decompress,
}

# What the libraries raise on bad input (they share no base class beyond Exception).
_CODEC_ERRORS = (
    zlib.error,
    cramjam.DecompressionError,
    zstandard.ZstdError,
    lz4.block.LZ4BlockError,
    RuntimeError,  # python-lz4 reports frame errors as RuntimeError
    ValueError,
)


def decompress(codec: int, data, max_size: int = DEFAULT_MAX_DECOMPRESSED) -> bytes:
    """Decompress a batch's records payload; CompressionError if it is malformed or too big."""
    if codec == CompressionType.NONE:
        return bytes(data)
    try:
        decompressor = _DECOMPRESSORS[codec]
    except KeyError:
        raise LogFormatError(f"unknown compression type {codec}") from None
    try:
        return decompressor(data, max_size)
    except CompressionError:
        raise
    except _CODEC_ERRORS as exc:
        name = CompressionType(codec).name.lower()
        raise CompressionError(f"{name} payload is malformed: {exc}") from exc
