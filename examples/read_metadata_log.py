"""Simulate a small KRaft cluster with `kafka-meta-proto simulate`, then read its metadata log:
count the record types and print the first few records.

    python examples/read_metadata_log.py [DIR]    (DIR: a __cluster_metadata-0 folder of your own)
"""

import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

from kafka_meta_proto import kraft
from kafka_meta_proto.log import SegmentReader, list_segments


def read(partition: Path, show: int = 5) -> None:
    types: Counter[str] = Counter()
    for segment in list_segments(partition):
        with SegmentReader(segment.path) as reader:
            for _, batch in reader:
                if batch.is_control:  # leader changes, snapshot markers: not metadata records
                    continue
                for record in batch.records:
                    rec = kraft.decode_record_value(record.value)
                    types[rec.type_name] += 1
                    if sum(types.values()) <= show:
                        text = f"offset {batch.offset_of(record)}: {rec.type_name} v{rec.version} {rec.message}"
                        print(text if len(text) <= 160 else text[:157] + "...")
    print(
        f"{sum(types.values())} records; most common:",
        ", ".join(f"{name} {count}" for name, count in types.most_common(4)),
    )


if len(sys.argv) > 1:
    read(Path(sys.argv[1]))
else:
    with tempfile.TemporaryDirectory() as out:
        # The command line's simulator (the module the CLI runs, so this works in any environment).
        subprocess.run([sys.executable, "-m", "kafka_meta_proto.cli", "simulate", "--out", out,
                        "--records", "300", "--quiet"], check=True)  # fmt: skip
        cluster = next(p for p in Path(out).iterdir() if p.is_dir())
        read(cluster / "__cluster_metadata-0")
