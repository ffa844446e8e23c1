"""Each codec's decompressor as a generator of bounded pieces (``compression.py`` holds the
codecs' framings, the limits and the public ``decompress`` / ``iter_decompress``).

A generator here walks a payload by offset and yields its decompressed bytes in pieces of at most
``piece`` bytes, never producing more than ``max_size`` in all (a CompressionError saying so
instead). What it holds at once is the piece, the input it is fed (at most ``IN_STEP`` at a
time, so what a library copies per call stays small), and the codec's own state:

- gzip: inflate's 32 KiB window;
- snappy: one raw block, decoded whole (the raw format lets a copy reach back anywhere in its
  block); snappy-java writes 32 KiB blocks, and a payload without its magic is one block, at
  most ``max_size``;
- lz4: one block of a frame laid out as Kafka writes it (at most 4 MiB), or the decoder's
  window for any other frame;
- zstd: the frame's window, which zstd's default limit keeps at or under 128 MiB (as for
  zstd-jni, which Kafka uses); Kafka's writers use 2 MiB at level 3.

Input is consumed in windows that grow (doubling, from 256 bytes after the first gzip member)
while one member or frame lasts, so a payload of many tiny members costs time linear in its size.
"""

from __future__ import annotations

import struct
import threading
import zlib
from collections.abc import Iterator

import cramjam
import lz4.block
import lz4.frame
import zstandard

from .compression import PIECE  # the most bytes a generator yields at once, unless told otherwise
from .errors import CompressionError
from .source import Buffer

IN_STEP = 256 << 10  # the most input fed to a library at once (its copy of unused input)
_FIRST_STEP = 256  # the first window of a member or frame: a tiny one costs little

_INT32 = struct.Struct(">i")
_U32LE = struct.Struct("<I")
XERIAL_MAGIC = b"\x82SNAPPY\x00"

LZ4_MAGIC = b"\x04\x22\x4d\x18"
# Frame headers with FLG 0x60 (independent blocks, no checksums, no content size) for each
# block size, with their header checksum byte: Kafka writes the first. -> block size.
LZ4_PLAIN_HEADERS = {
    LZ4_MAGIC + bytes((0x60, bd, hc)): size
    for bd, hc, size in (
        (0x40, 0x82, 64 << 10),
        (0x50, 0xFB, 256 << 10),
        (0x60, 0x51, 1 << 20),
        (0x70, 0x73, 4 << 20),
    )
}
_LZ4_SKIPPABLE = 0x184D2A50  # magic of a skippable frame (LZ4 and zstd alike), low 4 bits free
_LZ4_BLOCK_SIZES = {4: 64 << 10, 5: 256 << 10, 6: 1 << 20, 7: 4 << 20}

ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
_ZSTD_FCS_SIZES = (0, 2, 4, 8)  # frame content size field by its flag (0: 1 byte if single segment)
_ZSTD_DICT_ID_SIZES = (0, 1, 2, 4)


def too_large(name: str, max_size: int) -> CompressionError:
    return CompressionError(f"{name} payload expands past the limit of {max_size} bytes")


# --- gzip ------------------------------------------------------------------------------------


def gzip_pieces(data: Buffer, max_size: int, piece: int = PIECE, pos: int = 0, total: int = 0) -> Iterator[bytes]:  # fmt: skip
    """The gzip members of ``data[pos:]`` (GZIPInputStream reads concatenated members), after
    ``total`` bytes already produced from before ``pos``."""
    view = memoryview(data)
    end = len(view)
    step = IN_STEP  # the first member, usually the only one, in one window if it is small
    while pos < end:  # one member per pass
        d = zlib.decompressobj(31)
        while True:
            window = view[pos : pos + step]
            out = d.decompress(window, piece)
            while True:
                total += len(out)
                if total > max_size:
                    raise too_large("gzip", max_size)
                if out:
                    yield out
                # More output waits when the piece filled up: in the input left over, or in
                # inflate's state even when all the input was taken.
                if d.eof or (not d.unconsumed_tail and len(out) < piece):
                    break
                out = d.decompress(d.unconsumed_tail, piece)
            if d.eof:
                pos += len(window) - len(d.unused_data)
                step = _FIRST_STEP
                break
            pos += len(window)
            if pos >= end:
                raise CompressionError("gzip stream ends before its trailer")
            step = min(step * 2, IN_STEP)


# --- snappy ----------------------------------------------------------------------------------


def snappy_raw(block: Buffer, budget: int, max_size: int) -> bytes:
    """One raw snappy block, refused before decoding if its stated length exceeds ``budget``."""
    if cramjam.snappy.decompress_raw_len(block) > budget:
        raise too_large("snappy", max_size)
    return bytes(cramjam.snappy.decompress_raw(block))


def snappy_pieces(data: Buffer, max_size: int, piece: int = PIECE) -> Iterator[bytes]:
    """snappy-java's stream (blocks of int32 length + raw snappy), or one raw block."""
    view = memoryview(data)
    if bytes(view[:8]) != XERIAL_MAGIC:
        out = snappy_raw(view, max_size, max_size)
        if out:
            yield out
        return
    if len(view) < 16:
        raise CompressionError("snappy stream header is cut short")
    (version,) = _INT32.unpack_from(view, 8)
    if version < 1:
        raise CompressionError(f"snappy stream version {version} is not supported")
    total = 0
    pos = 16
    end = len(view)
    while pos < end:
        if end - pos < 4:
            raise CompressionError("snappy stream ends inside a block length")
        (size,) = _INT32.unpack_from(view, pos)
        pos += 4
        if size < 0 or size > end - pos:
            raise CompressionError(f"snappy block length {size} exceeds the {end - pos} bytes left")
        block = snappy_raw(view[pos : pos + size], max_size - total, max_size)
        total += len(block)
        if block:
            yield block
        pos += size


# --- lz4 -------------------------------------------------------------------------------------


def lz4_pieces(data: Buffer, max_size: int, piece: int = PIECE) -> Iterator[bytes]:
    """LZ4 frames and skippable frames back to back, walked by offset."""
    view = memoryview(data)
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
                    return
                continue
        block_max = LZ4_PLAIN_HEADERS.get(bytes(view[pos : pos + 7]))
        if block_max is None:
            # Not laid out as Kafka writes it: find where the frame ends, then let the frame
            # decoder read (and check) exactly that frame.
            frame_end, bound = _lz4_frame_extent(view, pos)
            for out in _lz4_frame_pieces(
                view[pos:frame_end], bound, max_size - total, max_size, piece
            ):
                total += len(out)
                yield out
            pos = frame_end
            if pos == end:
                return
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
            raw = view[pos : pos + size]
            pos += size
            if not word & 0x80000000:  # high bit set: block stored uncompressed
                block: bytes = lz4.block.decompress(raw, uncompressed_size=block_max)
            else:
                block = bytes(raw)
            total += len(block)
            if total > max_size:
                raise too_large("lz4", max_size)
            if block:
                yield block
        if pos == end:
            return


def _lz4_frame_extent(view: Buffer, pos: int) -> tuple[int, int]:
    """``(end, bound)``: where the LZ4 frame at ``pos`` ends, and the most it can expand to."""
    end = len(view)
    if end - pos < 7 or bytes(view[pos : pos + 4]) != LZ4_MAGIC:
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


def _lz4_frame_pieces(frame: Buffer, bound: int, budget: int, max_size: int, piece: int) -> Iterator[bytes]:  # fmt: skip
    """One whole LZ4 frame by python-lz4's frame decoder, never producing more than ``budget``.
    (Its ``max_length`` is allocated up front: it is never more than a piece.)"""
    if frame[4] & 0x08:  # a stated content size: the decoder would allocate it up front
        (declared,) = struct.unpack_from("<Q", frame, 6)
        if declared > budget:
            raise too_large("lz4", max_size)
    if bound <= min(budget, piece):  # small enough to decode in one call
        out, used = lz4.frame.decompress(frame, return_bytes_read=True)
        if used != len(frame) or len(out) > budget:
            raise CompressionError("lz4 frame is not what its block lengths say")
        if out:
            yield out
        return
    d = lz4.frame.LZ4FrameDecompressor()
    produced = 0
    pos = 0
    end = len(frame)
    step = _FIRST_STEP
    while not d.eof:
        if d.needs_input:
            if pos >= end:
                raise CompressionError("lz4 frame ends before its end mark")
            window = frame[pos : pos + step]
            pos += len(window)
            step = min(step * 2, IN_STEP)
        else:  # the last call filled its piece: more output waits
            window = b""
        out = d.decompress(window, max_length=min(piece, budget - produced + 1))
        produced += len(out)
        if produced > budget:
            raise too_large("lz4", max_size)
        if out:
            yield out
    if pos != end or d.unused_data:
        raise CompressionError("lz4 frame is not what its block lengths say")


# --- zstd ------------------------------------------------------------------------------------

# zstandard's (de)compressor objects must not be shared between threads.
_local = threading.local()


def zstd_decompressor() -> zstandard.ZstdDecompressor:
    d = getattr(_local, "zstd_d", None)
    if d is None:
        d = _local.zstd_d = zstandard.ZstdDecompressor()
    return d


def zstd_pieces(data: Buffer, max_size: int, piece: int = PIECE) -> Iterator[bytes]:
    """zstd frames (and skippable frames) back to back: each frame's extent is read from its
    block headers, then the frame is decoded by zstandard's stream reader in pieces."""
    dctx = zstd_decompressor()
    view = memoryview(data)
    if len(view) >= 6 and bytes(view[:4]) == ZSTD_MAGIC:
        # One frame stating a size that fits a piece (as this package writes a small batch)
        # decodes in one call; zstd-jni (Kafka) streams frames without a stated size.
        declared = zstandard.frame_content_size(view)
        if 0 < declared <= min(piece, max_size):
            try:
                yield dctx.decompress(view, allow_extra_data=False)
                return
            except zstandard.ZstdError:
                pass  # several frames, or damage: the frame walk sorts out which
    total = 0
    pos = 0
    end = len(view)
    while True:  # one frame per pass
        frame_end, skippable = _zstd_frame_extent(view, pos)
        if not skippable:
            reader = dctx.stream_reader(view[pos:frame_end], read_size=IN_STEP)
            while True:
                out = reader.read(min(piece, max_size - total + 1))
                if not out:
                    break
                total += len(out)
                if total > max_size:
                    raise too_large("zstd", max_size)
                yield out
        pos = frame_end
        if pos == end:
            return


def _zstd_frame_extent(view: Buffer, pos: int) -> tuple[int, bool]:
    """``(end, skippable)``: where the zstd frame at ``pos`` ends, read from its header and
    block headers (a frame the decoder would read past the payload is cut short)."""
    end = len(view)
    if end - pos < 8:
        raise CompressionError("zstd frame is cut short")
    (magic,) = _U32LE.unpack_from(view, pos)
    if magic & 0xFFFFFFF0 == _LZ4_SKIPPABLE:
        (size,) = _U32LE.unpack_from(view, pos + 4)
        if size > end - pos - 8:
            raise CompressionError("zstd frame is cut short")
        return pos + 8 + size, True
    if bytes(view[pos : pos + 4]) != ZSTD_MAGIC:
        raise CompressionError("zstd payload holds bytes that are not a frame")
    descriptor = view[pos + 4]
    single_segment = descriptor >> 5 & 1
    fcs_size = _ZSTD_FCS_SIZES[descriptor >> 6] or single_segment
    p = pos + 5 + (0 if single_segment else 1) + _ZSTD_DICT_ID_SIZES[descriptor & 3] + fcs_size
    while True:
        if end - p < 3:
            raise CompressionError("zstd frame is cut short")
        header = view[p] | view[p + 1] << 8 | view[p + 2] << 16
        p += 3
        kind = header >> 1 & 3
        p += 1 if kind == 1 else header >> 3  # an RLE block holds one byte
        if header & 1:  # the frame's last block
            break
    p += 4 if descriptor & 0x04 else 0  # content checksum
    if p > end:
        raise CompressionError("zstd frame is cut short")
    return p, False
