"""Following Kafka forward (codegen/releases.py, ``python -m codegen.maintenance.refresh --newer / --try``):
Maven metadata read, pre-releases left out, candidates picked, a pinned pom moved to a candidate.
The repository is a folder served by a real HTTP server on loopback; one test runs the whole
``--try`` path with Maven (Kafka 4.4.0 tried beside a 3.9.2-only pin, from the jars in ~/.m2)."""

from __future__ import annotations

import functools
import shutil
import socket
import threading
import xml.etree.ElementTree as ET
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from codegen.maintenance import forward, refresh, sources
from codegen import releases as rel

ROOT = Path(__file__).resolve().parents[2]


def metadata(artifact: str, versions: list[str]) -> str:
    listed = "".join(f"\n      <version>{v}</version>" for v in versions)
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<metadata>
  <groupId>org.apache.kafka</groupId>
  <artifactId>{artifact}</artifactId>
  <versioning>
    <latest>{versions[-1]}</latest>
    <versions>{listed}
    </versions>
  </versioning>
</metadata>
"""


SMALL_POM = """<?xml version="1.0" encoding="UTF-8"?>
<!-- Apache Kafka 4.4.0 -->
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>kafka-meta-proto.test</groupId>
  <artifactId>kafka-4.4.0</artifactId>
  <version>1</version>
  <properties>
    <kafka.version>4.4.0</kafka.version>
  </properties>
  <dependencies>
    <dependency><groupId>org.apache.kafka</groupId><artifactId>kafka-clients</artifactId><version>${kafka.version}</version></dependency>
    <dependency>
      <groupId>org.apache.kafka</groupId>
      <artifactId>kafka-shell</artifactId>
      <version>${kafka.version}</version>
    </dependency>
    <dependency><groupId>org.apache.kafka</groupId><artifactId>kafka-tools</artifactId><version>${kafka.version}</version></dependency>
    <dependency><groupId>com.fasterxml.jackson.core</groupId><artifactId>jackson-databind</artifactId><version>2.21.2</version></dependency>
  </dependencies>
</project>
"""


# -- versions ------------------------------------------------------------------------------------


def test_pre_releases_are_left_out():
    for v in ("3.9.2", "0.10.2.0", "4.10.0"):
        assert rel.is_release(v)
    for v in ("0.8.2-beta", "4.0.0-rc1", "4.1.0-SNAPSHOT", "4.5.0-alpha1", "4.5.0.RC2", "4.5.0-M1"):
        assert not rel.is_release(v), v


def test_metadata_parsed_in_version_order():
    text = metadata(
        "kafka-clients",
        ["0.8.2-beta", "3.9.2", "4.10.0", "4.0.0-rc1", "4.9.1", "4.1.0-SNAPSHOT", "3.9.2"],
    )
    assert rel.parse_metadata(text)[:2] == ["0.8.2-beta", "3.9.2"]
    assert rel.releases_of(text) == ["3.9.2", "4.9.1", "4.10.0"]
    assert rel.releases_of(text.encode()) == rel.releases_of(text)


def test_candidates_per_pinned_line_and_beyond():
    available = [
        "3.8.1",
        "3.9.1",
        "3.9.2",
        "3.9.3",
        "4.3.1",
        "4.3.2",
        "4.4.0",
        "4.4.1",
        "4.4.2",
        "4.5.0",
        "5.0.0",
    ]
    found = rel.candidates(["4.4.0", "3.9.2"], available)
    assert found.patches == {"3.9.2": ["3.9.3"], "4.4.0": ["4.4.1", "4.4.2"]}
    assert found.beyond == ["4.5.0", "5.0.0"]  # 4.3.2: an older line than the newest pin
    assert rel.candidates(["3.9.2", "4.4.0"], ["3.9.2", "4.4.0"]) == rel.Candidates(
        {"3.9.2": [], "4.4.0": []}, []
    )
    assert rel.line("0.10.2.1") == (0, 10, 2) and rel.line("4.4.1") == (4, 4)


def test_the_line_a_candidate_replaces():
    pinned = ["3.9.2", "4.4.0"]
    assert rel.replaced_line("3.9.3", pinned) == "3.9.2"
    assert rel.replaced_line("4.4.1", pinned) == "4.4.0"
    assert rel.replaced_line("4.5.0", pinned) == "4.4.0"
    assert rel.replaced_line("5.0.0", pinned) is None  # a new major goes beside the old one
    assert rel.replaced_line("4.4.0", ["3.9.2"]) is None


# -- poms ----------------------------------------------------------------------------------------


def test_pom_moved_to_a_candidate_without_the_unpublished_artifacts():
    text = rel.rewrite_pom(SMALL_POM, "4.5.0", ["kafka-shell", "kafka-tools"])
    ET.fromstring(text)
    assert rel.pom_release(text) == "4.5.0"
    assert "<artifactId>kafka-4.5.0</artifactId>" in text and "kafka-4.4.0<" not in text
    assert [a.artifact for a in rel.kafka_artifacts(text)] == ["kafka-clients"]
    assert "jackson-databind" in text  # not a Kafka artifact: kept at its own version
    assert "left out, not published at 4.5.0: kafka-shell, kafka-tools" in text
    assert "<dependency>\n" not in text and "kafka-shell</artifactId>" not in text
    with pytest.raises(ValueError, match="no dependency kafka-streams"):
        rel.rewrite_pom(SMALL_POM, "4.5.0", ["kafka-streams"])
    with pytest.raises(ValueError, match="kafka.version 0 times"):
        rel.rewrite_pom(SMALL_POM.replace("kafka.version>", "kafka.release>"), "4.5.0")


def test_pinned_poms_move_whole():
    for pom in sorted((ROOT / "kafka").glob("[0-9]*/pom.xml")):
        original = pom.read_text()
        moved = rel.rewrite_pom(original, "9.9.9")
        assert rel.kafka_artifacts(moved) == rel.kafka_artifacts(original)
        assert rel.pom_release(moved) == "9.9.9"
        # only the trial comment and the two version spots differ
        assert (
            moved.split("\n", 2)[2].replace("9.9.9", pom.parent.name) == original.split("\n", 1)[1]
        )


# -- the repository, on loopback -----------------------------------------------------------------


class QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


@pytest.fixture
def maven(tmp_path):
    """A Maven repository in a folder, served over HTTP on 127.0.0.1: (url, publish)."""
    root = tmp_path / "maven2"

    def publish(artifact: str, versions: list[str]) -> None:
        folder = root / "org" / "apache" / "kafka" / artifact
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "maven-metadata.xml").write_text(metadata(artifact, versions))

    server = ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(QuietHandler, directory=str(tmp_path))
    )
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/maven2", publish
    finally:
        server.shutdown()
        server.server_close()


def test_repository_releases_and_missing_artifacts(maven):
    url, publish = maven
    publish("kafka-clients", ["4.4.0", "4.5.0-rc0", "4.5.0"])
    publish("kafka-tools", ["4.4.0"])
    repo = rel.Repository(url)
    assert repo.kafka_releases() == ["4.4.0", "4.5.0"]
    artifacts = rel.kafka_artifacts(SMALL_POM)
    assert repo.missing(artifacts, "4.4.0") == ["kafka-shell"]  # no metadata at all: a 404
    assert repo.missing(artifacts, "4.5.0") == ["kafka-shell", "kafka-tools"]


def test_offline_is_said_plainly():
    with socket.socket() as s:  # a loopback port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(rel.RepositoryError, match="cannot reach .* needs the network"):
        rel.Repository(f"http://127.0.0.1:{port}/maven2", timeout=2).kafka_releases()
    assert refresh.main(["--newer", "--repository", f"http://127.0.0.1:{port}/maven2"]) == 2


def bumped(release: str, at: int) -> str:
    parts = [int(x) for x in release.split(".")]
    return ".".join(str(p + 1 if i == at else 0 if i > at else p) for i, p in enumerate(parts))


def test_newer_lists_candidates_of_the_pinned_lines(maven, capsys):
    url, publish = maven
    pinned = sources.kafka_oracle().releases()
    patches = {r: bumped(r, 2) for r in pinned}
    beyond = bumped(pinned[-1], 1)
    publish("kafka-clients", [*pinned, *patches.values(), beyond + "-rc1", beyond])
    for pom in (ROOT / "kafka" / r / "pom.xml" for r in pinned):
        for a in rel.kafka_artifacts(pom.read_text()):
            if a.artifact != "kafka-clients":  # every artifact but at the newest candidate
                publish(a.artifact, [*pinned, *patches.values()])
    assert refresh.main(["--newer", "--repository", url]) == 0
    out = capsys.readouterr().out
    assert f"releases of kafka-clients (pre-releases left out), the newest {beyond}\n" in out
    for r in pinned:
        assert f"kafka/{r}: newer {'.'.join(r.split('.')[:2])} patches: {patches[r]}\n" in out
    assert f"beyond {pinned[-1]}: {beyond} (not published: " in out
    assert f"python -m codegen.maintenance.refresh --try {beyond}" in out


def test_try_refuses_what_it_cannot_try(maven, capsys):
    url, publish = maven
    publish("kafka-clients", ["4.4.0", "4.5.0-rc0"])
    assert forward.try_release("4.4.0", ["3.9.2", "4.4.0"], url) == 2
    assert "pinned already" in capsys.readouterr().err
    assert forward.try_release("4.5.0-rc0", ["3.9.2", "4.4.0"], url) == 2
    assert "not a release version" in capsys.readouterr().err
    assert forward.try_release("4.4.9", ["3.9.2"], url) == 2
    assert "lists no release 4.4.9 of kafka-clients" in capsys.readouterr().err
    assert forward.try_release("4.4.0", ["3.9.2"], url, replace="4.3.1") == 2
    assert "not a pinned release line" in capsys.readouterr().err


@pytest.mark.slow  # over ten seconds: the slow tier (.ci/run)
def test_try_runs_the_merge_with_the_candidate(maven, capsys):
    """The whole --try path: Kafka 4.4.0 as a candidate beside a 3.9.2-only pin (about 20 s)."""
    if shutil.which("mvn") is None or sources.unfetched(["3.9.2", "4.4.0"]):
        pytest.skip(sources.unfetched(["3.9.2", "4.4.0"]) or "mvn is not on PATH")
    if not (Path.home() / ".m2/repository/org/apache/kafka/kafka-clients/4.4.0").is_dir():
        pytest.skip("Kafka 4.4.0's jars are not in ~/.m2 (bash tools/setup.sh)")
    url, publish = maven
    for a in rel.kafka_artifacts((ROOT / "kafka" / "3.9.2" / "pom.xml").read_text()):
        publish(a.artifact, ["3.9.2", "4.4.0"] if a.artifact != "kafka-shell" else ["3.9.2"])
    before = {p: p.stat().st_mtime_ns for p in sources.TARGET.rglob("*")}
    assert forward.try_release("4.4.0", ["3.9.2"], url) == 0
    out = capsys.readouterr().out
    assert "trying Kafka 4.4.0 beside 3.9.2: release lines 3.9.2, 4.4.0\n" in out
    assert "left out (not published at 4.4.0): kafka-shell\n" in out
    assert "  ListConfigResourcesRequest: ListClientMetricsResourcesRequest in 3.9.2\n" in out
    assert "compared with the merge of the pinned lines (3.9.2)" in out
    assert "\nShareGroupHeartbeatRequest\n" in out  # 4.x's v1 and up appear
    assert " messages compared, " in out
    assert {p: p.stat().st_mtime_ns for p in sources.TARGET.rglob("*")} == before
