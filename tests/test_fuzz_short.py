"""A short run of tools/fuzz.py in-process, and checks that the fuzzer itself works: it is
deterministic for a seed whatever --jobs is, and it notices exceptions, hangs and slow decodes."""

from __future__ import annotations

import importlib.util
import json
import re
import sys
import time

import pytest

from conftest import ROOT
from tiers import share_and_sweep

LINE = re.compile(r"^(\d+) inputs, (\d+) clean, (\d+) DecodeError, (\d+) other, (\d+) slow$")


@pytest.fixture(scope="module")
def fuzz():
    spec = importlib.util.spec_from_file_location("kmp_fuzz_tool", ROOT / "tools" / "fuzz.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses and worker processes look it up by name
    spec.loader.exec_module(module)
    yield module
    sys.modules.pop(spec.name, None)


def run(fuzz, capsys, *args) -> tuple[int, tuple[int, ...], str]:
    code = fuzz.main([*args, "--quiet"])
    out = capsys.readouterr().out
    last = out.rstrip("\n").split("\n")[-1]
    match = LINE.match(last)
    assert match, f"last line is not the summary: {last!r}"
    return code, tuple(int(g) for g in match.groups()), out


@pytest.mark.parametrize("budget", share_and_sweep(1000, 3000))
def test_fuzz_short(fuzz, capsys, tmp_path, budget):
    report = tmp_path / "fuzz.jsonl"
    code, (n, clean, errors, other, slow), out = run(
        fuzz, capsys, "--budget", str(budget), "--seed", "1", "--jobs", "1", "--report", str(report)
    )
    assert n == budget and clean + errors + other == n
    assert other == 0, out
    assert slow == 0, out
    assert code == 0
    assert clean > 0 and errors > 0  # the mutations neither always break nor never break
    lines = [json.loads(x) for x in report.read_text().splitlines()]
    assert lines[0]["seed"] == 1 and lines[-1]["summary"]["inputs"] == budget


def test_fuzz_is_deterministic_whatever_the_jobs(fuzz, capsys):
    _, one, _ = run(fuzz, capsys, "--budget", "1200", "--seed", "7", "--jobs", "1")
    _, two, _ = run(fuzz, capsys, "--budget", "1200", "--seed", "7", "--jobs", "2")
    _, other_seed, _ = run(fuzz, capsys, "--budget", "1200", "--seed", "8", "--jobs", "1")
    assert one[:4] == two[:4]  # slow counts depend on the machine, the rest must not
    assert one[:4] != other_seed[:4]


def test_fuzz_finds_planted_bugs(fuzz, capsys, tmp_path, monkeypatch):
    """A decoder that sometimes raises IndexError, sleeps past the timeout, is slow or allocates
    4 MB for a small input."""
    real = fuzz.message_class

    def planted(name):
        cls = real(name)

        def decode(klass, data, version):
            mark = len(data) % 40
            if mark == 1:
                raise IndexError("planted")
            if len(data) % 80 == 2:
                time.sleep(3)  # a hang: the alarm stops it
            if mark == 3:
                time.sleep(0.06)  # slow but finishing
            if mark == 4:
                ballast = bytearray(4_000_000)  # memory sized by something other than the input
                del ballast
            return cls.decode(data, version)

        return type(cls.__name__, (cls,), {"decode": classmethod(decode)})

    monkeypatch.setattr(fuzz, "message_class", planted)
    report = tmp_path / "planted.jsonl"
    code, (n, clean, errors, other, slow), out = run(
        fuzz, capsys, "--budget", "200", "--seed", "3", "--jobs", "1", "--only", "MetadataRequest",
        "--timeout", "0.5", "--mem-every", "1", "--report", str(report),
    )
    assert code == 1 and other > 0 and slow > 0
    findings = [json.loads(x) for x in report.read_text().splitlines()[1:-1]]
    kinds = {f["kind"] for f in findings}
    assert {"exception", "hang", "slow", "memory"} <= kinds, kinds
    planted_error = next(f for f in findings if f["kind"] == "exception")
    assert "IndexError: planted" in planted_error["traceback"]
    assert len(bytes.fromhex(planted_error["hex"])) % 40 == 1
    assert planted_error["message"] == "MetadataRequest"
    assert re.search(r"^--- (exception|hang|slow|memory): MetadataRequest v\d+", out, re.M)  # printed


@pytest.mark.parametrize("budget", share_and_sweep(100, 300))
def test_fuzz_logs_short(fuzz, capsys, tmp_path, budget):
    """The log readers and dump-log on mutated batches, hostile shapes among the seeds. The hang
    alarm is set far above any input's time (a tenth of a second): on a loaded machine the
    default 5 s was reached by waiting for a core alone. test_fuzz_finds_planted_bugs checks
    that the alarm works."""
    report = tmp_path / "logs.jsonl"
    code, (n, clean, errors, other, slow), out = run(
        fuzz, capsys, "--logs", "--budget", str(budget), "--seed", "1", "--jobs", "1",
        "--mem-every", "20", "--timeout", "120", "--report", str(report),
    )  # fmt: skip
    assert n == budget and clean + errors + other == n
    assert other == 0 and code == 0, out
    assert clean > 0 and errors > 0


def test_fuzz_logs_finds_planted_bugs(fuzz, capsys, tmp_path, monkeypatch):
    """A streaming reader that raises IndexError on some inputs, and one that holds 8 MB."""
    real = fuzz._streamed_read

    def planted(data):
        if len(data) % 7 == 1:
            raise IndexError("planted")
        if len(data) % 7 == 2:
            ballast = bytearray(8_000_000)
            del ballast
        return real(data)

    monkeypatch.setattr(fuzz, "_streamed_read", planted)
    report = tmp_path / "planted.jsonl"
    code, (n, clean, errors, other, slow), out = run(
        fuzz, capsys, "--logs", "--budget", "150", "--seed", "4", "--jobs", "1", "--mem-every", "1",
        "--report", str(report),
    )
    assert code == 1 and other > 0
    kinds = {json.loads(x).get("kind") for x in report.read_text().splitlines()[1:-1]}
    assert {"exception", "memory"} <= kinds, kinds


def test_fuzz_logs_compares_the_buffer_types(fuzz, capsys, tmp_path, monkeypatch):
    """A whole-batch reader that names a different problem when given a bytearray, as
    find_batch once failed on a memoryview (memoryview has no find)."""
    from kafka_meta_proto.log import LogFormatError

    real = fuzz._whole_read

    def planted(data):
        outcome = real(data)
        if type(data) is bytearray and outcome[0] == "error":
            return "error", LogFormatError("planted")
        return outcome

    monkeypatch.setattr(fuzz, "_whole_read", planted)
    report = tmp_path / "planted.jsonl"
    code, (n, clean, errors, other, slow), out = run(
        fuzz, capsys, "--logs", "--budget", "100", "--seed", "5", "--jobs", "1", "--report", str(report),
    )
    assert code == 1 and other > 0 and errors == 0  # every input the readers refuse
    kinds = {json.loads(x).get("kind") for x in report.read_text().splitlines()[1:-1]}
    assert kinds == {"buffer-type-differs"}, kinds
