"""Print a random topic or cluster id in Kafka's text form (never a reserved id)."""

from __future__ import annotations

import argparse
import sys

from ..uuid import Uuid


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-n", type=int, default=1, help="how many ids to print (at least 1)")


def run(args: argparse.Namespace) -> int:
    if args.n < 1:
        print(f"kafka-meta-proto random-uuid: -n must be at least 1, not {args.n}", file=sys.stderr)
        return 2
    for _ in range(args.n):
        print(Uuid.random())
    return 0
