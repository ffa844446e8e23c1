"""Every message we ship against Kafka's own serializer, on every release line and every version
both define: our bytes equal Kafka's for our JSON form, Kafka reads our bytes back to the same
values (and writes them back unchanged), and we read Kafka's bytes back to the example.

The default run uses the fixed hard-value examples (drawing examples is hypothesis's cost, not
Kafka's; the golden vectors add random ones); the exhaustive tier draws 200 per message and
version."""

from __future__ import annotations

import pytest

import differential  # tools/differential.py (tests/interop/conftest.py puts tools/ on the path)
import kafka_meta_proto
from conftest import ROOT
from interop.conftest import RELEASES

KAFKA_SCHEMAS = sorted(p.stem for p in (ROOT / "schemas" / "kafka").rglob("*.json"))
DRAWN_EXHAUSTIVE = 200

# Versions we ship that no Kafka release defines under the same number: 3.9.2 numbers the
# ShareGroupPartitionMetadata key by its record type (v9), which
# test_coordinator_key_numbered_by_record_type checks. (Kafka's registry holds nothing else: the
# diskless design's FindCoordinator v7 is in its own registry, tests/test_diskless.py.)
NOT_IN_KAFKA = {("ShareGroupPartitionMetadataKey", 0)}


def _check(oracles, release: str, name: str, drawn: int) -> None:
    cls = kafka_meta_proto.message_class(name)
    theirs = oracles.defined(release).get(name)
    versions = differential.common_versions(cls, theirs)
    if not versions:
        pytest.skip(f"Kafka {release} does not define {name}")
    outcome = differential.check_message(oracles.get(release), cls, versions, drawn)
    assert (
        not outcome.failures
    ), f"{len(outcome.failures)} mismatches with Kafka {release}:\n" + "\n".join(
        outcome.failures[:20]
    )
    judged = len(versions) - len(outcome.skipped)
    if not judged:
        pytest.skip(
            f"Kafka {release} defines {name} v{versions} in another layout (docs/schema-sources.md)"
        )
    assert outcome.passed >= judged * 4  # every judged version ran at least the fixed examples


@pytest.mark.parametrize("name", KAFKA_SCHEMAS)
@pytest.mark.parametrize("release", RELEASES)
def test_same_as_kafka(oracles, release, name):
    _check(oracles, release, name, 0)


@pytest.mark.slow
@pytest.mark.exhaustive
@pytest.mark.parametrize("name", KAFKA_SCHEMAS)
@pytest.mark.parametrize("release", RELEASES)
def test_same_as_kafka_many_examples(oracles, release, name):
    _check(oracles, release, name, DRAWN_EXHAUSTIVE)


def test_every_version_we_ship_is_judged_by_some_release(oracles):
    """Each version of each Kafka schema we ship is defined by at least one release line, so the
    tests above judge it (the design-only versions excepted, by name)."""
    unjudged = []
    for name in KAFKA_SCHEMAS:
        cls = kafka_meta_proto.message_class(name)
        for version in cls.versions():
            if (name, version) in NOT_IN_KAFKA:
                continue
            if not any(
                version in oracles.defined(r).get(name, range(0))
                and differential.release_form(r, name, version)[0] != differential.OTHER
                for r in RELEASES
            ):
                unjudged.append(f"{name} v{version}")
    assert not unjudged, "versions no Kafka release defines: " + ", ".join(unjudged)


@pytest.mark.parametrize("release", RELEASES)
def test_a_tag_of_another_version(oracles, release):
    """A tag that our schema gives a field of other versions only: a Kafka release whose schema
    has that field refuses it ("Tag T is not valid for version V"); a release without the field
    keeps it as an unknown tag and writes it back. We keep it, as the older releases do, so every
    byte any release accepts decodes (docs/interop.md)."""
    kafka = oracles.get(release)
    outcomes = {"kept": 0, "refused": 0}
    for name in KAFKA_SCHEMAS:
        cls = kafka_meta_proto.message_class(name)
        for version in differential.common_versions(cls, oracles.defined(release).get(name)):
            if not cls.is_flexible(version):
                continue
            for tag in sorted(
                {f.tag for f in cls._FIELDS if f.tag is not None and not f.is_tagged(version)}
            ):
                body = cls(unknown_tagged_fields=((tag, b"\x00"),)).encode(version)
                ours = cls.decode(body, version)
                assert (tag, b"\x00") in ours.unknown_tagged_fields and ours.encode(version) == body
                answer = kafka.call_many(
                    [{"op": "decode", "name": name, "version": version, "hex": body.hex()}]
                )[0]
                if answer["ok"]:
                    assert answer["reencoded"] == body.hex(), (name, version, tag)
                    outcomes["kept"] += 1
                else:
                    assert f"Tag {tag} is not valid for version {version}" in answer["error"], (
                        name,
                        version,
                        answer,
                    )
                    outcomes["refused"] += 1
    assert sum(outcomes.values()) > 0, "no message has a tag reserved for other versions"
    if release == RELEASES[-1]:
        assert outcomes["refused"] > 0, outcomes  # the newest release knows every field we ship


def test_coordinator_key_numbered_by_record_type(oracles):
    """Kafka 3.9 typed its coordinator keys as data and numbered the key by the record type; the
    4.x form we ship (record type as apiKey, version 0) gives the same bytes."""
    release = "3.9.2"
    if release not in RELEASES:
        pytest.skip(f"Kafka {release} is not a release line here")
    cls = kafka_meta_proto.message_class("ShareGroupPartitionMetadataKey")
    assert oracles.defined(release)["ShareGroupPartitionMetadataKey"] == range(
        cls.API_KEY, cls.API_KEY + 1
    )
    for label, message in differential.fixed_examples(cls, 0).items():
        body = message.encode(0)
        answer = oracles.get(release).decode(cls.NAME, cls.API_KEY, body)
        assert answer["data"] == message.to_json(0) and answer["reencoded"] == body, label
