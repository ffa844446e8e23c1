"""Peak memory and time of the streaming readers on the hostile batches of issue 15.

    .venv/bin/python bench/hostile_batches.py [--shapes big-zstd gzip-members ...] [--readers ...]

Each shape (built by tests/log/test_hostile_logs.py, nothing checked in) is written as a one-batch
segment and read by each reader in a fresh subprocess with its address space capped at the
interpreter's baseline + 256 MiB: the records one at a time (``BatchView.records()``), dump-log's
text and ``--json``, and the pipeline's decode stage. Printed: the outcome (records read), wall
time, time per MiB of records section, and peak RSS above the baseline.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "src")]

from tests.log import test_hostile_logs as hostile  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shapes", nargs="+", default=hostile.SHAPES, choices=hostile.SHAPES)
    ap.add_argument(
        "--readers", nargs="+", default=list(hostile.READERS), choices=list(hostile.READERS)
    )
    args = ap.parse_args()
    print(
        f"{'shape':<15} {'reader':<10} {'section':>9} {'outcome':>12} {'time':>8} {'s/MiB':>6} {'peak':>8}"
    )
    for name in args.shapes:
        with tempfile.TemporaryDirectory() as tmp:
            path, count, section = hostile.write_shape(Path(tmp), name)
            mib = section / hostile.MIB
            for reader in args.readers:
                body = hostile.READERS[reader].replace("PATH", repr(str(path)))
                prelude = hostile.WARM_ARROW if reader == "pipeline" else ""
                outcome, seconds, peak = hostile.run_limited(
                    Path(tmp), body, extra_mib=hostile.LIMIT_MIB, timeout=3600, prelude=prelude
                )
                shown = outcome if len(outcome) <= 12 else outcome[:11] + "…"
                print(f"{name:<15} {reader:<10} {mib:>5.0f} MiB {shown:>12} {seconds:>7.1f}s "
                      f"{seconds / mib:>6.3f} {peak:>4} MiB", flush=True)  # fmt: skip


if __name__ == "__main__":
    main()
