"""How long ``import kafka_meta_proto`` takes in a fresh interpreter (target: under 100 ms).

  python bench/import_time.py [--runs N]

Each run starts a new Python process and times the import alone (``time.perf_counter`` around it,
interpreter start-up excluded); the script prints the median and the worst run, then how long the
first use of a few message classes takes (their modules load on first use), and how many message
modules the package holds.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys

IMPORT = "import time; t = time.perf_counter(); import kafka_meta_proto; print(time.perf_counter() - t)"
FIRST_USE = (
    "import time, kafka_meta_proto as k; t = time.perf_counter(); "
    "[k.message_class(n) for n in ('FetchRequest', 'JoinGroupRequest', 'ConsumerGroupMetadataValue')]; "
    "print(time.perf_counter() - t)"
)


def timed(code: str, runs: int) -> list[float]:
    return [float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout) for _ in range(runs)]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=15)
    args = ap.parse_args(argv)
    from kafka_meta_proto import REGISTRY

    imports = timed(IMPORT, args.runs)
    first = timed(FIRST_USE, max(3, args.runs // 3))
    print(f"{len(REGISTRY.names())} message modules")
    print(f"import kafka_meta_proto: median {statistics.median(imports) * 1e3:.1f} ms, worst {max(imports) * 1e3:.1f} ms ({args.runs} runs)")
    print(f"first use of 3 message classes: median {statistics.median(first) * 1e3:.1f} ms")
    return 0 if statistics.median(imports) < 0.1 else 1


if __name__ == "__main__":
    sys.exit(main())
