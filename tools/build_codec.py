"""Compile the C extensions (setup.py's EXTENSIONS: the codec, log/_records, pipeline/_rows) in
place, for a source checkout.

    python tools/build_codec.py                 optimised build next to the sources
    python tools/build_codec.py --asan PACKAGE  AddressSanitizer build into a copy of the package (tests/test_codec_asan.py)
    python tools/build_codec.py --werror        a warning fails the build (tools/python_versions.py)

`pip install .` builds the same extensions through setup.py; this script is for working on the
tree (and for the sanitizer build, which needs its own flags), calling the C compiler directly.
"""

from __future__ import annotations

import argparse
import ast
import shlex
import subprocess
import sys
import sysconfig
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "kafka_meta_proto"
# setup.py's table (name -> sources under the package), read without running setup()
_SETUP = (ROOT / "setup.py").read_text()
EXTENSIONS: dict[str, list[str]] = ast.literal_eval(
    _SETUP[_SETUP.index("EXTENSIONS = ") + len("EXTENSIONS = ") : _SETUP.index("\n}\n") + 2]
)


def target_name(module: str) -> str:
    """The file name of extension ``module`` (kafka_meta_proto.log._records -> _records.cpython...)."""
    return module.rsplit(".", 1)[1] + (sysconfig.get_config_var("EXT_SUFFIX") or ".so")


def build(package: Path, asan: bool = False, werror: bool = False) -> list[Path]:
    """Build every extension from the sources in ``package`` (a copy of src/kafka_meta_proto)
    into that package's folders."""
    return [_build_one(package, module, sources, asan, werror) for module, sources in EXTENSIONS.items()]


def _build_one(package: Path, module: str, sources: list[str], asan: bool, werror: bool) -> Path:
    target = package.joinpath(*module.split(".")[1:-1]) / target_name(module)
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
    paths = [str(package / source) for source in sources]
    cmd = [*cc, *flags, f"-I{sysconfig.get_paths()['include']}", *paths, "-o", str(partial)]
    subprocess.run(cmd, check=True)
    partial.replace(target)  # a process that has the old one loaded keeps it
    return target


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--asan", metavar="PACKAGE", help="build with AddressSanitizer into PACKAGE, a copy of the package")
    ap.add_argument("--werror", action="store_true", help="treat compiler warnings as errors")
    args = ap.parse_args()
    if args.asan:
        print(*build(Path(args.asan), asan=True, werror=args.werror), sep="\n")
    else:
        print(*build(PACKAGE, werror=args.werror), sep="\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
