"""Write tests/log/golden/coordinators/*.RELEASE.txt: Kafka's own DumpLogSegments (run from the
jars of RELEASE, a folder under kafka/) on the coordinator segments tests/log/coordinator_segments.py
writes, one file per case of tests/log/test_dump_coordinators.CASES naming that release.

    .venv/bin/python tools/coordinator_goldens.py 4.4.0 [--check]

Run it again when the schemas add a coordinator record version (the segments hold every version
we ship); --check only says which golden files differ from what Kafka prints now.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "tools"), str(ROOT / "tests")]

import kafka_oracle  # noqa: E402
from log.coordinator_segments import write_segment  # noqa: E402
from log.test_dump_coordinators import CASES, GOLDEN  # noqa: E402


def kafka_dump(release: str, directory: Path, decoder: str, skip: bool) -> str:
    flags = [f"--{decoder}-decoder"] + (["--skip-record-metadata"] if skip else [])
    command = kafka_oracle.dump_log_segments(release, *flags, "--files", "00000000000000000000.log")
    run = subprocess.run(command, cwd=directory, capture_output=True, text=True, timeout=300, check=True)
    return "".join(line + "\n" for line in run.stdout.splitlines() if not line.startswith("log4j:"))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("release")
    parser.add_argument("--check", action="store_true", help="write nothing; list the files that differ")
    args = parser.parse_args(argv)
    reason = kafka_oracle.missing(args.release)
    if reason:
        print(f"Kafka {args.release} cannot run here: {reason}", file=sys.stderr)
        return 2
    differing = 0
    for golden, scope, decoder, release, broken, skip in CASES:
        if release != args.release:
            continue
        with tempfile.TemporaryDirectory() as tmp:
            write_segment(Path(tmp), scope, broken=broken)
            text = kafka_dump(release, Path(tmp), decoder, skip)
        path = GOLDEN / golden
        same = path.exists() and path.read_text() == text
        differing += not same
        print(f"{golden}: {'unchanged' if same else 'differs' if args.check else 'written'}")
        if not same and not args.check:
            path.write_text(text)
    return 1 if args.check and differing else 0


if __name__ == "__main__":
    sys.exit(main())
