"""Relay Kafka clients to a broker, decoding and logging every exchange (a decoding proxy).

Clients bootstrap from --listen; the proxy forwards their requests to --upstream and the
responses back, unchanged except for broker addresses: Metadata, FindCoordinator, DescribeCluster
(and the leader endpoints of Produce, Fetch, ShareFetch, ShareAcknowledge) name proxy listeners
instead of brokers, so clients keep talking through the proxy. Each broker named in a response
gets a listener of its own on the --listen host at a port the system chooses, opened as it is
discovered.

Standard output: the first line says where the proxy listens for the bootstrap broker, as
`listening on HOST:PORT for UPSTREAM_HOST:UPSTREAM_PORT`; each later listener prints a line of
the same form as it opens. --log FILE appends one JSON line per exchange (docs/proxy.md names the
fields; `kafka-meta-proto proxy-report` summarises the file with Spark). Runs until interrupted.
"""

from __future__ import annotations

import argparse
import logging
import sys

from ..proxy import Listener, Proxy
from ..server import event_loop


def address(text: str) -> tuple[str, int]:
    host, sep, port = text.rpartition(":")
    if not sep or not port.isdigit():
        raise argparse.ArgumentTypeError(f"{text!r} is not HOST:PORT")
    return host.strip("[]") or "127.0.0.1", int(port)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--listen", type=address, required=True, metavar="HOST:PORT",
                        help="where clients bootstrap (port 0: one the system chooses, printed)")
    parser.add_argument("--upstream", type=address, required=True, metavar="HOST:PORT",
                        help="the bootstrap broker")
    parser.add_argument("--log", metavar="FILE", help="append one JSON line per exchange to FILE")
    parser.add_argument("--advertised-host", metavar="HOST",
                        help="the host clients are told for the proxy's listeners (default: the --listen host)")
    parser.add_argument("--max-frame-bytes", type=int, default=None, metavar="N",
                        help="close a connection announcing a frame above N bytes (default 100 MiB)")  # fmt: skip


def announce(listener: Listener) -> None:
    print(f"listening on {listener}", flush=True)


async def serve(args: argparse.Namespace) -> None:
    options = {} if args.max_frame_bytes is None else {"max_frame_size": args.max_frame_bytes}
    proxy = Proxy(args.listen, args.upstream, log=args.log, on_listener=announce,
                  advertised_host=args.advertised_host, **options)  # fmt: skip
    async with proxy:
        await proxy.serve_forever()


def run(args: argparse.Namespace) -> int:
    logging.basicConfig(level=logging.WARNING, format="%(name)s: %(message)s", stream=sys.stderr)
    try:
        event_loop.run(serve(args))
    except OSError as e:  # the --listen address taken, or not ours
        print(f"kafka-meta-proto proxy: {e}", file=sys.stderr)
        return 1
    return 0
