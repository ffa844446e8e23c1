"""The generator judged on every message Kafka has, not only the ones we ship: packages generated
from the JSON schemas inside each release's jars, compared with that release's serializer.

The slow tier takes a sample of the schemas (every SAMPLE-th name, plus the ones that use layouts
the shipped schemas do not); the exhaustive tier (``-m exhaustive``) takes all of them."""

from __future__ import annotations

import zlib

import pytest

import differential
from interop.conftest import RELEASES

SAMPLE = 12
# Layouts found nowhere else: a nullable struct in the tagged section; Kafka 4's coordinator types.
ALWAYS = {
    "ConsumerGroupMemberMetadataValue",
    "OffsetCommitKey",
    "OffsetCommitValue",
    "ShareSnapshotValue",
}


def sampled(name: str) -> bool:
    return name in ALWAYS or zlib.crc32(name.encode()) % SAMPLE == 0


def _judge(oracles, release, tmp_path, keep) -> None:
    kafka = oracles.get(release)
    packages = differential.packages_from_jars(release, tmp_path, keep)
    theirs = oracles.defined(release)
    judged, failures = 0, []
    for package in packages:
        for name in package.REGISTRY.names():
            cls = package.message_class(name)
            versions = differential.common_versions(cls, theirs.get(name))
            assert (
                versions
            ), f"{name} generated from Kafka {release}'s jar but unknown to its serializer"
            outcome = differential.check_message(kafka, cls, versions, drawn=1, shipped=False)
            judged += 1
            failures += [f"{name} {f}" for f in outcome.failures]
    assert judged >= 10, f"only {judged} schemas were judged"
    assert not failures, f"{len(failures)} mismatches with Kafka {release}:\n" + "\n".join(
        failures[:20]
    )


@pytest.mark.slow  # over ten seconds: the slow tier (.ci/run)
@pytest.mark.parametrize("release", RELEASES)
def test_generated_from_kafkas_schemas_sample(oracles, release, tmp_path):
    _judge(oracles, release, tmp_path, sampled)


@pytest.mark.slow
@pytest.mark.exhaustive
@pytest.mark.parametrize("release", RELEASES)
def test_generated_from_kafkas_schemas_all(oracles, release, tmp_path):
    _judge(oracles, release, tmp_path, lambda name: True)
