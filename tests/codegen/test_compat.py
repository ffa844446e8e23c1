"""The schema-evolution checker (codegen.maintenance.compat) on crafted schema pairs and on Kafka's own trees."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from codegen.maintenance.compat import BREAKING_KINDS, compare_trees, main
from codegen.spec import load_tree
from conftest import REFERENCE, kafka_schema_tree

# The recorded trees of ../shared (Kafka 3.9.0 and a 4.0 snapshot), which docs/compat.md reports
# on: an independent second check, skipped where ../shared is absent. The release lines' own
# trees, taken from Kafka's jars, are compared below in any clone.
KAFKA_39 = REFERENCE / "schemas" / "3.9"
KAFKA_TRUNK = REFERENCE / "schemas" / "trunk"
needs_kafka = pytest.mark.skipif(
    not (KAFKA_39.is_dir() and KAFKA_TRUNK.is_dir()),
    reason=f"Kafka reference schemas (3.9 and trunk) not found under {REFERENCE / 'schemas'}",
)


def F(name, type="int32", versions="0+", **extra):
    return {"name": name, "type": type, "versions": versions, **extra}


def base():
    """FooRequest v0-3, flexible from v2, with a nested struct array and a tagged field."""
    return {
        "apiKey": 1000, "type": "request", "name": "FooRequest",
        "validVersions": "0-3", "flexibleVersions": "2+",
        "fields": [
            F("A", default="0", about="first"),
            F("B", "string"),
            F("Topics", "[]Topic", fields=[F("Name", "string"), F("Index"), F("Epoch", versions="1+")]),
            F("Tagged", "int64", versions="2+", taggedVersions="2+", tag=0),
        ],
    }  # fmt: skip


def other():
    return {"apiKey": 1001, "type": "request", "name": "BarRequest", "validVersions": "0",
            "flexibleVersions": "none", "fields": [F("X")]}  # fmt: skip


def write(folder: Path, *messages) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for m in messages:
        (folder / f"{m['name']}.json").write_text(json.dumps(m))
    return folder


def field(msg, path):
    """The field dict at a dotted path, to mutate in place."""
    fields = msg["fields"]
    for part in path.split("."):
        f = next(f for f in fields if f["name"] == part)
        fields = f.get("fields", [])
    return f


def compare(tmp_path, old, new):
    return compare_trees(
        load_tree([write(tmp_path / "old", *old)]), load_tree([write(tmp_path / "new", *new)])
    )


def changes(tmp_path, mutate):
    """Compare base() with a copy changed by mutate(copy)."""
    new = copy.deepcopy(base())
    mutate(new)
    return compare(tmp_path, [base(), other()], [new, other()]).changes


def only_break(found):
    breaks = [c for c in found if c.breaking]
    assert len(breaks) == 1, breaks
    return breaks[0]


def where(c):
    return c.kind, c.field, c.versions


# --------------------------------------------------------------------------- breaking changes


def test_version_removed(tmp_path):
    c = only_break(changes(tmp_path, lambda m: m.update(validVersions="1-3")))
    assert where(c) == ("version-removed", "", "0")
    assert (c.old, c.new) == ("0-3", "1-3")


def test_type_changed_in_nested_struct(tmp_path):
    c = only_break(changes(tmp_path, lambda m: field(m, "Topics.Index").update(type="int64")))
    assert where(c) == ("type-changed", "Topics.Index", "0-3")
    assert (c.old, c.new) == ("int32", "int64")


def test_struct_became_struct_array(tmp_path):
    c = only_break(changes(tmp_path, lambda m: field(m, "Topics").update(type="Topic")))
    assert where(c) == ("type-changed", "Topics", "0-3")


def test_nullable_changed(tmp_path):
    c = only_break(changes(tmp_path, lambda m: field(m, "B").update(nullableVersions="1+")))
    assert where(c) == ("nullable-changed", "B", "1-3")
    assert (c.old, c.new) == ("not nullable", "nullable")


def test_default_changed(tmp_path):
    c = only_break(changes(tmp_path, lambda m: field(m, "A").update(default="-1")))
    assert where(c) == ("default-changed", "A", "0-3")
    assert (c.old, c.new) == ("0", "-1")


def test_default_changed_on_tagged_field(tmp_path):
    c = only_break(changes(tmp_path, lambda m: field(m, "Tagged").update(default="7")))
    assert where(c) == ("default-changed", "Tagged", "2-3")


def test_tag_changed(tmp_path):
    def swap(m):
        m["fields"].append(F("Tagged2", versions="2+", taggedVersions="2+", tag=1))
        field(m, "Tagged")["tag"], field(m, "Tagged2")["tag"] = 1, 0

    old = base()
    old["fields"].append(F("Tagged2", versions="2+", taggedVersions="2+", tag=1))
    new = copy.deepcopy(base())
    swap(new)
    found = [c for c in compare(tmp_path, [old], [new]).changes if c.breaking]
    assert sorted((where(c), c.old, c.new) for c in found) == [
        (("tag-changed", "Tagged", "2-3"), "tag 0", "tag 1"),
        (("tag-changed", "Tagged2", "2-3"), "tag 1", "tag 0"),
    ]


def test_field_became_tagged(tmp_path):
    c = only_break(
        changes(tmp_path, lambda m: field(m, "Topics.Epoch").update(taggedVersions="2+", tag=0))
    )
    assert where(c) == ("tag-changed", "Topics.Epoch", "2-3")
    assert (c.old, c.new) == ("not tagged", "tag 0")


def test_tag_reused_for_another_field(tmp_path):
    def reuse(m):
        m["fields"].remove(field(m, "Tagged"))
        m["fields"].append(F("Other", "string", versions="2+", taggedVersions="2+", tag=0))

    found = changes(tmp_path, reuse)
    c = only_break(found)
    assert where(c) == ("tag-reused", "Other", "2-3")
    assert (c.old, c.new) == ("Tagged (tag 0)", "Other (tag 0)")
    assert not [x for x in found if x.kind in ("tagged-field-removed", "tagged-field-added")]


def test_untagged_field_added_to_existing_version(tmp_path):
    c = only_break(
        changes(tmp_path, lambda m: field(m, "Topics")["fields"].append(F("Extra", versions="1+")))
    )
    assert where(c) == ("field-added", "Topics.Extra", "1-3")


def test_untagged_field_removed_from_existing_version(tmp_path):
    c = only_break(changes(tmp_path, lambda m: field(m, "B").update(versions="0")))
    assert where(c) == ("field-removed", "B", "1-3")


def test_field_order_changed(tmp_path):
    def swap(m):
        f = m["fields"]
        f[0], f[1] = f[1], f[0]

    c = only_break(changes(tmp_path, swap))
    assert where(c) == ("field-order-changed", "A", "0-3")
    assert (c.old, c.new) == ("A, B, Topics", "B, A, Topics")


def test_flexible_versions_moved(tmp_path):
    def later(m):
        m["flexibleVersions"] = "3+"
        field(m, "Tagged").update(versions="3+", taggedVersions="3+")

    c = only_break(changes(tmp_path, later))
    assert where(c) == ("flexible-changed", "", "2")
    assert (c.old, c.new) == ("2+", "3+")


def test_field_flexible_override(tmp_path):
    c = only_break(changes(tmp_path, lambda m: field(m, "B").update(flexibleVersions="none")))
    assert where(c) == ("flexible-changed", "B", "2-3")
    assert (c.old, c.new) == ("2+", "none")


def test_api_key_changed(tmp_path):
    c = only_break(changes(tmp_path, lambda m: m.update(apiKey=1002)))
    assert where(c) == ("api-key-changed", "", "")
    assert (c.old, c.new) == ("1000", "1002")


def test_record_type_changed(tmp_path):
    rec = {"apiKey": 5, "type": "metadata", "name": "FooRecord", "validVersions": "0",
           "flexibleVersions": "0+", "fields": [F("Id")]}  # fmt: skip
    c = only_break(compare(tmp_path, [rec], [{**rec, "apiKey": 6}]).changes)
    assert (c.message, *where(c), c.old, c.new) == (
        "FooRecord",
        "api-key-changed",
        "",
        "",
        "5",
        "6",
    )


def test_message_type_changed(tmp_path):
    c = only_break(changes(tmp_path, lambda m: m.update(type="response")))
    assert where(c) == ("message-type-changed", "", "")


def test_message_removed(tmp_path):
    c = only_break(compare(tmp_path, [base(), other()], [other()]).changes)
    assert (c.message, *where(c)) == ("FooRequest", "message-removed", "", "0-3")


def test_version_made_unstable(tmp_path):
    c = only_break(changes(tmp_path, lambda m: m.update(latestVersionUnstable=True)))
    assert where(c) == ("version-made-unstable", "", "3")


def test_break_inside_renamed_struct_is_found_by_path(tmp_path):
    def rename_and_break(m):
        field(m, "Topics").update(type="[]TopicData")
        field(m, "Topics.Name").update(nullableVersions="0+")

    found = changes(tmp_path, rename_and_break)
    assert where(only_break(found)) == ("nullable-changed", "Topics.Name", "0-3")


# --------------------------------------------------------------------------- compatible changes


def kinds(found):
    return {(c.kind, c.field, c.versions) for c in found}


def test_versions_added(tmp_path):
    found = changes(tmp_path, lambda m: m.update(validVersions="0-5"))
    assert not [c for c in found if c.breaking]
    assert kinds(found) == {("versions-added", "", "4-5")}


def test_tagged_field_added_with_new_tag(tmp_path):
    add = F(
        "More",
        "string",
        versions="2+",
        taggedVersions="2+",
        tag=1,
        nullableVersions="2+",
        default="null",
    )
    found = changes(tmp_path, lambda m: m["fields"].append(add))
    assert not [c for c in found if c.breaking]
    assert kinds(found) == {("tagged-field-added", "More", "2-3")}


def test_tagged_field_removed(tmp_path):
    found = changes(tmp_path, lambda m: m["fields"].remove(field(m, "Tagged")))
    assert not [c for c in found if c.breaking]
    assert kinds(found) == {("tagged-field-removed", "Tagged", "2-3")}


def test_about_text_changed(tmp_path):
    def reword(m):
        field(m, "A")["about"] = "something else"
        field(m, "Topics.Name")["about"] = "the topic"

    assert changes(tmp_path, reword) == []


def test_struct_type_renamed(tmp_path):
    found = changes(tmp_path, lambda m: field(m, "Topics").update(type="[]TopicData"))
    assert not [c for c in found if c.breaking]
    assert kinds(found) == {("struct-renamed", "Topics", "0-3")}


def test_struct_moved_to_common_structs(tmp_path):
    def to_common(m):
        topics = field(m, "Topics")
        m["commonStructs"] = [{"name": "Topic", "versions": "0+", "fields": topics.pop("fields")}]

    assert changes(tmp_path, to_common) == []


def test_message_added(tmp_path):
    found = compare(tmp_path, [base()], [base(), other()]).changes
    assert [(c.message, c.kind, c.breaking) for c in found] == [
        ("BarRequest", "message-added", False)
    ]


def test_field_added_in_new_version(tmp_path):
    def v4(m):
        m["validVersions"] = "0-4"
        m["fields"].insert(1, F("New", "int64", versions="4+"))

    found = changes(tmp_path, v4)
    assert not [c for c in found if c.breaking]
    assert ("field-added-in-new-versions", "New", "4") in kinds(found)


def test_field_dropped_from_new_version(tmp_path):
    def v4(m):
        m["validVersions"] = "0-4"
        field(m, "B")["versions"] = "0-3"

    found = changes(tmp_path, v4)
    assert not [c for c in found if c.breaking]
    assert ("field-versions-changed", "B", "4") in kinds(found)


def test_default_respelled(tmp_path):
    old, new = base(), base()
    field(old, "A")["default"], field(new, "A")["default"] = "0x10", "16"
    assert compare(tmp_path, [old], [new]).changes == []


def test_ignorable_changed_is_info(tmp_path):
    found = changes(tmp_path, lambda m: field(m, "A").update(ignorable=True))
    assert [(c.kind, c.field, c.old, c.new, c.breaking) for c in found] == [
        ("ignorable-changed", "A", "false", "true", False)
    ]


def test_renamed_message_keeping_api_key(tmp_path):
    renamed = {**base(), "name": "FooV2Request"}
    found = compare(tmp_path, [base()], [renamed]).changes
    assert [(c.message, c.kind, c.old, c.new, c.breaking) for c in found] == [
        ("FooRequest", "message-renamed", "FooRequest", "FooV2Request", False)
    ]


def test_change_to_unstable_version_does_not_break(tmp_path):
    # latestVersionUnstable lives on the request but covers the response's version too.
    old_req = {**base(), "latestVersionUnstable": True}
    old_resp = {**base(), "type": "response", "name": "FooResponse"}
    new_req, new_resp = copy.deepcopy(old_req), copy.deepcopy(old_resp)
    for m in (new_req, new_resp):
        field(m, "Topics")["fields"].append(F("Extra", versions="3+"))
    found = compare(tmp_path / "changed", [old_req, old_resp], [new_req, new_resp]).changes
    assert [(c.message, *where(c), c.breaking, c.note) for c in found] == [
        ("FooRequest", "field-added", "Topics.Extra", "3", False, "version 3 is unstable in OLD"),
        ("FooResponse", "field-added", "Topics.Extra", "3", False, "version 3 is unstable in OLD"),
    ]

    dropped_req, dropped_resp = {**base(), "validVersions": "0-2"}, {
        **old_resp,
        "validVersions": "0-2",
    }
    found = compare(tmp_path / "dropped", [old_req, old_resp], [dropped_req, dropped_resp]).changes
    assert [(c.message, *where(c), c.breaking) for c in found] == [
        ("FooRequest", "version-removed", "", "3", False),
        ("FooResponse", "version-removed", "", "3", False),
    ]


def test_unstable_version_released_is_info(tmp_path):
    old = {**base(), "latestVersionUnstable": True}
    found = compare(tmp_path, [old], [base()]).changes
    assert [(c.kind, c.versions, c.breaking) for c in found] == [("version-now-stable", "3", False)]


# --------------------------------------------------------------------------- command line


def test_cli_exit_codes_and_text(tmp_path, capsys):
    old = write(tmp_path / "old", base())
    same = write(tmp_path / "same", base())
    broken = copy.deepcopy(base())
    field(broken, "Topics.Index")["type"] = "int64"
    bad = write(tmp_path / "bad", broken)

    assert main([str(old), str(same)]) == 0
    assert (
        capsys.readouterr().out.strip()
        == "1 messages compared, 0 breaking changes, 0 compatible changes"
    )

    assert main([str(old), str(bad)]) == 1
    out = capsys.readouterr().out
    assert "FooRequest" in out and "Topics.Index" in out and "type-changed: int32 -> int64" in out
    assert (
        out.strip().splitlines()[-1]
        == "1 messages compared, 1 breaking changes, 0 compatible changes"
    )


def test_cli_schema_errors_exit_2(tmp_path, capsys):
    good = write(tmp_path / "good", base())
    invalid = tmp_path / "invalid"
    invalid.mkdir()
    (invalid / "Broken.json").write_text('{"name": "Broken", "type": "request"')
    assert main([str(good), str(invalid)]) == 2
    assert main([str(good), str(tmp_path / "missing")]) == 2
    (tmp_path / "empty").mkdir()
    assert main([str(tmp_path / "empty"), str(good)]) == 2
    assert "schema error" in capsys.readouterr().err


def test_cli_json_shape(tmp_path, capsys):
    new = copy.deepcopy(base())
    new["validVersions"] = "1-4"
    assert (
        main([str(write(tmp_path / "old", base())), str(write(tmp_path / "new", new)), "--json"])
        == 1
    )
    data = json.loads(capsys.readouterr().out)
    assert isinstance(data, list) and data
    for obj in data:
        assert set(obj) == {"message", "versions", "field", "kind", "old", "new", "breaking"}
        assert isinstance(obj["breaking"], bool)
        assert all(
            isinstance(obj[k], str) for k in ("message", "versions", "field", "kind", "old", "new")
        )
    assert {(o["kind"], o["versions"], o["breaking"]) for o in data} == {
        ("version-removed", "0", True),
        ("versions-added", "4", False),
    }


def test_breaking_kinds_are_the_documented_ones():
    doc = (Path(__file__).resolve().parents[2] / "docs" / "compat.md").read_text()
    for kind in BREAKING_KINDS:
        assert f"`{kind}`" in doc, kind


# --------------------------------------------------------------------------- Kafka's own trees


@needs_kafka
def test_kafka_39_to_trunk_has_no_break():
    old, new = load_tree([KAFKA_39]), load_tree([KAFKA_TRUNK])
    report = compare_trees(old, new)
    shared = {m.name for m in old} & {m.name for m in new}
    assert report.compared == len(shared) == 211
    assert [c for c in report.changes if c.breaking and c.message in shared] == []
    assert report.breaking == []
    found = {(c.message, c.kind, c.field, c.versions) for c in report.changes}
    # What the 4.0 snapshot adds on top of 3.9 (see docs/compat.md).
    assert {
        ("ConsumerGroupHeartbeatRequest", "versions-added", "", "1"),
        (
            "ConsumerGroupHeartbeatRequest",
            "field-added-in-new-versions",
            "SubscribedTopicRegex",
            "1",
        ),
        ("EndTxnResponse", "field-added-in-new-versions", "ProducerId", "5"),
        ("ListOffsetsRequest", "field-added-in-new-versions", "TimeoutMs", "10"),
        ("UpdateFeaturesResponse", "field-versions-changed", "Results", "2"),
        ("ShareFetchRequest", "ignorable-changed", "Topics.TopicId", "0"),
    } <= found
    assert len(report.compatible) == 20


@needs_kafka
def test_kafka_trunk_to_39_reports_the_lost_versions(capsys):
    # The other direction must break: the 4.0 snapshot's new stable versions vanish.
    assert main([str(KAFKA_TRUNK), str(KAFKA_39)]) == 1
    summary = capsys.readouterr().out.strip().splitlines()[-1]
    assert summary.startswith("211 messages compared, 4 breaking changes")


@pytest.fixture(scope="module")
def release_trees(tmp_path_factory):
    """Kafka 3.9.2's and 4.4.0's schemas, from their jars."""
    return {r: kafka_schema_tree(r, tmp_path_factory.mktemp(r)) for r in ("3.9.2", "4.4.0")}


def test_kafka_392_to_440_reports_the_removed_versions(release_trees, capsys):
    old, new = load_tree([release_trees["3.9.2"]]), load_tree([release_trees["4.4.0"]])
    report = compare_trees(old, new)
    found = {(c.message, c.kind, c.versions) for c in report.breaking}
    # KIP-896 dropped the oldest versions in 4.0; the ZooKeeper-era RPCs keep no version at all
    assert {
        ("FetchRequest", "version-removed", "0-3"),
        ("ProduceResponse", "version-removed", "0-2"),
        ("LeaderAndIsrRequest", "version-removed", "0-7"),
    } <= found
    # no KRaft metadata record changed in a way that breaks reading it
    records = {m.name for m in old if m.type == "metadata"}
    assert len(records) > 20 and not [c for c in report.breaking if c.message in records]
    assert ("ListOffsetsRequest", "versions-added") in {(c.message, c.kind) for c in report.compatible}
    assert main([str(release_trees["3.9.2"]), str(release_trees["4.4.0"])]) == 1
    assert main([str(release_trees["4.4.0"]), str(release_trees["3.9.2"])]) == 1
    capsys.readouterr()
