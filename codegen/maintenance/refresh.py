"""``python -m codegen.maintenance.refresh``: rebuild schemas/kafka/ from the schemas inside
Kafka's jars.

  python -m codegen.maintenance.refresh              merge every release under kafka/*/pom.xml
                                                     into schemas/kafka/, print what changed
                                                     (codegen.maintenance.compat), regenerate
  python -m codegen.maintenance.refresh --dry-run    print the merge report and the changes,
                                                     write nothing
  python -m codegen.maintenance.refresh --newer      ask Maven Central which Kafka releases exist
                                                     beyond the pinned lines (codegen.releases)
  python -m codegen.maintenance.refresh --try 4.5.0  merge with 4.5.0 in place of the line it
                                                     would replace (--replace LINE|none to
                                                     choose) in a temporary folder and print
                                                     what the move would change; writes nothing

Each release line (``kafka/RELEASE/pom.xml``, resolved by ``tools/setup.sh``) contributes the JSON
schemas packed in Kafka's own jars. One file per message speaks the union of the versions the
releases define: the newest release's schema is the base; versions only an older release defines
are added back with exactly that release's wire form (fields, nullability, tags, flexibility
re-added or widened as needed). Only facts are taken from Kafka: names, types, versions, tags,
defaults, entity types and the other keys of the format. Kafka's ``about`` texts and comments are
never copied; the descriptions already in schemas/kafka/ are kept by field path, new fields get
none. See docs/schema-sources.md.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from .. import releases as rel
from .forward import show_newer, try_release
from .merge import MergeError
from .schema_files import print_changes, print_notes
from .sources import ORACLE, ROOT, TARGET, kafka_oracle, merge_releases, unfetched


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(
        prog="python -m codegen.maintenance.refresh", description=__doc__.split("\n\n")[0]
    )
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument(
        "--dry-run", action="store_true", help="report the merge and the changes, write nothing"
    )
    mode.add_argument(
        "--newer",
        action="store_true",
        help="list the Kafka releases Maven Central has beyond the pinned lines",
    )
    mode.add_argument(
        "--try",
        dest="candidate",
        metavar="RELEASE",
        help="say what moving to Kafka RELEASE would change (writes nothing)",
    )
    ap.add_argument(
        "--replace",
        metavar="LINE",
        default="",
        help="with --try: the pinned line RELEASE takes the place of, or 'none' to add it beside"
        " them (default: the same minor line, else the newest line of the same major, else none)",
    )
    ap.add_argument(
        "--repository",
        default=rel.CENTRAL,
        metavar="URL",
        help="the Maven repository asked (default: Maven Central)",
    )
    ap.add_argument(
        "--no-generate", action="store_true", help="do not regenerate the package afterwards"
    )
    return ap


def refresh(dry_run: bool) -> int:
    """Merge the pinned release lines and write them over schemas/kafka/ (``dry_run``: into a
    temporary copy), printing the merge notes and what changed."""
    releases = kafka_oracle().releases()
    reason = unfetched(releases)
    if reason:
        print(reason, file=sys.stderr)
        return 2
    try:
        merged, reports = merge_releases(releases)
    except MergeError as e:
        print(f"cannot merge: {e}", file=sys.stderr)
        return 2
    print_notes(merged, reports, releases)
    with tempfile.TemporaryDirectory() as tmp:
        before = Path(tmp) / "before" / "kafka"
        shutil.copytree(TARGET, before)
        out = Path(tmp) / "after" / "kafka" if dry_run else TARGET
        if dry_run:
            shutil.copytree(TARGET, out)
        print_changes(before, merged, reports, out)
    return 0


def main(argv=None) -> int:
    args = parser().parse_args(argv)
    if not ORACLE.is_file():  # an installed copy (kafka_meta_proto.codegen): no tools/, no kafka/
        print(f"codegen.maintenance.refresh works in a checkout of the repository only: it needs {ORACLE.relative_to(ROOT)}, "
              f"Kafka's jars and schemas/kafka, which {ROOT} does not have", file=sys.stderr)  # fmt: skip
        return 2
    if args.newer or args.candidate:
        replace = None if args.replace == "none" else args.replace
        try:
            if args.newer:
                return show_newer(args.repository)
            return try_release(args.candidate, kafka_oracle().releases(), args.repository, replace)
        except rel.RepositoryError as e:
            print(e, file=sys.stderr)
            return 2
    status = refresh(args.dry_run)
    if status == 0 and not args.dry_run and not args.no_generate:
        return subprocess.call([sys.executable, "-m", "codegen"], cwd=ROOT)
    return status


if __name__ == "__main__":
    sys.exit(main())
