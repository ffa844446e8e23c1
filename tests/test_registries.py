"""The shipped registries by name, registries that extend another, and the markers that tell the
tools which registry a directory's records need."""

from __future__ import annotations

import argparse
import subprocess
import sys

import pytest

from conftest import ROOT
from kafka_meta_proto import DISKLESS_REGISTRY, REGISTRY, registries
from kafka_meta_proto.registry import Registry


def test_names_resolve_to_the_shipped_registries():
    assert registries.named("kafka") is REGISTRY and registries.named("diskless") is DISKLESS_REGISTRY
    assert registries.resolve(None) is REGISTRY and registries.resolve("diskless") is DISKLESS_REGISTRY
    assert registries.resolve(DISKLESS_REGISTRY) is DISKLESS_REGISTRY
    assert [registries.name_of(r) for r in (None, "diskless", REGISTRY, DISKLESS_REGISTRY)] == [
        "kafka", "diskless", "kafka", "diskless"]  # fmt: skip
    with pytest.raises(ValueError, match="no registry named 'inkless'; choose one of kafka, diskless"):
        registries.named("inkless")
    with pytest.raises(ValueError, match="not a registry the package ships"):
        registries.name_of(Registry("elsewhere", []))


def test_an_extending_registry_answers_from_its_own_entries_first():
    base_name = "kafka_meta_proto.messages"
    mine = Registry("pkg", [("TopicRecordPlus", "x", "metadata", 2), ("OtherRequest", "o", "request", 500)],
                    base=base_name)  # fmt: skip
    assert mine.base is REGISTRY
    assert mine.name_of("metadata", 2) == "TopicRecordPlus" and REGISTRY.name_of("metadata", 2) == "TopicRecord"
    assert mine.name_of("request", 1) == "FetchRequest" and mine.name_of("request", 500) == "OtherRequest"
    assert 500 in mine.api_keys() and 1 in mine.api_keys() and 500 not in REGISTRY.api_keys()
    assert mine.message_class("FetchRequest") is REGISTRY.message_class("FetchRequest")
    assert mine.message_type("FetchRequest") == "request" and mine.key_space("OffsetCommitKey") == "group-coordinator"
    assert set(mine.names()) == set(REGISTRY.names()) | {"TopicRecordPlus", "OtherRequest"}
    assert mine.own_names() == ["OtherRequest", "TopicRecordPlus"]
    with pytest.raises(KeyError, match="did you mean 'FetchRequest'"):
        mine.message_class("FetchRequets")
    with pytest.raises(KeyError, match="no request for api key 501 in pkg"):
        mine.request_class(501)


def test_qualified_names_cover_every_class_once():
    names = registries.qualified_names()
    assert len(names) == len(set(names)) == len(REGISTRY.names()) + len(DISKLESS_REGISTRY.own_names())
    assert registries.qualified_class("diskless:FindCoordinatorRequest").versions() == range(0, 8)
    assert registries.qualified_class("FindCoordinatorRequest").versions() == range(0, 7)
    assert registries.qualified_class("diskless:CommitBatchesRequest").API_KEY == 94


def test_clash_notes_only_where_the_registries_differ():
    assert registries.clash_note(None, "request", 1) == ""
    assert registries.clash_note("diskless", "request", 1) == ""  # Fetch in both
    note = registries.clash_note(None, "request", 93)
    assert note.startswith("api key 93 is StreamsGroupTopologyDescriptionUpdateRequest in the registry of Apache Kafka"
                           " but InitDisklessTopicsRequest in the registry of the diskless")  # fmt: skip
    assert "DISKLESS_REGISTRY" in note and "--diskless" in note
    assert "means nothing in the registry of Apache Kafka but ListDisklessOffsetsResponse" in registries.clash_note(
        None, "response", 98)  # fmt: skip
    back = registries.clash_note("diskless", "metadata", 29)
    assert back.startswith("record type 29 is TopicPartitionToBatchCoordinatorMapping") and "--registry kafka" in back


def test_markers_are_found_beside_the_files_and_refuse_unknown_names(tmp_path):
    cluster = tmp_path / "fleet" / "c1"
    log_dir = cluster / "__cluster_metadata-0"
    log_dir.mkdir(parents=True)
    segment = log_dir / "00000000000000000000.log"
    segment.write_bytes(b"")
    assert registries.for_path(segment) is None and registries.for_paths([segment]) == "kafka"
    marker = registries.write_marker(cluster, "diskless")
    assert marker.read_text() == "diskless\n"
    for path in (segment, log_dir, cluster):
        assert registries.for_path(path) == "diskless"
    assert registries.for_path(tmp_path / "fleet") is None  # a marker is never looked for below
    assert registries.for_paths([segment], chosen="kafka") == "kafka"  # the command line wins
    other = tmp_path / "c2"
    other.mkdir()
    assert registries.for_paths([segment, other]) == "diskless"
    registries.write_marker(other, "kafka")
    with pytest.raises(ValueError, match="markers name different registries"):
        registries.for_paths([segment, other])
    marker.write_text("inkless\n")
    with pytest.raises(ValueError, match="names no registry this package ships: 'inkless'"):
        registries.for_path(segment)
    with pytest.raises(ValueError):
        registries.write_marker(cluster, "inkless")


def test_the_command_line_flags():
    parser = argparse.ArgumentParser()
    registries.add_arguments(parser)
    assert parser.parse_args([]).registry is None
    assert parser.parse_args(["--diskless"]).registry == "diskless"
    assert parser.parse_args(["--registry", "kafka"]).registry == "kafka"
    with pytest.raises(SystemExit):
        parser.parse_args(["--diskless", "--registry", "kafka"])


def test_dump_log_follows_the_marker_simulate_writes(tmp_path):
    """simulate --diskless marks its clusters; dump-log reads them with the diskless registry
    unless told otherwise, and Kafka's registry then names the clash."""
    cli = [sys.executable, "-m", "kafka_meta_proto.cli"]
    out = tmp_path / "sim"
    run = subprocess.run([*cli, "simulate", "--out", str(out), "--records", "3000", "--seed", "5", "--diskless",
                          "--quiet"], capture_output=True, text=True, timeout=120, cwd=ROOT)  # fmt: skip
    assert run.returncode == 0, run.stderr
    (cluster,) = out.iterdir()
    assert (cluster / registries.MARKER).read_text() == "diskless\n"
    segments = sorted((cluster / "__cluster_metadata-0").glob("*.log"))
    run = subprocess.run([*cli, "dump-log", *map(str, segments)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr[-2000:]
    assert '"type":"TOPIC_PARTITION_TO_BATCH_COORDINATOR_MAPPING"' in run.stdout
    run = subprocess.run([*cli, "dump-log", "--registry", "kafka", *map(str, segments)], capture_output=True,
                         text=True, timeout=120)  # fmt: skip
    assert run.returncode == 1
    assert "record type 29 is UnregisterControllerRecord in the registry of Apache Kafka but " \
           "TopicPartitionToBatchCoordinatorMapping" in run.stdout  # fmt: skip
    # without --diskless: nothing of the design, no marker
    plain = tmp_path / "plain"
    run = subprocess.run([*cli, "simulate", "--out", str(plain), "--records", "2000", "--quiet"],
                         capture_output=True, text=True, timeout=120)  # fmt: skip
    assert run.returncode == 0, run.stderr
    (cluster,) = plain.iterdir()
    assert not (cluster / registries.MARKER).exists()
    run = subprocess.run([*cli, "dump-log", *map(str, sorted((cluster / "__cluster_metadata-0").glob("*.log")))],
                         capture_output=True, text=True, timeout=120)  # fmt: skip
    assert run.returncode == 0 and "BATCH_COORDINATOR" not in run.stdout
