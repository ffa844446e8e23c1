"""Format a KRaft node's log directories, as kafka-storage format does.

Writes meta.properties (version 1, a new directory.id) into every directory of the server
configuration's log.dirs (and metadata.log.dir), and the bootstrap records into the metadata log
directory: metadata.version and the other feature levels of --release-version, or as --feature
sets them. For 4.4 and later releases they go into __cluster_metadata-0/00000000000000000000-
0000000000.checkpoint (controllers only), for older ones into bootstrap.checkpoint, as each
release's own storage tool writes them. Kafka's controllers and brokers start on the result.

A controller of a dynamic quorum (controller.quorum.bootstrap.servers, no controller.quorum.voters)
needs one of --standalone (this node is the only voter), --initial-controllers
id@host:port:directoryId,... (the voters) or --no-initial-controllers (it joins a quorum later):
its bootstrap snapshot then holds kraft.version 1 and the initial voters, as Kafka 4.4.0's does.
"""

from __future__ import annotations

import argparse
import sys

from ..tools.storage import LATEST_RELEASE, FormatError, feature_levels, format_node


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("-c", "--config", required=True, help="the node's server.properties")
    parser.add_argument(
        "-t", "--cluster-id", required=True, help="the cluster id (kafka-meta-proto random-uuid)"
    )
    parser.add_argument("-r", "--release-version", default=LATEST_RELEASE, metavar="RELEASE",
                        help="the release to format for, and its feature levels: 3.3-IV3 to 4.4-IV2, or "
                             f"a release such as 3.9 or 4.3 for its last level (default {LATEST_RELEASE})")  # fmt: skip
    parser.add_argument("-f", "--feature", action="append", default=[], metavar="NAME=LEVEL",
                        help="set one feature level (repeatable)")  # fmt: skip
    parser.add_argument(
        "-g", "--ignore-formatted", action="store_true", help="skip directories already formatted"
    )
    # Not an argparse group: a second one of these is refused with exit status 1, as Kafka's tool does.
    parser.add_argument("-s", "--standalone", action="store_true",
                        help="a dynamic quorum whose only initial voter is this controller")  # fmt: skip
    parser.add_argument("-I", "--initial-controllers", metavar="ID@HOST:PORT:DIRID,...",
                        help="a dynamic quorum's initial voters (this node's metadata log directory takes "
                             "its directory id from its entry)")  # fmt: skip
    parser.add_argument("-N", "--no-initial-controllers", action="store_true",
                        help="a dynamic quorum's controller that is not an initial voter")  # fmt: skip


def run(args: argparse.Namespace) -> int:
    try:
        overrides = {}
        for item in args.feature:
            name, sep, level = item.partition("=")
            if not sep or not level.strip().isdigit():
                raise FormatError(f"--feature {item!r} is not NAME=LEVEL")
            overrides[name.strip()] = int(level)
        written = format_node(args.config, args.cluster_id, feature_levels(args.release_version, overrides),
                              args.ignore_formatted, args.standalone, args.initial_controllers,
                              args.no_initial_controllers)  # fmt: skip
    except (FormatError, ValueError, OSError) as e:
        print(f"format: {e}", file=sys.stderr)
        return 1
    for path in written:
        print(f"Formatted {path}")
    return 0
