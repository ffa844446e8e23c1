"""Shared test helpers: where the Kafka reference data lives, and how to skip without it."""

from __future__ import annotations

import base64
import json
import math
import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# Recorded third-party data beside the checkout: an independent second check, never required.
REFERENCE = ROOT.parent / "shared" / "kafka-reference"
# Our own golden vectors, written by Kafka's serializer (tools/golden_vectors.py).
GOLDEN = ROOT / "tests" / "data" / "golden"


CODEC_ENV = "KAFKA_META_PROTO_PURE_PYTHON"


def _codec_from_argv(argv: list[str]) -> str:
    """--codec's value as given on the command line ("any" if absent)."""
    for i, arg in enumerate(argv):
        if arg.startswith("--codec="):
            return arg.split("=", 1)[1]
        if arg == "--codec" and i + 1 < len(argv):
            return argv[i + 1]
    return "any"


# The codec is chosen when kafka_meta_proto is first imported, which a conftest further down may
# do before pytest_configure runs: so --codec=pure sets the variable now, as this file (the
# first conftest loaded) is imported.
if _codec_from_argv(sys.argv) == "pure":
    os.environ[CODEC_ENV] = "1"

# The in-process cluster's fixtures, which an installed package gives every pytest session through
# its entry point (turned off in pyproject.toml's addopts for this suite: it imports the package
# before the lines above could choose the codec).
pytest_plugins = ["kafka_meta_proto.testing.pytest_plugin"]


def pytest_addoption(parser):
    parser.addoption(
        "--codec",
        choices=("any", "compiled", "pure"),
        default="any",
        help="which codec the run holds to: compiled (fails unless the C extension is built and "
        "active), pure (sets KAFKA_META_PROTO_PURE_PYTHON=1, subprocesses included), or any (default)",
    )


def pytest_configure(config):
    choice = config.getoption("--codec")
    if choice == "pure":
        os.environ[CODEC_ENV] = "1"
    from kafka_meta_proto.codec import active_codec, why_pure_python

    want = {"compiled": "compiled", "pure": "pure Python"}.get(choice)
    if want is not None and active_codec() != want:
        why = why_pure_python() or f"{CODEC_ENV} was not set when kafka_meta_proto was imported"
        raise pytest.UsageError(f"--codec={choice}, but the active codec is {active_codec()} ({why})")


# The tests whose code differs between the two codecs: the message codec's own tests, Kafka's
# serializer and tools as judges of our bytes, and the log readers (the compiled record parser).
# They carry the ``codec`` mark: .ci/run runs them a second time with pure Python. The layers
# above (network, clusters, pipeline, commands) call the same encode and decode, whose two
# implementations these tests hold equal; the pipeline's compiled rows are held to its Python
# loops in tests/pipeline/test_compiled_rows.py.
CODEC_TESTS = (
    "log/",
    "interop/test_differential.py",
    "interop/test_kafka_tools_on_our_files.py",
    "test_codec_differential.py",
    "test_codec_json.py",
    "test_compatibility.py",
    "test_encode_errors.py",
    "test_fuzz_short.py",
    "test_golden_vectors.py",
    "test_hostile_input.py",
    "test_layouts.py",
    "test_primitives.py",
    "test_protocol.py",
    "test_real_fixtures.py",
    "test_registries.py",
    "test_roundtrip.py",
    "test_shape.py",
    "test_zero_copy.py",
)


def pytest_collection_modifyitems(config, items):
    tests = ROOT / "tests"
    for item in items:
        where = item.path.relative_to(tests).as_posix()
        if where.startswith(CODEC_TESTS):
            item.add_marker(pytest.mark.codec)
    # The tests on the Spark session first (in their order): xdist's worksteal hands each worker
    # a contiguous half, so one worker runs them all on one JVM while the other starts on the
    # rest; a second session would cost a JVM's start and warm-up again.
    items.sort(key=lambda item: "spark" not in getattr(item, "fixturenames", ()))


def pytest_report_header(config):
    from kafka_meta_proto.codec import active_codec, why_pure_python

    why = why_pure_python()
    return f"kafka_meta_proto codec: {active_codec()}" + (f" ({why})" if why else "")


def reference(*parts: str) -> Path:
    """A path inside ../shared/kafka-reference, or skip the test saying it is absent: recorded
    third-party data (real traffic, real KRaft logs, Kafka's schema trees and vectors), a second
    check beside the repository's own data, which no clone needs."""
    path = REFERENCE.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"second check on recorded data: ../shared's {'/'.join(parts)} not present at {path}")
    return path


def need_kafka(release: str) -> None:
    """Skip, naming the missing piece, when Kafka ``release`` cannot run here; fail instead under
    KAFKA_META_PROTO_REQUIRE_KAFKA=1 (CI)."""
    import kafka_oracle  # tools/, put on the path by the tests that run Kafka

    reason = kafka_oracle.missing(release)
    if reason:
        if kafka_oracle.required():
            pytest.fail(f"Kafka {release} is required ({kafka_oracle.REQUIRE_ENV}=1) but {reason}")
        pytest.skip(f"Kafka {release} cannot run here: {reason}")


def kafka_schema_tree(release: str, into: Path) -> Path:
    """Kafka ``release``'s JSON schemas, taken from its jars and laid out as schemas/kafka/ is (a
    folder per record key space, codegen/maintenance/sources.JAR_FOLDERS); skips where Kafka is absent."""
    sys.path.insert(0, str(ROOT / "tools"))
    need_kafka(release)
    import kafka_oracle

    from codegen.maintenance.sources import JAR_FOLDERS

    for schema in kafka_oracle.schema_files(release):
        target = into / JAR_FOLDERS[schema.jar.rsplit("-", 1)[0]] / Path(schema.entry).name
        assert not target.exists(), f"two jars of Kafka {release} hold {target.name}"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(schema.text, encoding="utf-8")
    return into


def read_jsonl(path: Path) -> list[dict]:
    # split on "\n" only: a string may hold U+2028, which str.splitlines() would cut at
    return [json.loads(line) for line in path.read_text(encoding="utf-8").split("\n") if line.strip()]


def golden_files() -> list[Path]:
    """Our golden vectors' files, ``tests/data/golden/RELEASE/MessageName.jsonl``."""
    return sorted(GOLDEN.glob("*/*.jsonl"))


_GOLDEN_BY_NAME: dict[str, list[dict]] = {}


def golden_vectors(name: str | None = None) -> list[dict]:
    """Our golden vectors of one message (or all), every release's, each distinct (name, version,
    bytes) once: most versions are defined alike by several releases."""
    if not _GOLDEN_BY_NAME:
        seen = set()
        for path in golden_files():
            for vec in read_jsonl(path):
                key = (vec["name"], vec["version"], vec["hex"])
                if key not in seen:
                    seen.add(key)
                    _GOLDEN_BY_NAME.setdefault(vec["name"], []).append(vec)
    if name is None:
        return [v for vecs in _GOLDEN_BY_NAME.values() for v in vecs]
    return _GOLDEN_BY_NAME.get(name, [])


def same_json(a, b) -> bool:
    """JSON equality where floats compare bit for bit (NaN equals NaN, -0.0 differs from 0.0)."""
    if isinstance(a, float) or isinstance(b, float):
        if isinstance(a, bool) or isinstance(b, bool) or not isinstance(a, (int, float)) or not isinstance(b, (int, float)):
            return False
        a, b = float(a), float(b)
        return (math.isnan(a) and math.isnan(b)) or (a == b and math.copysign(1, a) == math.copysign(1, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_json(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same_json(x, y) for x, y in zip(a, b))
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    return a == b


def canonical_unknown_tags(d):
    """Unknown tagged fields compare as a tag-sorted list with canonical base64."""
    if isinstance(d, dict):
        out = {k: canonical_unknown_tags(v) for k, v in d.items()}
        tags = out.get("_unknownTaggedFields")
        if isinstance(tags, list):
            out["_unknownTaggedFields"] = sorted(
                ({"tag": t["tag"], "data": base64.b64encode(base64.b64decode(t["data"])).decode()} for t in tags),
                key=lambda t: t["tag"],
            )
        return out
    if isinstance(d, list):
        return [canonical_unknown_tags(x) for x in d]
    return d


def vector_problems(cls, vec: dict) -> list[str]:
    """Both directions of one golden vector: from_json().encode() == hex, decode().to_json() == data."""
    version, data, want = vec["version"], vec["data"], bytes.fromhex(vec["hex"])
    problems = []
    got = cls.from_json(data, version).encode(version)
    if got != want:
        problems.append(f"encode: got {got.hex()[:100]} want {want.hex()[:100]}")
    back = cls.decode(want, version).to_json(version)
    if not same_json(canonical_unknown_tags(back), canonical_unknown_tags(data)):
        problems.append(f"decode: got {json.dumps(back)[:160]} want {json.dumps(data)[:160]}")
    return problems


def without_about(node):
    """A parsed schema without its descriptions: the facts only."""
    if isinstance(node, dict):
        return {k: without_about(v) for k, v in node.items() if k != "about"}
    if isinstance(node, list):
        return [without_about(v) for v in node]
    return node


# -- every class the package ships, in both registries -----------------------------------------


def shipped_names() -> list[str]:
    """Kafka's registry's names, then the diskless registry's own as ``diskless:Name`` (its
    FindCoordinator differs from Kafka's; the rest of it is Kafka's registry)."""
    from kafka_meta_proto.registries import qualified_names

    return qualified_names()


def shipped_class(name: str):
    """The class a name of ``shipped_names()`` stands for."""
    from kafka_meta_proto.registries import qualified_class

    return qualified_class(name)
