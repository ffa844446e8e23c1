"""Every message we ship against Kafka's own serializer, on every release line and every version
both define: our bytes equal Kafka's for our JSON form, Kafka reads our bytes back to the same
values (and writes them back unchanged), and we read Kafka's bytes back to the example.

The default run uses the fixed hard-value examples plus a few hypothesis examples per version;
``-m slow`` draws 200 per message and version."""

from __future__ import annotations

import pytest

import differential  # tools/differential.py (tests/interop/conftest.py puts tools/ on the path)
import kafka_meta_proto
from conftest import ROOT
from interop.conftest import RELEASES

KAFKA_SCHEMAS = sorted(p.stem for p in (ROOT / "schemas" / "kafka").glob("*.json"))
DRAWN_DEFAULT = 5
DRAWN_SLOW = 200

# Versions we ship that no Kafka release defines: they come from a design text, not from Kafka.
NOT_IN_KAFKA = {("FindCoordinatorRequest", 7), ("FindCoordinatorResponse", 7)}


def _check(oracles, release: str, name: str, drawn: int) -> None:
    cls = kafka_meta_proto.message_class(name)
    theirs = oracles.defined(release).get(name)
    versions = differential.common_versions(cls, theirs)
    if not versions:
        pytest.skip(f"Kafka {release} does not define {name}")
    outcome = differential.check_message(oracles.get(release), cls, versions, drawn)
    assert not outcome.failures, f"{len(outcome.failures)} mismatches with Kafka {release}:\n" + "\n".join(
        outcome.failures[:20]
    )
    assert outcome.passed >= len(versions) * 4  # every version ran at least the fixed examples


@pytest.mark.parametrize("name", KAFKA_SCHEMAS)
@pytest.mark.parametrize("release", RELEASES)
def test_same_as_kafka(oracles, release, name):
    _check(oracles, release, name, DRAWN_DEFAULT)


@pytest.mark.slow
@pytest.mark.parametrize("name", KAFKA_SCHEMAS)
@pytest.mark.parametrize("release", RELEASES)
def test_same_as_kafka_many_examples(oracles, release, name):
    _check(oracles, release, name, DRAWN_SLOW)


def test_every_version_we_ship_is_judged_by_some_release(oracles):
    """Each version of each Kafka schema we ship is defined by at least one release line, so the
    tests above judge it (the design-only versions excepted, by name)."""
    unjudged = []
    for name in KAFKA_SCHEMAS:
        cls = kafka_meta_proto.message_class(name)
        for version in cls.versions():
            if (name, version) in NOT_IN_KAFKA:
                continue
            if not any(version in oracles.defined(r).get(name, range(0)) for r in RELEASES):
                unjudged.append(f"{name} v{version}")
    assert not unjudged, "versions no Kafka release defines: " + ", ".join(unjudged)


@pytest.mark.parametrize("release", RELEASES)
def test_a_tag_of_another_version_is_refused_by_both(oracles, release):
    """Kafka refuses a tag that its schema gives a field of other versions (it is not an unknown
    tag to keep); so do we."""
    kafka = oracles.get(release)
    cases = []
    for name in KAFKA_SCHEMAS:
        cls = kafka_meta_proto.message_class(name)
        for version in differential.common_versions(cls, oracles.defined(release).get(name)):
            if not cls.is_flexible(version):
                continue
            for tag in sorted({f.tag for f in cls._FIELDS if f.tag is not None and not f.is_tagged(version)}):
                body = cls(unknown_tagged_fields=((tag, b"\x00"),)).encode(version)
                with pytest.raises(kafka_meta_proto.DecodeError, match=f"tag {tag} belongs to a field"):
                    cls.decode(body, version)
                answer = kafka.call_many([{"op": "decode", "name": name, "version": version, "hex": body.hex()}])[0]
                assert not answer["ok"] and f"Tag {tag} is not valid" in answer["error"], (name, version, answer)
                cases.append(f"{name} v{version} tag {tag}")
    assert cases, "no message has a tag reserved for other versions"
