"""dump-log in the form of the Kafka release a user names (--kafka-version), --max-bytes cutting a
batch, the order of the ``Dumping`` and ``Ignoring`` lines and the absolute path of the gap
report. Each expectation was checked against Kafka 3.9.2's, 4.3.1's and 4.4.0's own DumpLogSegments
(the interop tests repeat the comparison with 3.9.2 and 4.4.0 where their jars are at hand)."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kafka_meta_proto import cli, kraft, message_class
from kafka_meta_proto.tools import dump
from kafka_meta_proto.kraft.coordinator_records import TRANSACTION_COORDINATOR
from kafka_meta_proto.log import Record, RecordBatch, control_key

from .coordinator_segments import write_segment
from .reference import KRAFT_LOGS, needs_reference

LEADER_CHANGE = message_class("LeaderChangeMessage")


def leader_change_segment(tmp_path: Path, first_offset: int = 0) -> Path:
    """A LeaderChange control batch, then two metadata records after a gap."""
    change = LEADER_CHANGE(version=0, leader_id=1, voters=[LEADER_CHANGE.Voter(voter_id=1)],
                           granting_voters=[LEADER_CHANGE.Voter(voter_id=1)])  # fmt: skip
    control = RecordBatch.create([Record(key=control_key(2), value=change.encode(0))],
                                 base_offset=first_offset, base_timestamp=10, control=True)  # fmt: skip
    value = kraft.encode_record_value(message_class("NoOpRecord")(), 0)
    data = RecordBatch.create([Record(value=value), Record(value=value)], base_offset=first_offset + 5,
                              base_timestamp=11)  # fmt: skip
    path = tmp_path / f"{first_offset:020d}.log"
    path.write_bytes(control.encode() + data.encode())
    return path


def run(paths, **options) -> tuple[int, list[str], str]:
    out, err = io.StringIO(), io.StringIO()
    status = dump.dump([str(p) for p in paths], out, err, **options)
    return status, out.getvalue().splitlines(), err.getvalue()


@pytest.mark.parametrize("release, shown", [
    ("3.9", " controlType: LEADER_CHANGE(2)"),
    ("4.0.1", " controlType: LEADER_CHANGE(2)"),
    ("4.1", ' LeaderChange: {"version":0,"leaderId":1,"voters":[{"voterId":1}],"grantingVoters":[{"voterId":1}]}'),
    ("4.3.1", ' LeaderChange: {"version":0,"leaderId":1,"voters":[{"voterId":1}],"grantingVoters":[{"voterId":1}]}'),
    ("4.4.0", ' LeaderChange: {"version":0,"leaderId":1,"voters":[{"voterId":1}],"grantingVoters":[{"voterId":1}]}'),
])  # fmt: skip
def test_leader_change_in_the_form_of_the_release(tmp_path, release, shown):
    status, lines, _ = run([leader_change_segment(tmp_path)], form=dump.tool_form(release))
    assert (
        lines[3]
        == "| offset: 0 CreateTime: 10 keySize: 4 valueSize: 19 sequence: -1 headerKeys: []" + shown
    )
    assert status == 0


def test_the_default_form_is_kafka_4_1_and_4_2s(tmp_path):
    assert dump.tool_form() == dump.tool_form("4.2") == dump.DEFAULT_FORM
    _, lines, _ = run([leader_change_segment(tmp_path)])
    assert " LeaderChange: {" in lines[3]


def test_kafka_4_3_prints_skipped_metadata_payloads_with_the_record_indent(tmp_path):
    path = leader_change_segment(tmp_path)
    payload = 'payload: {"type":"NO_OP_RECORD","version":0,"data":{}}'
    _, old, _ = run([path], skip_record_metadata=True, form=dump.tool_form("4.2"))
    _, new, _ = run([path], skip_record_metadata=True, form=dump.tool_form("4.3"))
    assert old[3:] == ["", old[4], f" {payload}", f" {payload}"]
    assert new[3:] == ["", new[4], f"| {payload}", f"| {payload}"]


def test_kafka_4_4_names_the_transaction_state(tmp_path):
    """--transaction-log-decoder: 4.4 prints transactionStatus as the state's name (an id no
    state has as its number, quoted); 4.3 as the int8 (tests/log/golden/coordinators holds both
    tools' whole output)."""
    path = write_segment(tmp_path, TRANSACTION_COORDINATOR)
    states = {}
    for release in ("4.3", "4.4"):
        _, lines, _ = run([path], decoder="transaction-log", form=dump.tool_form(release))
        states[release] = [line.split('"transactionStatus":')[1].split(",")[0] for line in lines
                           if '"transactionStatus":' in line]  # fmt: skip
    assert states == {"4.3": ["2", "2", "0", "9"], "4.4": ['"PrepareCommit"', '"PrepareCommit"', '"Empty"', '"9"']}


def test_gap_report_of_each_release(tmp_path):
    path = leader_change_segment(tmp_path, first_offset=3)
    where = f"Non-consecutive offsets in {path}\n"
    # The Scala tool (to 4.2) starts comparing at the first record; the Java tool (4.3) compares
    # the first with -1 and lists the pairs oldest first.
    assert run([path], form=dump.tool_form("4.2"))[2] == where + "  3 is followed by 8\n"
    assert (
        run([path], form=dump.tool_form("4.3"))[2]
        == where + "  -1 is followed by 3\n  3 is followed by 8\n"
    )


@pytest.mark.parametrize("bad", ["3.8", "2.8.1", "four", "4"])
def test_a_release_without_a_known_form_is_refused(bad, capsys):
    with pytest.raises(ValueError):
        dump.tool_form(bad)
    assert cli.main(["dump-log", "--kafka-version", bad, "x.log"]) == 2
    assert "--kafka-version" in capsys.readouterr().err


# --- --max-bytes ------------------------------------------------------------------------------


def second_batch_position(lines: list[str]) -> int:
    second = [line for line in lines if line.startswith("baseOffset: ")][1]
    return int(second.split(" position: ")[1].split()[0])


def test_max_bytes_inside_a_batch_shows_the_batches_before_it_and_succeeds(tmp_path):
    path = leader_change_segment(tmp_path)
    whole = run([path])[1]
    second = second_batch_position(whole)
    before_second = whole[: whole.index(next(l for l in whole[3:] if l.startswith("baseOffset: ")))]
    size = path.stat().st_size
    for cut, shown in ((1, whole[:2]), (second - 1, whole[:2]), (second, before_second),
                       (second + 20, before_second), (size - 1, before_second)):  # fmt: skip
        assert run([path], max_bytes=cut) == (0, shown, ""), cut
    assert run([path], max_bytes=size)[1] == whole


def test_max_bytes_beyond_a_truncated_file_is_still_a_problem(tmp_path, capsys):
    path = leader_change_segment(tmp_path)
    second = second_batch_position(run([path])[1])
    path.write_bytes(path.read_bytes()[:-7])
    status, lines, err = run([path], max_bytes=10_000)
    assert status == 1 and not any("invalid bytes" in line for line in lines)
    size = path.stat().st_size
    assert err == f"Error in {path}: {size - second} bytes at the end are no complete batch\n"
    # Through the command, a cut inside the (whole) second batch of an intact file: exit 0.
    (tmp_path / "intact").mkdir()
    intact = leader_change_segment(tmp_path / "intact")
    assert cli.main(["dump-log", "--max-bytes", str(second + 20), str(intact)]) == 0
    out, err = capsys.readouterr()
    assert out.count("baseOffset: ") == 1 and err == ""


# --- the order of lines, the gap report's path -------------------------------------------------


def test_dumping_comes_before_ignoring_unknown_file(tmp_path):
    other = tmp_path / "notes.txt"
    other.write_text("hi")
    segment = leader_change_segment(tmp_path)
    run_ = subprocess.run([sys.executable, "-m", "kafka_meta_proto.cli", "dump-log", str(other), str(segment)],
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=60)  # fmt: skip
    lines = run_.stdout.splitlines()
    assert lines[:3] == [f"Dumping {other}", f"Ignoring unknown file {other}", f"Dumping {segment}"]
    assert run_.returncode == 1


def test_gap_report_names_the_file_as_java_does_through_links_and_dot_dot(tmp_path, monkeypatch):
    """Java's File.getAbsolutePath joins the working directory (links resolved by the system)
    and the name as given, ``..`` included; a lexical clean-up of ``..`` would name another
    directory when a link is on the way (the symptom of ``../shared`` reached through a link)."""
    real = tmp_path / "real"
    (real / "logs").mkdir(parents=True)
    (real / "work").mkdir()
    segment = leader_change_segment(real / "logs", first_offset=3)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    os.symlink(real / "work", elsewhere / "work")
    monkeypatch.chdir(elsewhere / "work")  # the system resolves the link: getcwd() is real/work
    relative = f"../logs/./{segment.name}"
    assert Path(relative).resolve() == segment.resolve()
    err = run([relative])[2]
    assert (
        err.splitlines()[0] == f"Non-consecutive offsets in {os.getcwd()}/../logs/./{segment.name}"
    )
    assert os.getcwd() == str((real / "work").resolve())
    assert dump.java_absolute_path("/a//b/") == "/a/b"


@needs_reference
def test_the_golden_gap_report_through_a_linked_reference_folder(tmp_path, monkeypatch, capsys):
    """The golden test's set-up with ../shared reached through a symbolic link."""
    link = tmp_path / "shared-link"
    os.symlink(KRAFT_LOGS, link)
    monkeypatch.chdir(link)
    segment = ("codecrafters-io__kafka-tester/018f9bc8ee33/internal/test_helpers/pass_all/"
               "kraft-combined-logs/__cluster_metadata-0/00000000000000000000.log")  # fmt: skip
    assert cli.main(["dump-log", segment]) == 0
    err = capsys.readouterr().err
    assert err == f"Non-consecutive offsets in {os.getcwd()}/{segment}\n  4 is followed by 34\n"
    assert os.getcwd() == str(KRAFT_LOGS.resolve())
