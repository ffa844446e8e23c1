"""Compile the compiled codec (src/kafka_meta_proto/_codec*.c) in place, for a source checkout.

    python tools/build_codec.py                 optimised build next to the sources
    python tools/build_codec.py --asan OUTDIR   AddressSanitizer build into OUTDIR (tests/test_codec_asan.py)
    python tools/build_codec.py --werror        a warning fails the build (tools/python_versions.py)

`pip install .` builds the same extension through setup.py; this script is for working on the
tree (and for the sanitizer build, which needs its own flags), calling the C compiler directly.
"""

from __future__ import annotations

import argparse
import shlex
import subprocess
import sys
import sysconfig
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "kafka_meta_proto"
SOURCES = [PACKAGE / "_codec.c", PACKAGE / "_codec_json.c", PACKAGE / "_codec_arrow.c"]  # one extension; _codec.h between them


def target_name() -> str:
    return "_codec" + (sysconfig.get_config_var("EXT_SUFFIX") or ".so")


def build(out_dir: Path, asan: bool = False, werror: bool = False) -> Path:
    out_dir.mkdir(parents=True, exist_ok=True)
    target = out_dir / target_name()
    cc = shlex.split(sysconfig.get_config_var("CC") or "cc")[:1]
    flags = [
        "-shared",
        "-fPIC",
        "-Wall",
        "-Wextra",
        "-Wno-unused-parameter",
        "-Wno-missing-field-initializers",
    ]
    flags += ["-O1", "-g", "-fsanitize=address", "-fno-omit-frame-pointer"] if asan else ["-O3"]
    flags += ["-Werror"] if werror else []
    partial = target.with_name(target.name + ".partial")
    cmd = [*cc, *flags, f"-I{sysconfig.get_paths()['include']}", *map(str, SOURCES), "-o", str(partial)]
    subprocess.run(cmd, check=True)
    partial.replace(target)  # a process that has the old one loaded keeps it
    return target


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--asan", metavar="OUTDIR", help="build with AddressSanitizer into OUTDIR")
    ap.add_argument("--werror", action="store_true", help="treat compiler warnings as errors")
    args = ap.parse_args()
    if args.asan:
        print(build(Path(args.asan), asan=True, werror=args.werror))
    else:
        print(build(PACKAGE, werror=args.werror))
    return 0


if __name__ == "__main__":
    sys.exit(main())
