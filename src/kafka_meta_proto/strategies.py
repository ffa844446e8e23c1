"""Hypothesis strategies for every message class and version, built from the schema facts the
generator stores on each class (``_FIELDS``), so they work for any generated package.

    from hypothesis import given
    from kafka_meta_proto.strategies import messages

    @given(messages(FetchRequest, 13))
    def test_round_trip(msg): ...

Values are valid for the version: only the fields it has, full integer ranges, any Unicode text,
null only where the version allows it, arrays of varied length, tagged fields sometimes at their
default and sometimes not, and (in flexible versions) unknown tagged fields sometimes.
``st.from_type(FetchRequest)`` gives messages valid at the class's highest version.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any, cast

from .extras import missing_extra

try:
    from hypothesis import strategies as st
except ModuleNotFoundError as exc:  # one line saying what to install, not a bare import error
    raise missing_extra("kafka_meta_proto.strategies", exc) from None

from .schema_info import FieldInfo
from .uuid import Uuid

if TYPE_CHECKING:
    from .message import Message
    from .registry import Registry

# A generated message or struct class (a struct class has no base class of ours).
StructClass = type[Any]

from .schema_info import INT_RANGES as INT_BOUNDS

MAX_ARRAY = 4  # keeps examples small; hypothesis still explores empty, one and several
# Arrays inside a nested struct hold at most this many: the size of a message grows as the
# product of its nested arrays' sizes, and deep trees (a group's members, their topics, their
# partitions) made examples of many kilobytes, slow to draw, with no encoding path the smaller
# ones miss.
MAX_NESTED_ARRAY = 2


def _primitive(type_name: str) -> st.SearchStrategy:
    if type_name in INT_BOUNDS:
        lo, hi = INT_BOUNDS[type_name]
        return st.integers(lo, hi)
    if type_name == "bool":
        return st.booleans()
    if type_name == "float64":
        # NaN never equals itself, which would break equality-based round trips.
        return st.floats(allow_nan=False)
    if type_name == "string":
        return st.text(max_size=20)
    if type_name in ("bytes", "records"):
        return st.binary(max_size=40)
    if type_name == "uuid":
        return st.binary(min_size=16, max_size=16).map(Uuid)
    raise ValueError(f"unknown primitive type {type_name}")


def _value(f: FieldInfo, version: int, flexible: bool, depth: int) -> st.SearchStrategy:
    if f.struct is not None:
        element = struct_values(f.struct, version, flexible, depth + 1)
    else:
        element = _primitive(f.element_type)
    if f.is_array:
        element = st.lists(element, max_size=MAX_ARRAY if depth == 0 else MAX_NESTED_ARRAY)
    if f.is_nullable(version):
        element = st.none() | element
    return element


def _unknown_tags(cls: StructClass, version: int) -> st.SearchStrategy:
    known = {f.tag for f in cls._FIELDS if f.tag is not None}
    first = max(known, default=-1) + 1
    tag = st.tuples(st.integers(first, first + 40), st.binary(max_size=8))
    return st.lists(tag, max_size=3, unique_by=lambda t: t[0]).map(lambda ts: tuple(sorted(ts)))


@functools.lru_cache(maxsize=None)
def struct_values(
    cls: StructClass, version: int, flexible: bool, depth: int = 0
) -> st.SearchStrategy:
    """Instances of a generated struct class valid at ``version``."""
    kwargs: dict[str, st.SearchStrategy] = {}
    for f in cls._FIELDS:
        if not f.present(version):
            continue
        value = _value(f, version, flexible, depth)
        if f.is_tagged(version) and flexible:
            default = getattr(cls(), f.name)
            value = st.just(default) | value  # tagged fields: sometimes left at the default
        kwargs[f.name] = value
    if flexible:
        kwargs["unknown_tagged_fields"] = st.just(()) | _unknown_tags(cls, version)
    return st.builds(cls, **kwargs)


def messages(cls: type[Message], version: int | None = None) -> st.SearchStrategy:
    """Messages of a generated message class, valid at ``version`` (default: the highest)."""
    if version is None:
        version = cls.HIGHEST_VERSION
    if version not in cls.versions():
        raise ValueError(f"{cls.NAME} has no version {version}")
    # lru_cache's arguments must be hashable: a class is, though mypy judges type[Message] by
    # its instances' __hash__ (None: messages are mutable dataclasses); as a plain type it passes.
    return struct_values(cast(type, cls), version, cls.is_flexible(version))


def versioned_messages(cls: type[Message]) -> st.SearchStrategy:
    """(version, message) pairs over every version of the class."""
    return st.sampled_from(list(cls.versions())).flatmap(
        lambda v: st.tuples(st.just(v), messages(cls, v))
    )


def register_type_strategies(registry: Registry) -> None:
    """Make ``st.from_type(Cls)`` work for every message class of a registry."""
    for name in registry.names():
        cls = registry.message_class(name)
        st.register_type_strategy(cls, messages(cls))


def _register_own() -> None:
    from .messages import REGISTRY

    register_type_strategies(REGISTRY)


_register_own()
