"""Dump KRaft metadata log segments and snapshots as kafka-dump-log --cluster-metadata-decoder does.

Each FILE (a *.log segment, a <offset>-<epoch>.checkpoint snapshot or bootstrap.checkpoint) is
printed in the text form of Kafka's DumpLogSegments: a line per batch, a line per record with its
decoded payload. --json prints one JSON object per record instead. The exit status is 1 when a
file could not be read completely (CRC mismatch, undecodable record, truncated tail, unreadable
file), else 0. See docs/dump-log.md.
"""

from __future__ import annotations

import sys

from .. import dump


def add_arguments(parser) -> None:
    parser.add_argument("paths", nargs="*", metavar="FILE", help="segment or snapshot files")
    parser.add_argument(
        "--files", metavar="FILE1,FILE2", help="comma-separated files, as Kafka's tool takes them"
    )
    parser.add_argument(
        "--skip-record-metadata", action="store_true", help="record lines with the payload only"
    )
    parser.add_argument(
        "--json",
        action="store_true",
        help="one JSON object per record (file, offsets, type, version, data)",
    )
    parser.add_argument(
        "--max-bytes", type=int, metavar="N", help="read only the first N bytes of each file"
    )
    for flag in ("--print-data-log", "--deep-iteration"):
        parser.add_argument(flag, action="store_true",
                            help="accepted as kafka-dump-log takes it; records are always shown")  # fmt: skip
    parser.add_argument(
        "--cluster-metadata-decoder",
        action="store_true",
        help="accepted for compatibility with kafka-dump-log; records are always decoded as cluster metadata",
    )


def run(args) -> int:
    paths = list(args.paths)
    if args.files:
        paths.extend(p for p in args.files.split(",") if p)
    if not paths:
        print("kafka-meta-proto dump-log: no FILE given", file=sys.stderr)
        return 2
    return dump.dump(
        paths,
        sys.stdout,
        sys.stderr,
        skip_record_metadata=args.skip_record_metadata,
        as_json=args.json,
        max_bytes=args.max_bytes,
    )
