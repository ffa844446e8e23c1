"""Where the frames of a byte stream start and end, found without copying them.

The proxy with no log and no hooks forwards the bytes it reads as they are; it needs only each
frame's bounds (and a few header bytes at known places). ``FrameScanner.feed`` gives the bytes
holding the frames a read completed, with their bounds: when a read ends on a frame's end (the
usual case with many requests in flight), those bytes are the read itself, untouched. Only a
frame cut across reads is gathered, once, into a buffer of its own.

Each size is checked against the limit as soon as it is read, as ``net.FrameReader`` does, so a
peer announcing 2 GiB is refused before anything grows.
"""

from __future__ import annotations

from ..net.errors import FrameTooLarge, ProtocolError
from ..wire import INT32

Chunk = bytes | bytearray


class FrameScanner:
    """Feed the reads of one direction in order; get back the frames each completes."""

    def __init__(self, max_frame_size: int):
        self.max_frame_size = max_frame_size
        self._carry = bytearray()  # the start of a frame cut off by the end of a read
        self._carry_lacks = 0  # bytes that frame still lacks; 0 while its size is unread
        self._failed: ProtocolError | None = None

    def feed(self, data: bytes) -> tuple[Chunk, list[int]]:
        """``(chunk, bounds)``: frame ``i`` is ``chunk[bounds[i]:bounds[i + 1]]``, size prefix
        included; ``bounds == [0]`` when ``data`` completes no frame. ``chunk`` is never changed
        afterwards, so slices of it may be handed on. After a refused size every call raises
        the same error: the stream has lost its frame boundaries."""
        if self._failed is not None:
            raise self._failed
        chunk: Chunk = data
        if self._carry:
            if 0 < self._carry_lacks > len(data):  # the cut frame is still not whole
                self._carry += data
                self._carry_lacks -= len(data)
                return data, [0]
            self._carry += data
            chunk, self._carry = self._carry, bytearray()
        bounds = self._bounds(chunk)
        kept = bounds[-1]
        if kept < len(chunk):
            self._carry = bytearray(memoryview(chunk)[kept:])
            lacks = 0
            if len(self._carry) >= 4:
                lacks = 4 + INT32.unpack_from(self._carry)[0] - len(self._carry)
            self._carry_lacks = lacks
        return chunk, bounds

    def _bounds(self, chunk: Chunk) -> list[int]:
        """The ends of the whole frames at the start of ``chunk``, after a leading 0."""
        bounds, start, length, limit = [0], 0, len(chunk), self.max_frame_size
        unpack = INT32.unpack_from
        while length - start >= 4:
            (size,) = unpack(chunk, start)
            if not 0 <= size <= limit:
                self._refuse(size)
            end = start + 4 + size
            if end > length:
                break
            bounds.append(end)
            start = end
        return bounds

    def _refuse(self, size: int) -> None:
        if size > 0:
            self._failed = FrameTooLarge(size, self.max_frame_size)
        else:
            self._failed = ProtocolError(f"the peer announced a negative frame size {size}")
        self._carry = bytearray()
        raise self._failed
