"""Every reader of log/ gives the same results and the same errors for every buffer type it
takes (bytes, bytearray, memoryview, mmap.mmap; a memoryview of signed bytes too), on real
files, simulator output and compressed batches, whole, cut short and damaged."""

from __future__ import annotations

import mmap
import random
import subprocess
import sys

import pytest

from kafka_meta_proto.errors import DecodeError
from kafka_meta_proto.log import (
    BatchReader,
    BufferSource,
    CompressionType,
    Damage,
    Record,
    RecordBatch,
    SegmentReader,
    SnapshotReader,
    decode_batch,
    scan,
    scan_batches,
)
from kafka_meta_proto.log.scanning import find_batch

from tiers import share_and_sweep

from .reference import SKIP_REASON, real_log_files


def _mapped(data: bytes) -> mmap.mmap:
    buf = mmap.mmap(-1, len(data))
    buf.write(data)
    return buf


BUFFERS = {
    "bytes": bytes,
    "bytearray": bytearray,
    "memoryview": memoryview,
    "mmap": _mapped,
    "memoryview-signed": lambda data: memoryview(data).cast("b"),
}


@pytest.fixture(scope="module")
def simulated(tmp_path_factory) -> list:
    out = tmp_path_factory.mktemp("simulated")
    subprocess.run([sys.executable, "-m", "kafka_meta_proto.cli", "simulate", "--out", str(out),
                    "--records", "2000"], check=True, capture_output=True, timeout=300)  # fmt: skip
    files = sorted(p for p in out.rglob("*") if p.suffix in (".log", ".checkpoint"))
    assert files
    return files


def compressed_segment() -> bytes:
    """A batch in every codec, a control batch and the offsets following on."""
    batches = []
    for n, codec in enumerate(CompressionType):
        records = [Record(key=b"k", value=bytes(range(i)), headers=[("h", b"v")]) for i in range(40)]
        batches.append(RecordBatch.create(records, base_offset=40 * n, compression=codec).encode())
    return b"".join(batches)


def summary(item):
    if type(item) is Damage:
        return ("damage", item.kind, item.position, item.length, item.detail, item.fields)
    return ("batch", item.position, tuple(item.header), item.data)


def read_all(buf) -> dict:
    """What each reader makes of ``buf``: its result, or the type and text of its error."""
    out = {}

    def attempt(name, read):
        try:
            out[name] = read()
        except Exception as exc:  # noqa: BLE001 - compared across types; DecodeError checked below
            out[name] = (type(exc), str(exc))

    def batch_reader(**options):
        reader = BatchReader(buf, **options)
        return list(reader), reader.truncated_tail, reader.corrupt_positions

    size = len(BufferSource(buf).whole)
    attempt("BatchReader", batch_reader)
    attempt("BatchReader skip_corrupt", lambda: batch_reader(skip_corrupt=True))
    attempt("BatchReader no crc", lambda: batch_reader(verify_crc=False))
    attempt("scan", lambda: [summary(item) for item in scan(BufferSource(buf))])
    attempt("scan ranges", lambda: [summary(item) for cut in (0, size // 3, 2 * size // 3)
                                    for item in scan(BufferSource(buf), cut, cut + size // 3 + 1)])  # fmt: skip
    attempt("scan_batches", lambda: [(pos, summary(item) if type(item) is Damage else item)
                                     for pos, item in scan_batches(BufferSource(buf))])  # fmt: skip
    attempt("records()", lambda: [list(item.records()) for item in scan(BufferSource(buf), verify_crc=False)
                                  if type(item) is not Damage])  # fmt: skip
    attempt("find_batch", lambda: [find_batch(BufferSource(buf), p) for p in range(0, size, max(1, size // 50))])
    attempt("decode_batch", lambda: decode_batch(buf))
    attempt("decode_batch at 7", lambda: decode_batch(buf, 7, verify_crc=False))
    return out


def assert_same_for_every_buffer(data: bytes) -> dict:
    expected = read_all(data)
    for name, outcome in expected.items():
        if isinstance(outcome, tuple) and len(outcome) == 2 and isinstance(outcome[0], type):
            assert issubclass(outcome[0], DecodeError), (name, outcome)
    for kind, make in BUFFERS.items():
        if kind == "bytes" or (kind == "mmap" and not data):
            continue
        got = read_all(make(data))
        for name in expected:
            assert got[name] == expected[name], (kind, name)
    return expected


def test_the_fuzzers_finding_a_memoryview_of_zeros():
    """Found by fuzzing: find_batch searched with ``buf.find``, which memoryview lacks."""
    for make in BUFFERS.values():
        with pytest.raises(DecodeError, match="position 0: magic 0 is not supported"):
            list(BatchReader(make(bytes(62))))
    assert_same_for_every_buffer(bytes(62))


LARGE_FILE = 64 << 10  # bytes; the real files above it are read in the slow tier


@pytest.mark.parametrize("large", [False, pytest.param(True, marks=pytest.mark.slow)], ids=["small", "large"])
def test_real_files_read_the_same_from_every_buffer(large):
    """Every real file, the small ones in the fast suite, the large (most of the bytes) in the
    slow tier."""
    files = [p for p in real_log_files() if (p.stat().st_size > LARGE_FILE) == large]
    if not files:
        pytest.skip(SKIP_REASON)
    for path in files:
        expected = assert_same_for_every_buffer(path.read_bytes())
        reader_class = SnapshotReader if path.suffix == ".checkpoint" else SegmentReader
        with reader_class(path) as reader:  # the readers of paths map the file: an mmap
            assert list(reader) == expected["BatchReader"][0], path


def test_simulator_output_reads_the_same_from_every_buffer(simulated):
    for path in simulated:
        expected = assert_same_for_every_buffer(path.read_bytes())
        assert expected["BatchReader"][0], path


def test_compressed_batches_read_the_same_from_every_buffer():
    expected = assert_same_for_every_buffer(compressed_segment())
    assert len(expected["BatchReader"][0]) == len(CompressionType)


def damaged(data: bytes, rng: random.Random, count: int) -> list[bytes]:
    """``data`` cut short at random points, and with random bytes changed."""
    out = [data[: rng.randrange(1, len(data))] for _ in range(count)]
    for _ in range(count):
        copy = bytearray(data)
        for _ in range(rng.randrange(1, 4)):
            copy[rng.randrange(len(copy))] = rng.randrange(256)
        out.append(bytes(copy))
    return out


@pytest.mark.parametrize("count", share_and_sweep(4, 12))
def test_damaged_inputs_fail_the_same_way_for_every_buffer(simulated, count):
    rng = random.Random(27)
    sources = [compressed_segment(), simulated[0].read_bytes()[:20_000]]
    sources += [path.read_bytes()[:20_000] for path in real_log_files()[:3]]
    failures = 0
    for data in sources:
        for variant in damaged(data, rng, count):
            expected = assert_same_for_every_buffer(variant)
            failures += isinstance(expected["BatchReader"], tuple) and len(expected["BatchReader"]) == 2
    assert failures > count - 2  # the damage was seen


def test_the_compiled_batch_walk_takes_every_buffer(simulated):
    """The pipeline's decode stage reads plain batches through the compiled codec's
    ``walk_batches`` (a buffer via the buffer protocol) when it is active, else in Python."""
    pytest.importorskip("pyarrow")
    from kafka_meta_proto.pipeline.columns import UNIT_CONSTANTS
    from kafka_meta_proto.pipeline.decode import _walk
    from kafka_meta_proto.pipeline.record_decoder import Decoders
    from kafka_meta_proto.pipeline.rows import UnitRows

    def rows_of(buf):
        decoder = Decoders().for_unit({})
        rows = UnitRows(dict.fromkeys(UNIT_CONSTANTS, "x"), decoder, 65536)
        source = BufferSource(buf)
        tables = [*_walk(source, 0, source.size, rows), *rows.rest()]
        return [table.to_pylist() for table in tables]

    data = simulated[0].read_bytes()
    expected = rows_of(data)
    assert expected
    for kind, make in BUFFERS.items():
        assert rows_of(make(data)) == expected, kind
