"""Check schemas/kafka/ against the JSON schemas inside Apache Kafka's own jars.

Every version a file speaks must carry exactly the wire facts of the Kafka release that defines it
(the newest release line that has the version; see docs/schema-sources.md): fields, order, types,
nullability, tags, defaults and flexibility, compared version by version after the merge that
``python -m codegen.maintenance.refresh`` performs. Only the prose may differ: the ``about`` texts must be our
own words, so they are also compared against Kafka's.

The jars come from ``kafka/RELEASE/pom.xml`` through ``bash tools/setup.sh``; without them these
tests skip and say so (under KAFKA_META_PROTO_REQUIRE_KAFKA=1 they fail instead).
"""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path

import pytest

from codegen.maintenance import merge, schema_files, sources
from codegen.jsonc import strip_comments
from codegen.versions import Versions

REPO = Path(__file__).resolve().parents[1]
SCHEMA_DIR = REPO / "schemas" / "kafka"

# An "about" identical to Kafka's is tolerated only when Kafka's text is this short
# (e.g. "The port."), and only a few times over the whole folder.
SHORT_WORDS = 3
MAX_SHORT_MATCHES = 5


def load_jsonc(path: Path):
    return json.loads(strip_comments(path.read_text(encoding="utf-8")))


def normalize(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().rstrip(".").strip().lower()


def project_schemas() -> list[Path]:
    return sorted(SCHEMA_DIR.rglob("*.json"))


@functools.lru_cache(maxsize=None)
def kafka_releases() -> dict[str, dict[str, dict]]:
    """release -> {schema name: schema} for every release line under kafka/, newest first."""
    oracle = sources.kafka_oracle()
    releases = oracle.releases()
    absent = [r for r in releases if not (oracle.CACHE / r / "classpath.txt").exists()]
    if not releases or absent:
        why = f"Kafka's jars are not fetched for {', '.join(absent) or 'any release'}: run bash tools/setup.sh"
        if oracle.required():
            pytest.fail(why)
        pytest.skip(why)
    out = {}
    for release in reversed(releases):
        out[release] = {name: schema for name, (_, schema) in sources.release_schemas(release).items()}
    return out


def kafka_names(name: str) -> list[str]:
    return [name] + [old for old, new in sources.RENAMED.items() if new == name]


def defining_schema(name: str, version: int, ours: dict):
    """(release, Kafka schema, the version in Kafka's numbering) for one of our versions."""
    for release, schemas in kafka_releases().items():
        for kname in kafka_names(name):
            theirs = schemas.get(kname)
            if theirs is None:
                continue
            if ours["type"].startswith("coordinator-") and theirs["type"] == "data":
                # 3.9 wrote the record type as the key's version (docs/schema-sources.md).
                kv = ours["apiKey"] if ours["type"] == "coordinator-key" else version
                if kv in merge.defined_versions(theirs):
                    return release, theirs, kv
            elif version in merge.defined_versions(theirs):
                return release, theirs, version
    return None, None, None




def test_loader_strips_comments_outside_strings():
    text = """
    // leading comment
    { "a": "http://x//y", /* block
       comment */ "b": "/* not a comment */", // trailing
      "c": "quote \\" // still string" }
    """
    assert json.loads(strip_comments(text)) == {
        "a": "http://x//y",
        "b": "/* not a comment */",
        "c": 'quote " // still string',
    }


def test_schema_folder_is_not_empty():
    assert project_schemas(), f"no schema files in {SCHEMA_DIR}"


@pytest.mark.parametrize("path", project_schemas(), ids=lambda p: p.stem)
def test_wire_facts_match_kafka(path: Path):
    ours = load_jsonc(path)
    assert ours.get("name") == path.stem, "file name must equal the schema's name"
    valid = Versions.parse(ours["validVersions"])
    newest = None
    for v in range(valid.lowest, valid.highest + 1):
        # schemas/kafka speaks nothing beyond Kafka: every version is one a release defines
        release, theirs, kv = defining_schema(ours["name"], v, ours)
        assert theirs is not None, f"no Kafka release defines {ours['name']} v{v}"
        newest = newest or theirs
        assert merge.project(ours, v) == merge.project(theirs, kv), (
            f"{ours['name']} v{v} differs from Kafka {release}'s"
        )
    for release, schemas in kafka_releases().items():
        theirs = next((schemas[n] for n in kafka_names(ours["name"]) if n in schemas), None)
        if theirs is not None and theirs["type"] == ours["type"]:
            assert ours.get("apiKey") == theirs.get("apiKey"), f"apiKey differs from Kafka {release}'s"
            break


def test_every_kafka_schema_is_shipped():
    ours = {load_jsonc(p)["name"]: load_jsonc(p) for p in project_schemas()}
    for release, schemas in kafka_releases().items():
        for name, theirs in schemas.items():
            name = sources.RENAMED.get(name, name)
            if name == "OffsetCommitKey" and theirs["type"] == "data":
                continue  # 3.9's key of record types 0 and 1: LegacyOffsetCommitKey and OffsetCommitKey
            assert name in ours, f"Kafka {release}'s {name} has no schema here"
            missing = [
                v
                for v in range(merge.defined_versions(theirs).lowest, merge.defined_versions(theirs).highest + 1)
                if theirs["type"] != "data" or not ours[name]["type"].startswith("coordinator-")
                if v not in Versions.parse(ours[name]["validVersions"])
            ]
            assert not missing, f"Kafka {release}'s {name} versions {missing} are not spoken here"


def _their_abouts(name: str) -> dict[tuple, str]:
    found = {}
    for schemas in kafka_releases().values():
        for kname in kafka_names(name):
            if kname in schemas:
                found.update(schema_files.descriptions(schemas[kname]))
    return found


@pytest.mark.parametrize("path", project_schemas(), ids=lambda p: p.stem)
def test_descriptions_are_our_own(path: Path):
    text = path.read_text(encoding="utf-8")
    assert "Licensed to the Apache Software Foundation" not in text, "Kafka's license header was copied"
    ours = load_jsonc(path)
    theirs = _their_abouts(ours["name"])
    copied = [
        "/".join(p)
        for p, t in schema_files.descriptions(ours).items()
        if p in theirs and normalize(t) == normalize(theirs[p]) and len(normalize(t).split()) > SHORT_WORDS
    ]
    assert not copied, f"'about' texts identical to Kafka's: {copied}"


def test_few_short_descriptions_equal_kafka():
    matches = []
    for path in project_schemas():
        ours = load_jsonc(path)
        theirs = _their_abouts(ours["name"])
        for p, t in schema_files.descriptions(ours).items():
            if p in theirs and normalize(t) == normalize(theirs[p]):
                matches.append(f"{path.stem}:{'/'.join(p)}")
    assert len(matches) <= MAX_SHORT_MATCHES, f"too many 'about' texts equal to Kafka's: {matches}"
