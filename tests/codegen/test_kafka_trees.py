"""The generator on Kafka's complete schema trees (each release line's, from its jars): every
schema accepted, the package importable, its classes byte-exact against our golden vectors of that
release (tests/data/golden, Kafka's serializer wrote them) and round-tripping under hypothesis."""

from __future__ import annotations

import importlib
import json
import sys

import pytest
from hypothesis import HealthCheck, given, settings

from codegen.generate import generate, write_package
from conftest import GOLDEN, kafka_schema_tree, read_jsonl, vector_problems
from kafka_meta_proto.strategies import messages

# Slow (minutes: both trees rendered through black). The default run covers the same ground: the
# shipped package holds every schema of Kafka 3.9.2 and 4.4.0 and meets the golden vectors
# (test_golden_vectors), and tests/interop generates packages from a sample of Kafka's jars.
pytestmark = [pytest.mark.slow, pytest.mark.exhaustive]  # a package per release line: 10+ minutes each


@pytest.fixture(scope="module", params=["3.9.2", "4.4.0"])
def kafka_tree_package(request, tmp_path_factory):
    release = request.param
    schemas = kafka_schema_tree(release, tmp_path_factory.mktemp(f"schemas-{release}"))
    package = "kafka_" + release.replace(".", "_")
    out = tmp_path_factory.mktemp(f"gen-{release}")
    files = generate([schemas], package, relative_to=schemas.parent)
    write_package(files, out / package)
    sys.path.insert(0, str(out))
    try:
        # 4.x keeps the ZooKeeper-era RPCs' files with "validVersions": "none": no class for those
        live = [p for p in schemas.rglob("*.json") if '"validVersions": "none"' not in p.read_text(encoding="utf-8")]
        yield release, importlib.import_module(package), len(files) - 1, len(live)
    finally:
        sys.path.remove(str(out))


def test_tree_package(kafka_tree_package):
    release, pkg, modules, schemas = kafka_tree_package
    assert modules == schemas > 200  # every schema file of the tree became a module
    names = pkg.REGISTRY.names()
    # Importable: every class loads and carries its codec tables.
    for name in names:
        cls = pkg.message_class(name)
        assert set(cls._READERS) == set(cls.versions())

    # Byte-exact against the vectors Kafka's serializer wrote for this release, but where our
    # vectors name the fields as our schemas do (the release names them otherwise: "renamed").
    manifest = json.loads((GOLDEN / release / "MANIFEST.json").read_text(encoding="utf-8"))
    failures, checked = [], 0
    for path in sorted((GOLDEN / release).glob("*.jsonl")):
        cls = pkg.message_class(path.stem)
        renamed = manifest["messages"][path.stem].get("renamed", [])
        for vec in read_jsonl(path):
            if vec["version"] not in renamed:
                checked += 1
                failures += [f"{path.stem} v{vec['version']}: {p}" for p in vector_problems(cls, vec)]
    assert checked > 3000 and not failures, "\n".join(failures[:5])

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
