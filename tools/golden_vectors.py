"""Write tests/data/golden/RELEASE/: golden vectors made by Kafka's own serializer (the oracle of
tools/kafka_oracle.py, running the generated message classes of Kafka RELEASE) for every message of
Kafka's registry and every version both that release and our class define.

    .venv/bin/python tools/golden_vectors.py [RELEASE ...] [--check | --stale]

Without RELEASE, every release line under kafka/. Run it again when a schema under schemas/kafka/
changes; --stale (no Java needed, tests/test_golden_vectors.py runs it) lists what changed since
the files were made; --check writes nothing, lists the files that differ from what Kafka writes
now, and exits 1 if any does.

Each line of ``<MessageName>.jsonl`` is ``{"name", "version", "kind", "data", "hex"}``: ``hex`` is
the body Kafka wrote for an example, ``data`` Kafka's JSON reading of those bytes (under our field
names where the release names a field otherwise). ``MANIFEST.json`` records what each file was made
from, so a test without Java can tell when it is stale.
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import json
import math
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
for path in (ROOT / "src", ROOT, ROOT / "tools"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

import kafka_oracle  # noqa: E402

GOLDEN = ROOT / "tests" / "data" / "golden"
# Bump when the examples, the record shape or the way Kafka is asked change: every file goes stale.
GENERATOR = 1
KINDS = ("defaults", "low", "high", "nulls", "random", "random")
RANDOM_TEXT = "abcxyzKAFK_-.09 é€𝄞\u00a0\u4e2d"


def command(release: str) -> str:
    return f".venv/bin/python tools/golden_vectors.py {release}"


# -- what a file is made from (read by the fast tests, no Java) -------------------------------------


def _without_about(node):
    if isinstance(node, dict):
        return {k: _without_about(v) for k, v in node.items() if k != "about"}
    if isinstance(node, list):
        return [_without_about(v) for v in node]
    return node


def schema_path(cls) -> Path:
    """The schema file a generated class was made from (its module's first line names it)."""
    module = sys.modules[cls.__module__]
    first = Path(module.__file__).read_text(encoding="utf-8").split("\n", 1)[0]
    word = next(w.rstrip(".") for w in first.split() if w.startswith("schemas/"))
    return ROOT / word


def schema_facts(cls) -> str:
    """A fingerprint of the facts of a class's schema: its descriptions and comments left out, so
    only a change that can move bytes makes the vectors stale."""
    return _facts(schema_path(cls).read_text(encoding="utf-8"))


@functools.lru_cache(maxsize=None)
def _facts(text: str) -> str:
    from codegen.jsonc import strip_comments

    schema = json.loads(strip_comments(text))
    facts = json.dumps(_without_about(schema), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(facts.encode()).hexdigest()[:16]


def file_digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def stale(release: str, manifest: dict | None = None, folder: Path | None = None) -> list[str]:
    """Why ``release``'s stored vectors no longer match what they were made from, one line per
    message, without running Kafka: a schema whose facts changed, a message or version of the
    registry without its vectors, a file edited by hand, another generator."""
    import kafka_meta_proto

    folder = folder or GOLDEN / release
    if manifest is None:
        path = folder / "MANIFEST.json"
        if not path.exists():
            return [f"{release}: no {path.relative_to(ROOT)}"]
        manifest = json.loads(path.read_text(encoding="utf-8"))
    problems = []
    if manifest.get("generator") != GENERATOR:
        problems.append(f"{release}: made by generator {manifest.get('generator')}, the tool is at {GENERATOR}")
    entries = manifest.get("messages", {})
    names = kafka_meta_proto.REGISTRY.names()
    for name in names:
        entry = entries.get(name)
        if entry is None:
            problems.append(f"{name}: a message without vectors (not in the manifest)")
            continue
        cls = kafka_meta_proto.message_class(name)
        where = schema_path(cls).relative_to(ROOT).as_posix()
        if entry["schema"] != where or entry["facts"] != schema_facts(cls):
            problems.append(f"{name}: {where} changed since its vectors were made")
        defined = entry["kafka"] or [0, -1]
        expected = [v for v in cls.versions() if defined[0] <= v <= defined[1] and v not in entry.get("other_layout", ())]
        if entry["versions"] != expected:
            problems.append(f"{name}: vectors for versions {entry['versions']}, not {expected}")
        path = folder / f"{name}.jsonl"
        if not path.exists():
            if entry["versions"]:
                problems.append(f"{name}: {path.name} is missing")
        elif file_digest(path.read_text(encoding="utf-8")) != entry.get("file"):
            problems.append(f"{name}: {path.name} is not the file that was generated")
    for name in sorted(set(entries) - set(names)):
        problems.append(f"{name}: in the manifest but not in the registry")
    for path in sorted(folder.glob("*.jsonl")):
        if path.stem not in names:
            problems.append(f"{path.name}: not a message of the registry")
    return problems


# -- the examples: fixed shapes (tools/differential.py) and seeded random ones ----------------------


def _random_primitive(type_name: str, rng: random.Random):
    from kafka_meta_proto.schema_info import INT_RANGES
    from kafka_meta_proto.uuid import Uuid

    if type_name in INT_RANGES:
        lo, hi = INT_RANGES[type_name]
        return rng.choice((0, 1, max(lo, -1), lo, hi, rng.randint(lo, hi), rng.randint(0, min(hi, 1000))))
    if type_name == "bool":
        return rng.random() < 0.5
    if type_name == "float64":
        return rng.choice((0.0, -0.0, 1.5, -2.25, 1e300, 5e-324, math.inf, rng.uniform(-1e6, 1e6)))
    if type_name == "string":
        return "".join(rng.choice(RANDOM_TEXT) for _ in range(rng.randint(0, 12)))
    if type_name in ("bytes", "records"):
        return bytes(rng.getrandbits(8) for _ in range(rng.randint(0, 16)))
    if type_name == "uuid":
        return Uuid(bytes(rng.getrandbits(8) for _ in range(16)))
    raise ValueError(f"unknown primitive type {type_name}")


def random_example(cls, version: int, flexible: bool, rng: random.Random, depth: int = 0):
    """An instance of a generated struct class, every field of ``version`` drawn from ``rng``:
    nulls where allowed, tagged fields sometimes left at their default, short arrays, and unknown
    tagged fields now and then in flexible versions."""
    from differential import UNKNOWN_TAGS_AFTER

    kwargs: dict = {}
    for f in cls._FIELDS:
        if not f.present(version):
            continue
        if f.is_nullable(version) and rng.random() < 0.15:
            kwargs[f.name] = None
            continue
        if f.is_tagged(version) and rng.random() < 0.3:
            continue
        if f.struct is not None:
            element = lambda: random_example(f.struct, version, flexible, rng, depth + 1)  # noqa: E731
        else:
            element = lambda: _random_primitive(f.element_type, rng)  # noqa: E731
        if f.is_array:
            kwargs[f.name] = [element() for _ in range(rng.randint(0, 3 if depth == 0 else 2))]
        else:
            kwargs[f.name] = element()
    if flexible and rng.random() < 0.3:
        first = max((f.tag for f in cls._FIELDS if f.tag is not None), default=-1) + UNKNOWN_TAGS_AFTER
        tags = sorted(rng.sample(range(first, first + 50), rng.randint(1, 2)))
        kwargs["unknown_tagged_fields"] = tuple((t, bytes(rng.randint(0, 255) for _ in range(rng.randint(0, 4)))) for t in tags)
    return cls(**kwargs)


def high_example(cls, version: int, flexible: bool, depth: int = 0):
    """Every field at its highest (tools/differential.py's "high" shape: NaN, unknown tags in
    flexible versions), with text and bytes just long enough for a two-byte varint (132 and 130
    bytes), two-element arrays and three unknown tags at the top level only: the deep messages
    stay small."""
    from differential import LONG_BYTES, LONG_TEXT, UNKNOWN_TAGS_AFTER, _primitive

    kwargs: dict = {}
    for f in cls._FIELDS:
        if not f.present(version):
            continue
        if f.struct is not None:
            element = lambda: high_example(f.struct, version, flexible, depth + 1)  # noqa: E731
        elif f.element_type == "string":
            element = lambda: LONG_TEXT[:90] if depth == 0 else "Kafka é € 𝄞"  # noqa: E731
        elif f.element_type in ("bytes", "records"):
            element = lambda: LONG_BYTES[:130] if depth == 0 else LONG_BYTES[250:266]  # noqa: E731
        else:
            element = lambda: _primitive(f.element_type, "high")  # noqa: E731
        kwargs[f.name] = [element() for _ in range(2 if depth == 0 else 1)] if f.is_array else element()
    if flexible:
        first = max((f.tag for f in cls._FIELDS if f.tag is not None), default=-1) + UNKNOWN_TAGS_AFTER
        tags = ((first, b""), (first + 1, b"\x01\x02"), (first + 300, LONG_BYTES[:130]))
        kwargs["unknown_tagged_fields"] = tags if depth == 0 else ((first + 1, b"\x7f"),)
    return cls(**kwargs)


def examples(cls, version: int) -> list[tuple[str, object]]:
    """(kind, message) pairs: the fixed hard values of tools/differential.py (its "high" shape
    trimmed), then two random ones seeded by name and version (the same in every release, so the
    releases' files compare)."""
    from differential import fixed_examples

    flexible = cls.is_flexible(version)
    fixed = fixed_examples(cls, version)
    fixed["high"] = high_example(cls, version, flexible)
    out = list(fixed.items())
    for i in range(2):
        rng = random.Random(f"{cls.NAME}/{version}/{i}")
        out.append(("random", random_example(cls, version, flexible, rng)))
    return out


# -- asking Kafka -----------------------------------------------------------------------------------


class Refused(Exception):
    pass


def vectors_for(kafka, cls, version: int, renames: dict[str, str]) -> tuple[list[dict], list[str]]:
    """The vectors of one version: Kafka's bytes for each example's JSON form and Kafka's reading of
    them, accepted only when Kafka reads every byte and writes the same bytes back."""
    import differential

    back = {theirs: ours for ours, theirs in renames.items()}
    name = cls.NAME
    pairs = examples(cls, version)
    answers = kafka.call_many(
        {"op": "encode", "name": name, "version": version, "data": differential.renamed_keys(m.to_json(version), renames)}
        for _, m in pairs
    )
    encoded = []
    problems = []
    for (kind, _), answer in zip(pairs, answers):
        if answer["ok"]:
            encoded.append((kind, answer["hex"]))
        else:
            problems.append(f"v{version} {kind}: Kafka refuses it: {answer['error'][:200]}")
    decoded = kafka.call_many({"op": "decode", "name": name, "version": version, "hex": h} for _, h in encoded)
    out: list[dict] = []
    seen = set()
    for (kind, hex_), answer in zip(encoded, decoded):
        where = f"v{version} {kind}"
        if not answer["ok"]:
            problems.append(f"{where}: Kafka cannot read its own bytes: {answer['error'][:200]}")
        elif answer["consumed"] != len(hex_) // 2 or answer["reencoded"] != hex_:
            problems.append(f"{where}: Kafka does not read its own bytes back the same")
        elif hex_ not in seen:  # the fixed shapes coincide for small messages
            seen.add(hex_)
            data = differential.renamed_keys(answer["data"], back)
            out.append({"name": name, "version": version, "kind": kind, "data": data, "hex": hex_})
    return out, problems


def dumps(record: dict) -> str:
    return json.dumps(record, ensure_ascii=False, allow_nan=True)


def generate(release: str, names: list[str] | None = None, emit=print) -> tuple[dict[str, str], dict]:
    """The files of ``release``'s folder: name -> text, and the manifest."""
    import differential
    import kafka_meta_proto

    files: dict[str, str] = {}
    messages: dict[str, dict] = {}
    with kafka_oracle.Oracle(release) as kafka:
        theirs = kafka.messages()
        for name in names or kafka_meta_proto.REGISTRY.names():
            cls = kafka_meta_proto.message_class(name)
            defined = theirs.get(name)
            entry: dict = {
                "schema": schema_path(cls).relative_to(ROOT).as_posix(),
                "facts": schema_facts(cls),
                "kafka": [defined.start, defined.stop - 1] if defined else None,
            }
            messages[name] = entry
            records: list[dict] = []
            other, renamed = [], []
            for version in differential.common_versions(cls, defined):
                form, renames = differential.release_form(release, name, version)
                if form == differential.OTHER:
                    other.append(version)
                    continue
                if form == differential.RENAMED:
                    renamed.append(version)
                found, problems = vectors_for(kafka, cls, version, renames)
                records += found
                for problem in problems:
                    emit(f"  {name} {problem}")
            entry["versions"] = sorted({r["version"] for r in records})
            if other:
                entry["other_layout"] = other
            if renamed:
                entry["renamed"] = renamed
            if records:
                text = "".join(dumps(r) + "\n" for r in records)
                files[f"{name}.jsonl"] = text
                entry["file"] = file_digest(text)
    manifest = {
        "release": release,
        "generator": GENERATOR,
        "command": command(release),
        "messages": messages,
    }
    return files, manifest


def manifest_text(manifest: dict) -> str:
    """The manifest with one line per message, so a diff shows which messages changed."""
    head = {k: v for k, v in manifest.items() if k != "messages"}
    lines = [f" {json.dumps(k)}: {json.dumps(v)}," for k, v in head.items()]
    entries = [f"  {json.dumps(n)}: {json.dumps(e)}" for n, e in manifest["messages"].items()]
    return "{\n" + "\n".join(lines) + '\n "messages": {\n' + ",\n".join(entries) + "\n }\n}\n"


def write(release: str, files: dict[str, str], manifest: dict, check: bool, emit=print) -> int:
    """Write (or with ``check`` only compare) a release's folder; the number of files that differ."""
    folder = GOLDEN / release
    wanted = {**files, "MANIFEST.json": manifest_text(manifest)}
    present = {p.name for p in folder.glob("*")} if folder.is_dir() else set()
    differing = 0
    for name in sorted(present - set(wanted)):
        differing += 1
        emit(f"{release}/{name}: {'not made any more' if check else 'removed'}")
        if not check:
            (folder / name).unlink()
    for name, text in sorted(wanted.items()):
        path = folder / name
        if path.exists() and path.read_text(encoding="utf-8") == text:
            continue
        differing += 1
        emit(f"{release}/{name}: {'differs' if check else 'written'}")
        if not check:
            folder.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
    return differing


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("releases", nargs="*", metavar="RELEASE", help="release lines (default: all under kafka/)")
    parser.add_argument("--check", action="store_true", help="write nothing; list the files that differ")
    parser.add_argument("--stale", action="store_true", help="without Kafka: list what changed since the files were made")
    args = parser.parse_args(argv)
    if args.stale:
        problems = [f"{r}: {p}" for r in args.releases or kafka_oracle.releases() for p in stale(r)]
        print("\n".join(problems) or "up to date")
        return 1 if problems else 0
    differing = 0
    for release in args.releases or kafka_oracle.releases():
        reason = kafka_oracle.missing(release)
        if reason:
            print(f"Kafka {release} cannot run here: {reason}", file=sys.stderr)
            return 2
        files, manifest = generate(release)
        count = sum(t.count("\n") for t in files.values())
        size = sum(len(t.encode()) for t in files.values())
        print(f"Kafka {release}: {count} vectors in {len(files)} files, {size / 1e6:.1f} MB")
        differing += write(release, files, manifest, args.check)
    if args.check:
        print("up to date" if not differing else f"{differing} files differ: run {command(' '.join(args.releases)).rstrip()}")
    return 1 if args.check and differing else 0


if __name__ == "__main__":
    sys.exit(main())
