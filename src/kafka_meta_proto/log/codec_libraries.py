"""The compression libraries of the ``log`` extra, behind ``compression.py``, which imports this
module on the first compressed batch (uncompressed batches need none of them).

Libraries were chosen by timing (``bench/compression_codecs.py``, figures in
``docs/log-format.md``): cramjam to write gzip and zlib to read it, cramjam for snappy,
python-lz4 for LZ4 (its block decoder for frames laid out as Kafka writes them, its frame decoder
for any other), zstandard for zstd.
"""

from __future__ import annotations

import struct
import threading
import zlib

import cramjam
import lz4.block
import lz4.frame
import zstandard

from .compression import PIECE, CompressionType
from .decompressors import (
    XERIAL_MAGIC,
    ZSTD_MAGIC,
    gzip_pieces,
    lz4_pieces,
    snappy_pieces,
    too_large,
    zstd_decompressor,
    zstd_pieces,
)
from .errors import CompressionError
from .source import Buffer

# Kafka's default levels: gzip -1 (zlib's 6), lz4 9 (the fast compressor), zstd 3.
GZIP_LEVEL = 6
ZSTD_LEVEL = 3

_INT32 = struct.Struct(">i")
_XERIAL_HEADER = XERIAL_MAGIC + struct.pack(">ii", 1, 1)
_XERIAL_BLOCK = 32 * 1024  # snappy-java's default block size, which Kafka uses

# zstandard's (de)compressor objects must not be shared between threads.
_local = threading.local()


def _zstd_compressor() -> zstandard.ZstdCompressor:
    c = getattr(_local, "zstd_c", None)
    if c is None:
        c = _local.zstd_c = zstandard.ZstdCompressor(level=ZSTD_LEVEL)
    return c


# --- compress ----------------------------------------------------------------------------


def _gzip_compress(data: Buffer) -> bytes:
    return bytes(cramjam.gzip.compress(data, level=GZIP_LEVEL))


def _snappy_compress(data: Buffer) -> bytes:
    out = [_XERIAL_HEADER]
    view = memoryview(data)
    for start in range(0, len(view), _XERIAL_BLOCK):
        block = bytes(cramjam.snappy.compress_raw(view[start : start + _XERIAL_BLOCK]))
        out.append(_INT32.pack(len(block)))
        out.append(block)
    return b"".join(out)


def _lz4_compress(data: Buffer) -> bytes:
    # These options give exactly Kafka's frame header: 04 22 4D 18 60 40 82.
    compressed: bytes = lz4.frame.compress(
        data,
        block_size=lz4.frame.BLOCKSIZE_MAX64KB,
        block_linked=False,
        content_checksum=False,
        block_checksum=False,
        store_size=False,
    )
    return compressed


def _zstd_compress(data: Buffer) -> bytes:
    # zstandard takes any buffer (an mmap too); its annotations name three types
    return _zstd_compressor().compress(data)  # type: ignore[arg-type]


COMPRESSORS = {
    CompressionType.GZIP: _gzip_compress,
    CompressionType.SNAPPY: _snappy_compress,
    CompressionType.LZ4: _lz4_compress,
    CompressionType.ZSTD: _zstd_compress,
}

# --- decompress --------------------------------------------------------------------------

PIECES = {
    CompressionType.GZIP: gzip_pieces,
    CompressionType.SNAPPY: snappy_pieces,
    CompressionType.LZ4: lz4_pieces,
    CompressionType.ZSTD: zstd_pieces,
}

# What the libraries raise on bad input (they share no base class beyond Exception).
CODEC_ERRORS = (
    zlib.error,
    cramjam.DecompressionError,
    zstandard.ZstdError,
    lz4.block.LZ4BlockError,
    RuntimeError,  # python-lz4 reports frame errors as RuntimeError
    ValueError,
)


def whole(codec: int, data: Buffer, max_size: int) -> bytes | None:
    """The common payloads decoded in one call: one gzip member, one zstd frame stating its
    size. None for any other, which the piece generators read."""
    if codec == CompressionType.GZIP:
        d = zlib.decompressobj(31)
        first = d.decompress(data, max_size + 1)
        if len(first) > max_size:
            raise too_large("gzip", max_size)
        if not d.eof:
            raise CompressionError("gzip stream ends before its trailer")
        rest = len(d.unused_data)
        if not rest:
            return first
        # More members: walked by offset from where the first ended.
        more = gzip_pieces(data, max_size, PIECE, len(data) - rest, len(first))
        return b"".join([first, *more])
    if codec == CompressionType.ZSTD and len(data) >= 6 and bytes(data[:4]) == ZSTD_MAGIC:
        # One frame that states its size within the limit decodes into a buffer of exactly
        # that size. zstd-jni (Kafka) streams frames without a stated size.
        declared = zstandard.frame_content_size(data)  # type: ignore[arg-type]  # as above
        if 0 < declared <= max_size:  # (an empty first frame would hide the rest)
            try:
                return zstd_decompressor().decompress(data, allow_extra_data=False)  # type: ignore[arg-type]
            except zstandard.ZstdError:
                pass  # several frames, or damage: the frame walk sorts out which
    return None
