"""Where the bytes of a log file come from: a memory-mapped local file, windows read through
``pyarrow.fs`` (object stores, HDFS), or bytes already in memory.

Every source has a ``size`` and hands out ``view(pos, need) -> (buffer, base)``: a buffer holding
the bytes ``[base, base + len(buffer))`` of the file, covering ``[pos, min(size, pos + need))``.
A mapped file or a buffer has all of its bytes in one buffer (``whole`` is that buffer); a
windowed file reads a new window when asked for bytes outside the current one. Sources are
context managers; closing one releases its map or file.
"""

from __future__ import annotations

import mmap
import os
import re
from typing import Any, TypeVar, Union
from urllib.parse import unquote, urlparse

# The buffers the readers take: bytes, bytearray, memoryview and mmap give the same results.
Buffer = Union[bytes, bytearray, memoryview, mmap.mmap]
_Source = TypeVar("_Source", bound="ByteSource")

WINDOW = 16 << 20  # bytes read at a time from a file that is not local

# Hadoop's names for object stores -> the schemes pyarrow.fs knows
ARROW_SCHEMES = {"s3a": "s3", "s3n": "s3", "gcs": "gs"}


def is_local(uri: str) -> bool:
    """Whether ``uri`` is a plain path or a ``file://`` URI."""
    scheme = urlparse(uri).scheme
    return scheme in ("", "file") or (len(scheme) == 1 and os.name == "nt")


def local_path(uri: str) -> str:
    parsed = urlparse(uri)
    return unquote(parsed.path) if parsed.scheme == "file" else uri


def arrow_uri(uri: str) -> str:
    """``uri`` with its scheme as pyarrow.fs names it."""
    scheme, sep, rest = uri.partition("://")
    return f"{ARROW_SCHEMES.get(scheme, scheme)}{sep}{rest}" if sep else uri


def byte_buffer(buf: Buffer) -> Buffer:
    """``buf`` as a buffer whose length and indexes count bytes: a memoryview of another format
    or shape (``'b'``, ``'I'``, 2-D) is cast to unsigned bytes; bytes, bytearray, mmap and
    byte memoryviews are kept as they are."""
    if type(buf) is memoryview and (buf.format != "B" or buf.ndim != 1):
        return buf.cast("B")
    return buf


def find_byte(buf: Buffer, value: int, start: int, stop: int) -> int:
    """The first index in ``[start, stop)`` of ``buf`` holding the byte ``value``, else -1.

    The one search for every buffer type: memoryview has no ``find``, and ``re`` searches
    anything that exports a buffer (bytes, bytearray, memoryview, mmap) without a copy."""
    match = _BYTE_PATTERNS[value].search(buf, start, stop)
    return -1 if match is None else match.start()


_BYTE_PATTERNS = [re.compile(re.escape(bytes((b,)))) for b in range(256)]


class ByteSource:
    """The bytes of one file or buffer; see the module docstring."""

    size: int = 0
    whole: Buffer | None = None  # the buffer holding every byte, when there is one

    def view(self, pos: int, need: int) -> tuple[Buffer, int]:
        assert self.whole is not None  # a source without one overrides view
        return self.whole, 0

    def close(self) -> None:
        pass

    def __enter__(self: _Source) -> _Source:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


class BufferSource(ByteSource):
    """Bytes in memory (bytes, bytearray, memoryview, mmap), the first ``limit`` of them."""

    def __init__(self, buf: Buffer, limit: int | None = None) -> None:
        self.whole = buf = byte_buffer(buf)
        self.size = len(buf) if limit is None else max(0, min(limit, len(buf)))


class MappedFile(BufferSource):
    """A local file, memory-mapped read-only; ``limit`` bytes of it if given."""

    def __init__(self, path: str | os.PathLike[str], limit: int | None = None) -> None:
        with open(path, "rb") as f:
            self.file_size = os.fstat(f.fileno()).st_size
            # mmap cannot map an empty file; an empty file simply has no bytes
            self._map: mmap.mmap | None = (
                mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) if self.file_size else None
            )
        super().__init__(self._map if self._map is not None else b"", limit)

    def close(self) -> None:
        self.whole = b""
        self.size = 0
        if self._map is not None:
            self._map.close()
            self._map = None


class WindowedFile(ByteSource):
    """A file read through ``pyarrow.fs`` in windows of at least ``WINDOW`` bytes."""

    def __init__(self, uri: str, limit: int | None = None) -> None:
        from pyarrow import fs as pafs

        filesystem, path = pafs.FileSystem.from_uri(arrow_uri(uri))
        self._file: Any = filesystem.open_input_file(path)
        self.file_size: int = self._file.size()
        self.size = self.file_size if limit is None else max(0, min(limit, self.file_size))
        self._buf: bytes = b""
        self._base = 0

    def view(self, pos: int, need: int) -> tuple[Buffer, int]:
        stop = min(self.size, pos + need)
        if self._base <= pos and stop <= self._base + len(self._buf):
            return self._buf, self._base
        length = min(self.size - pos, max(need, WINDOW))
        self._buf = self._file.read_at(length, pos)
        self._base = pos
        return self._buf, self._base

    def close(self) -> None:
        self._buf = b""
        self._file.close()


def open_source(uri: str | os.PathLike[str], limit: int | None = None) -> ByteSource:
    """A local path or ``file://`` URI mapped, any other URI read in windows."""
    uri = os.fspath(uri)
    if is_local(uri):
        return MappedFile(local_path(uri), limit)
    return WindowedFile(uri, limit)
