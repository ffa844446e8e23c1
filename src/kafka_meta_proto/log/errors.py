"""Errors raised while reading record batches, segment files and snapshot files."""

from __future__ import annotations

from typing import Any

from ..errors import DecodeError


class LogFormatError(DecodeError):
    """Bytes that are not a valid record batch (or a file that is not a valid segment).

    ``file`` names the file being read (None for a bare buffer), ``position`` is the byte position
    of the batch in that file or buffer, ``reason`` says what is wrong.
    """

    def __init__(self, reason: str, *, file: object = None, position: int | None = None):
        super().__init__(reason, offset=position)
        self.file = file
        self.position = position

    def __str__(self) -> str:
        where = []
        if self.file is not None:
            where.append(str(self.file))
        if self.position is not None:
            where.append(f"position {self.position}")
        return f"{', '.join(where)}: {self.reason}" if where else self.reason


class CorruptBatchError(LogFormatError):
    """A batch whose stored CRC-32C does not match its bytes (damaged on disk or in transit)."""

    def __init__(self, reason: str, *, stored_crc: int, computed_crc: int, **where: Any) -> None:
        super().__init__(reason, **where)
        self.stored_crc = stored_crc
        self.computed_crc = computed_crc


class TruncatedBatchError(LogFormatError):
    """The buffer ends before the batch does: fewer bytes than a header or than batchLength says."""

    def __init__(self, reason: str, *, bytes_left: int, **where: Any) -> None:
        super().__init__(reason, **where)
        self.bytes_left = bytes_left


class CompressionError(LogFormatError):
    """A compressed records payload that its codec cannot read, or that expands past the limit."""


class RecordCountError(LogFormatError):
    """A batch whose records are more or fewer than its header's records count says."""


class RecordLimitError(LogFormatError):
    """A batch with more records than an all-records reader builds at once (``max_records``,
    by default ``batch.MAX_RECORDS_PER_BATCH``); stream its records instead (``scan``'s
    ``BatchView.records()``)."""
