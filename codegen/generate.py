"""Schemas in, package out: read a tree of schemas and produce every file of the package."""

from __future__ import annotations

import hashlib
import os
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import black

from kafka_meta_proto.registry import Registry

from .render import BLACK_MODE, module_name, render_message, render_package_init
from .spec import MessageSpec, load_tree


CODEGEN_DIR = Path(__file__).resolve().parent
# Modules of codegen/ that never touch the generated text: editing them must not re-render it all.
NOT_GENERATOR = ("compat.py", "refresh.py", "releases.py", "__main__.py")
FINGERPRINT = "# fingerprint: "
def _render_one(args) -> tuple[str, str]:
    spec, source, inputs = args
    return module_name(spec) + ".py", stamp(render_message(spec, source), inputs)


def generator_digest() -> str:
    """Everything besides the schema that decides the output: generator code, templates, black."""
    h = hashlib.sha256(black.__version__.encode())
    modules = [p for p in sorted(CODEGEN_DIR.glob("*.py")) if p.name not in NOT_GENERATOR]
    for path in modules + sorted((CODEGEN_DIR / "templates").glob("*.j2")):
        h.update(path.name.encode() + b"\0" + path.read_bytes())
    return h.hexdigest()


def stamp(text: str, inputs: str) -> str:
    """Add a second line recording the digest of the inputs and of the rest of the file, so an
    unchanged file can be recognised without rendering it again (and a hand edit is still seen)."""
    first, rest = text.split("\n", 1)
    body = hashlib.sha256(rest.encode()).hexdigest()[:16]
    return f"{first}\n{FINGERPRINT}inputs {inputs[:16]} body {body}\n{rest}"


def still_fresh(path: Path, inputs: str) -> str | None:
    """The file's text when its stamp says it was generated from these inputs and not edited."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return None
    first, _, rest = text.partition("\n")
    line, _, body = rest.partition("\n")
    want = f"{FINGERPRINT}inputs {inputs[:16]} body {hashlib.sha256(body.encode()).hexdigest()[:16]}"
    return text if line == want else None


def generate(
    schema_dirs,
    package: str,
    relative_to: Path | None = None,
    jobs: int | None = None,
    reuse: Path | None = None,
    base: str | None = None,
    title: str | None = None,
) -> dict[str, str]:
    """Return {relative file name: text} for the package generated from the schema dirs.

    With ``reuse`` (the package folder), files whose stamp matches their inputs are taken as they
    are instead of being rendered again; the result is the same, only faster. ``base`` names the
    package whose registry the new one extends, ``title`` how the registry is named to users."""
    # A schema whose validVersions are "none" marks a removed message: like Kafka, emit no class.
    specs: list[MessageSpec] = [s for s in load_tree(schema_dirs) if not s.valid_versions.empty]
    # Refuse duplicate names and keys before writing anything (within the package: one that
    # extends a base may give the base's names and keys other meanings, which is its purpose).
    Registry(package, [(s.name, module_name(s), s.type, s.api_key, s.scope) for s in specs])
    sources = {s.name: _display_path(Path(s.file), relative_to) for s in specs}
    digest = generator_digest()
    inputs = {s.name: _inputs(digest, package, sources[s.name], Path(s.file).read_bytes()) for s in specs}
    files: dict[str, str] = {}
    work = []
    for s in specs:
        name = module_name(s) + ".py"
        old = still_fresh(reuse / name, inputs[s.name]) if reuse is not None else None
        if old is not None:
            files[name] = old
        else:
            work.append((s, sources[s.name], inputs[s.name]))
    jobs = jobs or min(len(work), os.cpu_count() or 1)
    if jobs > 1 and len(work) > 4:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            files.update(pool.map(_render_one, work, chunksize=4))
    else:
        files.update(map(_render_one, work))
    init_inputs = _inputs(digest, package, base, title, *sorted(inputs.values()))
    init = still_fresh(reuse / "__init__.py", init_inputs) if reuse is not None else None
    if init is None:
        init = stamp(render_package_init(package, specs, base, title), init_inputs)
    return {"__init__.py": init, **dict(sorted(files.items()))}


def _inputs(*parts) -> str:
    h = hashlib.sha256()
    for part in parts:
        h.update(part if isinstance(part, bytes) else str(part).encode())
        h.update(b"\0")
    return h.hexdigest()


def _display_path(path: Path, relative_to: Path | None) -> str:
    """Generated headers name the schema relative to the project, never an absolute path."""
    path = path.resolve()
    if relative_to is not None:
        try:
            return path.relative_to(relative_to.resolve()).as_posix()
        except ValueError:
            pass
    return path.name


def write_package(files: dict[str, str], out_dir: Path) -> list[Path]:
    """Write the files, removing generated modules no schema produces any more."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in files.items():
        path = out_dir / name
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
            written.append(path)
    for old in out_dir.glob("*.py"):
        if old.name not in files and old.read_text(encoding="utf-8").startswith("# Generated by"):
            old.unlink()
            written.append(old)
    return written


def stale_files(files: dict[str, str], out_dir: Path) -> list[str]:
    """Files that differ from what the generator would write now (missing, changed or orphaned)."""
    stale = []
    for name, text in files.items():
        path = out_dir / name
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            stale.append(str(path))
    if out_dir.is_dir():
        for old in sorted(out_dir.glob("*.py")):
            if old.name not in files:
                stale.append(f"{old} (no schema produces it)")
    return stale
