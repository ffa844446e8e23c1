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

The libraries (``codec_libraries.py``) are the ``log`` extra's: they are imported when the first
compressed batch is read or written, so uncompressed batches need none of them, and a missing one
is a one-line MissingExtraError naming the extra.

Decompression is bounded: ``decompress`` refuses to produce more than ``max_size`` bytes and
stops before allocating far past that, so a small hostile payload cannot expand into gigabytes.
``iter_decompress`` yields the same bytes in pieces of at most ``PIECE`` bytes, for readers that
stream a batch's records (the codecs' walks are in ``decompressors.py``). Every codec failure
comes out as CompressionError.
"""

from __future__ import annotations

from collections.abc import Iterator
from enum import IntEnum
from typing import TYPE_CHECKING, Any

from ..errors import EncodeError
from ..extras import missing_extra
from .errors import CompressionError, LogFormatError

if TYPE_CHECKING:
    from .source import Buffer


class CompressionType(IntEnum):
    """The codec id kept in bits 0-2 of a batch's attributes."""

    NONE = 0
    GZIP = 1
    SNAPPY = 2
    LZ4 = 3
    ZSTD = 4


# A batch is at most ~2 GiB on disk; what it may expand to is a policy, not a format limit.
DEFAULT_MAX_DECOMPRESSED = 256 * 1024 * 1024

PIECE = 1 << 20  # the most bytes iter_decompress yields at once, unless told otherwise

_libraries: Any = None


def _codecs() -> Any:
    """The module holding the codec libraries, imported on the first compressed batch."""
    global _libraries
    if _libraries is None:
        try:
            from . import codec_libraries
        except ModuleNotFoundError as exc:
            raise missing_extra("reading or writing compressed record batches", exc) from None
        _libraries = codec_libraries
    return _libraries


def compress(codec: int, data: Buffer) -> bytes:
    """Compress a batch's records bytes with ``codec`` in Kafka's framing."""
    if codec == CompressionType.NONE:
        return bytes(data)
    if codec not in _NAMES:
        raise EncodeError(f"unknown compression type {codec}")
    compressed: bytes = _codecs().COMPRESSORS[codec](data)
    return compressed


_NAMES: dict[int, str] = {c: c.name.lower() for c in CompressionType if c != CompressionType.NONE}


def _codec_name(codec: int) -> str:
    name = _NAMES.get(codec)
    if name is None:
        raise LogFormatError(f"unknown compression type {codec}")
    return name


def iter_decompress(
    codec: int, data: Buffer, max_size: int = DEFAULT_MAX_DECOMPRESSED, piece: int = PIECE
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
    libraries = _codecs()
    try:
        yield from libraries.PIECES[codec](data, max_size, piece)
    except CompressionError:
        raise
    except libraries.CODEC_ERRORS as exc:
        raise CompressionError(f"{name} payload is malformed: {exc}") from exc


def decompress(codec: int, data: Buffer, max_size: int = DEFAULT_MAX_DECOMPRESSED) -> bytes:
    """Decompress a batch's records payload; CompressionError if it is malformed or too big."""
    if codec == CompressionType.NONE:
        return bytes(data)
    name = _codec_name(codec)
    libraries = _codecs()
    try:
        whole: bytes | None = libraries.whole(codec, data, max_size)
        if whole is not None:
            return whole
        return b"".join(libraries.PIECES[codec](data, max_size, PIECE))
    except CompressionError:
        raise
    except libraries.CODEC_ERRORS as exc:
        raise CompressionError(f"{name} payload is malformed: {exc}") from exc
