"""Check schemas/kafka/*.json against Apache Kafka's own JSON message schemas.

Every project schema must carry exactly the wire facts of the Kafka schema with the same
"name" (versions, types, tags, defaults, field order, ...); only the prose may differ.
The "about" texts must be our own words, so they are also compared against Kafka's.

Reference trees (read-only, outside the repo):
  <repo>/../shared/kafka-reference/schemas/3.9/{message,metadata}/   Kafka 3.9.0
  <repo>/../shared/kafka-reference/schemas/trunk/{message,metadata}/ Kafka 4.0 snapshot
LeaderAndIsr, StopReplica and UpdateMetadata follow the 3.9 tree; everything else trunk.
"""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path

import pytest

from codegen.jsonc import strip_comments
from conftest import without_about

REPO = Path(__file__).resolve().parents[1]
SCHEMA_DIR = REPO / "schemas" / "kafka"
REFERENCE = Path(__file__).resolve().parents[1].parent / "shared" / "kafka-reference"
REF_SCHEMAS = REFERENCE / "schemas"

# Schemas taken from Kafka 3.9.0: the ZooKeeper-era controller RPCs removed in 4.0.
FROM_39 = {
    "LeaderAndIsrRequest",
    "LeaderAndIsrResponse",
    "StopReplicaRequest",
    "StopReplicaResponse",
    "UpdateMetadataRequest",
    "UpdateMetadataResponse",
}

# An "about" identical to Kafka's is tolerated only when Kafka's text is this short
# (e.g. "The port."), and only a few times over the whole folder.
SHORT_WORDS = 3
MAX_SHORT_MATCHES = 5


# --------------------------------------------------------------------------- loader


def load_jsonc(path: Path):
    return json.loads(strip_comments(path.read_text(encoding="utf-8")))


def abouts(node, path=()):
    """Map JSON path -> "about" text, for every object that has one."""
    found = {}
    if isinstance(node, dict):
        if isinstance(node.get("about"), str):
            found[path] = node["about"]
        for k, v in node.items():
            if k != "about":
                found.update(abouts(v, path + (k,)))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            found.update(abouts(v, path + (i,)))
    return found


def normalize(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().rstrip(".").strip().lower()


def readable(doc, path) -> str:
    """Turn a JSON path into e.g. 'fields/Topics/fields/Name' using field names."""
    parts, node = [], doc
    for step in path:
        node = node[step]
        if isinstance(step, int):
            parts.append(str(node.get("name", step)) if isinstance(node, dict) else str(step))
        else:
            parts.append(step)
    return "/".join(parts)


# --------------------------------------------------------------------------- reference index


@functools.lru_cache(maxsize=None)
def reference_index(tree: str) -> dict[str, Path]:
    """Schema "name" -> file, for one reference tree (message/ and metadata/)."""
    index: dict[str, Path] = {}
    for sub in ("message", "metadata"):
        for path in sorted((REF_SCHEMAS / tree / sub).glob("*.json")):
            name = load_jsonc(path)["name"]
            assert name not in index, f"{name} appears twice in the {tree} tree"
            index[name] = path
    return index


def reference_for(name: str) -> Path:
    tree = "3.9" if name in FROM_39 else "trunk"
    index = reference_index(tree)
    if name not in index:
        pytest.fail(f"no Kafka {tree} schema has name {name!r} (message/ or metadata/)")
    return index[name]


def project_schemas() -> list[Path]:
    return sorted(SCHEMA_DIR.glob("*.json"))


def needs_reference():
    if not REF_SCHEMAS.is_dir():
        pytest.skip(f"Kafka reference schemas not available at {REF_SCHEMAS}")


# --------------------------------------------------------------------------- tests


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


# Deliberate differences from Kafka, each documented: the diskless batch-coordinator design adds
# FindCoordinator v7 (key type BATCH = 3) with an unchanged layout (docs/diskless.md).
DELIBERATE_DIFFERENCES = {
    "FindCoordinatorRequest": {"validVersions": ("0-6", "0-7")},
    "FindCoordinatorResponse": {"validVersions": ("0-6", "0-7")},
}


@pytest.mark.parametrize("path", project_schemas(), ids=lambda p: p.stem)
def test_wire_facts_match_kafka(path: Path):
    needs_reference()
    ours = load_jsonc(path)
    assert ours.get("name") == path.stem, "file name must equal the schema's name"
    ref_path = reference_for(ours["name"])
    theirs = load_jsonc(ref_path)
    for key, (kafka_value, our_value) in DELIBERATE_DIFFERENCES.get(ours["name"], {}).items():
        assert (theirs[key], ours[key]) == (kafka_value, our_value), f"{key}: documented difference changed"
        theirs[key] = our_value
    assert without_about(ours) == without_about(theirs), (
        f"{path.name} differs from {ref_path.relative_to(REF_SCHEMAS)} in something other than 'about'"
    )


@pytest.mark.parametrize("path", project_schemas(), ids=lambda p: p.stem)
def test_descriptions_are_our_own(path: Path):
    needs_reference()
    text = path.read_text(encoding="utf-8")
    assert "Licensed to the Apache Software Foundation" not in text, "Kafka's license header was copied"
    ours = load_jsonc(path)
    theirs = load_jsonc(reference_for(ours["name"]))
    our_abouts, their_abouts = abouts(ours), abouts(theirs)
    copied = [
        readable(ours, p)
        for p, t in our_abouts.items()
        if p in their_abouts
        and normalize(t) == normalize(their_abouts[p])
        and len(normalize(t).split()) > SHORT_WORDS
    ]
    assert not copied, f"'about' texts identical to Kafka's: {copied}"


def test_few_short_descriptions_equal_kafka():
    needs_reference()
    matches = []
    for path in project_schemas():
        ours = load_jsonc(path)
        theirs = load_jsonc(reference_for(ours["name"]))
        their_abouts = abouts(theirs)
        for p, t in abouts(ours).items():
            if p in their_abouts and normalize(t) == normalize(their_abouts[p]):
                matches.append(f"{path.stem}:{readable(ours, p)}")
    assert len(matches) <= MAX_SHORT_MATCHES, f"too many 'about' texts equal to Kafka's: {matches}"
