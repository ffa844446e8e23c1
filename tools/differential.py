"""Our message classes against Kafka's own serializer, example by example.

    .venv/bin/python tools/differential.py [--examples N] [--kafka RELEASE] [--only NAME ...]
                                           [--from-jars]

For every message and every version that both we and the chosen Kafka release define (both release
lines under kafka/ by default), each example must give:

1. our ``encode`` == Kafka's encoding of our ``to_json``;
2. Kafka's reading of our bytes == our ``to_json`` (unknown tagged fields included), consuming
   every byte, and Kafka's re-encoding of what it read == our bytes;
3. our ``decode`` of Kafka's bytes == the example.

The examples are four fixed ones that carry the hard values (defaults; every field at its lowest;
every field at its highest with long and non-BMP text, NaN and unknown tags; nulls, -0.0 and
infinity) and N drawn by hypothesis from our strategies. One line is printed per message and, last,
``N passed, M failed`` counting (message, version, example) checks.

``--from-jars`` judges the generator on every message the release has: it generates a package
from the JSON schemas inside Kafka's jars (``python -m codegen --schemas ...``) and compares that.
"""

from __future__ import annotations

import argparse
import base64
import functools
import importlib
import json
import math
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

ROOT = Path(__file__).resolve().parents[1]
for path in (ROOT / "src", ROOT, ROOT / "tools"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

import kafka_oracle  # noqa: E402
from kafka_meta_proto.schema_info import INT_RANGES  # noqa: E402
from kafka_meta_proto.uuid import Uuid  # noqa: E402

# Text that needs every UTF-8 length (1 to 4 bytes) and is long enough for a two-byte varint.
LONG_TEXT = ("Kafka é € 𝄞 " * 24)[:200]
LONG_BYTES = bytes(range(256)) * 2
UNKNOWN_TAGS_AFTER = 40  # unknown tags start this far above a struct's highest known tag


# The fixed examples.


def _primitive(type_name: str, shape: str):
    if type_name in INT_RANGES:
        lo, hi = INT_RANGES[type_name]
        return {"low": lo, "high": hi}.get(shape, 7)
    if type_name == "bool":
        return shape != "low"
    if type_name == "float64":
        return {"low": -0.0, "high": math.nan, "nulls": math.inf}[shape]
    if type_name == "string":
        return {"low": "", "high": LONG_TEXT, "nulls": "𝄞"}[shape]
    if type_name in ("bytes", "records"):
        return {"low": b"", "high": LONG_BYTES, "nulls": b"\x00"}[shape]
    if type_name == "uuid":
        return {
            "low": Uuid(b"\x00" * 15 + b"\x01"),
            "high": Uuid(b"\xff" * 16),
            "nulls": Uuid(b"\x80" * 16),
        }[shape]
    raise ValueError(f"unknown primitive type {type_name}")


def _struct_value(cls, version: int, flexible: bool, shape: str):
    """An instance of a generated struct class in which every field of ``version`` takes the
    shape's value: "low", "high" or "nulls" (null wherever the version allows it)."""
    kwargs = {}
    for f in cls._FIELDS:
        if not f.present(version):
            continue
        if shape == "nulls" and f.is_nullable(version):
            kwargs[f.name] = None
            continue
        if f.struct is not None:
            element = lambda: _struct_value(f.struct, version, flexible, shape)  # noqa: E731
        else:
            element = lambda: _primitive(f.element_type, shape)  # noqa: E731
        if f.is_array:
            count = {"low": 1, "high": 2, "nulls": 0}[shape]
            kwargs[f.name] = [element() for _ in range(count)]
        else:
            kwargs[f.name] = element()
    if flexible and shape == "high":
        first = (
            max((f.tag for f in cls._FIELDS if f.tag is not None), default=-1) + UNKNOWN_TAGS_AFTER
        )
        kwargs["unknown_tagged_fields"] = (
            (first, b""),
            (first + 1, b"\x01\x02"),
            (first + 300, LONG_BYTES[:130]),
        )
    return cls(**kwargs)


def fixed_examples(cls, version: int) -> dict[str, object]:
    """The hard values, one example each: defaults, lowest, highest, nulls."""
    flexible = cls.is_flexible(version)
    examples = {"defaults": cls()}
    for shape in ("low", "high", "nulls"):
        examples[shape] = _struct_value(cls, version, flexible, shape)
    return examples


def drawn_examples(cls, version: int, count: int) -> list:
    """``count`` examples drawn by hypothesis from our strategies, the same ones every run."""
    if count <= 0:
        return []
    from hypothesis import HealthCheck, given, settings

    from kafka_meta_proto.strategies import messages

    found: list = []

    @settings(
        max_examples=count,
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        phases=["generate"],
    )
    @given(messages(cls, version))
    def collect(message):
        found.append(message)

    collect()
    return found[:count]


# The comparison.


def same_json(a, b) -> bool:
    """JSON equality where floats compare bit for bit (NaN equals NaN, -0.0 differs from 0.0) and
    integers equal the floats Kafka may print for them."""
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, float) or isinstance(b, float):
        if not isinstance(a, (int, float)) or not isinstance(b, (int, float)):
            return False
        a, b = float(a), float(b)
        return (math.isnan(a) and math.isnan(b)) or (
            a == b and math.copysign(1, a) == math.copysign(1, b)
        )
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_json(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same_json(x, y) for x, y in zip(a, b))
    return type(a) is type(b) and a == b


def canonical(value):
    """Base64 in its canonical form inside unknown tagged fields, tags sorted."""
    if isinstance(value, dict):
        out = {k: canonical(v) for k, v in value.items()}
        tags = out.get("_unknownTaggedFields")
        if isinstance(tags, list):
            out["_unknownTaggedFields"] = sorted(
                (
                    {
                        "tag": t["tag"],
                        "data": base64.b64encode(base64.b64decode(t["data"])).decode(),
                    }
                    for t in tags
                ),
                key=lambda t: t["tag"],
            )
        return out
    if isinstance(value, list):
        return [canonical(v) for v in value]
    return value


def first_difference(a, b, path: str = "") -> str:
    """Where two JSON values first differ, for a readable failure."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in sorted(a.keys() | b.keys()):
            if key not in a or key not in b:
                return f"{path}.{key}: only in {'ours' if key in a else 'Kafka'}"
            if not same_json(a[key], b[key]):
                return first_difference(a[key], b[key], f"{path}.{key}")
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b)):
            if not same_json(x, y):
                return first_difference(x, y, f"{path}[{i}]")
    return f"{path or '.'}: ours {str(a)[:120]} Kafka {str(b)[:120]}"


def _has_nan(value) -> bool:
    if isinstance(value, float):
        return math.isnan(value)
    if isinstance(value, dict):
        return any(_has_nan(v) for v in value.values())
    if isinstance(value, list):
        return any(_has_nan(v) for v in value)
    return False


@dataclass
class Outcome:
    """The checks of one message: how many passed, and what each failure was."""

    name: str
    versions: list[int] = field(default_factory=list)
    skipped: list[int] = field(
        default_factory=list
    )  # versions the release defines in another layout
    passed: int = 0
    failures: list[str] = field(default_factory=list)


def compare(
    kafka: kafka_oracle.Oracle,
    cls,
    version: int,
    examples: dict[str, object],
    renames: dict[str, str] | None = None,
) -> list[str]:
    """Run the three checks over ``examples`` (label -> message); return one line per failure.
    ``renames`` maps our JSON field names to the release's where it names the same fields otherwise.
    """
    renames = renames or {}
    back_names = {theirs: ours for ours, theirs in renames.items()}
    name = cls.NAME
    ours: dict[str, tuple[bytes, dict]] = {}
    failures: list[str] = []
    for label, message in examples.items():
        try:
            ours[label] = (message.encode(version), message.to_json(version))
        except Exception as e:  # our own side failing is a finding too
            failures.append(f"v{version} {label}: we cannot encode it: {type(e).__name__}: {e}")
    labels = list(ours)
    requests = []
    for label in labels:
        body, data = ours[label]
        requests.append(
            {"op": "encode", "name": name, "version": version, "data": renamed_keys(data, renames)}
        )
        requests.append({"op": "decode", "name": name, "version": version, "hex": body.hex()})
    answers = kafka.call_many(requests)
    for i, label in enumerate(labels):
        body, data = ours[label]
        encoded, decoded = answers[2 * i], answers[2 * i + 1]
        where = f"v{version} {label}"
        # 1. Kafka's bytes for our JSON form.
        if not encoded["ok"]:
            failures.append(f"{where}: Kafka cannot encode our JSON: {encoded['error']}")
        else:
            theirs = bytes.fromhex(encoded["hex"])
            if theirs != body:
                failures.append(
                    f"{where}: bytes differ: ours {body.hex()[:120]} Kafka {theirs.hex()[:120]}"
                )
            # 3. Our reading of Kafka's bytes.
            try:
                back = cls.decode(theirs, version)
                back_json = back.to_json(version)
                if not same_json(canonical(back_json), canonical(data)) or (
                    not _has_nan(data) and back != examples[label]
                ):
                    failures.append(
                        f"{where}: our decoding of Kafka's bytes differs from the example"
                    )
            except Exception as e:
                failures.append(f"{where}: we cannot decode Kafka's bytes: {type(e).__name__}: {e}")
        # 2. Kafka's reading of our bytes.
        if not decoded["ok"]:
            failures.append(f"{where}: Kafka cannot decode our bytes: {decoded['error']}")
            continue
        decoded["data"] = renamed_keys(decoded["data"], back_names)
        if decoded["consumed"] != len(body):
            failures.append(f"{where}: Kafka read {decoded['consumed']} of our {len(body)} bytes")
        if not same_json(canonical(data), canonical(decoded["data"])):
            failures.append(
                f"{where}: Kafka reads other values: {first_difference(data, decoded['data'])}"
            )
        if decoded["reencoded"] != body.hex():
            failures.append(f"{where}: Kafka writes back other bytes: {decoded['reencoded'][:120]}")
    return failures


def check_message(kafka, cls, versions: Iterable[int], drawn: int, shipped: bool = True) -> Outcome:
    """Every version in ``versions``: the fixed examples and ``drawn`` hypothesis examples. For the
    shipped classes, a version the release defines in another layout is left out (``skipped``)."""
    outcome = Outcome(cls.NAME)
    for version in versions:
        form, renames = release_form(kafka.release, cls.NAME, version) if shipped else (SAME, {})
        if form == OTHER:
            outcome.skipped.append(version)
            continue
        examples = fixed_examples(cls, version)
        for i, message in enumerate(drawn_examples(cls, version, drawn)):
            examples[f"drawn#{i}"] = message
        failures = compare(kafka, cls, version, examples, renames)
        outcome.versions.append(version)
        outcome.passed += len(examples) - len({f.split(":")[0] for f in failures})
        outcome.failures += failures
    return outcome


# Which form of a version a release speaks. Our class takes each version from one release (the
# newest that defines it, docs/schema-sources.md); an older release may define the same version
# with other field names (same bytes) or, where the version was unstable there, another layout.

SAME, RENAMED, OTHER = "same", "renamed", "other"


def _wire_view(projected: list[dict]) -> list:
    """A projected field list with what does not reach the wire (names) left out."""
    out = []
    for f in projected:
        kind = f["type"]
        if "fields" in f:
            kind = "[]struct" if kind.startswith("[]") else "struct"
        facts = {k: v for k, v in f.items() if k not in ("name", "type", "fields")}
        out.append((kind, sorted(facts.items(), key=str), _wire_view(f.get("fields", []))))
    return out


def _renames(ours: list[dict], theirs: list[dict], into: dict[str, str]) -> None:
    """Our JSON field name -> the release's, for fields whose names differ (same positions)."""
    for a, b in zip(ours, theirs):
        if a["name"] != b["name"]:
            into[a["name"][0].lower() + a["name"][1:]] = b["name"][0].lower() + b["name"][1:]
        _renames(a.get("fields", []), b.get("fields", []), into)


@functools.lru_cache(maxsize=None)
def _release_schemas(release: str) -> dict:
    from codegen.maintenance import sources

    return {name: schema for name, (_, schema) in sources.release_schemas(release).items()}


@functools.lru_cache(maxsize=None)
def _our_schema(name: str) -> dict | None:
    from codegen import jsonc

    for path in (ROOT / "schemas").rglob(f"{name}.json"):
        return json.loads(jsonc.strip_comments(path.read_text(encoding="utf-8")))
    return None


def release_form(release: str, name: str, version: int) -> tuple[str, dict[str, str]]:
    """How Kafka ``release`` defines ``version`` of our schema ``name``: the SAME form, the same
    bytes under other field names (RENAMED, with our JSON name -> theirs), or an OTHER layout."""
    from codegen.maintenance import merge

    ours, theirs = _our_schema(name), _release_schemas(release).get(name)
    if ours is None or theirs is None:
        return SAME, {}
    a, b = merge.project(ours, version), merge.project(theirs, version)
    if a == b:
        return SAME, {}
    if a["flexible"] == b["flexible"] and _wire_view(a["fields"]) == _wire_view(b["fields"]):
        renames: dict[str, str] = {}
        _renames(a["fields"], b["fields"], renames)
        return RENAMED, renames
    return OTHER, {}


def renamed_keys(value, names: dict[str, str]):
    """A JSON value with its object keys renamed."""
    if isinstance(value, dict):
        return {names.get(k, k): renamed_keys(v, names) for k, v in value.items()}
    if isinstance(value, list):
        return [renamed_keys(v, names) for v in value]
    return value


def common_versions(cls, kafka_versions: range | None) -> list[int]:
    if kafka_versions is None:
        return []
    return [v for v in cls.versions() if v in kafka_versions]


# Packages to judge.


SHIPPED = "kafka_meta_proto.messages"


def shipped_package():
    return importlib.import_module(SHIPPED)


def packages_from_jars(
    release: str, out: Path, keep: Callable[[str], bool] = lambda name: True
) -> list:
    """Generate one package per Kafka jar from the schemas inside it (those whose name ``keep``
    accepts), and import them. Each jar is its own namespace: the remote-storage records reuse the
    metadata records' type numbers."""
    from codegen.generate import generate, write_package

    by_jar: dict[str, list] = {}
    for schema in kafka_oracle.schema_files(release):
        if keep(schema.name):
            by_jar.setdefault(Path(schema.jar).stem, []).append(schema)
    packages = []
    for jar, schemas in sorted(by_jar.items()):
        folder = out / "schemas" / jar
        for schema in schemas:
            target = folder / schema.entry
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(schema.text, encoding="utf-8")
        package = "kafka_jar_" + "".join(c if c.isalnum() else "_" for c in jar)
        write_package(generate([folder], package, relative_to=out), out / package)
        packages.append(package)
    sys.path.insert(0, str(out))
    return [importlib.import_module(p) for p in packages]


def run(
    release: str, packages: list, drawn: int, only: set[str] | None, emit: Callable[[str], None]
) -> tuple[int, int]:
    passed = failed = 0
    classes = sorted(
        ((name, p) for p in packages for name in p.REGISTRY.names()), key=lambda t: t[0]
    )
    with kafka_oracle.Oracle(release) as kafka:
        theirs = kafka.messages()
        for name, package in classes:
            if only and name not in only:
                continue
            cls = package.message_class(name)
            versions = common_versions(cls, theirs.get(name))
            if not versions:
                emit(f"{name:<52} Kafka {release}: not defined there, nothing to compare")
                continue
            outcome = check_message(
                kafka, cls, versions, drawn, shipped=package.__name__ == SHIPPED
            )
            fails = len({f.split(":")[0] for f in outcome.failures})
            passed += outcome.passed
            failed += fails
            span = f"v{versions[0]}-{versions[-1]}" if len(versions) > 1 else f"v{versions[0]}"
            other = (
                f" (v{', v'.join(map(str, outcome.skipped))}: another layout in {release})"
                if outcome.skipped
                else ""
            )
            emit(
                f"{name:<52} Kafka {release} {span:<8} {outcome.passed} passed, {fails} failed{other}"
            )
            for failure in outcome.failures[:10]:
                emit(f"    {failure}")
    return passed, failed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--examples", type=int, default=5, help="hypothesis examples per message and version"
    )
    parser.add_argument(
        "--kafka", action="append", choices=kafka_oracle.releases(), help="release line(s)"
    )
    parser.add_argument("--only", nargs="+", metavar="NAME", help="only these messages")
    parser.add_argument(
        "--from-jars", action="store_true", help="judge a package generated from the jars' schemas"
    )
    args = parser.parse_args(argv)
    passed = failed = 0
    for release in args.kafka or kafka_oracle.releases():
        reason = kafka_oracle.missing(release)
        if reason:
            print(f"Kafka {release}: cannot run ({reason})", file=sys.stderr)
            failed += 1
            continue
        with tempfile.TemporaryDirectory(prefix="kmp-jars-") as tmp:
            packages = (
                packages_from_jars(release, Path(tmp)) if args.from_jars else [shipped_package()]
            )
            p, f = run(release, packages, args.examples, set(args.only or ()), print)
        passed, failed = passed + p, failed + f
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
