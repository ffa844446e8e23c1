"""The import rule of docs/architecture.md: the package is built in layers, and a module imports
only its own layer and the ones below it.

Every hand-written module of src/kafka_meta_proto and codegen/ is parsed with ast; every import
counts, at module level, inside a function (an import made late, to save start-up time, is still
a dependency) or under ``if TYPE_CHECKING``; relative imports are resolved against the module's
package. A module that imports a higher layer fails the test, named with the import and both
layers. Every module must belong to a layer: a new module or package that matches no entry of
LAYERS fails too, until it is placed.

Layers are matched by dotted prefix, so ``kafka_meta_proto.kraft`` covers a module ``kraft.py``
and a package ``kraft/`` alike; the longest matching prefix wins.

What ast cannot see: modules imported by name at run time. ``registries`` finds the generated
packages (``messages``, ``diskless_messages``) with importlib by their names, so the runtime can
choose a registry without importing the layer above it; ``log/control.py`` reads control-record
classes through such a registry; ``cli`` finds its subcommands in ``commands/`` by name;
``codec`` loads the compiled ``_codec``; ``pipeline/tables.py`` loads a generated package's
``_arrow_schemas``. Those lookups go the same way as the rule (down, or within a layer) except
the runtime's registry lookup, which is the one sanctioned way up: by name, never by import.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

from conftest import ROOT

PACKAGE = "kafka_meta_proto"
SRC = ROOT / "src"

# Bottom to top. A module may import its own layer and any layer listed before it.
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    (
        "runtime",
        tuple(
            f"{PACKAGE}.{name}"
            for name in (
                "message", "wire", "uuid", "errors", "registry", "registries", "codec",
                "_codec", "enums", "error_codes", "schema_info", "json_plan", "layouts", "_json", "_check",
                "_strenum", "extras",
            )
        ),  # fmt: skip
    ),
    # The package's front (its __init__) re-exports the runtime and the generated registries:
    # it sits with the generated classes, which everything above may import.
    ("generated classes", (PACKAGE, f"{PACKAGE}.messages", f"{PACKAGE}.diskless_messages")),
    ("framing", (f"{PACKAGE}.protocol",)),
    ("log", (f"{PACKAGE}.log",)),
    (
        "KRaft domain",
        (f"{PACKAGE}.kraft",),
    ),
    # Holding conversations: the sans-I/O core (net), the asyncio client and server on top of it,
    # and the decoding proxy (it reads the client's routing helpers).
    ("network", (f"{PACKAGE}.net", f"{PACKAGE}.client", f"{PACKAGE}.server", f"{PACKAGE}.proxy")),
    # Behaviour over the wire: the in-process cluster (testing) and the diskless batch coordinator.
    ("services", (f"{PACKAGE}.testing", f"{PACKAGE}.diskless")),
    # The generator (codegen/, installed as kafka_meta_proto.codegen) imports runtime constants
    # and the registry type; the simulator writes metadata logs; strategies are hypothesis
    # strategies for a user's tests.
    (
        "tools",
        (
            f"{PACKAGE}.tools",
            f"{PACKAGE}.simulator",
            f"{PACKAGE}.strategies",
            f"{PACKAGE}.codegen",
        ),
    ),
    # The pipeline draws its sample logs from the simulator (pipeline/sample.py).
    ("pipeline", (f"{PACKAGE}.pipeline",)),
    ("entry points", (f"{PACKAGE}.commands", f"{PACKAGE}.cli")),
]
GENERATED_PACKAGES = (f"{PACKAGE}.messages", f"{PACKAGE}.diskless_messages")


def layer_of(module: str) -> tuple[int, str] | None:
    """(rank, name) of the layer holding ``module``, by its longest matching prefix."""
    best: tuple[int, int, str] | None = None
    for rank, (name, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            # The package's own name stands for its __init__ alone, not for all inside it.
            inside = prefix != PACKAGE and module.startswith(prefix + ".")
            if module == prefix or inside:
                if best is None or len(prefix) > best[0]:
                    best = (len(prefix), rank, name)
    return None if best is None else (best[1], best[2])


def module_name(path: Path) -> str:
    """The import name of a file: src/kafka_meta_proto/... as is, codegen/... as the installed
    kafka_meta_proto.codegen."""
    if path.is_relative_to(SRC):
        parts = path.relative_to(SRC).with_suffix("").parts
    else:
        parts = (PACKAGE, *path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def is_module(name: str) -> bool:
    """Whether ``name`` names a module or package of ours (so ``from X import name`` imports it)."""
    parts = name.split(".")
    if parts[:2] == [PACKAGE, "codegen"]:
        base = ROOT / "codegen" / Path(*parts[2:]) if parts[2:] else ROOT / "codegen"
    else:
        base = SRC / Path(*parts)
    return base.with_suffix(".py").is_file() or (base / "__init__.py").is_file()


def hand_written_modules() -> list[tuple[str, Path]]:
    paths = sorted((SRC / PACKAGE).rglob("*.py")) + sorted((ROOT / "codegen").rglob("*.py"))
    found = []
    for path in paths:
        name = module_name(path)
        if any(name == g or name.startswith(g + ".") for g in GENERATED_PACKAGES):
            continue
        found.append((name, path))
    return found


def imports_of(module: str, path: Path, source: str) -> Iterator[tuple[int, str]]:
    """(line, imported module) for each of our modules that ``source`` imports."""
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield from _ours(node.lineno, alias.name)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            for alias in node.names:
                candidate = f"{target}.{alias.name}"
                yield from _ours(node.lineno, candidate if is_module(_named(candidate)) else target)


def _named(name: str) -> str:
    # The generator is imported as ``codegen`` from a checkout and installed under the package.
    return f"{PACKAGE}.{name}" if name == "codegen" or name.startswith("codegen.") else name


def _ours(line: int, name: str) -> Iterator[tuple[int, str]]:
    name = _named(name)
    if name == PACKAGE or name.startswith(PACKAGE + "."):
        yield line, name


def _shown(path: Path) -> str:
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else str(path)


def violations(modules: list[tuple[str, Path]]) -> tuple[list[str], list[str]]:
    """(imports that go up a layer, modules or targets in no layer), each as a readable line."""
    upward, unplaced = [], []
    for module, path in modules:
        home = layer_of(module)
        if home is None:
            unplaced.append(f"{module} ({_shown(path)}) belongs to no layer")
            continue
        for line, target in imports_of(module, path, path.read_text(encoding="utf-8")):
            there = layer_of(target)
            if there is None:
                unplaced.append(f"{module}:{line} imports {target}, which belongs to no layer")
            elif there[0] > home[0]:
                upward.append(
                    f"{_shown(path)}:{line}: {module} ({home[1]}) imports {target}"
                    f" ({there[1]}), a higher layer"
                )
    return upward, unplaced


def test_every_module_belongs_to_a_layer():
    modules = hand_written_modules()
    assert len(modules) > 50, "the walk found too few modules to be looking in the right place"
    unplaced = violations(modules)[1]
    if unplaced:
        pytest.fail(
            "place these in LAYERS (tests/test_layers.py):\n" + "\n".join(unplaced), pytrace=False
        )


def test_no_module_imports_a_higher_layer():
    upward = violations(hand_written_modules())[0]
    if upward:
        pytest.fail("imports against the layers:\n" + "\n".join(upward), pytrace=False)


def test_the_rule_catches_an_import_upwards(tmp_path):
    # The checker on crafted modules: a log module importing the pipeline (two ways: a relative
    # import inside a function, an absolute one) is caught; the same module importing the runtime
    # and its own layer is not.
    bad = tmp_path / "bad.py"
    bad.write_text(
        "from ..errors import DecodeError\nfrom .records import Record\n"
        "def late():\n    from ..pipeline import job\n    import kafka_meta_proto.commands.audit\n",
        encoding="utf-8",
    )
    found = list(imports_of(f"{PACKAGE}.log.bad", bad, bad.read_text(encoding="utf-8")))
    assert found == [
        (1, f"{PACKAGE}.errors"),
        (2, f"{PACKAGE}.log.records"),
        (4, f"{PACKAGE}.pipeline.job"),
        (5, f"{PACKAGE}.commands.audit"),
    ]
    upward, unplaced = violations([(f"{PACKAGE}.log.bad", bad)])
    assert unplaced == []
    assert upward == [
        f"{bad}:4: {PACKAGE}.log.bad (log) imports {PACKAGE}.pipeline.job (pipeline), a higher layer",
        f"{bad}:5: {PACKAGE}.log.bad (log) imports {PACKAGE}.commands.audit (entry points),"
        " a higher layer",
    ]
    assert violations([(f"{PACKAGE}.newcomer", bad)])[1] == [
        f"{PACKAGE}.newcomer ({bad}) belongs to no layer"
    ]
    # A prefix covers a module and a package of that name, not a longer name beside it.
    assert layer_of(f"{PACKAGE}.kraft") == layer_of(f"{PACKAGE}.kraft.image")
    assert layer_of(f"{PACKAGE}.kraft.rules")[1] == "KRaft domain"
    assert layer_of(f"{PACKAGE}.kraftwork") is None
    assert layer_of(f"{PACKAGE}.toolsmith") is None
