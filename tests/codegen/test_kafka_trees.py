"""The generator on Kafka's complete schema trees: every schema accepted, the package importable,
its classes byte-exact against Kafka's golden vectors and round-tripping under hypothesis."""

from __future__ import annotations

import importlib
import sys

import pytest
from hypothesis import HealthCheck, given, settings

from codegen.generate import generate, write_package
from conftest import ROOT, read_jsonl, reference, vector_problems
from kafka_meta_proto.strategies import messages

# Slow (about 2.5 minutes: both trees rendered through black). The default run covers the same
# ground: the shipped package holds every schema of Kafka 3.9.2 and 4.3.1 and meets the golden
# vectors (test_golden_vectors), and tests/interop generates packages from Kafka's own jars.
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module", params=["3.9", "trunk"])
def kafka_tree_package(request, tmp_path_factory):
    tree = request.param
    schemas = reference("schemas", tree)
    package = "kafka_" + tree.replace(".", "_")
    out = tmp_path_factory.mktemp(f"gen-{tree}")
    files = generate([schemas], package, relative_to=ROOT)
    write_package(files, out / package)
    sys.path.insert(0, str(out))
    try:
        yield tree, importlib.import_module(package), len(files) - 1
    finally:
        sys.path.remove(str(out))


def test_tree_package(kafka_tree_package):
    tree, pkg, modules = kafka_tree_package
    assert modules == 211  # every schema file of the tree became a module
    names = pkg.REGISTRY.names()
    # Importable: every class loads and carries its codec tables.
    for name in names:
        cls = pkg.message_class(name)
        assert set(cls._READERS) == set(cls.versions())

    # Byte-exact against the vectors Kafka's serializer wrote for this tree.
    failures = []
    for path in sorted(reference("vectors", tree).glob("*.jsonl")):
        cls = pkg.message_class(path.stem)
        for vec in read_jsonl(path):
            failures += [f"{path.stem} v{vec['version']}: {p}" for p in vector_problems(cls, vec)]
    assert not failures, "\n".join(failures[:5])

    # Round trips for every message at its lowest and highest version.
    for name in names:
        cls = pkg.message_class(name)
        for version in sorted({cls.LOWEST_VERSION, cls.HIGHEST_VERSION}):

            @settings(max_examples=5, deadline=None, suppress_health_check=list(HealthCheck), database=None)
            @given(messages(cls, version))
            def check(msg):
                data = msg.encode(version)
                assert msg.size(version) == len(data)
                assert cls.decode(data, version) == msg

            check()
