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
``iter_decompress`` yields the same bytes in pieces of at most ``PIECE`` bytes, for readers that
stream a batch's records (the codecs' walks are in ``decompressors.py``). Every codec failure
comes out as CompressionError.
"""

from __future__ import annotations

import struct
import threading
import zlib
from collections.abc import Iterator
from enum import IntEnum

import cramjam
import lz4.block
import lz4.frame
import zstandard

from ..errors import EncodeError
from .decompressors import (
    PIECE,
    XERIAL_MAGIC,
    ZSTD_MAGIC,
    gzip_pieces,
    lz4_pieces,
    snappy_pieces,
    too_large,
    zstd_decompressor,
    zstd_pieces,
)
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

_PIECES = {
    CompressionType.GZIP: gzip_pieces,
    CompressionType.SNAPPY: snappy_pieces,
    CompressionType.LZ4: lz4_pieces,
    CompressionType.ZSTD: zstd_pieces,
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


def _codec_name(codec: int) -> str:
    if codec not in _PIECES:
        raise LogFormatError(f"unknown compression type {codec}")
    return CompressionType(codec).name.lower()


def iter_decompress(
    codec: int, data, max_size: int = DEFAULT_MAX_DECOMPRESSED, piece: int = PIECE
) -> Iterator[bytes]:
    """A batch's records payload decompressed, in pieces of at most ``piece`` bytes (a raw
    snappy block, or a block of an LZ4 frame laid out as Kafka writes it, comes whole: at most
    4 MiB for LZ4); CompressionError, once the pieces before it are out, where the
    payload is malformed or expands past ``max_size``."""
    if codec == CompressionType.NONE:
        if len(data):
            yield bytes(data)
        return
    name = _codec_name(codec)
    try:
        yield from _PIECES[codec](data, max_size, piece)
    except CompressionError:
        raise
    except _CODEC_ERRORS as exc:
        raise CompressionError(f"{name} payload is malformed: {exc}") from exc


def decompress(codec: int, data, max_size: int = DEFAULT_MAX_DECOMPRESSED) -> bytes:
    """Decompress a batch's records payload; CompressionError if it is malformed or too big."""
    if codec == CompressionType.NONE:
        return bytes(data)
    name = _codec_name(codec)
    try:
        whole = _whole(codec, data, max_size)
        if whole is not None:
            return whole
        return b"".join(_PIECES[codec](data, max_size, PIECE))
    except CompressionError:
        raise
    except _CODEC_ERRORS as exc:
        raise CompressionError(f"{name} payload is malformed: {exc}") from exc


def _whole(codec: int, data, max_size: int) -> bytes | None:
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
        declared = zstandard.frame_content_size(data)
        if 0 < declared <= max_size:  # (an empty first frame would hide the rest)
            try:
                return zstd_decompressor().decompress(data, allow_extra_data=False)
            except zstandard.ZstdError:
                pass  # several frames, or damage: the frame walk sorts out which
    return None
