"""Which Kafka releases exist beyond the pinned ones, asked of Maven Central.

``python -m codegen.maintenance.refresh --newer`` and ``--try RELEASE`` (codegen/maintenance/refresh.py) use this module:
the released versions of ``kafka-clients`` (from its ``maven-metadata.xml``, pre-releases left
out), the candidates for each pinned release line (``kafka/RELEASE/pom.xml``), which of a pom's
Kafka artifacts are not published at a candidate version, a copy of a pinned pom moved to the
candidate, and that pom resolved by Maven into a folder of the caller's choosing.

The network is reached only through :func:`fetch` and only under a ``repository`` URL the caller
passes (Maven Central by default), so tests serve a directory laid out like a Maven repository
from a loopback HTTP server.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import urllib.error
import urllib.request
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

CENTRAL = "https://repo1.maven.org/maven2"
TIMEOUT = 10.0  # seconds per request
KAFKA_GROUP = "org.apache.kafka"
KAFKA_VERSION = "${kafka.version}"  # how a pinned pom ties an artifact to its release
POM_NS = {"m": "http://maven.apache.org/POM/4.0.0"}
# A release is numbers and dots only: 3.9.2, 0.10.2.0; not 0.8.2-beta, 4.0.0-rc1, 4.1.0-SNAPSHOT.
RELEASE = re.compile(r"[0-9]+(\.[0-9]+)*")


class RepositoryError(RuntimeError):
    """Maven Central (or the repository given) could not be asked, or Maven could not resolve."""


# -- versions ------------------------------------------------------------------------------------


def is_release(version: str) -> bool:
    """A published release, not a pre-release (rc, alpha, beta, -SNAPSHOT, milestone...)."""
    return RELEASE.fullmatch(version) is not None


def key(version: str) -> tuple[int, ...]:
    return tuple(int(x) for x in version.split("."))


def line(version: str) -> tuple[int, ...]:
    """The minor line of a release: 4.4 for 4.4.0 (0.10.2 for the four-number 0.10.2.0)."""
    parts = key(version)
    return parts[:3] if parts[0] == 0 else parts[:2]


def parse_metadata(text: str | bytes) -> list[str]:
    """Every version a ``maven-metadata.xml`` lists, in its order."""
    root = ET.fromstring(text)
    return [v.text.strip() for v in root.iterfind("./versioning/versions/version") if v.text]


def releases_of(text: str | bytes) -> list[str]:
    """The released versions of a ``maven-metadata.xml``, oldest first, pre-releases left out."""
    return sorted({v for v in parse_metadata(text) if is_release(v)}, key=key)


@dataclass
class Candidates:
    """What Maven Central has beyond the pinned lines."""

    patches: dict[str, list[str]] = field(default_factory=dict)  # pinned release -> newer patches
    beyond: list[str] = field(
        default_factory=list
    )  # newer minor/major releases than the newest pin


def candidates(pinned: list[str], available: list[str]) -> Candidates:
    """Per pinned line, the newer patch releases of its minor line; and the releases of newer
    minor or major lines than the newest pinned one."""
    pinned, available = sorted(pinned, key=key), sorted(set(available), key=key)
    out = Candidates()
    for release in pinned:
        out.patches[release] = [
            v for v in available if line(v) == line(release) and key(v) > key(release)
        ]
    if pinned:
        out.beyond = [v for v in available if line(v) > line(pinned[-1])]
    return out


def replaced_line(candidate: str, pinned: list[str]) -> str | None:
    """The pinned line a candidate takes the place of: the same minor line; else the newest pinned
    line of the same major (a newer minor supersedes it); else none, since a new major is added
    beside the older one, which keeps the versions the new major removed (as 3.9 does for 4.x)."""
    pinned = sorted(pinned, key=key)
    same_line = [r for r in pinned if line(r) == line(candidate)]
    if same_line:
        return same_line[-1]
    same_major = [r for r in pinned if key(r)[0] == key(candidate)[0]]
    return same_major[-1] if same_major else None


# -- poms ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Artifact:
    group: str
    artifact: str


CLIENTS = Artifact(KAFKA_GROUP, "kafka-clients")  # its releases are Kafka's releases


def kafka_artifacts(pom_text: str) -> list[Artifact]:
    """The dependencies of a pinned pom that follow its Kafka release (``${kafka.version}``)."""
    root = ET.fromstring(pom_text)
    out = []
    for dep in root.iterfind("./m:dependencies/m:dependency", POM_NS):
        if (dep.findtext("m:version", "", POM_NS) or "").strip() == KAFKA_VERSION:
            out.append(
                Artifact(
                    dep.findtext("m:groupId", "", POM_NS).strip(),
                    dep.findtext("m:artifactId", "", POM_NS).strip(),
                )
            )
    return out


def pom_release(pom_text: str) -> str:
    found = re.findall(r"<kafka\.version>\s*([^<\s]+)\s*</kafka\.version>", pom_text)
    if len(found) != 1:
        raise ValueError(f"the pom sets kafka.version {len(found)} times, not once")
    return found[0]


def rewrite_pom(pom_text: str, release: str, leave_out: list[str] = ()) -> str:
    """A copy of a pinned pom for Kafka ``release``: ``kafka.version`` and the project's artifact id
    moved to it, the dependencies ``leave_out`` names (artifact ids) removed and named in a
    comment. The rest (comments, Jackson, Log4j) is kept as written."""
    old = pom_release(pom_text)
    text = re.sub(
        r"(<kafka\.version>)\s*[^<\s]+\s*(</kafka\.version>)", rf"\g<1>{release}\g<2>", pom_text
    )
    text = text.replace(
        f"<artifactId>kafka-{old}</artifactId>", f"<artifactId>kafka-{release}</artifactId>", 1
    )
    inside = r"(?:(?!</dependency>).)*"  # within one <dependency> element
    for artifact in leave_out:
        dep = rf"[ \t]*<dependency>{inside}<artifactId>{re.escape(artifact)}</artifactId>"
        text, n = re.subn(dep + rf"{inside}</dependency>[ \t]*\n?", "", text, flags=re.S)
        if n == 0:
            raise ValueError(f"the pom has no dependency {artifact}")
    # (an XML comment may not hold a double hyphen: no "--try" in it)
    note = f"<!-- Kafka {release} on trial (codegen.maintenance.refresh), copied from the pom of Kafka {old}"
    if leave_out:
        note += f"; left out, not published at {release}: {', '.join(leave_out)}"
    note += " -->"
    declaration = re.match(r"<\?xml[^>]*\?>\n?", text)
    at = declaration.end() if declaration else 0
    text = text[:at] + note + "\n" + text[at:]
    ET.fromstring(text)  # still well-formed
    return text


# -- the repository ------------------------------------------------------------------------------


def fetch(url: str, timeout: float = TIMEOUT) -> bytes | None:
    """The body at ``url``, None when the repository answers 404, RepositoryError when it cannot be
    asked (offline, timeout, any other status)."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return response.read()
    except urllib.error.HTTPError as e:
        if e.code == 404:
            return None
        raise RepositoryError(f"{url}: HTTP {e.code} {e.reason}") from None
    except (urllib.error.URLError, OSError) as e:
        reason = getattr(e, "reason", e)
        raise RepositoryError(
            f"cannot reach {url} ({reason}); asking for Kafka releases needs the network"
        ) from None


def metadata_url(repository: str, artifact: Artifact) -> str:
    group = artifact.group.replace(".", "/")
    return f"{repository.rstrip('/')}/{group}/{artifact.artifact}/maven-metadata.xml"


class Repository:
    """The released versions of each artifact, asked once per artifact."""

    def __init__(self, url: str = CENTRAL, timeout: float = TIMEOUT):
        self.url = url
        self.timeout = timeout
        self._versions: dict[Artifact, set[str]] = {}

    def versions(self, artifact: Artifact) -> set[str]:
        if artifact not in self._versions:
            body = fetch(metadata_url(self.url, artifact), self.timeout)
            self._versions[artifact] = set(releases_of(body)) if body is not None else set()
        return self._versions[artifact]

    def kafka_releases(self) -> list[str]:
        """The released versions of kafka-clients, oldest first."""
        found = self.versions(CLIENTS)
        if not found:
            raise RepositoryError(f"{metadata_url(self.url, CLIENTS)} lists no release")
        return sorted(found, key=key)

    def missing(self, artifacts: list[Artifact], release: str) -> list[str]:
        """The artifact ids not published at ``release``."""
        return [a.artifact for a in artifacts if release not in self.versions(a)]


# -- Maven ---------------------------------------------------------------------------------------


def resolve(pom: Path, folder: Path) -> list[Path]:
    """Resolve ``pom`` through Maven (jars cached in ~/.m2 as usual) and return its classpath; the
    classpath and Maven's log are written to ``folder``, as tools/kafka_setup.sh does in .kafka/."""
    if shutil.which("mvn") is None:
        raise RepositoryError("Maven (mvn) is not on PATH: the candidate's jars cannot be fetched")
    folder.mkdir(parents=True, exist_ok=True)
    classpath, log = folder / "classpath.txt", folder / "maven.log"
    command = [
        "mvn",
        "-B",
        "-q",
        "-Dstyle.color=never",
        "-f",
        str(pom),
        "dependency:build-classpath",
        f"-Dmdep.outputFile={classpath}",
    ]
    with log.open("w") as out:
        status = subprocess.call(command, stdout=out, stderr=subprocess.STDOUT)
    if status != 0:
        tail = "\n".join(log.read_text(errors="replace").splitlines()[-20:])
        raise RepositoryError(f"Maven could not resolve {pom}:\n{tail}")
    return [Path(p) for p in classpath.read_text().strip().split(os.pathsep) if p]


def jar_schema_texts(jars: list[Path]):
    """(jar file name, schema text) for every message schema packed in Kafka's own jars of a
    classpath, read as tools/kafka_oracle reads the pinned releases' jars."""
    from .maintenance.sources import kafka_oracle as _oracle

    return ((f.jar, f.text) for f in _oracle().schema_files_in(jars))
