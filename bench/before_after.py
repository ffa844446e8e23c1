"""Two checkouts of this project timed against each other, in interleaved runs: a change's cost.

    .venv/bin/python bench/before_after.py BEFORE AFTER messages [--rounds 3] [--pure] [--only CASE ...]
    .venv/bin/python bench/before_after.py BEFORE AFTER imports [--rounds 9]
    .venv/bin/python bench/before_after.py BEFORE AFTER pipeline [--rounds 5] [--pure] [--data SIM_DIR]

BEFORE and AFTER are checkouts, each set up with its own ``.venv`` (``bash tools/setup.sh``).
Every run is a fresh process of one checkout's interpreter on its own tree; the two alternate
(before first in odd rounds, after first in even ones), so a machine that gets busier or
quieter weighs on both alike. ``messages`` runs ``bench/messages.py`` (process CPU time) and keeps
this library's rows; ``imports`` times ``import kafka_meta_proto`` and then loading every message
class (CPU time); ``pipeline`` runs ``bench/pipeline.py``'s single-process decode of a simulated
log. The table gives, per measure, the fastest run of each side and their ratio (after/before:
under 1 is faster): on a shared machine the fastest run is the one least disturbed.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
from pathlib import Path

UNIT_US = {"ns": 1e-3, "µs": 1.0, "ms": 1e3, "s": 1e6}
IMPORTS = (
    "import time; t = time.process_time(); import kafka_meta_proto as k; a = time.process_time() - t; "
    "t = time.process_time(); [k.message_class(n) for n in k.REGISTRY.names()]; "
    "print(a * 1e3, (time.process_time() - t) * 1e3)"
)


def _run(tree: Path, args: list[str], pure: bool) -> str:
    env = {**os.environ, "KAFKA_META_PROTO_PURE_PYTHON": "1"} if pure else dict(os.environ)
    done = subprocess.run(
        [str(tree / ".venv/bin/python"), *args], cwd=tree, env=env, capture_output=True, text=True
    )
    if done.returncode:
        sys.exit(f"{tree}: {' '.join(args[:2])} failed:\n{done.stderr[-3000:]}")
    return done.stdout


def _microseconds(text: str) -> float:
    value, unit = text.split()
    return float(value.replace(",", "")) * UNIT_US[unit]


def _per_second(text: str) -> float:
    value, _, scale = text.partition(" ")
    return float(value.replace(",", "")) * {"": 1, "k": 1e3, "M": 1e6}[scale]


def messages(tree: Path, options) -> dict[str, float]:
    """µs per call of this library's decode, encode and size() in each case of bench/messages.py."""
    only = ["--only", *options.only] if options.only else []
    out = _run(
        tree,
        ["bench/messages.py", "--cpu-time", "--rounds", "5", "--sample", "0.05", *only],
        options.pure,
    )
    found, case = {}, None
    for line in out.splitlines():
        if line.startswith("### "):
            case = line[4:]
        elif case and line.startswith("| kafka_meta_proto |"):
            cells = [cell.strip() for cell in line.split("|")[1:-1]]
            # from the calls per second: the times are printed to 0.1 µs, too coarse for small messages
            found[f"{case} | decode (µs)"] = 1e6 / _per_second(cells[2])
            found[f"{case} | encode (µs)"] = 1e6 / _per_second(cells[5])
        elif case and line.startswith("- `size()`:"):
            found[f"{case} | size (µs)"] = _microseconds(
                re.search(r"`size\(\)`: ([\d.,]+ \S+)", line).group(1)
            )
    return found


def imports(tree: Path, options) -> dict[str, float]:
    package, classes = map(float, _run(tree, ["-c", IMPORTS], False).split())
    return {
        "import kafka_meta_proto | CPU ms": package,
        "every message class loaded | CPU ms": classes,
    }


def pipeline(tree: Path, options) -> dict[str, float]:
    out = Path(f"/tmp/before-after-{os.getpid()}-{tree.name}")
    subprocess.run(["rm", "-rf", str(out)], check=True)
    result = json.loads(
        _run(
            tree,
            ["bench/pipeline.py", "--child", "single", str(options.data), str(out)],
            options.pure,
        ).splitlines()[-1]
    )
    return {f"decode {result['records']:,} log records, one process | s": result["seconds"]}


def _figure(value: float) -> str:
    return f"{value:,.1f}" if value >= 10 else f"{value:.3f}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("before", type=Path)
    ap.add_argument("after", type=Path)
    ap.add_argument("kind", choices=["messages", "imports", "pipeline"])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--pure", action="store_true", help="both sides under the pure Python codec")
    ap.add_argument("--only", nargs="+", help="bench/messages.py case keys")
    ap.add_argument("--data", type=Path, default=Path("/tmp/kafka-meta-proto-bench/sim-100000"),
                    help="simulated logs for pipeline (bench/pipeline.py writes them)")  # fmt: skip
    options = ap.parse_args()
    measure = {"messages": messages, "imports": imports, "pipeline": pipeline}[options.kind]
    trees = {"before": options.before.resolve(), "after": options.after.resolve()}
    runs: dict[str, list[dict[str, float]]] = {"before": [], "after": []}
    for r in range(options.rounds):
        for side in ("before", "after") if r % 2 == 0 else ("after", "before"):
            runs[side].append(measure(trees[side], options))
        print(f"round {r + 1} of {options.rounds} done", file=sys.stderr, flush=True)
    print("| case | measure | before | after | after/before |\n|---|---|---:|---:|---:|")
    ratios = []
    for key in runs["after"][0]:
        before = min(run[key] for run in runs["before"])
        after = min(run[key] for run in runs["after"])
        ratios.append(after / before)
        print(f"| {key} | {_figure(before)} | {_figure(after)} | {after / before:.3f} |")
    print(
        f"\ngeometric mean {statistics.geometric_mean(ratios):.3f}, worst {max(ratios):.3f}, best {min(ratios):.3f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
