"""What changed between Kafka releases in the text of DumpLogSegments (kafka-dump-log), so that
dump-log can write the form of the release a user compares with."""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class ToolForm:
    """How one Kafka release's DumpLogSegments writes the things that changed between releases."""

    release: tuple[int, int]
    # 4.1 on (KAFKA-19069): a LeaderChange record as JSON; before, ``controlType: LEADER_CHANGE(2)``.
    leader_change_json: bool
    # 4.3 on (the tool rewritten in Java, org.apache.kafka.tools): under --skip-record-metadata
    # a payload line starts with "| "; the first record of a file is checked against offset -1
    # (so a file starting past offset 0 reports "-1 is followed by N"); gaps print oldest first.
    java_tool: bool
    # 4.4 on: --transaction-log-decoder prints a TransactionLogValue's transactionStatus as the
    # state's name ("PrepareCommit"; an id without a state as its number in quotes), not the int8.
    transaction_state_names: bool = False


OLDEST_RELEASE = (3, 9)
# Without --kafka-version the dump is written as Kafka 4.1 and 4.2 write it.
DEFAULT_RELEASE = "4.2"


def tool_form(release: str = DEFAULT_RELEASE) -> ToolForm:
    """The form of Kafka ``release`` ("3.9", "4.1.1"...); ValueError for a release before 3.9
    (older tools print the newer control records without decoding them) or not a version."""
    match = re.fullmatch(r"(\d+)\.(\d+)(?:\.\d+)?", release.strip())
    if match is None:
        raise ValueError(f"not a Kafka release: {release!r} (expected e.g. 3.9 or 4.1.1)")
    major_minor = (int(match.group(1)), int(match.group(2)))
    if major_minor < OLDEST_RELEASE:
        raise ValueError(f"Kafka {release} is older than the forms dump-log knows (3.9 and later)")
    return ToolForm(
        major_minor,
        leader_change_json=major_minor >= (4, 1),
        java_tool=major_minor >= (4, 3),
        transaction_state_names=major_minor >= (4, 4),
    )


DEFAULT_FORM = tool_form()

# --decoder names, as Kafka's flags name them, and the coordinator whose records each reads.
CLUSTER_METADATA = "cluster-metadata"
COORDINATOR_DECODERS = {
    "offsets": "group-coordinator",
    "transaction-log": "transaction-coordinator",
    "share-group-state": "share-coordinator",
}
