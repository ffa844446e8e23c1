"""``python -m codegen.maintenance.refresh``: rebuild schemas/kafka/ from the schemas inside
Kafka's jars.

  python -m codegen.maintenance.refresh              merge every release under kafka/*/pom.xml
                                                     into schemas/kafka/, print what changed
                                                     (codegen.maintenance.compat), regenerate
  python -m codegen.maintenance.refresh --dry-run    print the merge report and the changes,
                                                     write nothing
  python -m codegen.maintenance.refresh --newer      ask Maven Central which Kafka releases exist
                                                     beyond the pinned lines (codegen.releases)
  python -m codegen.maintenance.refresh --try 4.5.0  merge with 4.5.0 in place of the line it
                                                     would replace (--replace LINE|none to
                                                     choose) in a temporary folder and print
                                                     what the move would change; writes nothing

Each release line (``kafka/RELEASE/pom.xml``, resolved by ``tools/setup.sh``) contributes the JSON
schemas packed in Kafka's own jars. One file per message speaks the union of the versions the
releases define: the newest release's schema is the base; versions only an older release defines
are added back with exactly that release's wire form (fields, nullability, tags, flexibility
re-added or widened as needed). Only facts are taken from Kafka: names, types, versions, tags,
defaults, entity types and the other keys of the format. Kafka's ``about`` texts and comments are
never copied; the descriptions already in schemas/kafka/ are kept by field path, new fields get
none. See docs/schema-sources.md.
"""

from __future__ import annotations

import argparse
import copy
import importlib.util
import json
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from .. import jsonc
from .. import releases as rel
from ..versions import MAX_VERSION, NONE, Versions

ROOT = Path(__file__).resolve().parents[2]
TARGET = ROOT / "schemas" / "kafka"
ORACLE = ROOT / "tools" / "kafka_oracle.py"

# Kafka jar (artifact id) -> our folder under schemas/kafka/ ("" = the folder itself). The folder
# name is also the key space of the jar's record types (codegen.spec.KEY_SCOPES).
JAR_FOLDERS = {
    "kafka-clients": "",
    "kafka-metadata": "",
    "kafka-raft": "",
    "kafka-storage": "storage",
    "kafka-group-coordinator": "group-coordinator",
    "kafka-transaction-coordinator": "transaction-coordinator",
    "kafka-share-coordinator": "share-coordinator",
}
# A message renamed between releases: old name -> new name (same api key, same wire form).
RENAMED = {
    "ListClientMetricsResourcesRequest": "ListConfigResourcesRequest",
    "ListClientMetricsResourcesResponse": "ListConfigResourcesResponse",
}
VERSION_KEYS = ("versions", "nullableVersions", "taggedVersions", "flexibleVersions")
FACT_KEYS_SKIPPED = ("about",)
# Facts that do not change the bytes of a version that has the field: whether writing a
# non-default value at a version without the field is an error, what the value refers to,
# whether Kafka keys a collection by it and whether its reader may share the input buffer.
# Where the releases differ on them, the newer release's word is kept.
NOT_WIRE_KEYS = ("ignorable", "entityType", "mapKey", "zeroCopy")
HEADER = "// kafka_meta_proto schema: wire facts from Apache Kafka {sources}; descriptions are ours."


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


# -- sources -------------------------------------------------------------------------------------


def _oracle():
    """tools/kafka_oracle.py: where Kafka's jars are and which releases the project follows."""
    if "kafka_oracle" not in sys.modules:
        spec = importlib.util.spec_from_file_location("kafka_oracle", ORACLE)
        module = importlib.util.module_from_spec(spec)
        sys.modules["kafka_oracle"] = module
        spec.loader.exec_module(module)
    return sys.modules["kafka_oracle"]


def release_schemas(release: str, files=None) -> dict[str, tuple[str, dict]]:
    """name -> (our folder, schema) for every schema in Kafka ``release``'s jars; ``files``, pairs
    of (jar file name, schema text), stands for jars that are not a pinned line's (--try)."""
    if files is None:
        files = ((f.jar, f.text) for f in _oracle().schema_files(release))
    out = {}
    for jar, text in files:
        artifact = jar.rsplit("-", 1)[0]
        if artifact not in JAR_FOLDERS:
            raise MergeError(f"{jar} holds schemas but has no folder in JAR_FOLDERS")
        schema = json.loads(jsonc.strip_comments(text))
        out[schema["name"]] = (JAR_FOLDERS[artifact], schema)
    return out


def merge_releases(
    releases: list[str], read=release_schemas
) -> tuple[dict[str, tuple[str, dict]], list[Merge]]:
    """Fold the release lines, oldest first, into one schema per message (``read``: a release's
    schemas, as release_schemas gives them)."""
    merged: dict[str, tuple[str, dict]] = {}
    reports: dict[str, Merge] = {}
    previous = None
    for release in releases:
        current = read(release)
        if previous is None:
            merged = current
            reports = {n: Merge(n, [(release, str(defined_versions(s)))]) for n, (_, s) in current.items()}
            previous = release
            continue
        # 3.9 coordinator records: their record type was the key's version; match 4.x's shape.
        record_types = {}
        for name, (folder, schema) in list(merged.items()):
            if folder.endswith("coordinator") and schema["type"] == "data" and name.endswith("Key"):
                record_types[name[: -len("Key")]] = defined_versions(schema).lowest
        for name, (folder, schema) in list(merged.items()):
            if folder.endswith("coordinator") and schema["type"] == "data":
                base, kind = (name[:-3], "coordinator-key") if name.endswith("Key") else (name[:-5], "coordinator-value")
                if name in current or (name == "OffsetCommitKey"):
                    del merged[name]  # the newer release defines it (OffsetCommitKey: split in two)
                    continue
                merged[name] = (folder, as_coordinator_record(schema, kind, record_types[base]))
                reports[name].notes.append(f"{previous}'s record type {record_types[base]} in the coordinator-record form of {release}")
        for old_name, new_name in RENAMED.items():
            if old_name in merged and new_name in current:
                folder, schema = merged.pop(old_name)
                schema = {**schema, "name": new_name}
                merged[new_name] = (folder, schema)
                reports.pop(old_name, None)
                reports[new_name] = Merge(new_name, notes=[f"{old_name} in {previous}"])
        for name in sorted(set(merged) | set(current)):
            folder_old, old = merged.get(name, (None, None))
            folder_new, new = current.get(name, (None, None))
            if folder_old is not None and folder_new is not None and folder_old != folder_new:
                raise MergeError(f"{name} moved from {folder_old or 'kafka'} to {folder_new or 'kafka'}")
            schema, report = merge(old, new, previous, release)
            earlier = reports.get(name)
            if earlier is not None and old is not None:
                report.notes = earlier.notes + report.notes
            reports[name] = report
            merged[name] = (folder_new if folder_new is not None else folder_old, schema)
        previous = release
    return merged, [reports[n] for n in sorted(merged)]


# -- our descriptions and the file text ----------------------------------------------------------


def descriptions(schema: dict) -> dict[tuple, str]:
    """Our ``about`` texts by path: ("",) for the message, field names down the tree."""
    found = {}
    if "about" in schema:
        found[("",)] = schema["about"]

    def walk(fields, path):
        for f in fields:
            here = path + (f["name"],)
            if "about" in f:
                found[here] = f["about"]
            walk(f.get("fields", []), here)

    walk(schema.get("fields", []), ())
    for c in schema.get("commonStructs", []):
        if "about" in c:
            found[("common", c["name"])] = c["about"]
        walk(c.get("fields", []), ("common", c["name"]))
    return found


def apply_descriptions(schema: dict, about: dict[tuple, str]) -> dict:
    """The facts with our texts put back where a field of the same path had one."""
    schema = strip_about(schema)

    def place(obj, key):
        if key in about:
            obj["about"] = about[key]

    def walk(fields, path):
        for f in fields:
            here = path + (f["name"],)
            place(f, here)
            walk(f.get("fields", []), here)

    place(schema, ("",))
    walk(schema.get("fields", []), ())
    for c in schema.get("commonStructs", []):
        place(c, ("common", c["name"]))
        walk(c.get("fields", []), ("common", c["name"]))
    return schema


def _wrap(parts: list[str], indent: str, width: int = 100) -> str:
    """Join ``"key": value`` parts with ", ", starting a new line (indented) before a part that would
    pass the width, as the hand-written schemas do."""
    lines, line = [], indent + "{ "
    for i, part in enumerate(parts):
        piece = part + ("," if i < len(parts) - 1 else "")
        if line.strip() not in ("{", "") and len(line) + len(piece) + 1 > width:
            lines.append(line.rstrip())
            line = indent + "  "
        line += piece + " "
    lines.append(line.rstrip())
    return "\n".join(lines)


def _object_text(obj: dict, indent: str) -> str:
    """One field (or struct) per entry; nested fields on the lines below, as Kafka writes them."""
    parts = [f"{json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}" for k, v in obj.items() if k != "fields"]
    if "fields" not in obj:
        return _wrap(parts, indent) + " }"
    inner = ",\n".join(_object_text(f, indent + "  ") for f in obj["fields"])
    return _wrap(parts + ['"fields": ['], indent) + f"\n{inner}\n{indent}]}}"


def render(schema: dict, header: str, notes: list[str]) -> str:
    lines = [header, "{"]
    items = list(schema.items())
    for i, (k, v) in enumerate(items):
        comma = "," if i < len(items) - 1 else ""
        if k == "validVersions":
            lines.extend(notes)
        if k in ("fields", "commonStructs"):
            inner = ",\n".join(_object_text(f, "    ") for f in v)
            lines.append(f'  "{k}": [\n{inner}\n  ]{comma}' if v else f'  "{k}": []{comma}')
        else:
            lines.append(f"  {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}{comma}")
    lines.append("}")
    return "\n".join(lines) + "\n"


def version_notes(text: str) -> list[str]:
    """Our own comment lines between the header and validVersions (the version history)."""
    lines = text.splitlines()
    out = []
    for line in lines[1:]:
        stripped = line.strip()
        if stripped.startswith('"validVersions"'):
            break
        if stripped.startswith("//"):
            out.append(line)
    return out


def source_text(report: Merge) -> str:
    return " and ".join(f"{release} (versions {versions})" for release, versions in report.sources)


def write_tree(merged: dict[str, tuple[str, dict]], reports: list[Merge], target: Path) -> list[Path]:
    """Write every merged schema under ``target``, keeping our descriptions; remove files no
    release defines any more. Returns the files written or removed."""
    by_name = {r.name: r for r in reports}
    existing = {}
    for path in target.rglob("*.json"):
        try:
            existing[jsonc.load(path)["name"]] = path
        except (ValueError, KeyError):
            continue
    touched = []
    keep = set()
    for name, (folder, schema) in sorted(merged.items()):
        path = target / folder / f"{name}.json"
        old_path = existing.get(name, path)
        old_text = old_path.read_text(encoding="utf-8") if old_path.exists() else ""
        about = descriptions(json.loads(jsonc.strip_comments(old_text))) if old_text else {}
        header = HEADER.format(sources=source_text(by_name[name]))
        text = render(apply_descriptions(schema, about), header, version_notes(old_text) if old_text else [])
        if old_text and strip_about(json.loads(jsonc.strip_comments(old_text))) == strip_about(schema) and old_path == path:
            # Same facts: keep the file as we wrote it, only the header names the new sources.
            first, _, rest = old_text.partition("\n")
            text = header + "\n" + rest if first.startswith("// kafka_meta_proto schema:") else old_text
        keep.add(path)
        if old_text != text or old_path != path:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            touched.append(path)
        if old_path != path and old_path.exists():
            old_path.unlink()
    for path in existing.values():
        if path not in keep and path.exists():
            path.unlink()
            touched.append(path)
    return touched


# -- the command ---------------------------------------------------------------------------------


def unfetched(releases: list[str]) -> str | None:
    """Why a release line's jars cannot be read here, or None when all of them can."""
    oracle = _oracle()
    for release in releases:
        reason = oracle.missing(release)
        if reason and not (oracle.CACHE / release / "classpath.txt").exists():
            return f"Kafka {release}: {reason}"
    return None


def print_notes(merged: dict, reports: list[Merge], releases: list[str]) -> None:
    print(f"{len(merged)} schemas from Kafka {', '.join(releases)}")
    for r in reports:
        for note in r.notes:
            print(f"  {r.name}: {note}")


def print_changes(before: Path, merged: dict, reports: list[Merge], out: Path) -> None:
    """Write the merge under ``out`` and print what changed from the tree ``before``."""
    from .compat import main as compat_main

    touched = write_tree(merged, reports, out)
    print(f"{len(touched)} schema files written or removed under {out}")
    print("changes (python -m codegen.maintenance.compat):")
    sys.stdout.flush()
    compat_main([str(before), str(out)])


def show_newer(repository: str) -> int:
    """--newer: the releases Maven Central has beyond the pinned lines, and the artifacts of each
    line's pom a candidate is not published with."""
    oracle = _oracle()
    pinned = oracle.releases()
    repo = rel.Repository(repository)
    available = repo.kafka_releases()
    print(
        f"{repository}: {len(available)} releases of kafka-clients (pre-releases left out),"
        f" the newest {available[-1]}"
    )
    found = rel.candidates(pinned, available)

    def listed(versions: list[str], pom_of: str) -> str:
        artifacts = rel.kafka_artifacts((oracle.POMS / pom_of / "pom.xml").read_text())
        out = []
        for v in versions:
            gone = repo.missing(artifacts, v)
            out.append(f"{v} (not published: {', '.join(gone)})" if gone else v)
        return ", ".join(out)

    for release, patches in found.patches.items():
        minor = ".".join(map(str, rel.line(release)))
        if patches:
            print(f"kafka/{release}: newer {minor} patches: {listed(patches, release)}")
        else:
            print(f"kafka/{release}: no newer {minor} release")
    if found.beyond:
        print(f"beyond {pinned[-1]}: {listed(found.beyond, pinned[-1])}")
    else:
        print(f"beyond {pinned[-1]}: no newer minor or major release")
    newest = [vs[-1] for vs in found.patches.values() if vs] + found.beyond[-1:]
    if newest:
        print(f"what a move would change: python -m codegen.maintenance.refresh --try {newest[-1]}")
    return 0


def try_release(
    candidate: str, pinned: list[str], repository: str, replace: str | None = ""
) -> int:
    """--try: merge the release lines with ``candidate`` in place of the line it would replace
    (``replace``: that line, None for beside them, "" for releases.replaced_line's choice) and print
    the merge notes and what changes from the merge of the pinned lines. Writes only to a
    temporary folder: the candidate's pom, classpath and Maven log, and both merged trees."""
    oracle = _oracle()
    if not rel.is_release(candidate):
        print(f"{candidate} is not a release version (pre-releases are not tried)", file=sys.stderr)
        return 2
    if candidate in pinned:
        print(f"Kafka {candidate} is pinned already (kafka/{candidate}/pom.xml)", file=sys.stderr)
        return 2
    if replace == "":
        replace = rel.replaced_line(candidate, pinned)
    if replace is not None and replace not in pinned:
        print(
            f"--replace {replace}: not a pinned release line ({', '.join(pinned)})", file=sys.stderr
        )
        return 2
    repo = rel.Repository(repository)
    if candidate not in repo.kafka_releases():
        print(
            f"{repository} lists no release {candidate} of kafka-clients"
            " (pre-releases are not tried)",
            file=sys.stderr,
        )
        return 2
    reason = unfetched(pinned)
    if reason:
        print(reason, file=sys.stderr)
        return 2
    template = replace or pinned[-1]
    pom_text = (oracle.POMS / template / "pom.xml").read_text()
    gone = repo.missing(rel.kafka_artifacts(pom_text), candidate)
    lines = sorted([r for r in pinned if r != replace] + [candidate], key=rel.key)
    place = f"in place of {replace}" if replace else f"beside {', '.join(pinned)}"
    print(f"trying Kafka {candidate} {place}: release lines {', '.join(lines)}")
    print(
        f"pom: kafka/{template}/pom.xml at {candidate}"
        + (f", left out (not published at {candidate}): {', '.join(gone)}" if gone else "")
    )
    with tempfile.TemporaryDirectory(prefix="kafka-try-") as tmp:
        folder = Path(tmp) / candidate
        folder.mkdir()
        pom = folder / "pom.xml"
        pom.write_text(rel.rewrite_pom(pom_text, candidate, gone))
        files = list(rel.jar_schema_texts(rel.resolve(pom, folder)))
        try:
            pinned_merge = merge_releases(pinned)
            merged, reports = merge_releases(
                lines, lambda r: release_schemas(r, files if r == candidate else None)
            )
        except MergeError as e:
            print(f"cannot merge: {e}", file=sys.stderr)
            return 2
        print_notes(merged, reports, lines)
        before, after = Path(tmp) / "pinned" / "kafka", Path(tmp) / "moved" / "kafka"
        for tree in (before, after):
            shutil.copytree(TARGET, tree)
        write_tree(*pinned_merge, before)
        print(
            f"compared with the merge of the pinned lines ({', '.join(pinned)});"
            f" nothing under {TARGET} is written"
        )
        print_changes(before, merged, reports, after)
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m codegen.maintenance.refresh", description=__doc__.split("\n\n")[0]
    )
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument(
        "--dry-run", action="store_true", help="report the merge and the changes, write nothing"
    )
    mode.add_argument(
        "--newer",
        action="store_true",
        help="list the Kafka releases Maven Central has beyond the pinned lines",
    )
    mode.add_argument(
        "--try",
        dest="candidate",
        metavar="RELEASE",
        help="say what moving to Kafka RELEASE would change (writes nothing)",
    )
    ap.add_argument(
        "--replace",
        metavar="LINE",
        default="",
        help="with --try: the pinned line RELEASE takes the place of, or 'none' to add it beside"
        " them (default: the same minor line, else the newest line of the same major, else none)",
    )
    ap.add_argument(
        "--repository",
        default=rel.CENTRAL,
        metavar="URL",
        help="the Maven repository asked (default: Maven Central)",
    )
    ap.add_argument(
        "--no-generate", action="store_true", help="do not regenerate the package afterwards"
    )
    args = ap.parse_args(argv)
    if not ORACLE.is_file():  # an installed copy (kafka_meta_proto.codegen): no tools/, no kafka/
        print(f"codegen.maintenance.refresh works in a checkout of the repository only: it needs {ORACLE.relative_to(ROOT)}, "
              f"Kafka's jars and schemas/kafka, which {ROOT} does not have", file=sys.stderr)  # fmt: skip
        return 2
    if args.newer or args.candidate:
        replace = None if args.replace == "none" else args.replace
        try:
            if args.newer:
                return show_newer(args.repository)
            return try_release(args.candidate, _oracle().releases(), args.repository, replace)
        except rel.RepositoryError as e:
            print(e, file=sys.stderr)
            return 2
    releases = _oracle().releases()
    reason = unfetched(releases)
    if reason:
        print(reason, file=sys.stderr)
        return 2
    try:
        merged, reports = merge_releases(releases)
    except MergeError as e:
        print(f"cannot merge: {e}", file=sys.stderr)
        return 2
    print_notes(merged, reports, releases)
    with tempfile.TemporaryDirectory() as tmp:
        before = Path(tmp) / "before" / "kafka"
        shutil.copytree(TARGET, before)
        out = Path(tmp) / "after" / "kafka" if args.dry_run else TARGET
        if args.dry_run:
            shutil.copytree(TARGET, out)
        print_changes(before, merged, reports, out)
    if not args.dry_run and not args.no_generate:
        return subprocess.call([sys.executable, "-m", "codegen"], cwd=ROOT)
    return 0


if __name__ == "__main__":
    sys.exit(main())
