"""Merging the schemas of several Kafka releases into one schema per message: each version in the
wire form of the release that defines it (the facts only; ``about`` texts are ours)."""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

from ..versions import NONE, Versions

VERSION_KEYS = ("versions", "nullableVersions", "taggedVersions", "flexibleVersions")
FACT_KEYS_SKIPPED = ("about",)
# Facts that do not change the bytes of a version that has the field: whether writing a
# non-default value at a version without the field is an error, what the value refers to,
# whether Kafka keys a collection by it and whether its reader may share the input buffer.
# Where the releases differ on them, the newer release's word is kept.
NOT_WIRE_KEYS = ("ignorable", "entityType", "mapKey", "zeroCopy")


class MergeError(ValueError):
    """Two releases disagree in a way the merge cannot express in one schema."""


# -- facts ---------------------------------------------------------------------------------------


def strip_about(obj):
    """The schema without any ``about`` text: the facts the project copies from Kafka."""
    if isinstance(obj, dict):
        return {k: strip_about(v) for k, v in obj.items() if k not in FACT_KEYS_SKIPPED}
    if isinstance(obj, list):
        return [strip_about(v) for v in obj]
    return obj


def vset(text, default="none") -> Versions:
    return Versions.parse(default if text is None or text == "" else text)


def _structs(schema: dict) -> dict[str, dict]:
    """Every struct by name: common structs and the structs declared inline by array/struct fields."""
    found = {c["name"]: c.get("fields", []) for c in schema.get("commonStructs", [])}

    def walk(fields):
        for f in fields:
            if "fields" in f:
                found[f["type"].removeprefix("[]")] = f["fields"]
                walk(f["fields"])

    walk(schema.get("fields", []))
    for c in schema.get("commonStructs", []):
        walk(c.get("fields", []))
    return found


def project(schema: dict, version: int) -> dict:
    """The wire facts of one version of a schema: what a peer speaking that version depends on."""
    structs = _structs(schema)
    flexible = version in vset(schema.get("flexibleVersions"))

    def fields(items, seen=()):
        out = []
        for f in items:
            versions = vset(f.get("versions") or f.get("taggedVersions"))
            if version not in versions:
                continue
            base = f["type"].removeprefix("[]")
            item = {
                k: v
                for k, v in f.items()
                if k not in VERSION_KEYS and k not in FACT_KEYS_SKIPPED and k not in NOT_WIRE_KEYS and k != "fields"
            }
            item["nullable"] = version in vset(f.get("nullableVersions"))
            item["tagged"] = version in vset(f.get("taggedVersions"))
            if item["tagged"]:
                item["tag"] = int(item["tag"])  # Kafka writes tags as 0 and as "0"
            else:
                item.pop("tag", None)
            if "flexibleVersions" in f:
                item["flexible"] = version in vset(f["flexibleVersions"])
            if item.get("default") is None:
                item.pop("default", None)
            if base in structs and base not in seen:
                item["fields"] = fields(structs[base], seen + (base,))
            out.append(item)
        return out

    return {"flexible": flexible, "fields": fields(schema.get("fields", []))}


def defined_versions(schema: dict) -> Versions:
    return vset(schema.get("validVersions"))


# -- merging -------------------------------------------------------------------------------------


@dataclass
class Merge:
    """How one message was put together, for the report."""

    name: str
    sources: list[tuple[str, str]] = field(default_factory=list)  # (release, versions)
    notes: list[str] = field(default_factory=list)


def _as_range(members: set[int], domain: Versions, open_ended: bool) -> str:
    """Kafka's notation for a set of versions that must be one run within the domain."""
    if not members:
        return "none"
    lo, hi = min(members), max(members)
    if len(members) != hi - lo + 1:
        raise MergeError(f"versions {sorted(members)} are not one run")
    if open_ended and hi == domain.highest:
        return f"{lo}+"
    return str(Versions(lo, hi))


def _merged_versions(old_text, new_text, old_part: Versions, domain: Versions, default="none") -> str | None:
    """Versions in ``old_part`` follow the old release, the rest of the domain the new one."""
    old_v, new_v = vset(old_text, default), vset(new_text, default)
    members = {v for v in range(domain.lowest, domain.highest + 1) if (v in old_v if v in old_part else v in new_v)}
    return _as_range(members, domain, new_v.open_ended or old_v.open_ended)


def _field_versions(f: dict, key: str):
    """A field's version key as Kafka reads it: versions default to taggedVersions."""
    if key == "versions" and not f.get("versions"):
        return f.get("taggedVersions")
    return f.get(key)


def _restrict(f3: dict, part: Versions, domain: Versions) -> dict:
    """A field only the old release has, limited to the versions that come from it."""
    out = copy.deepcopy(f3)
    for key in VERSION_KEYS:
        if key in f3:
            out[key] = _merged_versions(f3[key], "none", part, domain)
    if "fields" in f3:
        out["fields"] = [_restrict(s, part, domain) for s in f3["fields"] if vset(s.get("versions") or s.get("taggedVersions")).intersect(part) != NONE]
    return out


def _merge_fields(new: list[dict], old: list[dict], part: Versions, domain: Versions, path: str) -> list[dict]:
    out = copy.deepcopy(new)
    by_name = {f["name"]: f for f in out}
    old_by_name = {f["name"]: f for f in old}
    # Fields of the new release: their version keys follow the old release inside ``part``.
    for f in out:
        f3 = old_by_name.get(f["name"])
        for key in VERSION_KEYS:
            if key in f or (f3 is not None and key in f3):
                old_text = _field_versions(f3, key) if f3 is not None else None
                text = _merged_versions(old_text, _field_versions(f, key), part, domain)
                if key in f or text != "none":
                    f[key] = text
        if f3 is not None:
            if f3.get("ignorable") and not f.get("ignorable"):
                # Writing a value at a version without the field: the older versions allowed
                # dropping it, so the union does too (docs/schema-sources.md).
                f["ignorable"] = True
            old_v = vset(f3.get("versions") or f3.get("taggedVersions")).intersect(part)
            if old_v != NONE:
                for k in set(f) | set(f3):
                    if k in VERSION_KEYS or k in NOT_WIRE_KEYS or k in ("fields", "about"):
                        continue
                    if f.get(k) != f3.get(k) and not (k == "default" and {f.get(k), f3.get(k)} <= {None, ""}):
                        raise MergeError(f"{path}{f['name']}: {k} is {f3.get(k)!r} in the older release, {f.get(k)!r} in the newer")
                if "fields" in f or "fields" in f3:
                    f["fields"] = _merge_fields(f.get("fields", []), f3.get("fields", []), part, domain, f"{path}{f['name']}.")
    # Fields only the old release has (in the versions taken from it): insert after their predecessor.
    for i, f3 in enumerate(old):
        if f3["name"] in by_name:
            continue
        if vset(f3.get("versions") or f3.get("taggedVersions")).intersect(part) == NONE:
            continue
        pos = 0
        for prev in reversed(old[:i]):
            names = [f["name"] for f in out]
            if prev["name"] in names:
                pos = names.index(prev["name"]) + 1
                break
        item = _restrict(f3, part, domain)
        out.insert(pos, item)
        by_name[f3["name"]] = item
    return out


def merge(old: dict | None, new: dict | None, old_release: str, new_release: str) -> tuple[dict, Merge]:
    """One schema speaking every version either release defines, each in that release's form."""
    name = (new or old)["name"]
    report = Merge(name)
    old_v = defined_versions(old) if old else NONE
    new_v = defined_versions(new) if new else NONE
    if new is None or new_v.empty:
        report.sources.append((old_release, str(old_v)))
        if new is not None:
            report.notes.append(f"{new_release} keeps only a tombstone (validVersions none); {old_release}'s schema is used")
        return copy.deepcopy(old), report
    if old is None or old_v.empty:
        report.sources.append((new_release, str(new_v)))
        return copy.deepcopy(new), report
    if old_v.highest > new_v.highest:
        raise MergeError(f"{name}: {old_release} defines versions up to {old_v.highest}, {new_release} only up to {new_v.highest}")
    if old.get("latestVersionUnstable") and old_v.highest in new_v:
        if project(old, old_v.highest) != project(new, old_v.highest):
            report.notes.append(f"v{old_v.highest} was unstable in {old_release} and changed before its release; {new_release}'s form is used")
    for v in range(max(old_v.lowest, new_v.lowest), old_v.highest + 1):
        if v == old_v.highest and old.get("latestVersionUnstable"):
            continue
        if project(old, v) != project(new, v):
            report.notes.append(f"v{v} differs between {old_release} and {new_release}; {new_release}'s form is used")
    if old_v.lowest >= new_v.lowest:
        report.sources.append((new_release, str(new_v)))
        return copy.deepcopy(new), report
    part = Versions(old_v.lowest, new_v.lowest - 1)
    domain = Versions(old_v.lowest, new_v.highest)
    report.sources = [(old_release, str(part)), (new_release, str(new_v))]
    out = copy.deepcopy(new)
    out["validVersions"] = str(domain)
    out["flexibleVersions"] = _merged_versions(old.get("flexibleVersions"), new.get("flexibleVersions"), part, domain)
    if "deprecatedVersions" in old or "deprecatedVersions" in new:
        dep = _merged_versions(old.get("deprecatedVersions"), new.get("deprecatedVersions"), part, domain)
        if dep != "none":
            out["deprecatedVersions"] = dep
        else:
            out.pop("deprecatedVersions", None)
    try:
        out["fields"] = _merge_fields(new.get("fields", []), old.get("fields", []), part, domain, "")
        commons = {c["name"]: c for c in out.get("commonStructs", [])}
        for c3 in old.get("commonStructs", []):
            c4 = commons.get(c3["name"])
            if c4 is None:
                out.setdefault("commonStructs", []).append(_restrict(c3, part, domain))
            else:
                c4["versions"] = _merged_versions(c3.get("versions"), c4.get("versions"), part, domain, "0+")
                c4["fields"] = _merge_fields(c4.get("fields", []), c3.get("fields", []), part, domain, c4["name"] + ".")
    except MergeError as e:
        raise MergeError(f"{name}: {e}") from None
    for v in range(part.lowest, part.highest + 1):
        if project(out, v) != project(old, v):
            raise MergeError(f"{name}: merged v{v} does not match {old_release}")
    for v in range(new_v.lowest, new_v.highest + 1):
        if project(out, v) != project(new, v):
            raise MergeError(f"{name}: merged v{v} does not match {new_release}")
    return out, report


def as_coordinator_record(old: dict, kind: str, record_type: int) -> dict:
    """A 3.9 coordinator record schema ("data", its record type written as the key's version) in
    the form 4.0 gave them: type coordinator-key/-value, the record type as apiKey, the key at
    version 0. The bytes are the same: the int16 before the key was the version, now the type."""
    out = copy.deepcopy(old)
    out["type"] = kind
    items = list(out.items())
    out = {"apiKey": record_type, **dict(items)}
    if kind == "coordinator-key":
        out["validVersions"] = "0"

        def rebase(fields):
            for f in fields:
                for key in VERSION_KEYS:
                    if key in f:
                        v = vset(f[key])
                        f[key] = "none" if v.empty else ("0+" if v.open_ended else "0")
                rebase(f.get("fields", []))

        rebase(out.get("fields", []))
    return out
