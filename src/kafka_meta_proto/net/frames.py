"""Cutting a byte stream into size-prefixed frames, whatever the pieces it arrives in.

The 4-byte size is checked against the limit as soon as it is read, so a peer announcing 2 GiB
costs nothing: no buffer is grown for a frame that will be refused.
"""

from __future__ import annotations

from ..protocol import MAX_FRAME_SIZE
from ..wire import INT32
from .errors import FrameTooLarge, ProtocolError


class FrameReader:
    """Feed bytes in any pieces; get back the payloads of the frames they complete."""

    def __init__(self, max_frame_size: int = MAX_FRAME_SIZE):
        self.max_frame_size = max_frame_size
        self._buffer = bytearray()
        self._failed: ProtocolError | None = None

    @property
    def buffered(self) -> int:
        """Bytes held for a frame not yet complete."""
        return len(self._buffer)

    def feed(self, data: bytes | bytearray | memoryview) -> list[bytes]:
        """The payloads completed by ``data`` (without their size prefix), in order.

        After a refused size every later call raises the same error: the stream has lost its
        frame boundaries."""
        if self._failed is not None:
            raise self._failed
        self._buffer += data
        frames: list[bytes] = []
        start = 0
        buffer = self._buffer
        while len(buffer) - start >= 4:
            (size,) = INT32.unpack_from(buffer, start)
            if size < 0 or size > self.max_frame_size:
                self._failed = (
                    FrameTooLarge(size, self.max_frame_size)
                    if size > 0
                    else ProtocolError(f"the peer announced a negative frame size {size}")
                )
                del buffer[:]
                raise self._failed
            end = start + 4 + size
            if end > len(buffer):
                break
            frames.append(bytes(buffer[start + 4 : end]))
            start = end
        del buffer[:start]
        return frames
