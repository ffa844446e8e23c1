"""Name and key lookups over a set of generated message modules.

A registry refuses two messages with the same name, two requests (or responses) with the same
api key and two records with the same record type in one key space, so a schema tree that reuses a
key fails loudly when it is generated and again when it is loaded. Key spaces: "" holds Kafka's
RPCs and the KRaft metadata records; the records of the remote-log metadata topic ("storage") and
of each coordinator's internal topic ("group-coordinator", "transaction-coordinator",
"share-coordinator") are numbered from 0 again in spaces of their own.

A registry can extend another (``base``, named by its package): it answers from its own entries
first and from the base for the rest, so a design that gives Kafka's numbers other meanings (the
diskless batch coordinator's api keys 93-99 and record type 29) lives beside Kafka's registry
without changing what Kafka's numbers mean there.
"""

from __future__ import annotations

import difflib
import importlib
from collections.abc import Iterable
from typing import TYPE_CHECKING, Union

if TYPE_CHECKING:
    from .message import Message

# (message name, module name, message type, api key or None[, key space])
Entry = Union[tuple[str, str, str, Union[int, None]], tuple[str, str, str, Union[int, None], str]]

KEYED_TYPES = ("request", "response", "metadata", "coordinator-key", "coordinator-value")


class DuplicateKeyError(ValueError):
    """Two schemas claim the same name, api key or record type."""


class Registry:
    """The messages of one generated package, looked up by name, api key or record type."""

    def __init__(self, package: str, entries: Iterable[Entry], base: str | None = None, title: str | None = None):
        """``entries``: (message name, module name, message type, api key or None[, key space]).
        ``base``: the package whose ``REGISTRY`` answers what these entries do not define (its
        names and keys stay reachable unless an entry here claims them); ``title``: how errors
        and tools name this registry."""
        self.package = package
        self.title = title or package
        self._base_package = base
        self._base: Registry | None = None
        self._names: set[str] | None = None  # with the base's, made on first use
        self._merged_keys: dict[tuple[str, str, int], str] | None = None
        self._modules: dict[str, str] = {}
        self._keys: dict[tuple[str, str, int], str] = {}
        self._types: dict[str, str] = {}
        self._spaces: dict[str, str] = {}
        self._classes: dict[str, type[Message]] = {}
        for name, module, mtype, api_key, *rest in entries:
            scope = rest[0] if rest else ""
            if name in self._modules:
                raise DuplicateKeyError(f"message name {name} is defined twice")
            self._modules[name] = module
            self._types[name] = mtype
            self._spaces[name] = scope
            if mtype in KEYED_TYPES and api_key is not None:
                key = (mtype, scope, api_key)
                if key in self._keys:
                    what = f"{mtype} api key" if mtype in ("request", "response") else "record type"
                    raise DuplicateKeyError(f"{what} {api_key} is claimed by both {self._keys[key]} and {name}")
                self._keys[key] = name

    @property
    def base(self) -> Registry | None:
        """The registry this one extends (imported on first use), or None."""
        if self._base is None and self._base_package is not None:
            self._base = importlib.import_module(self._base_package).REGISTRY
        return self._base

    def _known_names(self) -> set[str]:
        """Names this registry answers for, its base's included."""
        if self._names is None:
            base = self.base
            self._names = set(self._modules) | (base._known_names() if base is not None else set())
        return self._names

    def names(self) -> list[str]:
        return sorted(self._known_names())

    def own_names(self) -> list[str]:
        """The names this registry defines itself, without its base's."""
        return sorted(self._modules)

    def message_type(self, name: str) -> str:
        if name not in self._types and self.base is not None:
            return self.base.message_type(name)
        return self._types[name]

    def key_space(self, name: str) -> str:
        """The key space of a message's api key or record type ("" for RPCs and KRaft records)."""
        if name not in self._spaces and self.base is not None:
            return self.base.key_space(name)
        return self._spaces[name]

    def message_class(self, name: str) -> type[Message]:
        """The class for a schema name (``FetchRequest``, ``TopicRecord``...)."""
        cls = self._classes.get(name)
        if cls is None:
            module = self._modules.get(name)
            if module is None:
                if self.base is not None and name in self.base._known_names():
                    cls = self._classes[name] = self.base.message_class(name)  # asked per request
                    return cls
                raise KeyError(f"no message named {name!r} in {self.package}{self._suggest(name)}")
            cls = getattr(importlib.import_module(f"{self.package}.{module}"), name)
            self._classes[name] = cls
        return cls

    def _suggest(self, name: str) -> str:
        """``; did you mean 'FetchRequest'?`` for a near miss, by spelling or by case."""
        names = list(self._known_names())
        by_case = {n.lower(): n for n in names}
        close = ([by_case[name.lower()]] if str(name).lower() in by_case else []) or difflib.get_close_matches(
            str(name), names, n=3, cutoff=0.75)  # fmt: skip
        return f"; did you mean {' or '.join(map(repr, close))}?" if close else ""

    def _keyed(self, mtype: str, key: int, scope: str = "") -> type[Message]:
        name = self._keys.get((mtype, scope, key))
        if name is None and self.base is not None and (mtype, scope, key) in self.base._all_keys():
            return self.base._keyed(mtype, key, scope)
        if name is None:
            what = f"{mtype} for api key" if mtype in ("request", "response") else f"{scope} {mtype} record type".strip()
            raise KeyError(f"no {what} {key} in {self.package}")
        return self.message_class(name)

    def request_class(self, api_key: int) -> type[Message]:
        return self._keyed("request", api_key)

    def response_class(self, api_key: int) -> type[Message]:
        return self._keyed("response", api_key)

    def record_class(self, record_type: int, scope: str = "") -> type[Message]:
        """A KRaft metadata record (or, with scope="storage", a remote-log metadata record)."""
        return self._keyed("metadata", record_type, scope)

    def coordinator_classes(self, scope: str, record_type: int) -> tuple[type[Message], type[Message]]:
        """The key and value classes of a coordinator record type in ``scope`` (e.g.
        "group-coordinator"): the type is the int16 that starts the record's key."""
        return self._keyed("coordinator-key", record_type, scope), self._keyed("coordinator-value", record_type, scope)

    def _all_keys(self) -> dict[tuple[str, str, int], str]:
        """(message type, key space, key) -> name, the base's keys under this registry's own."""
        if self._merged_keys is None:
            base = self.base
            self._merged_keys = {**base._all_keys(), **self._keys} if base is not None else self._keys
        return self._merged_keys

    def name_of(self, mtype: str, key: int, scope: str = "") -> str | None:
        """The message a (message type, key) names here, or None: ``name_of("metadata", 29)``."""
        return self._all_keys().get((mtype, scope, key))

    def api_keys(self) -> list[int]:
        return sorted(k for (t, _, k) in self._all_keys() if t == "request")

    def record_types(self) -> list[int]:
        return sorted(k for (t, scope, k) in self._all_keys() if t == "metadata" and not scope)
