"""Simulate KRaft clusters and write their metadata logs in Kafka's on-disk format.

Writes OUT/<cluster>/__cluster_metadata-0/ (segments, one snapshot, leader-epoch-checkpoint,
partition.metadata, quorum-state), OUT/<cluster>/bootstrap.checkpoint, meta.properties,
faults.json and summary.json for each of --clusters clusters. The same arguments give the same
bytes. See docs/simulator.md.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

from .. import registries, simulator


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--out", required=True, metavar="DIR", help="output directory")
    parser.add_argument(
        "--records",
        type=int,
        default=10_000,
        metavar="N",
        help="records in each cluster's log segments (default 10000)",
    )
    parser.add_argument("--seed", type=int, default=0, metavar="S", help="random seed (default 0)")
    parser.add_argument(
        "--clusters", type=int, default=1, metavar="K", help="number of clusters (default 1)"
    )
    parser.add_argument(
        "--fault",
        action="append",
        default=[],
        choices=sorted(simulator.FAULTS),
        metavar="NAME",
        help="plant a fault in every cluster (repeatable): " + ", ".join(sorted(simulator.FAULTS)),
    )
    parser.add_argument("--segment-bytes", type=int, default=simulator.DEFAULT_SEGMENT_BYTES, metavar="M",
                        help=f"roll a segment at about M bytes (default {simulator.DEFAULT_SEGMENT_BYTES})")  # fmt: skip
    parser.add_argument(
        "--brokers",
        type=int,
        default=None,
        help="brokers per cluster (default: 3 to 9, from the seed)",
    )
    parser.add_argument(
        "--controllers",
        type=int,
        default=3,
        help="controllers (KRaft voters) per cluster (default 3)",
    )
    parser.add_argument("--snapshot-at", type=float, default=0.5, metavar="F",
                        help="take the snapshot after this fraction of the records (default 0.5; 0 for none)")  # fmt: skip
    parser.add_argument("--events-per-second", type=float, default=2.0, metavar="R",
                        help="metadata changes per simulated second besides the NoOps (default 2)")  # fmt: skip
    diskless = parser.add_mutually_exclusive_group()
    diskless.add_argument("--diskless", dest="diskless", action="store_true", default=False,
                          help="also diskless topics: record type 29 of the diskless design (KIP-1164), which "
                          f"Kafka 4.4 gives another meaning; each cluster directory gets a {registries.MARKER} "
                          "marker so dump-log, the shell and the audit read it with the diskless registry")  # fmt: skip
    diskless.add_argument("--no-diskless", dest="diskless", action="store_false",
                          help="only records Kafka defines (the default)")  # fmt: skip
    parser.add_argument(
        "--jobs",
        type=int,
        default=1,
        metavar="J",
        help="simulate clusters in J processes (same output)",
    )
    parser.add_argument("--quiet", action="store_true", help="print nothing")


def run(args: argparse.Namespace) -> int:
    for name, value, low in (("--records", args.records, 1), ("--clusters", args.clusters, 1), ("--jobs", args.jobs, 1),
                             ("--segment-bytes", args.segment_bytes, 1), ("--controllers", args.controllers, 1)):  # fmt: skip
        if value < low:
            print(f"kafka-meta-proto simulate: {name} must be at least {low}", file=sys.stderr)
            return 2
    if args.events_per_second <= 0:
        print("kafka-meta-proto simulate: --events-per-second must be positive", file=sys.stderr)
        return 2
    if os.path.exists(args.out) and not os.path.isdir(args.out):
        print(f"kafka-meta-proto simulate: --out {args.out} is a file, not a directory", file=sys.stderr)
        return 2
    started = time.perf_counter()
    try:
        results = _simulate(args)
    except simulator.SetupError as exc:  # a foreign file in --out, or a setting out of range
        print(f"kafka-meta-proto simulate: {exc}", file=sys.stderr)
        return 2
    elapsed = time.perf_counter() - started
    if not args.quiet:
        for r in results:
            faults = ", ".join(f"{f['fault']}@{f['offset']}" for f in r.faults) or "none"
            print(f"{r.directory}: {r.records} records, {r.batches} batches, {r.bytes} bytes in "
                  f"{len(r.segments)} segments, snapshot {r.snapshot}, faults: {faults}; "
                  f"{r.seconds:.2f} s, {r.records_per_second:,.0f} records/s")  # fmt: skip
        total = sum(r.records for r in results)
        print(
            f"{total} records in {len(results)} cluster(s) in {elapsed:.2f} s: {total / elapsed:,.0f} records/s"
        )
    return 0


def _simulate(args: argparse.Namespace) -> list[simulator.ClusterResult]:
    return simulator.simulate(
        args.out,
        records=args.records,
        seed=args.seed,
        clusters=args.clusters,
        faults=tuple(dict.fromkeys(args.fault)),
        jobs=args.jobs,
        segment_bytes=args.segment_bytes,
        brokers=args.brokers,
        controllers=args.controllers,
        snapshot_at=args.snapshot_at if args.snapshot_at > 0 else None,
        events_per_second=args.events_per_second,
        diskless=args.diskless,
    )
