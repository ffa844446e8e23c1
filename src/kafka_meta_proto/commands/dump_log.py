"""Dump KRaft metadata log segments and snapshots as kafka-dump-log --cluster-metadata-decoder does.

Each FILE (a *.log segment, a <offset>-<epoch>.checkpoint snapshot or bootstrap.checkpoint) is
printed in the text form of Kafka's DumpLogSegments (of the release --kafka-version names): a
line per batch, a line per record with its decoded payload. --offsets-decoder,
--transaction-log-decoder and --share-group-state-decoder read the segments of the coordinators'
topics instead, as Kafka's flags of those names do. Metadata records are read with Kafka's
registry, or the diskless design's with --diskless or where the files carry simulate's marker. --json prints one JSON object per record instead. The exit status is 1 when a
file could not be read completely (CRC mismatch, undecodable record, truncated tail, unreadable
file), else 0. See docs/dump-log.md.
"""

from __future__ import annotations

import argparse
import sys

from .. import registries
from ..tools import dump, dump_forms
from ..tools.dump_coordinators import has_decoder


def add_arguments(parser: argparse.ArgumentParser) -> None:
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
    decoders = parser.add_mutually_exclusive_group()
    decoders.add_argument(
        "--cluster-metadata-decoder",
        action="store_true",
        help="records are KRaft cluster metadata (the default)",
    )
    decoders.add_argument("--offsets-decoder", action="store_true",
                          help="records are the group coordinator's (__consumer_offsets)")  # fmt: skip
    decoders.add_argument("--transaction-log-decoder", action="store_true",
                          help="records are the transaction coordinator's (__transaction_state)")  # fmt: skip
    decoders.add_argument("--share-group-state-decoder", action="store_true",
                          help="records are the share coordinator's (__share_group_state)")  # fmt: skip
    registries.add_arguments(parser)
    parser.add_argument(
        "--kafka-version",
        metavar="X.Y",
        default=dump_forms.DEFAULT_RELEASE,
        help="write the text as this Kafka release's kafka-dump-log does (3.9 and later; "
        f"default {dump_forms.DEFAULT_RELEASE})",
    )


def run(args: argparse.Namespace) -> int:
    paths = list(args.paths)
    if args.files:
        paths.extend(p for p in args.files.split(",") if p)
    if not paths:
        print("kafka-meta-proto dump-log: no FILE given", file=sys.stderr)
        return 2
    try:
        form = dump_forms.tool_form(args.kafka_version)
    except ValueError as exc:
        print(f"kafka-meta-proto dump-log: --kafka-version: {exc}", file=sys.stderr)
        return 2
    decoder = dump_forms.CLUSTER_METADATA
    for name, scope in dump_forms.COORDINATOR_DECODERS.items():
        if getattr(args, f"{name.replace('-', '_')}_decoder"):
            decoder = name
            if not has_decoder(scope, form):
                print(f"kafka-meta-proto dump-log: Kafka {args.kafka_version}'s tool has no --{name}-decoder",
                      file=sys.stderr)  # fmt: skip
                return 2
    return dump.dump(
        paths,
        sys.stdout,
        sys.stderr,
        skip_record_metadata=args.skip_record_metadata,
        as_json=args.json,
        max_bytes=args.max_bytes,
        form=form,
        decoder=decoder,
        registry=args.registry,
    )
