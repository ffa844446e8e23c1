"""Print a random topic or cluster id in Kafka's text form (never a reserved id)."""

from __future__ import annotations

from ..uuid import Uuid


def add_arguments(parser) -> None:
    parser.add_argument("-n", type=int, default=1, help="how many ids to print")


def run(args) -> int:
    for _ in range(args.n):
        print(Uuid.random())
    return 0
