"""ErrorCode table and the small message enums, checked against facts from Kafka's source."""

from __future__ import annotations

import pytest

from kafka_meta_proto.enums import CoordinatorKeyType, LeaderAndIsrType
from kafka_meta_proto.error_codes import ErrorCode

# Codes whose exception extends RetriableException (directly or through
# InvalidMetadataException / RefreshRetriableException) in Kafka trunk.
KAFKA_RETRIABLE = {
    2, 3, 5, 6, 7, 9, 13, 14, 15, 16, 19, 20, 41, 51, 56, 70, 71, 72, 74, 75,
    78, 80, 83, 84, 88, 89, 100, 103, 106, 122, 123, 133,
}  # fmt: skip


def test_codes_are_unique_and_contiguous() -> None:
    codes = [member.code for member in ErrorCode]
    assert len(codes) == len(set(codes))
    assert sorted(codes) == list(range(-1, 137))
    assert len(ErrorCode.__members__) == len(ErrorCode)  # no aliases


def test_member_shape() -> None:
    for member in ErrorCode:
        assert isinstance(member, int)
        assert member.code == int(member) == member.value
        assert isinstance(member.retriable, bool)
        assert isinstance(member.message, str) and member.message
        assert member.name.isupper()


@pytest.mark.parametrize(
    ("code", "name"),
    [
        (-1, "UNKNOWN_SERVER_ERROR"),
        (0, "NONE"),
        (1, "OFFSET_OUT_OF_RANGE"),
        (3, "UNKNOWN_TOPIC_OR_PARTITION"),
        (6, "NOT_LEADER_OR_FOLLOWER"),
        (16, "NOT_COORDINATOR"),
        (35, "UNSUPPORTED_VERSION"),
        (41, "NOT_CONTROLLER"),
        (47, "INVALID_PRODUCER_EPOCH"),
        (77, "STALE_BROKER_EPOCH"),
        (90, "PRODUCER_FENCED"),
        (100, "UNKNOWN_TOPIC_ID"),
        (101, "DUPLICATE_BROKER_REGISTRATION"),
        (102, "BROKER_ID_NOT_REGISTERED"),
        (103, "INCONSISTENT_TOPIC_ID"),
        (104, "INCONSISTENT_CLUSTER_ID"),
        (106, "FETCH_SESSION_TOPIC_ID_ERROR"),
        (116, "UNKNOWN_CONTROLLER_ID"),
        (119, "INVALID_REGISTRATION"),
        (121, "INVALID_RECORD_STATE"),
        (122, "SHARE_SESSION_NOT_FOUND"),
        (123, "INVALID_SHARE_SESSION_EPOCH"),
        (124, "FENCED_STATE_EPOCH"),
        (133, "SHARE_SESSION_LIMIT_REACHED"),
        (134, "GROUP_DELETION_FAILED"),
        (135, "STREAMS_TOPOLOGY_DESCRIPTION_UPDATE_FAILED"),
        (136, "CONTROLLER_ID_NOT_REGISTERED"),
    ],
)
def test_kafka_names(code: int, name: str) -> None:
    assert ErrorCode(code).name == name
    assert ErrorCode[name] == code


def test_retriable_flags_match_kafka() -> None:
    assert {member.code for member in ErrorCode if member.retriable} == KAFKA_RETRIABLE


@pytest.mark.parametrize(
    ("member", "retriable"),
    [
        (ErrorCode.UNKNOWN_SERVER_ERROR, False),
        (ErrorCode.NONE, False),
        (ErrorCode.CORRUPT_MESSAGE, True),
        (ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, True),
        (ErrorCode.BROKER_NOT_AVAILABLE, False),
        (ErrorCode.NOT_CONTROLLER, True),
        (ErrorCode.REBALANCE_IN_PROGRESS, False),
        (ErrorCode.KAFKA_STORAGE_ERROR, True),
        (ErrorCode.STALE_BROKER_EPOCH, False),
        (ErrorCode.ELECTION_NOT_NEEDED, True),
        (ErrorCode.UNKNOWN_TOPIC_ID, True),
        (ErrorCode.DUPLICATE_BROKER_REGISTRATION, False),
        (ErrorCode.BROKER_ID_NOT_REGISTERED, False),
        (ErrorCode.INCONSISTENT_TOPIC_ID, True),
        (ErrorCode.INCONSISTENT_CLUSTER_ID, False),
        (ErrorCode.FETCH_SESSION_TOPIC_ID_ERROR, True),
        (ErrorCode.SHARE_SESSION_NOT_FOUND, True),
        (ErrorCode.FENCED_STATE_EPOCH, False),
        (ErrorCode.SHARE_SESSION_LIMIT_REACHED, True),
        (ErrorCode.CONTROLLER_ID_NOT_REGISTERED, False),
    ],
)
def test_retriable_spot_checks(member: ErrorCode, retriable: bool) -> None:
    assert member.retriable is retriable


@pytest.mark.parametrize("code", [-2, 137, 500, 32767, -32768, 10_000_000])
def test_for_code_maps_unknown_to_unknown_server_error(code: int) -> None:
    assert ErrorCode.for_code(code) is ErrorCode.UNKNOWN_SERVER_ERROR


def test_for_code_known_values() -> None:
    for member in ErrorCode:
        assert ErrorCode.for_code(member.code) is member
    assert ErrorCode.for_code(0) is ErrorCode.NONE


def test_constructor_stays_strict() -> None:
    with pytest.raises(ValueError):
        ErrorCode(137)


def test_leader_and_isr_type() -> None:
    assert [(m.name, m.value) for m in LeaderAndIsrType] == [
        ("UNSPECIFIED", 0),
        ("INCREMENTAL", 1),
        ("FULL", 2),
    ]
    assert LeaderAndIsrType.UNKNOWN is LeaderAndIsrType.UNSPECIFIED
    assert LeaderAndIsrType(0) is LeaderAndIsrType.UNSPECIFIED


def test_coordinator_key_type() -> None:
    assert [(m.name, m.value) for m in CoordinatorKeyType] == [
        ("GROUP", 0),
        ("TRANSACTION", 1),
        ("SHARE", 2),
        ("BATCH", 3),
    ]


ERRORS_PROGRAM = """
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.protocol.Errors;
public class ListErrors {
    public static void main(String[] args) {
        for (Errors e : Errors.values())
            System.out.println(e.code() + " " + e.name() + " " + (e.exception() instanceof RetriableException));
    }
}
"""


def test_every_code_of_kafka_clients_errors(tmp_path) -> None:
    """Every member of the newest release's own Errors enum is here with the same name and
    retriability, and nothing more. Runs a five-line program against Kafka's jars."""
    import shutil
    import subprocess

    from codegen.maintenance.sources import kafka_oracle as _oracle

    oracle = _oracle()
    release = oracle.releases()[-1]
    if shutil.which("javac") is None or not (oracle.CACHE / release / "classpath.txt").exists():
        reason = f"javac or Kafka {release}'s jars are missing (bash tools/setup.sh)"
        if oracle.required():
            pytest.fail(reason)
        pytest.skip(reason)
    classpath = ":".join(map(str, oracle.jars(release)))
    (tmp_path / "ListErrors.java").write_text(ERRORS_PROGRAM)
    # One short-lived JVM: the source launcher compiles in memory (no separate javac), and the
    # client compiler and serial collector spare the CPU a program this small does not need.
    java = ["java", "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-cp", classpath]
    run = subprocess.run([*java, str(tmp_path / "ListErrors.java")], check=True, capture_output=True, text=True)
    theirs = {}
    for line in run.stdout.splitlines():
        code, name, retriable = line.split()
        theirs[int(code)] = (name, retriable == "true")
    assert len(theirs) > 130
    ours = {m.code: (m.name, m.retriable) for m in ErrorCode}
    assert {code: ours.get(code) for code in theirs} == theirs
    assert set(ours) == set(theirs), "codes Kafka's newest release does not define"
