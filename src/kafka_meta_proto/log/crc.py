"""CRC-32C (Castagnoli), the checksum of record batch v2.

``crc32c(data, value=0)`` comes straight from the ``crc32c`` package (the ``log`` extra), which
computes it in C with the SSE 4.2 / ARMv8 CRC instruction where the CPU has one; a Python-level
wrapper would cost a visible share per small batch. ``data`` is any buffer (bytes, bytearray,
memoryview, mmap); ``value`` continues an earlier checksum.

Without the package a table-driven loop in Python stands in (``python_crc32c``), so that
uncompressed batches are read and written without the extra: correct, some hundred times slower.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .source import Buffer

# The polynomial, bit-reversed (the CRC is computed least significant bit first).
_POLY = 0x82F63B78


def _table() -> list[int]:
    table = []
    for byte in range(256):
        crc = byte
        for _ in range(8):
            crc = (crc >> 1) ^ (_POLY if crc & 1 else 0)
        table.append(crc)
    return table


_TABLE = _table()


def python_crc32c(data: Buffer, value: int = 0) -> int:
    """CRC-32C in Python: the same result as the crc32c package, for when it is missing."""
    crc = value ^ 0xFFFFFFFF
    table = _TABLE
    for byte in memoryview(data).cast("B"):
        crc = (crc >> 8) ^ table[(crc ^ byte) & 0xFF]
    return crc ^ 0xFFFFFFFF


try:
    from crc32c import crc32c
except ModuleNotFoundError:
    crc32c = python_crc32c  # type: ignore[assignment]  # the same calls, fewer keywords

__all__ = ["crc32c", "python_crc32c"]
