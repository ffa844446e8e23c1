"""Following Kafka forward: which releases exist beyond the pinned lines (``--newer``) and what
moving to one would change (``--try``), written only to a temporary folder."""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path

from .. import releases as rel
from .merge import MergeError
from .schema_files import print_changes, print_notes, write_tree
from .sources import TARGET, kafka_oracle, merge_releases, release_schemas, unfetched


def show_newer(repository: str) -> int:
    """--newer: the releases Maven Central has beyond the pinned lines, and the artifacts of each
    line's pom a candidate is not published with."""
    oracle = kafka_oracle()
    pinned = oracle.releases()
    repo = rel.Repository(repository)
    available = repo.kafka_releases()
    print(
        f"{repository}: {len(available)} releases of kafka-clients (pre-releases left out),"
        f" the newest {available[-1]}"
    )
    found = rel.candidates(pinned, available)

    def listed(versions: list[str], pom_of: str) -> str:
        artifacts = rel.kafka_artifacts((oracle.POMS / pom_of / "pom.xml").read_text())
        out = []
        for v in versions:
            gone = repo.missing(artifacts, v)
            out.append(f"{v} (not published: {', '.join(gone)})" if gone else v)
        return ", ".join(out)

    for release, patches in found.patches.items():
        minor = ".".join(map(str, rel.line(release)))
        if patches:
            print(f"kafka/{release}: newer {minor} patches: {listed(patches, release)}")
        else:
            print(f"kafka/{release}: no newer {minor} release")
    if found.beyond:
        print(f"beyond {pinned[-1]}: {listed(found.beyond, pinned[-1])}")
    else:
        print(f"beyond {pinned[-1]}: no newer minor or major release")
    newest = [vs[-1] for vs in found.patches.values() if vs] + found.beyond[-1:]
    if newest:
        print(f"what a move would change: python -m codegen.maintenance.refresh --try {newest[-1]}")
    return 0


def try_release(
    candidate: str, pinned: list[str], repository: str, replace: str | None = ""
) -> int:
    """--try: merge the release lines with ``candidate`` in place of the line it would replace
    (``replace``: that line, None for beside them, "" for releases.replaced_line's choice) and print
    the merge notes and what changes from the merge of the pinned lines. Writes only to a
    temporary folder: the candidate's pom, classpath and Maven log, and both merged trees."""
    oracle = kafka_oracle()
    repo = rel.Repository(repository)
    refusal = _not_a_candidate(candidate, pinned)
    if refusal is None:
        if replace == "":
            replace = rel.replaced_line(candidate, pinned)
        refusal = _cannot_try(candidate, pinned, repo, replace)
    if refusal:
        print(refusal, file=sys.stderr)
        return 2
    template = replace or pinned[-1]
    pom_text = (oracle.POMS / template / "pom.xml").read_text()
    gone = repo.missing(rel.kafka_artifacts(pom_text), candidate)
    lines = sorted([r for r in pinned if r != replace] + [candidate], key=rel.key)
    place = f"in place of {replace}" if replace else f"beside {', '.join(pinned)}"
    print(f"trying Kafka {candidate} {place}: release lines {', '.join(lines)}")
    print(
        f"pom: kafka/{template}/pom.xml at {candidate}"
        + (f", left out (not published at {candidate}): {', '.join(gone)}" if gone else "")
    )
    with tempfile.TemporaryDirectory(prefix="kafka-try-") as tmp:
        folder = Path(tmp) / candidate
        folder.mkdir()
        pom = folder / "pom.xml"
        pom.write_text(rel.rewrite_pom(pom_text, candidate, gone))
        files = list(rel.jar_schema_texts(rel.resolve(pom, folder)))
        return _compare(Path(tmp), pinned, lines, candidate, files)


def _not_a_candidate(candidate: str, pinned: list[str]) -> str | None:
    """Why ``candidate`` is no release to try, or None."""
    if not rel.is_release(candidate):
        return f"{candidate} is not a release version (pre-releases are not tried)"
    if candidate in pinned:
        return f"Kafka {candidate} is pinned already (kafka/{candidate}/pom.xml)"
    return None


def _cannot_try(
    candidate: str, pinned: list[str], repo: rel.Repository, replace: str | None
) -> str | None:
    """Why ``candidate`` cannot be tried here (checked before anything is fetched), or None."""
    if replace is not None and replace not in pinned:
        return f"--replace {replace}: not a pinned release line ({', '.join(pinned)})"
    if candidate not in repo.kafka_releases():
        return (
            f"{repo.url} lists no release {candidate} of kafka-clients"
            " (pre-releases are not tried)"
        )
    return unfetched(pinned)


def _compare(
    tmp: Path, pinned: list[str], lines: list[str], candidate: str, files: list[tuple[str, str]]
) -> int:
    """Merge the pinned lines and the tried ones (``files``: the candidate's schemas) under
    ``tmp`` and print what the move changes."""
    try:
        pinned_merge = merge_releases(pinned)
        merged, reports = merge_releases(
            lines, lambda r: release_schemas(r, files if r == candidate else None)
        )
    except MergeError as e:
        print(f"cannot merge: {e}", file=sys.stderr)
        return 2
    print_notes(merged, reports, lines)
    before, after = tmp / "pinned" / "kafka", tmp / "moved" / "kafka"
    for tree in (before, after):
        shutil.copytree(TARGET, tree)
    write_tree(*pinned_merge, before)
    print(
        f"compared with the merge of the pinned lines ({', '.join(pinned)});"
        f" nothing under {TARGET} is written"
    )
    print_changes(before, merged, reports, after)
    return 0
