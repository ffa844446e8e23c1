"""The C extensions (the compiled codec, the record reader, the row making) under
AddressSanitizer: built with -fsanitize=address, then run over the golden vectors and the
differential fuzz (tools/fuzz.py's corpus and mutations, decode, encode and size; JSON forms and
text; columns packed for Arrow; the pipeline's batch rows over damaged records) in a subprocess with ASan preloaded and Python's allocator off (PYTHONMALLOC=malloc, so
every object is a malloc block ASan watches). Any invalid read or write aborts the run."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig

import pytest

from conftest import GOLDEN, ROOT

sys.path.insert(0, str(ROOT / "tools"))
import build_codec  # noqa: E402

pytestmark = pytest.mark.slow

SCRIPT = r"""
import sys
sys.path.insert(0, sys.argv[1])  # tools/
import kafka_meta_proto
from kafka_meta_proto import codec
assert codec.active_codec() == "compiled", codec.why_pure_python()
from kafka_meta_proto import _codec
from kafka_meta_proto.log import _records
from kafka_meta_proto.pipeline import _rows
for extension in (_codec, _records, _rows):  # the sanitized builds, all three
    assert extension.__file__.startswith(sys.argv[2]), extension.__file__
import codec_differential as diff
from kafka_meta_proto import REGISTRY, message_class

res = diff.Result()
vectors = 0
for name, version, data in diff.fuzz.read_vectors(diff.fuzz.DEFAULT_VECTORS):
    if name in REGISTRY.names() and version in message_class(name)._LAYOUTS:
        cls = message_class(name)
        msg = diff.check_decode(cls, version, data, res, {})
        if msg is not None:
            diff.check_encode(cls, msg, version, res, {})
            cls.decode(data, version).encode(version)
            form = _codec.json_form(msg, version)
            _codec.json_text(form)
            _rows.dict_columns([form, {}], tuple(form) + ("absent",))
            values = list(form.values()) + [None]
            for kind in ("b", "q", "s", "[i", "[s"):  # (mostly declined: the values are of every type)
                _rows.arrow_buffers(values, kind)
            _rows.arrow_buffers([str(v) for v in values], "s")
            _rows.arrow_buffers([v for v in values if v is None or type(v) is int], "q")
            _rows.arrow_buffers([v for v in values if v is None or type(v) is list and all(type(e) is int for e in v)], "[q")
        vectors += 1
fuzzed = diff.run(int(sys.argv[3]), seed=23, quiet=True)
res.add(fuzzed)

# record batch records and KRaft record values, whole and damaged
import random
from kafka_meta_proto import kraft
from kafka_meta_proto.log import records
from kafka_meta_proto.log.records import Record
rng = random.Random(5)
corpus = diff._STATE["corpus"]
from kafka_meta_proto.registries import qualified_class  # the corpus names diskless messages "diskless:..."
values = [v for (name, _), seeds in corpus.seeds.items() if qualified_class(name).MESSAGE_TYPE == "metadata"
          for v in seeds]
framed = [kraft.encode_record_value(m, v) for name, version, data in diff.fuzz.read_vectors(diff.fuzz.DEFAULT_VECTORS)
          if name in REGISTRY.names() and message_class(name).MESSAGE_TYPE == "metadata"
          for m, v in [(message_class(name).decode(data, version), version)]][:2000]
from kafka_meta_proto.pipeline.record_decoder import RecordDecoder
from kafka_meta_proto.log.crc import crc32c
from kafka_meta_proto.log.header import MIN_BATCH_LENGTH, pack_header, seal
decoder = RecordDecoder()
for i in range(int(sys.argv[3]) // 10):
    recs = [Record(key=rng.randbytes(rng.randrange(5)) if rng.random() < 0.5 else None,
                   value=rng.choice(framed) if rng.random() < 0.7 else rng.randbytes(rng.randrange(50)),
                   offset_delta=j,
                   headers=[("h" * rng.randrange(3), None if rng.random() < 0.3 else b"v")] * rng.randrange(3))
            for j in range(rng.randrange(1, 20))]
    data = bytearray(records.encode_records(recs))
    for _ in range(rng.randrange(3)):
        if data:
            data[rng.randrange(len(data))] = rng.randrange(256)
    if rng.random() < 0.3:
        del data[rng.randrange(len(data) + 1):]
    records._parse_records(bytes(data), 0, len(recs))
    # the walk of the produce check, over the same damaged records
    _records.first_bad_record(data, rng.randrange(len(data) + 1), len(recs))
    decoder.compiled_rows(bytes(data), 0, len(recs), 0, 0, False, 1 << 20, tuple([] for _ in range(7)))
    # the walk over a file of such batches (sealed: their CRCs match), its bytes damaged too
    batch = seal(pack_header(i, MIN_BATCH_LENGTH + len(data), 0, rng.choice([0, 0, 8, 1, 32]), len(recs) - 1,
                             0, 0, -1, -1, -1, len(recs) + rng.choice([0, 0, 1, -1])), bytes(data))
    file = bytearray(batch * rng.randrange(1, 4))
    for _ in range(rng.randrange(2)):
        file[rng.randrange(len(file))] = rng.randrange(256)
    file = bytes(file[: len(file) - rng.choice([0, 0, 1, 30])])
    decoder.compiled_walk(file, rng.randrange(3) * len(batch) // 2, len(file), crc32c, rng.choice([3, 50]),
                          rng.choice([40, 1 << 20]), 0, tuple([] for _ in range(10)), tuple([] for _ in range(11)), [])
    body = rng.choice(values)
    value = bytes([1, rng.randrange(30), rng.randrange(3)]) + bytes(diff.fuzz.mutate(body, rng, corpus, rng.choice(corpus.targets))[0])
    try:
        kraft.decode_record_value(value)
    except Exception:
        pass
print(f"vectors {vectors} inputs {fuzzed.inputs} mismatches {res.mismatches}")
"""


def asan_runtime() -> str | None:
    cc = (sysconfig.get_config_var("CC") or "cc").split()[0]
    try:
        path = subprocess.run(
            [cc, "-print-file-name=libasan.so"], capture_output=True, text=True
        ).stdout.strip()
    except OSError:
        return None
    return path if os.path.isabs(path) and os.path.exists(path) else None


def test_golden_vectors_and_fuzz_corpus_run_clean_under_asan(tmp_path):
    runtime = asan_runtime()
    if runtime is None:
        pytest.skip("no C compiler with AddressSanitizer here")
    assert any(GOLDEN.glob("*/*.jsonl")), f"no golden vectors under {GOLDEN}"
    package = tmp_path / "kafka_meta_proto"
    shutil.copytree(ROOT / "src" / "kafka_meta_proto", package,
                    ignore=shutil.ignore_patterns("*.so", "*.pyd", "__pycache__"))  # fmt: skip
    build_codec.build(package, asan=True)
    env = {
        **os.environ,
        "PYTHONPATH": str(tmp_path),
        "LD_PRELOAD": runtime,
        "PYTHONMALLOC": "malloc",
        # CPython keeps objects alive to the end on purpose: leaks are not the question here
        "ASAN_OPTIONS": "detect_leaks=0:abort_on_error=1:halt_on_error=1",
    }
    env.pop("KAFKA_META_PROTO_PURE_PYTHON", None)
    run = subprocess.run([sys.executable, "-c", SCRIPT, str(ROOT / "tools"), str(package), "300000"],
                         capture_output=True, text=True, env=env, timeout=1800)  # fmt: skip
    assert "AddressSanitizer" not in run.stderr, run.stderr[-5000:]
    assert run.returncode == 0, run.stderr[-5000:]
    words = run.stdout.split()
    assert (
        words[0] == "vectors"
        and int(words[1]) > 1000
        and int(words[3]) == 300000
        and words[5] == "0"
    ), run.stdout
