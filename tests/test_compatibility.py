"""Cross-version rules: downgrades, and tagged fields between readers and writers that know
different schemas (including the topic-ID design's draft of LeaderAndIsr v4)."""

from __future__ import annotations

import copy
import importlib
import json
import sys

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from codegen.generate import generate, write_package
from codegen.jsonc import load as load_schema
from conftest import ROOT
from kafka_meta_proto import REGISTRY, EncodeError, UnsupportedVersionError, Uuid, message_class
from kafka_meta_proto.strategies import messages

EVOLUTION = ROOT / "tests" / "data" / "evolution"

# ----------------------------------------------------------------------------- downgrades


def _default(cls, name):
    return getattr(cls(), name)


def downgrade_problems(obj, version: int, flexible: bool) -> set[str]:
    """What stands in the way of writing obj at an older version, by Kafka's rules:
    "unsupported" when a field the version lacks holds a non-default value and is not ignorable
    (or unknown tagged fields are set in a version without tagged fields), "null" when a field
    holds null where the version does not allow it."""
    cls = type(obj)
    problems = set()
    if obj.unknown_tagged_fields and not flexible:
        problems.add("unsupported")
    for f in cls._FIELDS:
        value = getattr(obj, f.name)
        if not f.present(version):
            if not f.ignorable and value != _default(cls, f.name):
                problems.add("unsupported")
        elif value is None:
            if not f.is_nullable(version):
                problems.add("null")
        elif f.struct is not None:
            for item in value if f.is_array else [value]:
                problems |= downgrade_problems(item, version, flexible)
    return problems


def project(obj, version: int, flexible: bool):
    """obj as a reader at ``version`` sees it: the version's fields, the rest at their defaults."""
    cls = type(obj)
    out = cls()
    for f in cls._FIELDS:
        if not f.present(version):
            continue
        value = getattr(obj, f.name)
        if f.struct is not None and value is not None:
            value = [project(x, version, flexible) for x in value] if f.is_array else project(value, version, flexible)
        setattr(out, f.name, value)
    out.unknown_tagged_fields = obj.unknown_tagged_fields if flexible else ()
    return out


def _downgrade_marks(cls, newer: int, older: int) -> tuple:
    """The fast run takes the newest version down to the oldest and to the one before it; the
    other pairs (every step down, the newest to each) run in the exhaustive tier."""
    sampled = newer == cls.HIGHEST_VERSION and older in (cls.LOWEST_VERSION, newer - 1)
    return () if sampled else (pytest.mark.slow, pytest.mark.exhaustive)


DOWNGRADES = [
    pytest.param(name, w, v, id=f"{name}-v{w}-to-v{v}", marks=_downgrade_marks(cls, w, v))
    for name in REGISTRY.names()
    for cls in [message_class(name)]
    for w in cls.versions()
    for v in cls.versions()
    if v < w and (w == cls.HIGHEST_VERSION or v == w - 1)
]


@pytest.mark.parametrize("name,newer,older", DOWNGRADES)
def test_downgrade(name, newer, older):
    cls = message_class(name)
    flexible = cls.is_flexible(older)

    @settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    @given(messages(cls, newer))
    def check(msg):
        problems = downgrade_problems(msg, older, flexible)
        assume("null" not in problems)  # null where the older version forbids it: an EncodeError
        if "unsupported" in problems:
            with pytest.raises(UnsupportedVersionError):
                msg.encode(older)
        else:
            assert cls.decode(msg.encode(older), older) == project(msg, older, flexible)

    check()


def test_downgrade_error_names_field_and_version():
    Heartbeat = message_class("BrokerHeartbeatRequest")  # OfflineLogDirs exists from v1
    with pytest.raises(
        UnsupportedVersionError,
        match=r"BrokerHeartbeatRequest v0: offline_log_dirs: BrokerHeartbeatRequest\.offline_log_dirs has a non-default",
    ):
        Heartbeat(offline_log_dirs=[Uuid.random()]).encode(0)
    Fetch = message_class("FetchRequest")  # FetchTopic.TopicId (v13+) is ignorable: dropped at v12
    msg = Fetch(topics=[Fetch.FetchTopic(topic="t", topic_id=Uuid.random())])
    assert Fetch.decode(msg.encode(12), 12).topics[0].topic_id == Uuid.ZERO_UUID


def test_null_where_the_version_forbids_it_is_an_encode_error():
    Metadata = message_class("MetadataRequest")  # Topics nullable from v1
    with pytest.raises(EncodeError, match="MetadataRequest v0: topics: null, but the field is not nullable in version 0"):
        Metadata(topics=None).encode(0)


# ----------------------------------------------------------------------------- tagged-field evolution


# Generating these packages takes the fast suite's workers about 18 s: the tests that use them
# run in the slow tier (.ci/run runs both).
EVOLUTION_TIER = pytest.mark.slow


@pytest.fixture(scope="module")
def packages(tmp_path_factory):
    """Packages generated from test-only schemas: old/new PingRequest and the LeaderAndIsr draft."""
    out = tmp_path_factory.mktemp("evolution")
    draft_dir = out / "draft-schemas"
    draft_dir.mkdir()
    (draft_dir / "LeaderAndIsrRequest.json").write_text(json.dumps(leader_and_isr_draft()), encoding="utf-8")
    shipped = ROOT / "schemas" / "kafka" / "LeaderAndIsrRequest.json"
    for package, schemas in {
        "evo_old": [EVOLUTION / "old"],
        "evo_new": [EVOLUTION / "new"],
        "lai_draft": [draft_dir],
        "lai_shipped": [shipped],
    }.items():
        write_package(generate(schemas, package, relative_to=ROOT), out / package)
    sys.path.insert(0, str(out))
    yield {name: importlib.import_module(name) for name in ("evo_old", "evo_new", "lai_draft", "lai_shipped")}
    sys.path.remove(str(out))


def leader_and_isr_draft() -> dict:
    """The topic-ID design's draft of LeaderAndIsr v4 (KIP-516 as first proposed): TopicId as a
    tagged field (tag 0) of each topic state and a tagged Type (int8) at the top, in v4. Kafka
    shipped both as regular fields of v5 instead."""
    schema = copy.deepcopy(load_schema(ROOT / "schemas" / "kafka" / "LeaderAndIsrRequest.json"))
    schema["validVersions"] = "0-4"
    for f in schema["fields"]:
        if f["name"] == "Type":
            f.update(versions="4+", taggedVersions="4+", tag=0)
        if f["name"] == "TopicStates":
            for g in f["fields"]:
                if g["name"] == "TopicId":
                    g.update(versions="4+", taggedVersions="4+", tag=0)
    return schema


@EVOLUTION_TIER
@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck), database=None)
@given(data=st.data())
def test_unknown_tags_survive_an_older_reader(packages, data):
    New = packages["evo_new"].message_class("PingRequest")
    Old = packages["evo_old"].message_class("PingRequest")
    msg = data.draw(messages(New, 1))
    wire = msg.encode(1)
    seen = Old.decode(wire, 1)  # the old reader does not know Port, Note, Deadline
    assert seen.encode(1) == wire  # ... keeps them and writes them back byte for byte
    assert New.decode(seen.encode(1), 1) == msg


@EVOLUTION_TIER
@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck), database=None)
@given(data=st.data())
def test_newer_reader_sees_defaults_for_what_an_older_writer_left_out(packages, data):
    New = packages["evo_new"].message_class("PingRequest")
    Old = packages["evo_old"].message_class("PingRequest")
    old = data.draw(messages(Old, 1))
    for struct in [old, *old.targets]:  # an older writer's own unknown tags could be our tag 0
        struct.unknown_tagged_fields = ()
    new = New.decode(old.encode(1), 1)
    assert (new.note, new.deadline) == (None, -1)
    assert all(t.port == 9092 for t in new.targets)
    assert [t.host for t in new.targets] == [t.host for t in old.targets]
    assert new.encode(1) == old.encode(1)  # defaults are not written


@EVOLUTION_TIER
def test_leader_and_isr_draft_v4_reads_under_the_shipped_schema(packages):
    Draft = packages["lai_draft"].message_class("LeaderAndIsrRequest")
    Shipped = packages["lai_shipped"].message_class("LeaderAndIsrRequest")
    topic_id = Uuid.from_string("MvDxzVmcRsaTz33bUuRU6A")
    draft = Draft(
        controller_id=1, controller_epoch=5, broker_epoch=99, type=2,
        topic_states=[Draft.LeaderAndIsrTopicState(topic_name="payments", topic_id=topic_id,
            partition_states=[Draft.LeaderAndIsrPartitionState(partition_index=0, leader=1, isr=[1, 2])])],
    )  # fmt: skip
    wire = draft.encode(4)
    shipped = Shipped.decode(wire, 4)
    # The shipped v4 schema has neither field: both stay as unknown tagged fields, tag 0 each.
    assert shipped.unknown_tagged_fields == ((0, bytes([2])),)
    assert shipped.topic_states[0].unknown_tagged_fields == ((0, topic_id.bytes),)
    assert shipped.topic_states[0].topic_name == "payments" and shipped.controller_epoch == 5
    assert shipped.encode(4) == wire
    # And back: the draft reads the shipped reader's re-encoding to the same values.
    assert Draft.decode(shipped.encode(4), 4) == draft


@EVOLUTION_TIER
def test_shipped_v4_reads_under_the_draft_schema(packages):
    Draft = packages["lai_draft"].message_class("LeaderAndIsrRequest")
    Shipped = packages["lai_shipped"].message_class("LeaderAndIsrRequest")

    @settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck), database=None)
    @given(messages(Shipped, 4))
    def check(msg):
        for struct in [msg, *msg.topic_states]:  # tag 0 would be the draft's Type / TopicId
            struct.unknown_tagged_fields = ()
        wire = msg.encode(4)
        draft = Draft.decode(wire, 4)
        assert draft.type == 0 and all(t.topic_id == Uuid.ZERO_UUID for t in draft.topic_states)
        assert draft.encode(4) == wire

    check()
