"""What `kafka-meta-proto dump-log` prints, called from Python: Kafka's DumpLogSegments text for
a metadata log segment, captured into a string and filtered.

    python examples/dump_log.py [FILE ...]    (FILE: *.log or *.checkpoint files of your own)
"""

import io
import subprocess
import sys
import tempfile
from pathlib import Path

from kafka_meta_proto.tools.dump import dump


def show(paths: list[Path]) -> None:
    out, err = io.StringIO(), io.StringIO()
    status = dump([str(p) for p in paths], out, err, skip_record_metadata=False)
    lines = out.getvalue().splitlines()
    payloads = [line for line in lines if "payload:" in line]
    print(f"{len(lines)} lines, {len(payloads)} records with a payload, status {status}")
    for line in lines[:2] + payloads[:3]:
        print(line[:160])
    if err.getvalue():
        print("problems:", err.getvalue().strip())


if len(sys.argv) > 1:
    show([Path(p) for p in sys.argv[1:]])
else:
    with tempfile.TemporaryDirectory() as out:
        subprocess.run([sys.executable, "-m", "kafka_meta_proto.cli", "simulate", "--out", out,
                        "--records", "200", "--quiet"], check=True)  # fmt: skip
        cluster = next(p for p in Path(out).iterdir() if p.is_dir())
        show(sorted((cluster / "__cluster_metadata-0").glob("*.log"))[:1])
