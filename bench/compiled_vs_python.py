"""The compiled codec against the generated Python codec it stands in for, in one process.

    .venv/bin/python bench/compiled_vs_python.py [--quick] [--only CASE ...]

For each case of bench/messages.py (same messages, same bytes): decode with the compiled layout
(``Layout.read``) and with the Python reader it replaced, encode with ``Layout.encode`` and with
the Python writer (parts joined, as ``Message.encode`` does), size with ``Layout.size`` and with
the Python sizer. Both sides skip the public method's dispatch (version lookup, error handling),
which is the same Python code for both, so the ratios are those of the codecs themselves.
Interleaved rounds, median per-round ratio, as in bench/messages.py. Needs the compiled codec.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import timeit
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import messages as bench  # noqa: E402

from kafka_meta_proto import codec  # noqa: E402


def contenders(case):
    msg, version = case.msg, case.version
    cls = type(msg)
    layout = cls._LAYOUTS[version]
    reader, writer, sizer = layout.python_reader, cls._WRITERS[version], cls._SIZERS[version]
    data = case.data

    def python_encode():
        out: list = []
        writer(msg, out)
        return b"".join(out)

    return {
        "decode": (lambda: layout.read(data, 0), lambda: reader(data, 0)),
        "encode": (lambda: layout.encode(msg), python_encode),
        "size": (lambda: layout.size(msg), lambda: sizer(msg)),
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--only", nargs="+")
    ap.add_argument(
        "--cpu-time",
        action="store_true",
        help="time with this process's CPU time instead of wall time",
    )
    args = ap.parse_args(argv)
    timer = time.process_time if args.cpu_time else time.perf_counter
    if codec.active_codec() != "compiled":
        raise SystemExit(f"the compiled codec is not active ({codec.why_pure_python()})")
    rounds, target = (3, 0.01) if args.quick else (7, 0.05)
    print(
        "| case | decode: compiled | Python | speed-up | encode: compiled | Python | speed-up | size: compiled | Python | speed-up |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for case in bench.build_cases(args.quick):
        if case.key == "kraft" or (args.only and case.key not in args.only):
            continue
        ops = contenders(case)
        assert ops["encode"][0]() == ops["encode"][1]() == case.data
        cells = [case.key]
        for op, (compiled, python) in ops.items():
            bench.TIMER = timer
            n_c, n_p = bench.calibrate(compiled, target), bench.calibrate(python, target)
            tc, tp = [], []
            for _ in range(rounds):
                tc.append(min(timeit.repeat(compiled, number=n_c, repeat=2, timer=timer)) / n_c)
                tp.append(min(timeit.repeat(python, number=n_p, repeat=2, timer=timer)) / n_p)
            ratio = statistics.median(p / c for p, c in zip(tp, tc))
            cells += [
                bench.fmt_time(statistics.median(tc)),
                bench.fmt_time(statistics.median(tp)),
                f"{ratio:.1f}x",
            ]
        print("| " + " | ".join(cells) + " |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
