"""Conditions on ``version`` folded against the versions a struct exists at.

A generated function serves a known set of versions. A condition is kept as the subset of those
versions for which it holds, so ``and``/``or``/``not`` are set operations and the outcome is known
before anything is printed: a condition that holds at every version emits no ``if``, one that
holds at none drops its branch (as Kafka's VersionConditional does for its Java code).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class VersionCond:
    """The versions, among ``have`` (sorted), at which something holds."""

    have: tuple[int, ...]
    holds: frozenset[int]

    @classmethod
    def of(cls, have, predicate) -> VersionCond:
        have = tuple(have)
        return cls(have, frozenset(v for v in have if predicate(v)))

    @property
    def always(self) -> bool:
        return len(self.holds) == len(self.have)

    @property
    def never(self) -> bool:
        return not self.holds

    def __and__(self, other: VersionCond) -> VersionCond:
        return VersionCond(self.have, self.holds & other.holds)

    def __or__(self, other: VersionCond) -> VersionCond:
        return VersionCond(self.have, self.holds | other.holds)

    def __invert__(self) -> VersionCond:
        return VersionCond(self.have, frozenset(self.have) - self.holds)

    @property
    def text(self) -> str:
        """The test on ``version``, in the shortest of the forms below; only for a condition that
        is neither always nor never true (the caller prints no ``if`` for those)."""
        assert not self.always and not self.never, "a folded condition has no text"
        wanted = [v for v in self.have if v in self.holds]
        lo, hi = wanted[0], wanted[-1]
        if wanted != [v for v in self.have if lo <= v <= hi]:
            return f"version in {tuple(wanted)!r}"
        if hi == self.have[-1]:
            return f"version >= {lo}"
        if lo == self.have[0]:
            return f"version <= {hi}"
        return f"{lo} <= version <= {hi}"


def guarded(cond: VersionCond, test: str) -> str | None:
    """``cond and test`` as the text of an ``if`` (None when the branch can never run); ``test`` is
    a run-time test of a value, "" for none (then the result is "" when cond always holds)."""
    if cond.never:
        return None
    if cond.always:
        return test
    return f"{cond.text} and {test}" if test else cond.text


def either(plain: VersionCond, guarded_by: VersionCond, test: str) -> str | None:
    """The text of ``if plain or (guarded_by and test)``, folded; None when it never holds, "" when
    it always does. ``plain`` and ``guarded_by`` are disjoint."""
    if guarded_by.never:
        return guarded(plain, "")
    if plain.never:
        return guarded(guarded_by, test)
    if (plain | guarded_by).always:  # where plain fails, guarded_by holds
        return "" if plain.always else f"{plain.text} or {test}"
    return f"{plain.text} or ({guarded_by.text} and {test})"
