"""partition.metadata and meta.properties: Kafka's formats, round trips and clear errors."""

from __future__ import annotations

from datetime import datetime, timezone

import pytest

from kafka_meta_proto.tools.localfiles import (
    LocalFileError,
    MetaProperties,
    PartitionMetadata,
    format_properties,
    java_date,
    parse_meta_properties,
    parse_partition_metadata,
    parse_properties,
    read_meta_properties,
    read_partition_metadata,
    write_meta_properties,
    write_partition_metadata,
)
from kafka_meta_proto.uuid import Uuid

TOPIC_ID = Uuid.from_string("fZi4qEpCTsik-rzkyV0Ypg")
DIR_ID = Uuid.from_string("AiSXPLrdRM-HREWplhnaNA")
MOMENT = datetime(2024, 6, 13, 13, 6, 8, tzinfo=timezone.utc)

# --- partition.metadata -----------------------------------------------------------------------


def test_partition_metadata_is_written_as_kafka_writes_it(tmp_path):
    path = write_partition_metadata(tmp_path, TOPIC_ID)
    assert path == tmp_path / "partition.metadata"
    assert path.read_bytes() == b"version: 0\ntopic_id: fZi4qEpCTsik-rzkyV0Ypg"
    assert not (tmp_path / "partition.metadata.tmp").exists()
    assert read_partition_metadata(tmp_path) == PartitionMetadata(TOPIC_ID, 0)
    assert read_partition_metadata(path).topic_id == TOPIC_ID


@pytest.mark.parametrize("text", [
    "version: 0\ntopic_id: fZi4qEpCTsik-rzkyV0Ypg",
    "version: 0\ntopic_id: fZi4qEpCTsik-rzkyV0Ypg\n",
    "version:\t0\r\ntopic_id:   fZi4qEpCTsik-rzkyV0Ypg\r\nextra: ignored\n",
    "version: 1\ntopic_id: fZi4qEpCTsik-rzkyV0Ypg",  # later versions are read (Kafka checks version >= 0)
])  # fmt: skip
def test_partition_metadata_variants_kafka_accepts(text):
    assert parse_partition_metadata(text).topic_id == TOPIC_ID


@pytest.mark.parametrize("text, problem", [
    ("", "line 1 is missing"),
    ("version: 0\n", "line 2 is missing"),
    ("version: 0", "line 2 is missing"),
    ("version:0\ntopic_id: fZi4qEpCTsik-rzkyV0Ypg", "malformed line 1"),
    ("topic_id: fZi4qEpCTsik-rzkyV0Ypg\nversion: 0", "malformed line 1"),
    ("version: x\ntopic_id: fZi4qEpCTsik-rzkyV0Ypg", "version 'x' is not a number"),
    ("version: -1\ntopic_id: fZi4qEpCTsik-rzkyV0Ypg", "unknown version -1"),
    ("version: 0\ntopic: fZi4qEpCTsik-rzkyV0Ypg", "malformed line 2"),
    ("version: 0\ntopic_id: not-a-uuid", "topic_id 'not-a-uuid' is not a Kafka uuid"),
    ("version: 0\ntopic_id: AAAAAAAAAAAAAAAAAAAAAA", "zero uuid"),
])  # fmt: skip
def test_partition_metadata_errors_name_file_and_problem(tmp_path, text, problem):
    path = tmp_path / "partition.metadata"
    path.write_text(text)
    with pytest.raises(LocalFileError) as info:
        read_partition_metadata(tmp_path)
    assert str(path) in str(info.value) and problem in str(info.value)
    assert info.value.path == str(path)
    assert isinstance(info.value, ValueError)


def test_missing_file(tmp_path):
    with pytest.raises(LocalFileError, match="no such file"):
        read_partition_metadata(tmp_path)
    with pytest.raises(LocalFileError, match="meta.properties: no such file"):
        read_meta_properties(tmp_path)


# --- Java properties ----------------------------------------------------------------------------


def test_java_date_format():
    assert java_date(MOMENT) == "Thu Jun 13 13:06:08 UTC 2024"


def test_properties_parsing_follows_java_rules():
    text = (
        "# comment\n"
        "  ! another comment\n"
        "\n"
        "a=1\n"
        "b : 2\n"
        "c 3\n"
        "d\n"
        "key\\ with\\ spaces = value with spaces  \n"
        "url=http\\://host\\:9092\n"
        "multi = one, \\\n"
        "        two\n"
        "uni=\\u00e9t\\u00E9\n"
        "esc=tab\\there\\\\\n"
        "empty=\n"
    )
    assert parse_properties(text) == {
        "a": "1", "b": "2", "c": "3", "d": "", "key with spaces": "value with spaces  ",
        "url": "http://host:9092", "multi": "one, two", "uni": "été", "esc": "tab\there\\", "empty": "",
    }  # fmt: skip


def test_properties_round_trip_with_escaping():
    props = {
        "node.id": "1",
        "weird key=:": " leading space, #!\\ and\nnewline",
        "cluster.id": "MkU3OEVBNTcwNTJENDM2Qk",
    }
    text = format_properties(props, "", MOMENT)
    assert text.splitlines()[:2] == ["#", "#Thu Jun 13 13:06:08 UTC 2024"]
    assert "cluster.id=MkU3OEVBNTcwNTJENDM2Qk" in text.splitlines()
    assert parse_properties(text) == props


# --- meta.properties ---------------------------------------------------------------------------

KAFKA_V1 = """#
#Thu Jun 13 13:06:08 UTC 2024
node.id=1
directory.id=AiSXPLrdRM-HREWplhnaNA
version=1
cluster.id=MkU3OEVBNTcwNTJENDM2Qk
"""

KAFKA_V0 = """#
#Tue Jan 23 11:57:32 UTC 2024
cluster.id=q1Sh-9_ISia_zwGINzRvyQ
version=0
broker.id=0
"""


def test_reads_the_files_kafka_writes():
    assert parse_meta_properties(KAFKA_V1) == MetaProperties(1, "MkU3OEVBNTcwNTJENDM2Qk", 1, DIR_ID)
    assert parse_meta_properties(KAFKA_V0) == MetaProperties(0, "q1Sh-9_ISia_zwGINzRvyQ", 0, None)
    # v0 requires nothing (old ZooKeeper brokers had no cluster.id); a missing version means v0.
    assert parse_meta_properties("broker.id=7\n") == MetaProperties(0, None, 7, None)
    assert parse_meta_properties("") == MetaProperties(0)
    assert parse_meta_properties(
        "version=2\nnode.id=3\ndirectory.id=AiSXPLrdRM-HREWplhnaNA\n"
    ) == MetaProperties(2, None, 3, DIR_ID)


@pytest.mark.parametrize("meta", [
    MetaProperties(1, "MkU3OEVBNTcwNTJENDM2Qk", 1, DIR_ID),
    MetaProperties(1, "MkU3OEVBNTcwNTJENDM2Qk", 3000),
    MetaProperties(0, "q1Sh-9_ISia_zwGINzRvyQ", 0),
])  # fmt: skip
def test_write_then_read(tmp_path, meta):
    path = write_meta_properties(tmp_path, meta, MOMENT)
    assert path == tmp_path / "meta.properties"
    assert read_meta_properties(tmp_path) == meta
    lines = path.read_text().splitlines()
    assert lines[:2] == ["#", "#Thu Jun 13 13:06:08 UTC 2024"]
    assert f"version={meta.version}" in lines
    assert ("broker.id=" if meta.version == 0 else "node.id=") + str(meta.node_id) in lines


def test_written_v1_matches_kafka_layout(tmp_path):
    path = write_meta_properties(
        tmp_path, MetaProperties(1, "MkU3OEVBNTcwNTJENDM2Qk", 1, DIR_ID), MOMENT
    )
    assert path.read_text() == KAFKA_V1


@pytest.mark.parametrize("text, problem", [
    ("version=1\ncluster.id=abc\n", "node.id is missing"),
    ("version=1\nnode.id=1\n", "cluster.id is missing"),
    ("version=1\nbroker.id=1\ncluster.id=abc\n", "node.id is missing"),
    ("version=2\nnode.id=1\n", "directory.id is missing"),
    ("version=3\nnode.id=1\ncluster.id=abc\n", "unknown version 3"),
    ("version=one\n", "version 'one' is not a number"),
    ("version=1\nnode.id=x1\ncluster.id=abc\n", "node.id 'x1' is not a base-10 number"),
    ("version=1\nnode.id=4294967296\ncluster.id=abc\n", "does not fit in an int32"),
    ("version=0\nbroker.id=1_0\n", "broker.id '1_0' is not a base-10 number"),
    ("version=1\nnode.id=1\ncluster.id=abc\ndirectory.id=nope\n", "directory.id 'nope' is not a Kafka uuid"),
    ("bad=\\u12\n", "malformed \\uXXXX escape"),
])  # fmt: skip
def test_meta_properties_errors_name_file_and_problem(tmp_path, text, problem):
    path = tmp_path / "meta.properties"
    path.write_text(text)
    with pytest.raises(LocalFileError) as info:
        read_meta_properties(path)
    assert str(info.value).startswith(f"{path}: ") and problem in str(info.value)


def test_refuses_to_write_what_cannot_be_read_back(tmp_path):
    with pytest.raises(LocalFileError, match="cluster.id is missing"):
        write_meta_properties(tmp_path, MetaProperties(1, None, 1))
    assert not (tmp_path / "meta.properties").exists()
