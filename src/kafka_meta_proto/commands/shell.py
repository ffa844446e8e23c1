"""Browse a KRaft metadata image as a file tree: ls, cd, cat, find over brokers, topics, configs...

The image comes from a snapshot (--snapshot FILE) or a __cluster_metadata-0 directory (--log DIR:
its newest snapshot, then the segments after it). Each COMMAND argument is one shell command, run in
order (quote them: "ls -l /topics"); without any, commands are read from stdin, or typed at an
interactive prompt with history and tab completion when stdin is a terminal. A failed command
prints its error to stderr and makes the exit status 1. See docs/metadata-shell.md for the layout.
"""

from __future__ import annotations

import sys
from pathlib import Path

from ..image import MetadataImage
from ..shell import MetadataShell, interactive


def add_arguments(parser) -> None:
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument(
        "--snapshot", metavar="FILE", help="a snapshot file (*.checkpoint, bootstrap.checkpoint)"
    )
    source.add_argument(
        "--log",
        metavar="DIR",
        help="a __cluster_metadata-0 directory (or a log dir holding one, or one .log segment)",
    )
    parser.add_argument(
        "--strict",
        action="store_true",
        help="stop at the first record that cannot be applied (default: skip it with a warning)",
    )
    parser.add_argument(
        "commands",
        nargs="*",
        metavar="COMMAND",
        help='shell commands to run, e.g. "ls /topics" "cat /topics/foo/id"',
    )


def load_image(args) -> MetadataImage:
    """The image --snapshot or --log names (shared with other subcommands)."""
    strict = getattr(args, "strict", False)
    if args.snapshot:
        return MetadataImage.from_snapshot(args.snapshot, strict=strict)
    path = Path(args.log)
    if path.is_file():
        return MetadataImage(strict=strict).replay_segment(path)
    return MetadataImage.from_log_dir(path, strict=strict)


def run(args) -> int:
    try:
        image = load_image(args)
    except (OSError, ValueError) as exc:
        print(f"kafka-meta-proto shell: cannot load the metadata image: {exc}", file=sys.stderr)
        return 2
    for problem in image.problems:
        print(f"warning: skipped {problem}", file=sys.stderr)
    shell = MetadataShell.for_image(image)
    if args.commands:
        return shell.run_lines(args.commands)
    if sys.stdin.isatty():
        banner = (f"Metadata image at offset {image.offset} (epoch {image.epoch}): {len(image.brokers)} brokers, "
                  f"{len(image.topics)} topics. Type help for the commands, exit to leave.")  # fmt: skip
        return interactive(shell, banner=banner)
    return shell.run_lines(sys.stdin)
