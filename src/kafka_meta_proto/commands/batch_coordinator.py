"""Run a diskless batch coordinator (the KIP-1164 design's) on a data directory.

It keeps its partition of __diskless-metadata as a log in Kafka's on-disk format under --data
(DIR/__diskless-metadata-<p>/, readable with `dump-log --diskless`), or with --bootstrap as a
topic of that Kafka cluster (created if missing), and its state in SQLite under --data; it
answers FindCoordinator (key type 3, BATCH) and the RPCs 93-98 of the diskless registry. State
survives restarts on the same --data, and with --bootstrap the loss of --data (rebuilt from the
topic). With --follow LEADER_DATA_DIR, or --bootstrap and --read-only, it is a read-only
coordinator following that log: reads are served, writes refused with NOT_COORDINATOR.

Standard output: the first line is the address it listens on, HOST:PORT. Runs until SIGTERM or
Ctrl-C, then stops cleanly (exit status 0). docs/diskless.md walks through it.
"""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from ..client import NetworkError
from ..diskless.kafka_topic import KafkaTopic
from ..diskless.running import run_coordinator
from ..diskless.service import Node
from ..server import event_loop
from .proxy import address


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--listen", type=address, required=True, metavar="HOST:PORT",
                        help="where to listen (port 0: one the system chooses, printed)")
    parser.add_argument("--data", type=Path, required=True, metavar="DIR",
                        help="the coordinator's log and state (created if missing)")
    parser.add_argument("--partition", type=int, default=0, metavar="P",
                        help="the __diskless-metadata partition it coordinates (default 0)")
    parser.add_argument("--node-id", type=int, default=0, metavar="N",
                        help="the node id FindCoordinator answers with (default 0)")
    parser.add_argument("--advertised-host", metavar="HOST",
                        help="the host FindCoordinator answers with (default: the --listen host)")
    parser.add_argument("--bootstrap", type=addresses, metavar="HOST:PORT[,...]",
                        help="keep the partition in __diskless-metadata of this Kafka cluster")
    parser.add_argument("--read-only", action="store_true",
                        help="with --bootstrap: follow the topic, serve reads, refuse writes")
    parser.add_argument("--follow", type=Path, metavar="LEADER_DIR",
                        help="read-only: follow the log in the leader's --data directory")
    parser.add_argument("--leader", type=address, metavar="HOST:PORT",
                        help="with --follow: the leader's address, given for write: keys")
    parser.add_argument("--leader-id", type=int, default=0, metavar="N",
                        help="with --leader: the leader's node id (default 0)")  # fmt: skip


def addresses(text: str) -> list[tuple[str, int]]:
    return [address(part) for part in text.split(",") if part]


def run(args: argparse.Namespace) -> int:
    logging.basicConfig(level=logging.WARNING, format="%(name)s: %(message)s", stream=sys.stderr)
    leader = None if args.leader is None else Node(args.leader_id, *args.leader)
    if args.bootstrap and args.follow or args.read_only and not args.bootstrap:
        print("kafka-meta-proto batch-coordinator: --read-only goes with --bootstrap, "
              "--follow without it", file=sys.stderr)  # fmt: skip
        return 2

    def announce(host: str, port: int) -> None:
        print(f"{host}:{port}", flush=True)

    try:
        topic = None if not args.bootstrap else KafkaTopic(args.bootstrap, args.partition)
        event_loop.run(run_coordinator(
            args.data, args.listen, partition=args.partition, node_id=args.node_id,
            advertised_host=args.advertised_host, follow=args.follow, leader=leader,
            topic=topic, read_only=args.read_only, announce=announce,
        ))  # fmt: skip
    except (OSError, NetworkError) as e:  # the --listen address taken, the data directory not
        # writable, the cluster not answering
        print(f"kafka-meta-proto batch-coordinator: {e}", file=sys.stderr)
        return 1
    return 0
