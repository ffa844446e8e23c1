"""Golden vectors serialized by Kafka's own Java classes, in both directions:
``from_json(data).encode() == hex`` and ``decode(hex).to_json() == data``.

Ours (tests/data/golden/RELEASE/, written by tools/golden_vectors.py through the oracle) cover every
message and version of each release line and are checked here for staleness without Java;
../shared/kafka-reference's recorded vectors, where present, are a second, independent check."""

from __future__ import annotations

import json
import sys

import pytest

import kafka_meta_proto
from conftest import GOLDEN, REFERENCE, ROOT, golden_files, read_jsonl, reference, vector_problems

sys.path.insert(0, str(ROOT / "tools"))
import golden_vectors  # noqa: E402
import kafka_oracle  # noqa: E402
from interop.test_differential import NOT_IN_KAFKA  # noqa: E402

RELEASES = kafka_oracle.releases()
SHARED_TREES = ("3.9", "trunk")


def _failures(cls, vectors: list[dict]) -> list[str]:
    failures = []
    for vec in vectors:
        problems = vector_problems(cls, vec)
        if problems:
            failures.append(f"v{vec['version']} {vec['kind']}: " + "; ".join(problems))
    return failures


@pytest.mark.parametrize("path", golden_files(), ids=lambda p: f"{p.parent.name}-{p.stem}")
def test_golden_vectors(path):
    cls = kafka_meta_proto.message_class(path.stem)
    vectors = read_jsonl(path)
    assert vectors, f"{path} holds no vectors"
    assert {v["name"] for v in vectors} == {path.stem}
    failures = _failures(cls, vectors)
    assert not failures, f"{len(failures)}/{len(vectors)} vectors failed:\n" + "\n".join(failures[:5])


@pytest.mark.parametrize("release", RELEASES)
def test_golden_vectors_are_fresh(release):
    """The stored vectors were made from today's schemas, for every message and version the
    release defines; otherwise regenerate them (needs Kafka's jars)."""
    problems = golden_vectors.stale(release)
    assert not problems, (
        f"the golden vectors of Kafka {release} are stale: run {golden_vectors.command(release)}\n"
        + "\n".join(problems[:20])
    )


def test_staleness_is_seen():
    """What stale() must notice: a changed schema, a version without vectors, a missing message,
    another generator, a file that is not the one generated."""
    release = RELEASES[-1]
    manifest = json.loads((GOLDEN / release / "MANIFEST.json").read_text(encoding="utf-8"))
    entries = manifest["messages"]

    baseline = set(golden_vectors.stale(release, manifest))  # empty unless the files are stale

    def new_problems(change) -> list[str]:
        copy = json.loads(json.dumps(manifest))
        change(copy)
        return [p for p in golden_vectors.stale(release, copy) if p not in baseline]

    assert entries["FetchRequest"]["versions"] and entries["NoOpRecord"]["versions"]
    changes = {
        "FetchRequest: schemas/kafka/FetchRequest.json changed": lambda m: m["messages"]["FetchRequest"].update(facts="0" * 16),
        "FetchRequest: vectors for versions": lambda m: m["messages"]["FetchRequest"]["versions"].pop(),
        "NoOpRecord: a message without vectors": lambda m: m["messages"].pop("NoOpRecord"),
        "NoOpRecord: NoOpRecord.jsonl is not the file": lambda m: m["messages"]["NoOpRecord"].update(file="0" * 16),
        f"{release}: made by generator 0": lambda m: m.update(generator=0),
    }  # fmt: skip
    for expected, change in changes.items():
        found = new_problems(change)
        assert [p for p in found if p.startswith(expected)], (expected, found)


def test_every_version_has_a_golden_vector():
    """Each version of each message of the registry has vectors from some release line (the
    design-only versions excepted, by name: tests/interop/test_differential.py)."""
    covered = set()
    for release in RELEASES:
        manifest = json.loads((GOLDEN / release / "MANIFEST.json").read_text(encoding="utf-8"))
        covered |= {(n, v) for n, e in manifest["messages"].items() for v in e["versions"]}
    missing = []
    for name in kafka_meta_proto.REGISTRY.names():
        for version in kafka_meta_proto.message_class(name).versions():
            if (name, version) not in covered and (name, version) not in NOT_IN_KAFKA:
                missing.append(f"{name} v{version}")
    assert not missing, "versions without a golden vector: " + ", ".join(missing[:20])
    # the file of each release holds exactly the versions its manifest names
    for release in RELEASES:
        manifest = json.loads((GOLDEN / release / "MANIFEST.json").read_text(encoding="utf-8"))
        for name, entry in manifest["messages"].items():
            path = GOLDEN / release / f"{name}.jsonl"
            found = sorted({v["version"] for v in read_jsonl(path)}) if path.exists() else []
            assert found == entry["versions"], f"{release}/{name}.jsonl"


# -- ../shared's recorded vectors: the independent second check --------------------------------------


def shared_vector_files() -> list:
    files = []
    for tree in SHARED_TREES:
        folder = REFERENCE / "vectors" / tree
        files.extend(pytest.param(tree, p.stem, id=f"{tree}-{p.stem}") for p in sorted(folder.glob("*.jsonl")))
    return files or [pytest.param("3.9", "missing", id="no-reference-data")]


@pytest.mark.parametrize("tree,name", shared_vector_files())
def test_shared_reference_vectors(tree: str, name: str):
    path = reference("vectors", tree, f"{name}.jsonl")  # skips where ../shared is absent
    cls = kafka_meta_proto.message_class(name)
    vectors = read_jsonl(path)
    assert vectors, f"{path} holds no vectors"
    failures = _failures(cls, vectors)
    assert not failures, f"{len(failures)}/{len(vectors)} vectors failed:\n" + "\n".join(failures[:5])


def test_every_shared_vector_file_has_a_class():
    folder = reference("vectors", "3.9")
    names = {p.stem for p in folder.glob("*.jsonl")}
    missing = sorted(n for n in names if n not in kafka_meta_proto.REGISTRY.names())
    assert not missing
