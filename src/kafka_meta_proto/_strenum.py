"""``StrEnum`` on every Python the package supports (``enum.StrEnum`` arrived in 3.11).

Its members are strings whose ``str()`` and ``format()`` are their values, which is what the
log and pipeline names rely on when they are written into tables and messages.
"""

from __future__ import annotations

import sys
from enum import Enum
from typing import Any

if sys.version_info >= (3, 11):
    from enum import StrEnum
else:

    class StrEnum(str, Enum):
        """3.10's stand-in: a ``str`` mixin whose text is the value, not ``Class.NAME``."""

        def __str__(self) -> str:
            return str.__str__(self)

        def __format__(self, spec: str) -> str:
            return str.__format__(self, spec)

        @staticmethod
        def _generate_next_value_(name: str, start: int, count: int, last_values: list[Any]) -> str:
            return name.lower()  # what enum.auto() gives in 3.11's StrEnum


__all__ = ["StrEnum"]
