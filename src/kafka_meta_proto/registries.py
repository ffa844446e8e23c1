"""The registries the package ships, chosen by name, and what a user is told where two of them give
one number two meanings.

- ``kafka`` (the default everywhere): exactly what Apache Kafka's releases define, 3.9 to 4.4.
- ``diskless``: the diskless batch-coordinator design (KIP-1164) over Kafka's: its RPCs (api keys
  93-99), its metadata record (type 29) and FindCoordinator v7, with Kafka's registry answering the
  rest. Kafka 4.4 gives api keys 93 and 94 and record type 29 meanings of its own, so a reader must
  be told which registry it reads with.

Files that ``simulate --diskless`` writes carry a marker (``MARKER``) next to the metadata log, so
the tools reading them pick the diskless registry without being told.
"""

from __future__ import annotations

import importlib
import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Union

from .registry import Registry

if TYPE_CHECKING:
    import argparse

    from .message import Message

KAFKA = "kafka"
DISKLESS = "diskless"
PACKAGES = {KAFKA: "kafka_meta_proto.messages", DISKLESS: "kafka_meta_proto.diskless_messages"}
# How a user asks for each: in the API, and on the command line.
HOW_TO_CHOOSE = {
    KAFKA: "the default (registry=kafka_meta_proto.REGISTRY; --registry kafka on the tools)",
    DISKLESS: "registry=kafka_meta_proto.DISKLESS_REGISTRY in the API, --diskless on the tools",
}
# A file in a cluster directory (or a metadata log directory) naming the registry its records need.
MARKER = "kafka-meta-proto.registry"

RegistryLike = Union[Registry, str, None]


def named(name: str) -> Registry:
    """The registry shipped under ``name`` ("kafka" or "diskless")."""
    try:
        package = PACKAGES[name]
    except KeyError:
        raise ValueError(f"no registry named {name!r}; choose one of {', '.join(PACKAGES)}") from None
    registry: Registry = importlib.import_module(package).REGISTRY
    return registry


def resolve(registry: RegistryLike) -> Registry:
    """A registry from a registry, a shipped registry's name, or None (Kafka's)."""
    if registry is None:
        return named(KAFKA)
    if isinstance(registry, str):
        return named(registry)
    return registry


def name_of(registry: RegistryLike) -> str:
    """The shipped name of a registry ("kafka", "diskless"), for settings that travel as text."""
    if registry is None:
        return KAFKA
    if isinstance(registry, str):
        named(registry)  # refuses an unknown name
        return registry
    for name, package in PACKAGES.items():
        if registry.package == package:
            return name
    raise ValueError(f"{registry.package} is not a registry the package ships; pass the registry itself")


def clash_note(registry: RegistryLike, mtype: str, key: int, scope: str = "") -> str:
    """What to tell a user whose ``key`` (an api key for mtype "request"/"response", a record type
    for "metadata") means something else in another shipped registry; "" when it does not."""
    registry = resolve(registry)
    mine = registry.name_of(mtype, key, scope)
    what = "api key" if mtype in ("request", "response") else "record type"
    for name in PACKAGES:
        other = named(name)
        if other is registry:
            continue
        theirs = other.name_of(mtype, key, scope)
        if theirs is None or theirs == mine:
            continue
        here = f"is {mine}" if mine else "means nothing"
        return (f"{what} {key} {here} in the registry of {registry.title} but {theirs} in the registry of "
                f"{other.title}; if the data comes from there, read it with that registry: {HOW_TO_CHOOSE[name]}")  # fmt: skip
    return ""


def explain(error: Exception, registry: RegistryLike, mtype: str, key: int, scope: str = "") -> Exception:
    """The error with the clash note added to its reason, when there is one."""
    note = clash_note(registry, mtype, key, scope)
    if note and hasattr(error, "reason") and note not in error.reason:
        error.reason = f"{error.reason}; {note}"
        error.args = (error.reason,)
    return error


def qualified_names() -> list[str]:
    """Every class the package ships, once: Kafka's registry's names, then each other registry's
    own names prefixed with its name (``diskless:CommitBatchesRequest``); ``qualified_class``
    turns one back into its class. For tools and tests that go over everything."""
    names = named(KAFKA).names()
    for name in PACKAGES:
        if name != KAFKA:
            names += [f"{name}:{n}" for n in named(name).own_names()]
    return names


def qualified_class(name: str) -> type[Message]:
    """The class of a name ``qualified_names`` gives (a bare name is Kafka's)."""
    registry, _, message = name.rpartition(":")
    return named(registry or KAFKA).message_class(message)


def for_path(path: str | os.PathLike[str]) -> str | None:
    """The registry name a marker names for a file or directory (looked for in the directory itself
    and in the two above it: a segment, its log directory, the cluster directory), or None."""
    here = Path(path)
    if not here.is_dir():
        here = here.parent
    for directory in (here, *list(here.parents)[:2]):
        marker = directory / MARKER
        try:
            text = marker.read_text(encoding="utf-8").strip()
        except OSError:
            continue
        if text not in PACKAGES:
            raise ValueError(f"{marker} names no registry this package ships: {text!r}")
        return text
    return None


def for_paths(paths: Iterable[str | os.PathLike[str]], chosen: str | None = None) -> str:
    """The registry a tool reads ``paths`` with: the one chosen on its command line, else the one
    their markers name (they must agree), else Kafka's."""
    if chosen:
        return chosen
    found = {p: for_path(p) for p in paths}
    names = {n for n in found.values() if n}
    if len(names) > 1:
        raise ValueError("the inputs' markers name different registries: "
                         + ", ".join(f"{p} -> {n}" for p, n in found.items() if n))  # fmt: skip
    return names.pop() if names else KAFKA


def write_marker(directory: str | os.PathLike[str], name: str) -> Path:
    """Mark ``directory`` as holding records of registry ``name``."""
    named(name)
    path = Path(directory) / MARKER
    path.write_text(name + "\n", encoding="utf-8")
    return path


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """``--registry NAME`` and its short form ``--diskless`` for a tool that reads or writes metadata."""
    group = parser.add_mutually_exclusive_group()
    group.add_argument("--registry", choices=sorted(PACKAGES), default=None,
                       help="the message registry to read records with (default: the one the input's "
                       f"{MARKER} marker names, else kafka: Apache Kafka's numbers)")  # fmt: skip
    group.add_argument("--diskless", dest="registry", action="store_const", const=DISKLESS,
                       help="read with the diskless design's registry (record type 29 and api keys 93-99 "
                       "as KIP-1164 gives them); the same as --registry diskless")  # fmt: skip
