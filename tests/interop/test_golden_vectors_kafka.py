"""Our golden vectors (tests/data/golden/) are what Kafka writes today: tools/golden_vectors.py run
again through each release's oracle gives exactly the stored files, and Kafka accepts every
example. tests/test_golden_vectors.py checks them for staleness without Java."""

from __future__ import annotations

import pytest

import golden_vectors  # tools/ (tests/interop/conftest.py puts it on the path)
from conftest import need_kafka
from interop.conftest import RELEASES


@pytest.mark.slow  # over ten seconds: the slow tier (.ci/run)
@pytest.mark.parametrize("release", RELEASES)
def test_stored_golden_vectors_are_kafkas(release):
    need_kafka(release)
    said: list[str] = []
    files, manifest = golden_vectors.generate(release, emit=said.append)
    assert not said, f"Kafka {release} refused examples:\n" + "\n".join(said[:20])
    golden_vectors.write(release, files, manifest, check=True, emit=said.append)
    assert not said, f"run {golden_vectors.command(release)}; these differ:\n" + "\n".join(said[:20])
