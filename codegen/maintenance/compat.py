"""Schema-evolution checker: which changes between two schema trees break peers on the wire.

  python -m codegen.maintenance.compat OLD_DIR NEW_DIR [--json]

Messages are matched by name (or, when renamed, by type and api key) and compared version by
version over the versions both trees accept, recursing into nested structs by field path. A peer
built from OLD and a peer built from NEW that agree on a version must agree on every byte, so any
difference in that version's layout is a break. Exit status: 1 if anything breaks, 0 if not,
2 on a schema error. See docs/compat.md.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict, dataclass, field
from itertools import groupby
from pathlib import Path

from ..spec import FieldSpec, FieldType, MessageSpec, SchemaError, load_tree
from ..versions import Versions

# Kinds that break peers. An entry of one of these kinds can still be non-breaking when it only
# touches a version OLD marked unstable (latestVersionUnstable): such a version is not advertised
# to peers and may change freely until it is released.
BREAKING_KINDS = frozenset({
    "message-removed", "message-type-changed", "api-key-changed", "version-removed",
    "version-made-unstable", "flexible-changed", "field-added", "field-removed",
    "field-order-changed", "type-changed", "nullable-changed", "default-changed",
    "tag-changed", "tag-reused",
})  # fmt: skip


@dataclass(frozen=True)
class Change:
    message: str
    versions: str  # Kafka's notation, "3-5" or "0-2, 7"; "" for the message as a whole
    field: str  # path such as "Topics.Partitions.LeaderEpoch"; "" for the message itself
    kind: str
    old: str
    new: str
    breaking: bool
    note: str = ""  # why a break-kind change does not break (shown in text output only)

    def to_json(self) -> dict:
        d = asdict(self)
        del d["note"]
        return d


@dataclass
class Report:
    compared: int  # message pairs compared
    changes: list[Change] = field(default_factory=list)

    @property
    def breaking(self) -> list[Change]:
        return [c for c in self.changes if c.breaking]

    @property
    def compatible(self) -> list[Change]:
        return [c for c in self.changes if not c.breaking]


def _ranges(versions) -> str:
    """{0, 1, 2, 5} -> "0-2, 5"."""
    spans: list[list[int]] = []
    for v in sorted(versions):
        if spans and spans[-1][1] == v - 1:
            spans[-1][1] = v
        else:
            spans.append([v, v])
    return ", ".join(str(Versions(lo, hi)) for lo, hi in spans)


def _shape(t: FieldType) -> str:
    # Struct names are not on the wire: a renamed struct type with the same layout is the same.
    if t.is_struct:
        return "struct"
    return "[]struct" if t.is_struct_array else t.name


def _text(x) -> str:
    if isinstance(x, bool):
        return "true" if x else "false"  # as the schemas spell it
    return "none" if x is None else str(x)


def _tag(f: FieldSpec, v: int) -> str:
    return f"tag {f.tag}" if f.tagged(v) else "not tagged"


def _nullable(f: FieldSpec, v: int) -> str:
    return "nullable" if f.nullable(v) else "not nullable"


def _flexible(f: FieldSpec, message: MessageSpec) -> Versions:
    """The flexible versions that apply to one field: its own override, else the message's."""
    return f.flexible_versions if f.flexible_versions is not None else message.flexible_versions


def _default(f: FieldSpec) -> str:
    return f.default_text if f.default_text else "(type default)"


class _MessageDiff:
    """Compares one message of OLD with its counterpart in NEW."""

    def __init__(self, old: MessageSpec, new: MessageSpec, unstable=None, new_unstable=None):
        self.old, self.new = old, new
        self.unstable, self.new_unstable = unstable, new_unstable  # see _unstable_versions
        self.found: dict[tuple, set[int]] = {}  # (field, kind, old, new, breaking) -> versions
        self.direct: list[Change] = []

    def add(self, versions, path: str, kind: str, old, new, breaking: bool = True) -> None:
        for v in versions:
            key = (path, kind, _text(old), _text(new), breaking and v != self.unstable)
            self.found.setdefault(key, set()).add(v)

    def whole(self, kind: str, old, new, breaking: bool) -> None:
        self.direct.append(Change(self.old.name, "", "", kind, _text(old), _text(new), breaking))

    def run(self) -> list[Change]:
        o, n = self.old, self.new
        if o.name != n.name:
            self.whole("message-renamed", o.name, n.name, False)
        if o.type != n.type:
            self.whole("message-type-changed", o.type, n.type, True)
        if o.api_key != n.api_key:
            self.whole("api-key-changed", o.api_key, n.api_key, True)
        if o.deprecated_versions != n.deprecated_versions:
            self.whole(
                "deprecated-versions-changed", o.deprecated_versions, n.deprecated_versions, False
            )
        ov, nv = set(o.versions), set(n.versions)
        self.add(ov - nv, "", "version-removed", o.valid_versions, n.valid_versions)
        new_unstable = self.new_unstable
        shown = (
            f"{n.valid_versions} ({new_unstable} unstable)"
            if new_unstable in nv - ov
            else n.valid_versions
        )
        self.add(nv - ov, "", "versions-added", o.valid_versions, shown, False)
        if self.unstable in nv and self.unstable != new_unstable:
            self.add([self.unstable], "", "version-now-stable", "unstable", "stable", False)
        if new_unstable in ov and new_unstable != self.unstable:
            # Brokers stop advertising an unstable version: to peers it is gone.
            self.add([new_unstable], "", "version-made-unstable", "stable", "unstable")
        for v in sorted(ov & nv):
            if o.flexible(v) != n.flexible(v):
                self.add([v], "", "flexible-changed", o.flexible_versions, n.flexible_versions)
            self.struct(v, "", o.struct.fields, n.struct.fields)
        self.walk("", o.struct.fields, n.struct.fields, ov, nv)
        changes = list(self.direct)
        for (path, kind, old, new, breaking), vs in self.found.items():
            downgraded = not breaking and kind in BREAKING_KINDS
            note = f"version {self.unstable} is unstable in OLD" if downgraded else ""
            changes.append(Change(o.name, _ranges(vs), path, kind, old, new, breaking, note))
        return changes

    def struct(self, v: int, prefix: str, old_fields, new_fields) -> None:
        """One struct at version v, present in both trees."""
        old = {f.name: f for f in old_fields if f.present(v)}
        new = {f.name: f for f in new_fields if f.present(v)}
        old_tags = {f.tag: f for f in old.values() if f.tagged(v)}
        for name, a in old.items():
            if name in new:
                continue
            if not a.tagged(v):
                self.add([v], prefix + name, "field-removed", a.type, "-")
            elif not any(b.tagged(v) and b.tag == a.tag for b in new.values()):
                # Peers skip tagged fields they do not know; a reused tag is reported below.
                self.add([v], prefix + name, "tagged-field-removed", _tag(a, v), "-", False)
        for name, b in new.items():
            if name in old:
                continue
            holder = old_tags.get(b.tag) if b.tagged(v) else None
            if not b.tagged(v):
                self.add([v], prefix + name, "field-added", "-", b.type)
            elif holder is not None:
                # An old peer would read this field's bytes as the tag's former owner.
                was, now = f"{holder.name} (tag {b.tag})", f"{name} (tag {b.tag})"
                self.add([v], prefix + name, "tag-reused", was, now)
            else:
                self.add([v], prefix + name, "tagged-field-added", "-", _tag(b, v), False)
        shared = [name for name in old if name in new]
        for name in shared:
            a, b = old[name], new[name]
            if a.tagged(v) != b.tagged(v) or (a.tagged(v) and a.tag != b.tag):
                self.add([v], prefix + name, "tag-changed", _tag(a, v), _tag(b, v))
            self.field(v, prefix + name, a, b)
        # Untagged fields are read by position: a different order misreads every one after it.
        old_order = [x for x in shared if not old[x].tagged(v) and not new[x].tagged(v)]
        new_order = [x for x in new if x in old_order]
        if old_order != new_order:
            first = next(x for x, y in zip(old_order, new_order) if x != y)
            was, now = ", ".join(old_order), ", ".join(new_order)
            self.add([v], prefix + first, "field-order-changed", was, now)

    def field(self, v: int, path: str, a: FieldSpec, b: FieldSpec) -> None:
        """One field at version v, present in both trees under the same name."""
        if _shape(a.type) != _shape(b.type):
            self.add([v], path, "type-changed", a.type, b.type)
            return  # nothing else about two different types is worth comparing
        if a.nullable(v) != b.nullable(v):
            self.add([v], path, "nullable-changed", _nullable(a, v), _nullable(b, v))
        # A reader fills in the default for an omitted tagged field, and a writer omits a field
        # that equals its default: two defaults mean two values. Compare parsed ("0x10" == "16").
        if a.default != b.default:
            self.add([v], path, "default-changed", _default(a), _default(b))
        if a.flexible_versions is not None or b.flexible_versions is not None:
            fa, fb = _flexible(a, self.old), _flexible(b, self.new)
            if (v in fa) != (v in fb):  # compact or legacy length prefix for this one field
                self.add([v], path, "flexible-changed", fa, fb)
        if a.ignorable != b.ignorable:
            self.add([v], path, "ignorable-changed", a.ignorable, b.ignorable, False)
        if a.struct is not None and b.struct is not None:
            if a.struct.name != b.struct.name:
                self.add([v], path, "struct-renamed", a.struct.name, b.struct.name, False)
            self.struct(v, path + ".", a.struct.fields, b.struct.fields)

    def walk(self, prefix: str, old_fields, new_fields, ov: set[int], nv: set[int]) -> None:
        """Field version ranges that changed only outside the shared versions (informational)."""
        both = ov & nv
        old = {f.name: f for f in old_fields}
        for b in new_fields:
            path = prefix + b.name
            in_new = {v for v in nv if b.present(v)}
            a = old.get(b.name)
            if a is None:
                if in_new and not in_new & both:
                    self.add(in_new, path, "field-added-in-new-versions", "-", b.type, False)
                continue
            # Read OLD's declared range against NEW's versions: "0+" -> "0-1" drops the field from v2.
            declared = {v for v in nv if a.present(v)}
            if declared != in_new and declared & both == in_new & both:
                self.add(
                    declared ^ in_new, path, "field-versions-changed", a.versions, b.versions, False
                )
            if a.struct is not None and b.struct is not None:
                self.walk(path + ".", a.struct.fields, b.struct.fields, ov, nv)


def _unstable_versions(specs) -> dict:
    """Message name -> its unstable version, if any.

    latestVersionUnstable sits on the request but governs the API key: the response's version
    of the same number is just as unreleased.
    """
    by_key = {
        m.api_key: m.valid_versions.highest
        for m in specs
        if m.type == "request" and m.latest_version_unstable
    }
    found = {}
    for m in specs:
        v = by_key.get(m.api_key, -1)
        if m.type in ("request", "response") and v in m.valid_versions:
            found[m.name] = v
    return found


def compare_messages(
    old: MessageSpec, new: MessageSpec, old_unstable=None, new_unstable=None
) -> list[Change]:
    """Compare two specs of one message; the unstable versions come from _unstable_versions."""
    return _MessageDiff(old, new, old_unstable, new_unstable).run()


def compare_trees(old_specs, new_specs) -> Report:
    old_unstable, new_unstable = _unstable_versions(old_specs), _unstable_versions(new_specs)
    old = {m.name: m for m in old_specs}
    new = {m.name: m for m in new_specs}
    pairs = [(old[name], new[name]) for name in old if name in new]
    gone = [m for name, m in old.items() if name not in new]
    added = {name: m for name, m in new.items() if name not in old}
    # A renamed message that keeps its type and api key is the same message on the wire.
    by_key = {(m.type, m.api_key): m for m in added.values() if m.api_key is not None}
    for m in list(gone):
        twin = by_key.pop((m.type, m.api_key), None) if m.api_key is not None else None
        if twin is not None:
            pairs.append((m, twin))
            gone.remove(m)
            del added[twin.name]
    report = Report(compared=len(pairs))
    for a, b in pairs:
        report.changes += compare_messages(a, b, old_unstable.get(a.name), new_unstable.get(b.name))
    for m in gone:
        vs = m.valid_versions
        only_unstable = old_unstable.get(m.name) == vs.lowest == vs.highest
        note = "its only version was unstable" if only_unstable else ""
        gone_change = Change(
            m.name, str(vs), "", "message-removed", m.type, "-", not only_unstable, note
        )
        report.changes.append(gone_change)
    for m in added.values():
        report.changes.append(
            Change(m.name, str(m.valid_versions), "", "message-added", "-", m.type, False)
        )
    report.changes.sort(key=lambda c: c.message)  # stable: keeps each message's own order
    return report


def format_text(report: Report) -> str:
    lines: list[str] = []
    for name, group in groupby(report.changes, key=lambda c: c.message):
        rows = [
            (
                "BREAK" if c.breaking else "info",
                f"v{c.versions}" if c.versions else "all",
                c.field or "-",
                f"{c.kind}: {c.old} -> {c.new}" + (f"  ({c.note})" if c.note else ""),
            )
            for c in sorted(group, key=lambda c: not c.breaking)
        ]  # breaks first
        widths = [max(len(r[i]) for r in rows) for i in range(3)]
        lines.append(name)
        lines += [
            "  " + "  ".join(x.ljust(w) for x, w in zip(r, widths)) + "  " + r[3] for r in rows
        ]
        lines.append("")
    breaks, infos = len(report.breaking), len(report.compatible)
    lines.append(
        f"{report.compared} messages compared, {breaks} breaking changes, {infos} compatible changes"
    )
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m codegen.maintenance.compat", description=__doc__.split("\n")[0]
    )
    ap.add_argument("old", type=Path, metavar="OLD_DIR", help="schema tree before the change")
    ap.add_argument("new", type=Path, metavar="NEW_DIR", help="schema tree after the change")
    ap.add_argument("--json", action="store_true", help="print the changes as a JSON list")
    args = ap.parse_args(argv)
    trees = []
    try:
        for d in (args.old, args.new):
            specs = load_tree([d]) if d.is_dir() else []
            if not specs:  # a mistyped path must not pass as "nothing changed"
                print(f"schema error: no *.json schemas under {d}", file=sys.stderr)
                return 2
            trees.append(specs)
    except SchemaError as e:
        print(f"schema error: {e}", file=sys.stderr)
        return 2
    report = compare_trees(*trees)
    if args.json:
        print(json.dumps([c.to_json() for c in report.changes], indent=2))
    else:
        print(format_text(report))
    return 1 if report.breaking else 0


if __name__ == "__main__":
    sys.exit(main())
