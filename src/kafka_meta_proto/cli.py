"""The ``kafka-meta-proto`` command: one subcommand per module in ``commands/``.

Only the chosen subcommand's module is imported, so a command needs only its own dependencies
(``--help`` and ``--version`` need none); a missing one is named with the extra that installs it.
"""

from __future__ import annotations

import argparse
import ast
import importlib
import importlib.util
import platform
import sys
from collections.abc import Sequence
from pathlib import Path

from . import __version__
from .extras import EXTRAS, missing_extra  # noqa: F401 (EXTRAS: cli's name for it)

PROG = "kafka-meta-proto"

# subcommand -> module in kafka_meta_proto.commands; each module has add_arguments(parser) and run(args).
COMMANDS = {
    "audit": "audit",
    "batch-coordinator": "batch_coordinator",
    "codegen": "codegen",
    "demo": "demo",
    "random-uuid": "random_uuid",
    "dump-log": "dump_log",
    "fake-cluster": "fake_cluster",
    "format": "format",
    "proxy": "proxy",
    "proxy-report": "proxy_report",
    "simulate": "simulate",
    "shell": "shell",
    "stale-partitions": "stale_partitions",
}

EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells report it


def version_text() -> str:
    from .codec import active_codec, why_pure_python

    codec = "compiled codec" if active_codec() == "compiled" else f"pure Python codec: {why_pure_python()}"
    return f"{PROG} {__version__} ({codec}; Python {platform.python_version()})"


class _PrintVersion(argparse.Action):
    """--version printing its line as it is (argparse's own action wraps it at the terminal width)."""

    def __call__(self, parser, namespace, values, option_string=None):  # type: ignore[no-untyped-def]
        print(version_text())
        parser.exit()


def _docstring(module_name: str) -> str:
    """A command module's docstring, read from its source so the module is not imported."""
    spec = importlib.util.find_spec(f"{__package__}.commands.{module_name}")
    assert spec is not None and spec.origin is not None  # the commands are modules of this package
    source = Path(spec.origin).read_text(encoding="utf-8")
    return ast.get_docstring(ast.parse(source)) or ""


def missing_dependency(command: str, error: ModuleNotFoundError) -> str | None:
    """One line naming the extra to install, when ``error`` is a missing third-party module."""
    line = missing_extra(f"{PROG} {command}:", error)
    return None if line is error else str(line)


def _chosen(argv: list[str]) -> str | None:
    """The subcommand named on the command line (the first word that is not an option)."""
    return next((word for word in argv if not word.startswith("-")), None)


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        return _main(argv)
    except KeyboardInterrupt:  # wherever it lands: while importing, parsing or running
        print(f"{PROG} {_chosen(argv) or ''}: interrupted".replace(" :", ":"), file=sys.stderr)
        return EXIT_INTERRUPTED


def _main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog=PROG, description="Kafka protocol and KRaft metadata tools.")
    parser.add_argument("--version", action=_PrintVersion, nargs=0, help="show the version and the codec in use, and exit")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    chosen, module = _chosen(argv), None
    for name, module_name in COMMANDS.items():
        doc = _docstring(module_name)
        command_parser = sub.add_parser(name, help=doc.splitlines()[0], description=doc)
        if name == chosen:
            try:
                module = importlib.import_module(f"{__package__}.commands.{module_name}")
            except ModuleNotFoundError as error:
                message = missing_dependency(name, error)
                if message is None:
                    raise
                if "-h" in argv or "--help" in argv:  # the description, and what to install
                    print(f"usage: {PROG} {name} ...\n\n{doc}\n\n{message}")
                    return 0
                print(message, file=sys.stderr)
                return 2
            module.add_arguments(command_parser)
    args = parser.parse_args(argv)
    assert module is not None  # the subparsers are required: parse_args exits without one
    try:
        status: int | None = module.run(args)
        return status or 0
    except BrokenPipeError:  # e.g. piped into `head`
        return 0
    except ModuleNotFoundError as error:  # a dependency imported when the command needs it
        message = missing_dependency(args.command, error)
        if message is None:
            raise
        print(message, file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
