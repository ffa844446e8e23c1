"""Generate message classes from Kafka-format JSON schemas (the generator, kafka_meta_proto.codegen).

--schemas DIR [DIR ...] --out OUT --package NAME makes the importable package OUT/NAME, with the API
of kafka_meta_proto.messages; --base kafka_meta_proto.messages puts your own RPCs next to Kafka's
headers and messages. Needs the codegen extra (jinja2, black). The forms without --schemas
regenerate the library's own packages and work in a checkout of its repository only, where they
are `python -m codegen`.
"""

from __future__ import annotations

import argparse
from ..codegen.__main__ import add_arguments as _add_arguments
from ..codegen.__main__ import run as _run

PROG = "kafka-meta-proto codegen"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    _add_arguments(parser)
    parser.set_defaults(codegen_error=parser.error)  # argparse's usage-and-exit-2 for bad arguments


def run(args: argparse.Namespace) -> int:
    status: int = _run(args, PROG, args.codegen_error)
    return status
