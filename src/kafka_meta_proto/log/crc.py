"""CRC-32C (Castagnoli), the checksum of record batch v2.

``crc32c(data, value=0)`` comes straight from the ``crc32c`` package, which computes it in C with
the SSE 4.2 / ARMv8 CRC instruction where the CPU has one; a pure-Python loop would be the slowest
step of reading a log, and even a Python-level wrapper costs a visible share per small batch.
``data`` is any buffer (bytes, bytearray, memoryview); ``value`` continues an earlier checksum.
"""

from __future__ import annotations

from crc32c import crc32c

__all__ = ["crc32c"]
