"""``python -m codegen`` (in a checkout) or ``kafka-meta-proto codegen``: generate message classes.

  python -m codegen                      regenerate the package's message classes from schemas/:
                                         kafka_meta_proto.messages from schemas/kafka (Kafka's registry),
                                         kafka_meta_proto.diskless_messages from schemas/diskless (the
                                         diskless design's registry, extending Kafka's)
  python -m codegen --check              exit 1 and name the stale files if regeneration would change anything
  python -m codegen --schemas DIR [DIR ...] --out OUT --package NAME [--base kafka_meta_proto.messages]
                                         generate an importable package OUT/NAME from other schemas
                                         (with --base, its registry answers what it lacks from that one's)

An installed copy (kafka_meta_proto.codegen, no schemas/ beside it) has only the last form.
"""

from __future__ import annotations

import argparse
import keyword
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_OUT = ROOT / "src" / "kafka_meta_proto"
KAFKA_TITLE = "Apache Kafka"
# What `python -m codegen` makes without --schemas: (package folder, its schemas, the package its
# registry extends, its title). Kafka's numbers stay Kafka's: the design's messages, which give
# api keys 93-99 and record type 29 meanings of their own, are a registry of their own.
DEFAULT_PACKAGES = (
    ("messages", ROOT / "schemas" / "kafka", None, KAFKA_TITLE),
    ("diskless_messages", ROOT / "schemas" / "diskless", "kafka_meta_proto.messages",
     "the diskless batch-coordinator design (KIP-1164)"),
)  # fmt: skip


def in_checkout() -> bool:
    """Whether this is the repository's codegen/ (schemas/ and src/ beside it), not an installed copy."""
    return DEFAULT_OUT.is_dir() and all(d.is_dir() for _, d, _, _ in DEFAULT_PACKAGES)


def main(argv=None, prog: str = "python -m codegen") -> int:
    ap = argparse.ArgumentParser(prog=prog, description=__doc__.split("\n")[0])
    add_arguments(ap)
    args = ap.parse_args(argv)
    try:
        return run(args, prog, ap.error)
    except ModuleNotFoundError as e:  # (kafka-meta-proto codegen names the extra in its own words)
        if e.name not in ("jinja2", "black"):
            raise
        print(
            f"{prog} needs {e.name}, which the codegen extra installs: "
            "pip install 'kafka-meta-proto[codegen]'",
            file=sys.stderr,
        )
        return 2


def add_arguments(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--schemas", nargs="+", type=Path, help="schema directories (default: schemas/)")
    ap.add_argument("--out", type=Path, help="directory that receives the package folder")
    ap.add_argument("--package", help="package folder name (with --schemas)")
    ap.add_argument("--base", metavar="PACKAGE", help="a package whose registry the new one extends, "
                    "e.g. kafka_meta_proto.messages: its headers and messages stay reachable (with --schemas)")  # fmt: skip
    ap.add_argument("--check", action="store_true", help="do not write; fail if the files are stale")
    ap.add_argument("--jobs", type=int, help="worker processes for rendering (default: CPU count)")
    ap.add_argument("--full", action="store_true", help="render every file, even those whose stamp shows them current")


def run(args: argparse.Namespace, prog: str, error) -> int:
    """Generate as ``args`` say; ``error(text)`` reports a bad argument (argparse's: usage, exit 2)."""
    if args.schemas is None:
        if args.out or args.package or args.base:
            error("--out, --package and --base go with --schemas")
        if not in_checkout():
            print(f"{prog}: without --schemas it rewrites the repository's own packages from its schemas/, "
                  "which an installed copy lacks; give --schemas DIR --out OUT --package NAME", file=sys.stderr)  # fmt: skip
            return 2
        jobs = [(d, DEFAULT_OUT, package, base, title) for package, d, base, title in DEFAULT_PACKAGES]
    else:
        if not args.out or not args.package:
            # never write into the package's own folders from other schemas (it would replace them)
            error("--schemas needs --out and --package: where the new package goes and its name")
        if not in_checkout() and args.out.resolve().is_relative_to(ROOT):
            # ROOT is the installed kafka_meta_proto: a package written there would alter the library
            error(f"--out: {args.out} is inside the installed kafka_meta_proto; choose a folder of your own")
        jobs = [(args.schemas, args.out, args.package, args.base, None)]
    for schemas, out, package, _, _ in jobs:
        problem = _bad_arguments(schemas if isinstance(schemas, list) else [schemas], package)
        if problem:
            error(problem)  # the usage line and the problem, exit 2
    from .generate import generate, stale_files, write_package
    from .spec import SchemaError, schema_files

    status = 0
    for schemas, out, package, base, title in jobs:
        dirs = schemas if isinstance(schemas, list) else [schemas]
        if not schema_files(dirs):
            print(f"no schema (*.json) under {', '.join(map(str, dirs))}: nothing to generate", file=sys.stderr)
            return 2
        # The package's import name: inside our tree it is kafka_meta_proto.<package>.
        import_name = f"kafka_meta_proto.{package}" if out.resolve() == DEFAULT_OUT.resolve() else package
        target = out / package
        try:
            files = generate(dirs, import_name, relative_to=ROOT, jobs=args.jobs,
                             reuse=None if args.full else target, base=base, title=title)  # fmt: skip
        except SchemaError as e:
            print(f"schema error: {e}", file=sys.stderr)
            return 2
        if args.check:
            stale = stale_files(files, target)
            if stale:
                print("generated code is stale; run `python -m codegen`:", file=sys.stderr)
                for name in stale:
                    print(f"  {name}", file=sys.stderr)
                status = 1
            else:
                print(f"{len(files)} generated files in {target} are up to date")
            continue
        changed = write_package(files, target)
        print(f"{len(files)} files in {target} ({len(changed)} changed)")
    return status


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
