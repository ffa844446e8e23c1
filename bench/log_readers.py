"""CPU time of the two big readers of metadata logs: dump-log's text and the pipeline's decode stage.

    .venv/bin/python bench/log_readers.py [--records 200000] [--data DIR] [--runs 5]

The input is simulator output (one cluster, ``--records`` log records, seed 1, with a corrupt
batch and a truncated tail so that the recovering paths run too; written once into --data and
reused). Measured, best of ``--runs`` in process CPU time (other load on the machine skews it
little):

- dump-log: ``dump.dump`` of every segment and snapshot, Kafka's text form, written to a null
  stream;
- dump-log --json: the same with one JSON object per record;
- simulate: writing the input itself (``simulator.simulate``, one cluster, the same records) into
  a fresh temporary folder: the writer's speed;
- decode stage: ``pipeline.decode.decode_units`` over every unit of the cluster, as one Spark task
  decodes its units (Arrow batches built, nothing written), in a fresh process for each run so
  that no decoded value is kept from the run before.
"""

from __future__ import annotations

import argparse
import io
import json
import subprocess
import sys
import time
from pathlib import Path


class _Null(io.TextIOBase):
    def write(self, text: str) -> int:
        return len(text)


def dataset(data: Path, records: int) -> Path:
    directory = data / f"logs-{records}"
    marker = directory / ".complete"
    if not marker.exists():
        from kafka_meta_proto import simulator

        simulator.simulate(directory, records=records, seed=1, faults=("corrupt-batch", "truncated-tail"))
        marker.write_text("done\n")
    return directory / "cluster-0"


def files(cluster: Path) -> list[str]:
    log_dir = cluster / "__cluster_metadata-0"
    names = sorted(p for p in log_dir.iterdir() if p.suffix in (".log", ".checkpoint"))
    return [str(p) for p in names] + [str(cluster / "bootstrap.checkpoint")]


def time_dump(paths: list[str], as_json: bool) -> float:
    from kafka_meta_proto.tools import dump

    start = time.process_time()
    dump.dump(paths, _Null(), _Null(), as_json=as_json)
    return time.process_time() - start


def time_simulate(records: int) -> float:
    import tempfile

    from kafka_meta_proto import simulator

    with tempfile.TemporaryDirectory() as tmp:
        start = time.process_time()
        simulator.simulate(Path(tmp), records=records, seed=1)
        return time.process_time() - start


def time_decode(cluster: str) -> float:
    from kafka_meta_proto.pipeline.decode import decode_units
    from kafka_meta_proto.pipeline.inputs import discover

    units = [unit.row() for unit in discover([cluster]).units()]
    start = time.process_time()
    rows = 0
    for batch in decode_units(units):
        rows += batch.num_rows
    return time.process_time() - start


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--records", type=int, default=200_000)
    ap.add_argument("--data", type=Path, default=Path("/tmp/kafka-meta-proto-bench"))
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(time_decode(args.child)))
        return
    cluster = dataset(args.data, args.records)
    paths = files(cluster)
    size = sum(Path(p).stat().st_size for p in paths)
    print(f"{args.records} records, {len(paths)} files, {size / 1e6:.1f} MB; best of {args.runs} (CPU s)")
    results = {
        "dump-log": min(time_dump(paths, False) for _ in range(args.runs)),
        "dump-log --json": min(time_dump(paths, True) for _ in range(args.runs)),
        "simulate": min(time_simulate(args.records) for _ in range(args.runs)),
    }
    child = [sys.executable, __file__, "--child", str(cluster)]
    results["decode stage"] = min(
        json.loads(subprocess.run(child, check=True, capture_output=True, text=True).stdout)
        for _ in range(args.runs)
    )
    for name, seconds in results.items():
        print(f"  {name:16} {seconds:7.3f} s  {args.records / seconds:10,.0f} records/s")


if __name__ == "__main__":
    main()
