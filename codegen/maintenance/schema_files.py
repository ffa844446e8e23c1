"""The schema files we write: Kafka's facts laid out as the hand-written schemas are, our
descriptions and version notes kept by field path, and what changed from the tree before."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from .. import jsonc
from .merge import Merge, strip_about

HEADER = "// kafka_meta_proto schema: wire facts from Apache Kafka {sources}; descriptions are ours."


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
