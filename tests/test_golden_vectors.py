"""Every golden vector serialized by Kafka's own Java classes, in both directions:
``from_json(data).encode() == hex`` and ``decode(hex).to_json() == data``."""

from __future__ import annotations

import pytest

import kafka_meta_proto
from conftest import REFERENCE, read_jsonl, reference, vector_problems

TREES = ("3.9", "trunk")


def vector_files() -> list:
    files = []
    for tree in TREES:
        folder = REFERENCE / "vectors" / tree
        files.extend(pytest.param(tree, p.stem, id=f"{tree}-{p.stem}") for p in sorted(folder.glob("*.jsonl")))
    return files or [pytest.param("3.9", "missing", id="no-reference-data")]


@pytest.mark.parametrize("tree,name", vector_files())
def test_golden_vectors(tree: str, name: str):
    path = reference("vectors", tree, f"{name}.jsonl")
    cls = kafka_meta_proto.message_class(name)
    vectors = read_jsonl(path)
    assert vectors, f"{path} holds no vectors"
    failures = []
    for vec in vectors:
        problems = vector_problems(cls, vec)
        if problems:
            failures.append(f"v{vec['version']} {vec['kind']}: " + "; ".join(problems))
    assert not failures, f"{len(failures)}/{len(vectors)} vectors failed:\n" + "\n".join(failures[:5])


def test_every_vector_file_has_a_class():
    folder = reference("vectors", "3.9")
    names = {p.stem for p in folder.glob("*.jsonl")}
    missing = sorted(n for n in names if n not in kafka_meta_proto.REGISTRY.names())
    assert not missing
