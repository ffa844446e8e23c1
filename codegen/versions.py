"""Version ranges as Kafka writes them: "none", "3", "3+", "1-4"."""

from __future__ import annotations

from dataclasses import dataclass

MAX_VERSION = 0x7FFF  # "N+" is open-ended, as Kafka's Short.MAX_VALUE


@dataclass(frozen=True)
class Versions:
    lowest: int
    highest: int

    @classmethod
    def parse(cls, text) -> Versions:
        if isinstance(text, int) and not isinstance(text, bool):
            text = str(text)
        if not isinstance(text, str):
            raise ValueError(f"a version range must be a string, got {text!r}")
        text = text.strip()
        try:
            if text == "none":
                return NONE
            if text.endswith("+"):
                return cls._checked(int(text[:-1]), MAX_VERSION, text)
            if "-" in text:
                lo, hi = text.split("-", 1)
                return cls._checked(int(lo), int(hi), text)
            v = int(text)
            return cls._checked(v, v, text)
        except ValueError as e:
            raise ValueError(f"invalid version range {text!r}: {e}") from None

    @classmethod
    def _checked(cls, lo: int, hi: int, text: str) -> Versions:
        if lo < 0 or hi > MAX_VERSION or lo > hi:
            raise ValueError(f"invalid version range {text!r}")
        return cls(lo, hi)

    @property
    def empty(self) -> bool:
        return self.lowest > self.highest

    @property
    def open_ended(self) -> bool:
        return not self.empty and self.highest == MAX_VERSION

    def __contains__(self, version: int) -> bool:
        return self.lowest <= version <= self.highest

    def contains_range(self, other: Versions) -> bool:
        return other.empty or (self.lowest <= other.lowest and other.highest <= self.highest)

    def intersect(self, other: Versions) -> Versions:
        lo, hi = max(self.lowest, other.lowest), min(self.highest, other.highest)
        return Versions(lo, hi) if lo <= hi else NONE

    def __str__(self) -> str:
        if self.empty:
            return "none"
        if self.highest == MAX_VERSION:
            return f"{self.lowest}+"
        if self.lowest == self.highest:
            return str(self.lowest)
        return f"{self.lowest}-{self.highest}"


NONE = Versions(1, 0)
