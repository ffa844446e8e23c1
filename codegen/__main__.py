"""``python -m codegen``: regenerate the package from ``schemas/``.

  python -m codegen                      regenerate src/kafka_meta_proto/messages from schemas/
  python -m codegen --check              exit 1 and name the stale files if regeneration would change anything
  python -m codegen --schemas DIR [DIR ...] --out OUT --package NAME
                                         generate an importable package OUT/NAME from other schemas
"""

from __future__ import annotations

import argparse
import keyword
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_SCHEMAS = [ROOT / "schemas"]
DEFAULT_OUT = ROOT / "src" / "kafka_meta_proto"
DEFAULT_PACKAGE = "messages"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m codegen", description=__doc__.split("\n")[0])
    ap.add_argument("--schemas", nargs="+", type=Path, help="schema directories (default: schemas/)")
    ap.add_argument("--out", type=Path, help="directory that receives the package folder")
    ap.add_argument("--package", help="package folder name (default: messages under src/kafka_meta_proto)")
    ap.add_argument("--check", action="store_true", help="do not write; fail if the files are stale")
    ap.add_argument("--jobs", type=int, help="worker processes for rendering (default: CPU count)")
    ap.add_argument("--full", action="store_true", help="render every file, even those whose stamp shows them current")
    args = ap.parse_args(argv)

    schemas = args.schemas or DEFAULT_SCHEMAS
    out = args.out or DEFAULT_OUT
    package = args.package or DEFAULT_PACKAGE
    problem = _bad_arguments(schemas, package)
    if problem:
        ap.error(problem)  # the usage line and the problem, exit 2
    try:
        from .generate import generate, stale_files, write_package
        from .spec import SchemaError, schema_files
    except ModuleNotFoundError as e:
        if e.name not in ("jinja2", "black"):
            raise
        print(
            f"python -m codegen needs {e.name}, which the codegen extra installs: "
            "pip install 'kafka-meta-proto[codegen]'",
            file=sys.stderr,
        )
        return 2
    if not schema_files(schemas):
        print(f"no schema (*.json) under {', '.join(map(str, schemas))}: nothing to generate", file=sys.stderr)
        return 2
    # The package's import name: inside our tree it is kafka_meta_proto.messages.
    import_name = f"kafka_meta_proto.{package}" if out.resolve() == DEFAULT_OUT.resolve() else package
    target = out / package
    try:
        files = generate(schemas, import_name, relative_to=ROOT, jobs=args.jobs, reuse=None if args.full else target)
    except SchemaError as e:
        print(f"schema error: {e}", file=sys.stderr)
        return 2
    if args.check:
        stale = stale_files(files, target)
        if stale:
            print("generated code is stale; run `python -m codegen`:", file=sys.stderr)
            for name in stale:
                print(f"  {name}", file=sys.stderr)
            return 1
        print(f"{len(files)} generated files are up to date")
        return 0
    changed = write_package(files, target)
    print(f"{len(files)} files in {target} ({len(changed)} changed)")
    return 0


def _bad_arguments(schemas: list[Path], package: str) -> str:
    """What is wrong with the arguments before anything is read ("" when nothing is)."""
    for d in schemas:
        if not d.exists():
            return f"--schemas: {d} does not exist"
        if not d.is_dir() and d.suffix != ".json":
            return f"--schemas: {d} is neither a directory nor a .json schema"
    if not package.isidentifier() or keyword.iskeyword(package):
        return f"--package: {package!r} is not a Python identifier, so the package could not be imported"
    return ""


if __name__ == "__main__":
    sys.exit(main())
