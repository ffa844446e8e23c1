"""Check the package on every supported Python version found here, with both codecs.

    python tools/python_versions.py                    each of 3.10 .. 3.13 that is installed
    python tools/python_versions.py /path/to/python    given interpreters only
    python tools/python_versions.py --full             the whole fast suite, not the subset
    python tools/python_versions.py --wheel            also build a wheel and look for the extension

For each interpreter: a virtualenv of its own outside the tree (made once, under --venvs), the
compiled codec built in place with warnings as errors (each version's `_codec.<abi>.so` sits
beside the others), then with the compiled codec and with pure Python in turn: the golden-vector
conformance check (../shared/tools/conformance.py) and a fast subset of the tests. An
interpreter that is absent is skipped with a note; anything that fails makes the exit status 1.

Kept out of .ci/run (its time budget): run it after touching the C source, the build, or code
that may use a library feature newer than Python 3.10. Results are in docs/compiled-codec.md.
"""

from __future__ import annotations

import argparse
import glob
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CONFORMANCE = ROOT.parent / "shared" / "tools" / "conformance.py"
VERSIONS = ("3.10", "3.11", "3.12", "3.13")

# What the tests below import: the codegen and log extras and the test tools of the dev extra
# (pyproject.toml). PySpark and the benchmark-only packages are left out: tests/pipeline and
# tests/cluster are not run here.
REQUIREMENTS = (
    "jinja2>=3.1",
    "black>=24.0",
    "crc32c>=2.4",
    "cramjam>=2.8",
    "lz4>=4.0",
    "zstandard>=0.22",
    "pyarrow>=15",
    "pytest>=8",
    "mypy>=1.10",
    "hypothesis>=6.100",
    "construct>=2.10",
)

# The fast subset: the codec's own tests, the golden vectors, hostile input, the log toolkit's
# reading and writing, and the CLI (which imports nearly everything). A few minutes a run.
SUBSET = (
    "tests/test_codec_differential.py",
    "tests/test_golden_vectors.py",
    "tests/test_roundtrip.py",
    "tests/test_primitives.py",
    "tests/test_hostile_input.py",
    "tests/test_encode_errors.py",
    "tests/test_zero_copy.py",
    "tests/test_protocol.py",
    "tests/test_cli.py",
    "tests/test_strenum.py",
    "tests/test_typing.py",
    "tests/log/test_batch.py",
    "tests/log/test_malformed.py",
    "tests/log/test_hostile_logs.py",
    "tests/log/test_segment.py",
    "tests/log/test_streaming.py",
)
FULL = ("tests", "--ignore=tests/cluster", "--ignore=tests/pipeline")


@dataclass
class Outcome:
    python: str
    steps: list[tuple[str, str, str]] = field(
        default_factory=list
    )  # (step, PASS/FAIL/SKIP, detail)

    def add(self, step: str, ok: bool | None, detail: str = "") -> None:
        status = "SKIP" if ok is None else "PASS" if ok else "FAIL"
        self.steps.append((step, status, detail))
        print(f"  {status:4}  {step}" + (f": {detail}" if detail else ""), flush=True)

    @property
    def failed(self) -> bool:
        return any(status == "FAIL" for _, status, _ in self.steps)


def candidates() -> list[tuple[str, str | None]]:
    """(version, interpreter or None) for each supported version: the first of pythonX.Y on PATH
    and the pyenv builds of X.Y (newest first) that runs and is that version (a pyenv shim for a
    version not selected is on PATH but does not run)."""
    pyenv = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
    found = []
    for version in VERSIONS:
        builds = sorted(
            glob.glob(str(pyenv / f"{version}.*" / "bin" / "python")),
            key=lambda p: [int(x) for x in re.findall(r"\d+", Path(p).parents[1].name)],
            reverse=True,
        )
        on_path = shutil.which(f"python{version}")
        tried = ([on_path] if on_path else []) + builds
        found.append((version, next((exe for exe in tried if version_of(exe) == version), None)))
    return found


def version_of(exe: str) -> str | None:
    """X.Y of the interpreter exe, or None when it does not run."""
    try:
        proc = subprocess.run(
            [exe, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            timeout=60,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    return proc.stdout.strip() if proc.returncode == 0 else None


def run(
    cmd: list[str], env: dict[str, str] | None = None, log: Path | None = None
) -> tuple[int, str]:
    """Run cmd in the tree; return its exit status and output (also written to log)."""
    proc = subprocess.run(
        cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    if log is not None:
        log.write_text(proc.stdout)
    return proc.returncode, proc.stdout


def tree_env(pure: bool) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), str(ROOT)])
    env.pop("KAFKA_META_PROTO_PURE_PYTHON", None)
    if pure:
        env["KAFKA_META_PROTO_PURE_PYTHON"] = "1"
    return env


def ensure_venv(base: str, venvs: Path) -> Path:
    """The interpreter of a virtualenv made from base, holding REQUIREMENTS (installed once; again
    when the list changes)."""
    version = subprocess.run(
        [base, "-c", "import platform; print(platform.python_version())"],
        stdout=subprocess.PIPE,
        text=True,
        check=True,
    ).stdout.strip()
    venv = venvs / f"py{version}"
    python = venv / "bin" / "python"
    stamp = venv / (
        ".requirements-" + hashlib.sha1("\n".join(REQUIREMENTS).encode()).hexdigest()[:12]
    )
    if not python.exists():
        subprocess.run([base, "-m", "venv", str(venv)], check=True)
    if not stamp.exists():
        print(f"  installing the test requirements into {venv}", flush=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", "--upgrade", "pip"], check=True)
        subprocess.run([str(python), "-m", "pip", "install", "-q", *REQUIREMENTS], check=True)
        for old in venv.glob(".requirements-*"):
            old.unlink()
        stamp.touch()
    return python


def pytest_counts(output: str) -> str:
    """pytest's closing summary ("12 passed, 3 skipped in 4.5s"), or its last line."""
    lines = [ln.strip("= ") for ln in output.strip().splitlines()]
    for line in reversed(lines):
        if re.search(r"\d+ (passed|failed|error)", line):
            return line
    return lines[-1] if lines else "no output"


def check(base: str, args: argparse.Namespace) -> Outcome:
    python = ensure_venv(base, args.venvs)
    out = Outcome(str(python))
    logs = args.logs / python.parents[1].name
    logs.mkdir(parents=True, exist_ok=True)

    status, text = run([str(python), "tools/build_codec.py", "--werror"], log=logs / "build.log")
    out.add("build the extension (-Wall -Wextra -Werror)", status == 0, last_line(text))
    if status != 0:
        return out

    for codec in ("compiled", "pure"):
        env = tree_env(pure=codec == "pure")
        want = "compiled" if codec == "compiled" else "pure Python"
        status, text = run(
            [str(python), "-c", "import kafka_meta_proto as k; print(k.active_codec())"], env=env
        )
        active = last_line(text) or "nothing"
        out.add(f"{codec}: active codec", status == 0 and active == want, active)
        if status != 0 or active != want:
            continue

        if CONFORMANCE.exists():
            status, text = run(
                [str(python), str(CONFORMANCE)], env=env, log=logs / f"conformance-{codec}.log"
            )
            out.add(f"{codec}: conformance", status == 0, last_line(text))
        else:
            out.add(f"{codec}: conformance", None, f"{CONFORMANCE} is absent")

        tests = FULL if args.full else SUBSET
        pytest = [str(python), "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", "not slow"]
        status, text = run(
            [*pytest, f"--codec={codec}", *tests], env=env, log=logs / f"pytest-{codec}.log"
        )
        out.add(
            f"{codec}: pytest {'fast suite' if args.full else 'subset'}",
            status == 0,
            pytest_counts(text),
        )

    if args.wheel:
        out.add("wheel", *build_wheel(python))
    return out


def build_wheel(python: Path) -> tuple[bool, str]:
    """pip wheel ., then install the wheel into a scratch directory and import it from there: the
    compiled codec must be inside and active. (pip builds in the tree: the build/ and egg-info
    directories it leaves are removed unless they were there before.)"""
    leftovers = [p for p in (ROOT / "build", ROOT / "kafka_meta_proto.egg-info") if not p.exists()]
    try:
        with tempfile.TemporaryDirectory() as scratch:
            wheels, target = Path(scratch, "wheels"), Path(scratch, "site")
            status, text = run(
                [str(python), "-m", "pip", "wheel", "-q", "--no-deps", ".", "-w", str(wheels)]
            )
            built = sorted(wheels.glob("*.whl"))
            if status != 0 or not built:
                return False, last_line(text) or "no wheel was built"
            status, text = run(
                [
                    str(python),
                    "-m",
                    "pip",
                    "install",
                    "-q",
                    "--no-deps",
                    "--target",
                    str(target),
                    str(built[0]),
                ]
            )
            if status != 0:
                return False, f"{built[0].name} does not install: {last_line(text)}"
            env = dict(os.environ, PYTHONPATH=str(target))
            env.pop("KAFKA_META_PROTO_PURE_PYTHON", None)
            probe = subprocess.run(
                [
                    str(python),
                    "-c",
                    "import kafka_meta_proto as k; print(k.__file__, k.active_codec())",
                ],
                cwd=scratch,
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
            )
            seen = last_line(probe.stdout)
            ok = (
                probe.returncode == 0
                and seen.startswith(str(target))
                and seen.endswith(" compiled")
            )
            return ok, f"{built[0].name} installed, imported: " + (
                "compiled codec active" if ok else seen
            )
    finally:
        for path in leftovers:
            shutil.rmtree(path, ignore_errors=True)


def last_line(text: str) -> str:
    lines = text.strip().splitlines()
    return lines[-1] if lines else ""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument(
        "pythons",
        nargs="*",
        help="interpreters to check (default: each of %s found)" % ", ".join(VERSIONS),
    )
    ap.add_argument(
        "--venvs",
        type=Path,
        default=Path(tempfile.gettempdir()) / "kafka-meta-proto-venvs",
        help="where the virtualenvs are kept (default: %(default)s)",
    )
    ap.add_argument(
        "--logs",
        type=Path,
        default=Path(tempfile.gettempdir()) / "kafka-meta-proto-python-versions",
        help="where each step's output is written (default: %(default)s)",
    )
    ap.add_argument(
        "--full",
        action="store_true",
        help="run the fast suite (less tests/cluster and tests/pipeline)",
    )
    ap.add_argument(
        "--wheel", action="store_true", help="also build a wheel and check it holds the extension"
    )
    args = ap.parse_args()

    if args.pythons:
        chosen = [(p, p if version_of(p) else None) for p in args.pythons]
    else:
        chosen = candidates()
    outcomes = []
    for name, exe in chosen:
        if exe is None:
            print(f"Python {name}: SKIPPED, no interpreter found", flush=True)
            continue
        print(f"Python {name}: {exe}", flush=True)
        try:
            outcomes.append(check(exe, args))
        except (OSError, subprocess.CalledProcessError) as e:  # no venv, pip could not install...
            broken = Outcome(exe)
            broken.add("set up a virtualenv with the test requirements", False, str(e))
            outcomes.append(broken)

    print("\nSummary")
    for o in outcomes:
        for step, status, detail in o.steps:
            print(
                f"  {Path(o.python).parents[1].name:12} {status:4}  {step}"
                + (f": {detail}" if detail else "")
            )
    if not outcomes:
        print("  no interpreter was found: nothing was checked")
        return 1
    failed = [o for o in outcomes if o.failed]
    print(
        f"\n{len(outcomes) - len(failed)} interpreters passed, {len(failed)} failed (logs under {args.logs})"
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
