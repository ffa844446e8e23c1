"""The ``kafka-meta-proto`` command: one subcommand per module in ``commands/``."""

from __future__ import annotations

import argparse
import importlib
import sys

# subcommand -> module in kafka_meta_proto.commands; each module has add_arguments(parser) and run(args).
COMMANDS = {
    "audit": "audit",
    "demo": "demo",
    "random-uuid": "random_uuid",
    "dump-log": "dump_log",
    "format": "format",
    "simulate": "simulate",
    "shell": "shell",
    "stale-partitions": "stale_partitions",
}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="kafka-meta-proto", description="Kafka protocol and KRaft metadata tools.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    modules = {}
    for name, module_name in COMMANDS.items():
        module = importlib.import_module(f"kafka_meta_proto.commands.{module_name}")
        modules[name] = module
        p = sub.add_parser(name, help=module.__doc__.strip().splitlines()[0], description=module.__doc__)
        module.add_arguments(p)
    args = parser.parse_args(argv)
    try:
        return modules[args.command].run(args) or 0
    except BrokenPipeError:  # e.g. piped into `head`
        return 0


if __name__ == "__main__":
    sys.exit(main())
