"""Run a Kafka cluster in this process for clients to test against: a KRaft controller and
--brokers brokers on loopback ports (``kafka_meta_proto.testing``).

Standard output: the first line is the bootstrap servers, ``host:port,host:port,...``, printed once
every broker accepts connections. The cluster serves until interrupted (Ctrl-C or SIGTERM: a clean
stop, exit status 0). --data DIR keeps the logs (the controller's ``__cluster_metadata`` and each
broker's partitions, in Kafka's on-disk format) under DIR; without it they go to a temporary
directory removed at the stop.

With --diskless the cluster speaks the diskless design's registry where the design adds to Kafka
(the controller serves AssignPartitionToBatchCoordinator), ``__diskless-metadata`` has
--coordinators partitions, a batch coordinator serves each, and a second line, printed with the
first, gives the coordinators' addresses in partition order.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import signal
import sys
from typing import Any

from ..server import event_loop
from ..testing.cluster import FakeCluster


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--brokers", type=int, default=3, metavar="N", help="brokers (default 3)")
    parser.add_argument("--data", metavar="DIR", help="keep the logs under DIR")
    parser.add_argument("--host", default="127.0.0.1", help="where to listen (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=0, metavar="P",
                        help="the first broker's port, the next ones follow (default: chosen)")
    parser.add_argument("--session-timeout-ms", type=int, default=None, metavar="MS",
                        help="fence a broker whose heartbeats stop for this long (default 3000)")
    parser.add_argument("--diskless", action="store_true",
                        help="diskless topics: the design's AssignPartitionToBatchCoordinator at the "
                             "controller and batch coordinators (docs/diskless.md)")
    parser.add_argument("--coordinators", type=int, default=1, metavar="P",
                        help="with --diskless: __diskless-metadata partitions, one coordinator each (default 1)")  # fmt: skip


async def serve(args: argparse.Namespace) -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    options: dict[str, Any] = {}
    if args.port:
        options["ports"] = [args.port + i for i in range(args.brokers)]
    if args.session_timeout_ms is not None:
        options["session_timeout_ms"] = args.session_timeout_ms
    if args.diskless:
        options.update(diskless=True, coordinators=args.coordinators)
    async with FakeCluster(brokers=args.brokers, data_dir=args.data, host=args.host,
                           **options) as cluster:  # fmt: skip
        lines = [cluster.bootstrap] + ([cluster.coordinators.bootstrap] if args.diskless else [])
        print("\n".join(lines), flush=True)
        await stop.wait()


def run(args: argparse.Namespace) -> int:
    if args.brokers < 1 or args.coordinators < 1:
        print("kafka-meta-proto fake-cluster: --brokers and --coordinators must be at least 1", file=sys.stderr)
        return 2
    logging.basicConfig(level=logging.WARNING, format="%(name)s: %(message)s", stream=sys.stderr)
    try:
        event_loop.run(serve(args))
    except OSError as e:  # a port taken, or a host not ours
        print(f"kafka-meta-proto fake-cluster: {e}", file=sys.stderr)
        return 1
    return 0
