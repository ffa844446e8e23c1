"""Read speed of the record batch layer on the largest real KRaft segment.

    .venv/bin/python bench/read_segments.py [path-to-segment ...]

For each file: full reads through SegmentReader (memory map, CRC check, record decoding), the
same without the CRC check, and re-encoding every batch; then its records regrouped into
batches of 100 per codec, read whole (BatchReader) and streamed (scan + BatchView.records()); best of several runs in process CPU
time (so other load on the machine skews it little), as batches/s, records/s and MB/s of file
bytes.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from kafka_meta_proto.log import (
    BatchReader,
    BufferSource,
    CompressionType,
    Record,
    RecordBatch,
    SegmentReader,
    scan,
)

REFERENCE = Path(__file__).resolve().parents[1].parent / "shared" / "kafka-reference"


def best_of(fn, runs: int = 15) -> float:
    best = float("inf")
    for _ in range(runs):
        start = time.process_time()
        fn()
        best = min(best, time.process_time() - start)
    return best


def bench(path: Path) -> None:
    size = path.stat().st_size
    with SegmentReader(path) as reader:
        batches = [batch for _, batch in reader]
    records = sum(len(b.records) for b in batches)
    print(f"{path.name}: {size} bytes, {len(batches)} batches, {records} records")

    def read(verify_crc: bool) -> None:
        with SegmentReader(path, verify_crc=verify_crc) as reader:
            for _ in reader:
                pass

    def encode() -> None:
        for batch in batches:
            batch.encode()

    for label, fn in (
        ("read (CRC checked)", lambda: read(True)),
        ("read (no CRC check)", lambda: read(False)),
        ("encode", encode),
    ):
        seconds = best_of(fn)
        print(
            f"  {label:20} {seconds * 1e3:8.1f} ms  {len(batches) / seconds:10,.0f} batches/s"
            f"  {records / seconds:10,.0f} records/s  {size / seconds / 1e6:7.1f} MB/s"
        )


def bench_rebatched(path: Path, per_batch: int = 100) -> None:
    """The file's records regrouped into batches of ``per_batch`` per codec, read from memory."""
    with SegmentReader(path) as reader:
        records = [r.value for _, batch in reader if not batch.is_control for r in batch.records]
    print(f"{path.name} records regrouped into batches of {per_batch}, read from memory:")
    for codec in CompressionType:
        batches = []
        for start in range(0, len(records), per_batch):
            chunk = [
                Record(offset_delta=i, value=v)
                for i, v in enumerate(records[start : start + per_batch])
            ]
            batches.append(RecordBatch.create(chunk, base_offset=start, compression=codec).encode())
        data = b"".join(batches)
        whole = best_of(lambda: sum(1 for _ in BatchReader(data)))
        streamed = best_of(lambda: sum(1 for view in scan(BufferSource(data)) for _ in view.records()))
        print(
            f"  {codec.name.lower():6} {len(data):8} bytes"
            f"  {len(batches) / whole:9,.0f} batches/s"
            f"  {len(records) / whole:10,.0f} records/s"
            f"  {len(data) / whole / 1e6:7.1f} MB/s on disk"
            f"  | streamed (scan + records()) {len(records) / streamed:10,.0f} records/s"
        )


def main(argv: list[str]) -> int:
    if argv:
        paths = [Path(a) for a in argv]
    else:
        logs = sorted(REFERENCE.glob("real/kraft-logs/**/*.log"), key=lambda p: p.stat().st_size)
        if not logs:
            print(f"no segments given and no reference data at {REFERENCE}", file=sys.stderr)
            return 1
        paths = [logs[-1]]
    print(f"python {sys.version.split()[0]}")
    for path in paths:
        bench(path)
    bench_rebatched(paths[0])
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
