"""stale-partitions: local partition directories the metadata image no longer backs."""

from __future__ import annotations

from pathlib import Path

import pytest

from kafka_meta_proto import cli, message_class
from kafka_meta_proto.commands.stale_partitions import find_stale, partition_dirs
from kafka_meta_proto.kraft.image import MetadataImage
from kafka_meta_proto.tools.localfiles import write_partition_metadata
from kafka_meta_proto.uuid import Uuid

from .reference import KRAFT_LOGS, SKIP_REASON
from .test_image import BAR, FOO, partition, topic, write_segment, write_snapshot

OLD_FOO = Uuid.from_string("MvDxzVmcRsaTz33bUuRU6A")


def records():
    return [topic("foo", FOO), partition(0, FOO, replicas=(1, 2)), partition(1, FOO, replicas=(2, 3)),
            topic("bar", BAR), partition(0, BAR, replicas=(1,))]  # fmt: skip


def make_log_dir(root: Path, dirs: dict[str, Uuid | None | str]) -> Path:
    """Partition directories, each with the given partition.metadata topic id (None: no file, str: raw text)."""
    root.mkdir(parents=True, exist_ok=True)
    for name, topic_id in dirs.items():
        d = root / name
        d.mkdir()
        (d / "00000000000000000000.log").write_bytes(b"")
        if isinstance(topic_id, Uuid):
            write_partition_metadata(d, topic_id)
        elif isinstance(topic_id, str):
            (d / "partition.metadata").write_text(topic_id)
    return root


@pytest.fixture
def log_dirs(tmp_path):
    one = make_log_dir(tmp_path / "data1", {
        "foo-0": FOO,              # fine
        "foo-1": OLD_FOO,          # foo was deleted and re-created: another topic id
        "bar-0": None,             # fine: no partition.metadata yet (the broker would write it)
        "gone-0": OLD_FOO,         # topic no longer exists
        "gone-3": None,
        "foo-7": FOO,              # foo has no partition 7
        "foo-0.0123456789abcdef0123456789abcdef-delete": FOO,  # already being deleted
        "bar-0.0123456789abcdef0123456789abcdef-future": BAR,  # a move in progress
        "__cluster_metadata-0": None,                          # the metadata log itself
        "not-a-partition": None,
    })  # fmt: skip
    two = make_log_dir(tmp_path / "data2", {"my.topic-with-dashes-12": None, "bar-1": "garbage"})
    (two / "meta.properties").write_text("version=1\nnode.id=1\ncluster.id=x\n")
    return [one, two]


def test_partition_dirs_parse_topic_and_partition(log_dirs):
    found = [(p.name, t, n) for p, t, n in partition_dirs(log_dirs[1])]
    assert found == [("bar-1", "bar", 1), ("my.topic-with-dashes-12", "my.topic-with-dashes", 12)]
    names = [p.name for p, _, _ in partition_dirs(log_dirs[0])]
    assert "__cluster_metadata-0" not in names and not any(
        n.endswith(("-delete", "-future")) for n in names
    )


def test_find_stale(log_dirs):
    image = MetadataImage().replay(records())
    warnings = []
    stale = find_stale(image, log_dirs, warn=warnings.append)
    got = {(s.path.parent.name, s.path.name): s.reason for s in stale}
    assert got == {
        ("data1", "foo-1"): "topic-id-mismatch",
        ("data1", "gone-0"): "topic-gone",
        ("data1", "gone-3"): "topic-gone",
        ("data1", "foo-7"): "partition-gone",
        ("data2", "bar-1"): "partition-gone",  # judged without its unreadable partition.metadata
        ("data2", "my.topic-with-dashes-12"): "topic-gone",
    }
    mismatch = next(s for s in stale if s.path.name == "foo-1")
    assert str(OLD_FOO) in mismatch.detail and str(FOO) in mismatch.detail
    assert len(warnings) == 1 and "bar-1" in warnings[0] and "malformed line 1" in warnings[0]


def test_broker_id_flags_partitions_it_does_not_replicate(log_dirs):
    image = MetadataImage().replay(records())
    stale = {s.path.name: s for s in find_stale(image, log_dirs[:1], broker_id=1)}
    assert stale["foo-1"].reason == "topic-id-mismatch"  # the first reason wins
    assert "foo-0" not in stale and "bar-0" not in stale
    stale = {s.path.name: s for s in find_stale(image, log_dirs[:1], broker_id=3)}
    assert stale["foo-0"].reason == "not-a-replica" and "[1, 2]" in stale["foo-0"].detail
    assert stale["bar-0"].reason == "not-a-replica"


def test_topic_recreated_in_the_log_makes_old_directories_stale(tmp_path):
    """Replay a log where foo is deleted and re-created with a new id; the old replica is stale."""
    metadata = tmp_path / "meta"
    metadata.mkdir()
    write_segment(metadata, 0, [topic("foo", OLD_FOO), partition(0, OLD_FOO),
                                message_class("RemoveTopicRecord")(topic_id=OLD_FOO),
                                topic("foo", FOO), partition(0, FOO)])  # fmt: skip
    logs = make_log_dir(tmp_path / "logs", {"foo-0": OLD_FOO})
    stale = find_stale(MetadataImage.from_log_dir(metadata), [logs])
    assert [(s.path.name, s.reason) for s in stale] == [("foo-0", "topic-id-mismatch")]


def test_command_output_and_exit_status(log_dirs, tmp_path, capsys):
    snapshot = write_snapshot(tmp_path, records(), end_offset=10)
    status = cli.main(
        ["stale-partitions", "--log-dirs", *map(str, log_dirs), "--snapshot", str(snapshot)]
    )
    captured = capsys.readouterr()
    assert status == 0
    lines = captured.out.splitlines()
    assert len(lines) == 6
    assert (
        f"{log_dirs[0] / 'gone-0'}\ttopic-gone: topic gone is not in the metadata image (its partition.metadata says topic ID {OLD_FOO})"
        in lines
    )
    assert (
        f"{log_dirs[0] / 'foo-7'}\tpartition-gone: topic foo has no partition 7 (it has 2)" in lines
    )
    assert "warning:" in captured.err and "bar-1" in captured.err


def test_command_with_log_dir_and_nothing_stale(tmp_path, capsys):
    metadata = tmp_path / "__cluster_metadata-0"
    metadata.mkdir()
    write_segment(metadata, 0, records())
    logs = make_log_dir(tmp_path / "logs", {"foo-0": FOO, "foo-1": FOO, "bar-0": BAR})
    assert cli.main(["stale-partitions", "--log-dirs", str(logs), "--log", str(metadata)]) == 0
    assert capsys.readouterr().out == ""


def test_missing_log_dir_is_an_error(tmp_path, capsys):
    snapshot = write_snapshot(tmp_path, records(), end_offset=10)
    assert (
        cli.main(
            ["stale-partitions", "--log-dirs", str(tmp_path / "nope"), "--snapshot", str(snapshot)]
        )
        == 2
    )
    assert "no such directory" in capsys.readouterr().err


def test_real_log_dir_with_its_own_partition(capsys):
    """A real Kafka log dir: foo-0 (no partition.metadata) next to __cluster_metadata-0; nothing is stale."""
    root = (
        KRAFT_LOGS
        / "codecrafters-io__kafka-tester"
        / "0873daebd31a"
        / "internal"
        / "test_helpers"
        / "pass_all"
        / "kraft-combined-logs"
    )
    if not root.is_dir():
        pytest.skip(SKIP_REASON)
    assert (
        cli.main(
            [
                "stale-partitions",
                "--log-dirs",
                str(root),
                "--log",
                str(root / "__cluster_metadata-0"),
            ]
        )
        == 0
    )
    assert capsys.readouterr().out == ""
    # The same log dir against a metadata log that never had foo: the local foo-0 is stale.
    other = (
        KRAFT_LOGS
        / "engkoskostaman97__setup_install_kafka_from_windows"
        / "139aa1e5a0ca"
        / "data"
        / "__cluster_metadata-0"
    )
    assert cli.main(["stale-partitions", "--log-dirs", str(root), "--log", str(other)]) == 0
    assert (
        capsys.readouterr().out
        == f"{root / 'foo-0'}\ttopic-gone: topic foo is not in the metadata image\n"
    )
