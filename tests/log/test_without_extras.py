"""Uncompressed record batches need none of the ``log`` extra's modules; a compressed batch, and
``kafka_meta_proto.strategies`` without hypothesis, say in one line which extra to install.

Each case runs in a fresh interpreter whose ``sys.modules[name] = None`` makes importing the
module fail as it does when the module is not installed."""

from __future__ import annotations

import subprocess
import sys

LOG_EXTRA = ["cramjam", "crc32c", "lz4", "zstandard"]
LOG_LINE = ("MissingExtraError: reading or writing compressed record batches needs the 'cramjam' "
            "module of the 'log' extra: pip install 'kafka-meta-proto[log]'")  # fmt: skip


def run_without(modules: list[str], code: str) -> subprocess.CompletedProcess:
    prelude = f"import sys\nfor name in {modules!r}:\n    sys.modules[name] = None\n"
    return subprocess.run([sys.executable, "-c", prelude + code], capture_output=True, text=True,
                          timeout=120)  # fmt: skip


UNCOMPRESSED = """
from kafka_meta_proto.log import BatchReader, Record, RecordBatch, decode_batch, scan, BufferSource
from kafka_meta_proto.log.crc import crc32c, python_crc32c
assert crc32c is python_crc32c  # the stand-in
batches = [RecordBatch.create([Record(key=b"k", value=bytes(range(i)), headers=[("h", b"v")])
                               for i in range(50)], base_offset=50 * n) for n in range(3)]
data = b"".join(b.encode() for b in batches)
read = [batch for _, batch in BatchReader(data)]
assert [b.records for b in read] == [b.records for b in batches]
assert decode_batch(data)[0].encode() == batches[0].encode()
assert sum(1 for _ in scan(BufferSource(memoryview(data)))) == 3
print("ok", len(data))
"""


def test_uncompressed_batches_are_read_and_written_without_the_log_extra():
    run = run_without(LOG_EXTRA, UNCOMPRESSED)
    assert run.returncode == 0 and run.stdout.startswith("ok"), run.stderr


def test_the_python_crc_is_crc32c():
    from crc32c import crc32c

    from kafka_meta_proto.log.crc import python_crc32c

    assert python_crc32c(b"123456789") == 0xE3069283  # the check value of CRC-32C
    data = bytes(range(256)) * 9
    for buf in (data, bytearray(data), memoryview(data), memoryview(data).cast("I")):
        assert python_crc32c(buf) == crc32c(data)
        assert python_crc32c(buf, 12345) == crc32c(data, 12345)


def test_a_compressed_batch_names_the_extra_in_one_line():
    for action in (
        "RecordBatch.create([Record(value=b'x')], compression=CompressionType.ZSTD).encode()",
        "list(BatchReader(GZIP_BATCH))",
        "[list(view.records()) for view in scan(BufferSource(GZIP_BATCH))]",
    ):
        code = (
            "from kafka_meta_proto.log import BatchReader, BufferSource, CompressionType, Record, "
            f"RecordBatch, scan\nGZIP_BATCH = {gzip_batch()!r}\n{action}\n"
        )
        run = run_without(["cramjam"], code)
        assert run.returncode == 1, (action, run.stdout)
        assert run.stderr.splitlines()[-1] == "kafka_meta_proto.extras." + LOG_LINE, action


def test_the_strategies_without_hypothesis_name_the_extra_in_one_line():
    run = run_without(["hypothesis"], "import kafka_meta_proto.strategies")
    assert run.returncode == 1
    assert run.stderr.splitlines()[-1] == (
        "kafka_meta_proto.extras.MissingExtraError: kafka_meta_proto.strategies needs the "
        "'hypothesis' module of the 'strategies' extra: pip install 'kafka-meta-proto[strategies]'"
    )
    assert "Traceback" in run.stderr and run.stderr.count("Error") == 1  # no chained import error


def gzip_batch() -> bytes:
    from kafka_meta_proto.log import CompressionType, Record, RecordBatch

    return RecordBatch.create([Record(value=b"x")], compression=CompressionType.GZIP).encode()
