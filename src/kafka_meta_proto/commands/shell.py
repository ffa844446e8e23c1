"""Browse a KRaft metadata image as a file tree: ls, cd, cat, find over brokers, topics, configs...

The image comes from a snapshot (--snapshot FILE; a .log segment is read the same way) or a
__cluster_metadata-0 directory (--log DIR: its newest snapshot, then the segments after it). The
tree is Kafka's metadata shell's (/image/..., /local). Unquoted words make one command, as with
Kafka's shell (`shell --snapshot F ls /image/topics`); several quoted commands run in order
(`shell --snapshot F "ls /image" "cat /image/provenance"`); without any, commands are read from
stdin, or typed at an interactive prompt with history and tab completion when stdin is a
terminal. A failed command prints its error to stderr and makes the exit status 1. See
docs/metadata-shell.md for the layout.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from .. import registries
from ..kraft.image import MetadataImage
from ..tools.shell import ALIASES, COMMANDS, MetadataShell, interactive


def add_arguments(parser: argparse.ArgumentParser) -> None:
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument(
        "--snapshot",
        "-s",
        metavar="FILE",
        help="a snapshot file (*.checkpoint, bootstrap.checkpoint) or a *.log segment",
    )
    source.add_argument(
        "--log",
        metavar="DIR",
        help="a __cluster_metadata-0 directory (or a log dir holding one, or one .log segment)",
    )
    registries.add_arguments(parser)
    parser.add_argument(
        "--strict",
        action="store_true",
        help="stop at the first record that cannot be applied (default: skip it with a warning)",
    )
    parser.add_argument(
        "commands",
        nargs="*",
        metavar="COMMAND",
        help="one command as words (ls /image/topics), or several quoted commands",
    )


def load_image(args: argparse.Namespace) -> MetadataImage:
    """The image --snapshot or --log names (shared with other subcommands), read with the registry
    --registry/--diskless chose or the files' marker names."""
    strict = getattr(args, "strict", False)
    path = Path(args.snapshot or args.log)
    registry = registries.for_paths([path], getattr(args, "registry", None))
    if args.snapshot and path.suffix != ".log":
        return MetadataImage.from_snapshot(path, strict=strict, registry=registry)
    if path.is_file():
        return MetadataImage(strict=strict, registry=registry).replay_segment(path)
    return MetadataImage.from_log_dir(path, strict=strict, registry=registry)


def run(args: argparse.Namespace) -> int:
    try:
        image = load_image(args)
    except (OSError, ValueError) as exc:
        print(f"kafka-meta-proto shell: cannot load the metadata image: {exc}", file=sys.stderr)
        return 2
    for problem in image.problems:
        print(f"warning: skipped {problem}", file=sys.stderr)
    if image.records_applied == 0:
        where = args.snapshot or args.log
        print(f"kafka-meta-proto shell: {where} holds no metadata records (is it a "
              "__cluster_metadata-0 directory, a snapshot or a segment?)", file=sys.stderr)  # fmt: skip
        return 2
    shell = MetadataShell.for_image(image)
    if args.commands:
        return shell.run_lines(command_lines(args.commands))
    if sys.stdin.isatty():
        banner = (f"Metadata image at offset {image.offset} (epoch {image.epoch}): {len(image.brokers)} brokers, "
                  f"{len(image.topics)} topics. Type help for the commands, exit to leave.")  # fmt: skip
        return interactive(shell, banner=banner)
    return shell.run_lines(sys.stdin)


def command_lines(words: list[str]) -> list[str]:
    """The commands the arguments name: words starting with a bare command name are one command
    (as Kafka's shell reads its arguments), otherwise each argument is a command of its own."""
    first = words[0]
    if first in COMMANDS or first in ALIASES:
        return [" ".join(shlex.quote(word) for word in words)]
    return words
