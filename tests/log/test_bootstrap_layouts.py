"""The readers on both places a formatted node keeps its bootstrap records: ``bootstrap.checkpoint``
in the metadata log directory (Kafka up to 4.3) and the snapshot
``__cluster_metadata-0/00000000000000000000-0000000000.checkpoint`` (4.4 on, KIP-1170). The files
are made by ``kafka-meta-proto format``, whose output tests/cluster/test_format.py holds against
Kafka 4.4.0's storage tool; the shell, the image, dump-log, stale-partitions and the audit's input
discovery must read each."""

from __future__ import annotations

import io

import pytest

from kafka_meta_proto import cli
from kafka_meta_proto.tools import dump
from kafka_meta_proto.kraft.image import MetadataImage
from kafka_meta_proto.pipeline.inputs import BOOTSTRAP, SNAPSHOT, discover, stream_plan
from kafka_meta_proto.tools.storage import feature_levels

CLUSTER_ID = "MkU3OEVBNTcwNTJENDM2Qg"
SNAPSHOT_FILE = "__cluster_metadata-0/00000000000000000000-0000000000.checkpoint"
LAYOUTS = {"4.4": (SNAPSHOT_FILE, "4.4-IV2"), "4.3": ("bootstrap.checkpoint", "4.3-IV0")}


@pytest.fixture(params=sorted(LAYOUTS))
def formatted(request, tmp_path):
    """A controller's log directory formatted for the release, the bootstrap file's path in it."""
    release = request.param
    settings = tmp_path / "server.properties"
    settings.write_text(f"node.id=1\nprocess.roles=controller\ncontroller.quorum.voters=1@localhost:9093\nlog.dirs={tmp_path / 'node-1'}\n")
    assert cli.main(["format", "-c", str(settings), "-t", CLUSTER_ID, "-r", release]) == 0
    return release, tmp_path / "node-1", tmp_path / "node-1" / LAYOUTS[release][0]


def shell(capsys, *args) -> str:
    capsys.readouterr()
    assert cli.main(["shell", *args]) == 0
    return capsys.readouterr().out


def test_the_shell_reads_the_log_dir_its_metadata_log_and_the_file(formatted, capsys):
    release, log_dir, bootstrap = formatted
    expected = f"Optional[{LAYOUTS[release][1]}]\n"
    for source in (["--log", str(log_dir)], ["--log", str(log_dir / "__cluster_metadata-0")],
                   ["--snapshot", str(bootstrap)]):  # fmt: skip
        if source[1].endswith("__cluster_metadata-0") and not (log_dir / "__cluster_metadata-0").is_dir():
            continue  # up to 4.3 format leaves the metadata log to the node's first start
        assert shell(capsys, *source, "cat /image/features/metadataVersion") == expected, source
    image = MetadataImage.from_log_dir(log_dir)
    features = {n: v for n, v in feature_levels(release).items() if v > 0}
    assert image.features == features and image.snapshot_id == (0, 0)


def test_dump_log_names_each_file_as_kafka_does(formatted):
    release, _, bootstrap = formatted
    out = io.StringIO()
    assert dump.dump([str(bootstrap)], out, io.StringIO(), form=dump.tool_form("4.4")) == 0
    second = out.getvalue().splitlines()[1]
    assert second == {"4.4": "Snapshot end offset: 0, epoch: 0", "4.3": "KRaft bootstrap snapshot"}[release]


def test_stale_partitions_on_a_formatted_node(formatted, capsys):
    _, log_dir, _ = formatted
    (log_dir / "gone-0").mkdir()
    assert cli.main(["stale-partitions", "--log-dirs", str(log_dir), "--log", str(log_dir)]) == 0
    assert "gone-0" in capsys.readouterr().out


def test_the_audit_finds_the_cluster_and_replays_its_bootstrap_records(formatted):
    release, log_dir, bootstrap = formatted
    inventory = discover([str(log_dir.parent)])
    assert list(inventory.clusters) == ["node-1"]
    [found] = inventory.files
    assert found.file == LAYOUTS[release][0]
    assert found.kind == {"4.4": SNAPSHOT, "4.3": BOOTSTRAP}[release]
    if release == "4.4":  # an ordinary snapshot to the replay: the one to start from
        assert (found.end_offset, found.epoch) == (0, 0)
        assert stream_plan("node-1", inventory.files).snapshot == SNAPSHOT_FILE
