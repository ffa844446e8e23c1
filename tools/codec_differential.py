#!/usr/bin/env python
"""Differential fuzz of the compiled codec against the pure Python one (the reference).

    .venv/bin/python tools/codec_differential.py --budget 1000000 --seed 7 [--jobs 2] [--only NAME ...]

Inputs are tools/fuzz.py's: a seed encoding (golden vectors and generated messages) put through
its mutations, decoded at the seed's version or, one time in ten, another. For each input:

- decode: the compiled layout alone (``Layout.read``, which returns None where it declines)
  and the Python reader it replaces. The compiled codec must give an identical object (same
  classes, same value types, floats bit for bit, memoryviews where Python gives them) at the same
  end position, or decline; a compiled result where Python raises is a mismatch, and a decline
  where Python decodes is counted ("declined"), since the compiled codec should cover every
  valid input.
- encode and size, for every input Python decoded: the object, and one time in two a copy
  with one field set to an awkward value (out of range, None, another type, a subclass...), at
  the decoded version or another. The compiled encode and size must equal the Python writer's
  bytes and sizer's number, or decline where Python refuses; a decline where Python succeeds is
  counted as declined (an unusual value the compiled codec leaves to Python).

The last stdout line is ``N inputs, M mismatches, D declined-valid-decode, E declined-encode``;
the exit status is 1 when M > 0. --report writes each mismatch as a JSON line.
"""

from __future__ import annotations

import argparse
import copy
import enum
import importlib.util
import json
import math
import multiprocessing
import random
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT / "src") not in sys.path:
    sys.path.insert(0, str(ROOT / "src"))

from kafka_meta_proto import DecodeError, codec  # noqa: E402
from kafka_meta_proto.registries import qualified_class as message_class  # noqa: E402
from kafka_meta_proto.uuid import Uuid  # noqa: E402


def _load_fuzz():
    name = "kmp_fuzz_tool"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, ROOT / "tools" / "fuzz.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


fuzz = _load_fuzz()
CHUNK = 500


# -- Identical objects -------------------------------------------------------------------------


def _slots(cls) -> list[str]:
    names: list[str] = []
    for klass in reversed(cls.__mro__):
        names += [n for n in klass.__dict__.get("__slots__", ()) if n not in names]
    return names


def same(a, b) -> bool:
    """Equal values of the same types all the way down; floats bit for bit."""
    if type(a) is not type(b):
        return False
    if type(a) is float:
        return (math.isnan(a) and math.isnan(b)) or (
            a == b and math.copysign(1, a) == math.copysign(1, b)
        )
    if type(a) in (list, tuple):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    if type(a) is memoryview:
        return a.tobytes() == b.tobytes() and a.obj is b.obj
    if type(a) in (int, bool, str, bytes) or a is None:
        return a == b
    slots = _slots(type(a))
    if not slots:
        return a == b
    return all(same(getattr(a, n, _UNSET), getattr(b, n, _UNSET)) for n in slots)


_UNSET = object()


# -- Awkward values for encode ------------------------------------------------------------------


class _Int(int):
    pass


class _Str(str):
    pass


class _Color(enum.IntEnum):
    RED = 1


def awkward(rng: random.Random, value):
    """A value of the kind encoders must refuse or treat with care, near ``value``'s type."""
    choices = [None, -1, 0, 2**31, -(2**31) - 1, 2**63, 2**32, 70000, 128, -129, True, 1.5, float("nan"), "x",
               b"x", bytearray(b"ab"), memoryview(b"abc"), memoryview(b"abcd").cast("h"), (), [], [None],
               _Int(5), _Str("s"), _Color.RED, "\ud800", "é" * 20000, Uuid(bytes(16)), object()]  # fmt: skip
    if isinstance(value, list) and value:
        inner = list(value)
        inner[rng.randrange(len(inner))] = rng.choice(choices)
        choices += [inner, tuple(value)]
    if isinstance(value, int) and not isinstance(value, bool):
        choices += [value + 2**15, value - 2**15, value + 2**31, -value - 1, float(value)]
    if isinstance(value, Uuid):
        bad = copy.copy(value)
        bad.bytes = b"\x00" * 15
        choices += [bad]
    return rng.choice(choices)


def _fields(obj, out: list, depth: int = 0) -> None:
    """Every (object, attribute) inside obj, for picking one to spoil."""
    if depth > 6:
        return
    for name in _slots(type(obj)):
        out.append((obj, name))
        value = getattr(obj, name, None)
        if isinstance(value, list):
            for item in value[:4]:
                if _slots(type(item)) and not isinstance(item, Uuid):
                    _fields(item, out, depth + 1)
        elif _slots(type(value)) and not isinstance(value, Uuid):
            _fields(value, out, depth + 1)


def spoil(rng: random.Random, msg):
    msg = copy.deepcopy(msg)
    spots: list = []
    _fields(msg, spots)
    if spots:
        obj, name = rng.choice(spots)
        setattr(obj, name, awkward(rng, getattr(obj, name)))
    return msg


# -- One input ----------------------------------------------------------------------------------


@dataclass
class Result:
    inputs: int = 0
    mismatches: int = 0
    declined_decode: int = 0
    declined_encode: int = 0
    decoded: int = 0
    encoded: int = 0
    findings: list = field(default_factory=list)

    def add(self, other: Result) -> None:
        for name in (
            "inputs",
            "mismatches",
            "declined_decode",
            "declined_encode",
            "decoded",
            "encoded",
        ):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.findings += other.findings[: max(0, 100 - len(self.findings))]


def _python_encode(cls, msg, version):
    out: list = []
    try:
        cls._WRITERS[version](msg, out)
        return b"".join(out)
    except Exception:
        return None


def _python_size(cls, msg, version):
    try:
        return cls._SIZERS[version](msg)
    except Exception:
        return None


def check_encode(cls, msg, version, res: Result, detail: dict) -> None:
    layout = cls._LAYOUTS.get(version)
    if layout is None:
        return
    res.encoded += 1
    want, want_size = _python_encode(cls, msg, version), _python_size(cls, msg, version)
    got, got_size = layout.encode(msg), layout.size(msg)
    if (got is None) != (got_size is None):
        _mismatch(
            res, "compiled encode and size disagree on declining", detail, msg=repr(msg)[:2000]
        )
    if got is not None and got != want:
        _mismatch(res, "encode differs" if want is not None else "compiled encodes what Python refuses", detail,
                  msg=repr(msg)[:2000], got=got.hex()[:2000], want=None if want is None else want.hex()[:2000])  # fmt: skip
    elif got_size is not None and got_size != want_size:
        _mismatch(res, "size differs", detail, msg=repr(msg)[:2000], got=got_size, want=want_size)
    elif got is None and want is not None:
        res.declined_encode += 1


def check_decode(cls, version, data: bytes, res: Result, detail: dict):
    layout = cls._LAYOUTS[version]
    got = layout.read(data, 0)
    try:
        want = layout.python_reader(data, 0)
    except DecodeError:
        want = None
    except Exception as e:  # the fuzzer's business; note it here too
        _mismatch(res, f"Python reader raised {type(e).__name__}", detail)
        return None
    if got is None:
        if want is not None:
            res.declined_decode += 1
    elif want is None:
        _mismatch(res, "compiled decodes what Python refuses", detail, got=repr(got[0])[:2000])
    elif got[1] != want[1] or not same(got[0], want[0]):
        _mismatch(
            res, "decoded objects differ", detail, got=repr(got)[:2000], want=repr(want)[:2000]
        )
    if want is not None:
        res.decoded += 1
        return want[0]
    return None


def _mismatch(res: Result, kind: str, detail: dict, **extra) -> None:
    res.mismatches += 1
    if len(res.findings) < 100:
        res.findings.append({"kind": kind, **detail, **extra})


# -- Chunks -------------------------------------------------------------------------------------

_STATE: dict = {}


def _init(seed: int, only, vectors) -> None:
    if codec.active_codec() != "compiled":
        raise SystemExit(f"the compiled codec is not active ({codec.why_pure_python()})")
    _STATE["corpus"] = fuzz.build_corpus(seed, only, vectors)
    _STATE["classes"] = {n: message_class(n) for n in _STATE["corpus"].versions}
    _STATE["seed"] = seed


def run_chunk(job: tuple[int, int]) -> Result:
    index, count = job
    corpus, classes = _STATE["corpus"], _STATE["classes"]
    rng = random.Random(f"kmp-codec-diff/{_STATE['seed']}/{index}")
    res = Result()
    for _ in range(count):
        target = rng.choice(corpus.targets)
        name, seed_version = target
        data, ops = fuzz.mutate(rng.choice(corpus.seeds[target]), rng, corpus, target)
        version = seed_version if rng.random() < 0.9 else rng.choice(corpus.versions[name])
        cls = classes[name]
        detail = {"message": name, "version": version, "hex": data.hex()[:4000], "ops": ops}
        res.inputs += 1
        msg = check_decode(cls, version, data, res, detail)
        if msg is None:
            continue
        check_encode(cls, msg, version, res, {**detail, "encode": "as decoded"})
        if rng.random() < 0.5:
            other = rng.choice(corpus.versions[name])
            check_encode(
                cls, spoil(rng, msg), other, res, {**detail, "encode": f"spoiled, at v{other}"}
            )
    return res


def chunks(budget: int):
    for i, start in enumerate(range(0, budget, CHUNK)):
        yield i, min(CHUNK, budget - start)


def run(
    budget: int,
    seed: int,
    jobs: int = 1,
    only=None,
    vectors=fuzz.DEFAULT_VECTORS,
    quiet: bool = False,
) -> Result:
    total = Result()
    started = time.monotonic()
    if jobs == 1:
        _init(seed, only, vectors)
        results = map(run_chunk, chunks(budget))
        pool = None
    else:
        pool = multiprocessing.get_context("fork").Pool(jobs, _init, (seed, only, vectors))
        results = pool.imap_unordered(run_chunk, chunks(budget))
    try:
        for r in results:
            total.add(r)
            if not quiet and total.inputs % 50_000 < CHUNK:
                print(f"... {total.inputs:,} inputs, {total.mismatches} mismatches, "
                      f"{time.monotonic() - started:.0f} s", file=sys.stderr, flush=True)  # fmt: skip
    finally:
        if pool is not None:
            pool.terminate()
            pool.join()
    return total


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--budget", type=int, required=True)
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--only", nargs="+", metavar="NAME")
    ap.add_argument("--vectors", type=Path, default=fuzz.DEFAULT_VECTORS)
    ap.add_argument("--report", type=Path)
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args(argv)
    started = time.monotonic()
    res = run(args.budget, args.seed, args.jobs, args.only, args.vectors, args.quiet)
    if args.report:
        args.report.write_text(
            "".join(json.dumps(f) + "\n" for f in res.findings), encoding="utf-8"
        )
    for f in res.findings[:5]:
        print(json.dumps(f)[:3000])
    print(
        f"decoded {res.decoded:,}, encode checks {res.encoded:,}, {time.monotonic() - started:.0f} s",
        file=sys.stderr,
    )
    print(f"{res.inputs} inputs, {res.mismatches} mismatches, {res.declined_decode} declined-valid-decode, "
          f"{res.declined_encode} declined-encode")  # fmt: skip
    return 1 if res.mismatches else 0


if __name__ == "__main__":
    sys.exit(main())
