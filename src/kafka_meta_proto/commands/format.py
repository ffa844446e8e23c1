"""Format a KRaft node's log directories, as kafka-storage format does.

Writes meta.properties (version 1, a new directory.id) into every directory of the server
configuration's log.dirs (and metadata.log.dir), and bootstrap.checkpoint into the metadata log
directory: metadata.version and the other feature levels of --release-version, or as --feature
sets them. Kafka's controllers and brokers start on the result.
"""

from __future__ import annotations

import sys

from ..storage import LATEST_RELEASE, RELEASE_FEATURES, FormatError, feature_levels, format_node


def add_arguments(parser) -> None:
    parser.add_argument("-c", "--config", required=True, help="the node's server.properties")
    parser.add_argument(
        "-t", "--cluster-id", required=True, help="the cluster id (kafka-meta-proto random-uuid)"
    )
    parser.add_argument("-r", "--release-version", default=LATEST_RELEASE, choices=sorted(RELEASE_FEATURES),
                        help=f"feature levels of this release (default {LATEST_RELEASE})")  # fmt: skip
    parser.add_argument("-f", "--feature", action="append", default=[], metavar="NAME=LEVEL",
                        help="set one feature level (repeatable)")  # fmt: skip
    parser.add_argument(
        "-g", "--ignore-formatted", action="store_true", help="skip directories already formatted"
    )


def run(args) -> int:
    try:
        overrides = {}
        for item in args.feature:
            name, sep, level = item.partition("=")
            if not sep or not level.strip().isdigit():
                raise FormatError(f"--feature {item!r} is not NAME=LEVEL")
            overrides[name.strip()] = int(level)
        written = format_node(args.config, args.cluster_id, feature_levels(args.release_version, overrides),
                              args.ignore_formatted)  # fmt: skip
    except (FormatError, ValueError, OSError) as e:
        print(f"format: {e}", file=sys.stderr)
        return 1
    for path in written:
        print(f"Formatted {path}")
    return 0
