"""The compiled codec's programs, derived from the field tables of the generated classes.

A generated module holds each struct's schema once, as its ``_FIELDS`` table (one
``kafka_meta_proto.schema_info.FieldInfo`` per field); this module turns a message's tables into
the programs the C extension interprets (``kafka_meta_proto._codec``), one per version, when the
extension first asks for them. The format is the extension's:

One layout's program: ``(class, flexible, steps, tagged, absent)``

- step: ``(attribute, kind, compact, nullable, child)``, in wire order (declaration order);
- tagged field: ``(tag, attribute, kind, compact, nullable, child, default)``, by tag;
- absent field: ``(attribute, default, checked)``: the default a decoded object gets, and whether
  encoding refuses another value (False for ignorable fields).

kind: a struct format code for fixed-width values (``?bhHiIqd``), ``u`` a uuid, ``s`` a string,
``y`` bytes, ``z`` bytes decoded as a slice of the input, ``S`` a struct (child is its program),
``[`` followed by the element's kind for arrays. A default that is a class (``list`` or a struct
class) means "call it for a fresh value"; anything else is the value itself.

Versions whose layouts are alike share one program object, so the extension compiles it once.
The straight-line Python codecs of the same module are the reference these programs are held to
(tests/test_codec_differential.py).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from .schema_info import FieldInfo

Program = tuple[Any, ...]

_KINDS = {
    "bool": "?",
    "int8": "b",
    "int16": "h",
    "uint16": "H",
    "int32": "i",
    "uint32": "I",
    "int64": "q",
    "float64": "d",
    "uuid": "u",
    "string": "s",
    "bytes": "y",
    "records": "y",
}


def _kind(info: FieldInfo) -> str:
    if info.is_array:
        return "[" + ("S" if info.struct is not None else _KINDS[info.element_type])
    if info.struct is not None:
        return "S"
    if info.zero_copy and info.type in ("bytes", "records"):
        return "z"
    return _KINDS[info.type]


def _default(value: Any) -> Any:
    """A default as the program holds it: a class to call for mutable ones, else the value."""
    if isinstance(value, list):
        return list
    if hasattr(value, "_FIELDS"):
        return value.__class__
    return value


def _compact(info: FieldInfo, version: int, flexible: bool, tagged: bool) -> bool:
    if tagged:
        return True
    own = info.flexible  # a field's own flexible versions; () for none
    if own is not None:
        return len(own) == 2 and own[0] <= version <= own[1]
    return flexible


class _Builder:
    """The programs of one message, memoised per struct and version and shared when alike."""

    def __init__(self, lowest_flexible: int | None) -> None:
        self.lowest_flexible = lowest_flexible
        self.built: dict[tuple[type, int], Program] = {}
        self.alike: dict[tuple[Any, ...], Program] = {}
        self.defaults: dict[type, Any] = {}

    def program(self, cls: type, version: int) -> Program:
        key = (cls, version)
        made = self.built.get(key)
        if made is None:
            made = self.built[key] = self._share(self._make(cls, version))
        return made

    def _make(self, cls: type, version: int) -> Program:
        flexible = self.lowest_flexible is not None and version >= self.lowest_flexible
        steps, tagged, absent = [], [], []
        for info in cls._FIELDS:  # type: ignore[attr-defined]
            if not info.present(version):
                absent.append((info.name, self._default_of(cls, info), not info.ignorable))
                continue
            is_tagged = flexible and info.is_tagged(version)
            child = self.program(info.struct, version) if info.struct is not None else None
            step = (
                info.name,
                _kind(info),
                _compact(info, version, flexible, is_tagged),
                info.is_nullable(version),
                child,
            )
            if is_tagged:
                tagged.append((info.tag, *step, self._default_of(cls, info)))
            else:
                steps.append(step)
        tagged.sort(key=lambda t: t[0])
        return (cls, flexible, tuple(steps), tuple(tagged), tuple(absent))

    def _default_of(self, cls: type, info: FieldInfo) -> Any:
        fresh = self.defaults.get(cls)
        if fresh is None:
            fresh = self.defaults[cls] = cls()
        return _default(getattr(fresh, info.name))

    def _share(self, program: Program) -> Program:
        # alike by identity of children and by type and value of defaults (0 == False == 0.0)
        cls, flexible, steps, tagged, absent = program
        key = (
            cls,
            flexible,
            tuple(s[:4] + (id(s[4]),) for s in steps),
            tuple(t[:5] + (id(t[5]), type(t[6]), t[6]) for t in tagged),
            tuple((a[0], type(a[1]), a[1], a[2]) for a in absent),
        )
        return self.alike.setdefault(key, program)


class Programs(Mapping[int, Program]):
    """The program of a message class at each of its versions, derived on first use (under pure
    Python nothing asks, and importing a module derives nothing)."""

    def __init__(self, message: Any) -> None:
        self._message = message
        self._programs: dict[int, Program] | None = None

    def _all(self) -> dict[int, Program]:
        if self._programs is None:
            m = self._message
            builder = _Builder(m.LOWEST_FLEXIBLE_VERSION)
            versions = range(m.LOWEST_VERSION, m.HIGHEST_VERSION + 1)
            self._programs = {v: builder.program(m, v) for v in versions}
        return self._programs

    def __getitem__(self, version: int) -> Program:
        return self._all()[version]

    def __iter__(self) -> Iterator[int]:
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._all())


def programs(message: Any) -> Programs:
    """The programs of ``message`` (a generated message class), one per version."""
    return Programs(message)
