"""Where the schemas come from: the jars of the release lines the project follows (found by
tools/kafka_oracle.py), folded oldest first into one schema per message."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

from .. import jsonc
from .merge import Merge, MergeError, as_coordinator_record, defined_versions, merge

ROOT = Path(__file__).resolve().parents[2]
TARGET = ROOT / "schemas" / "kafka"
ORACLE = ROOT / "tools" / "kafka_oracle.py"

# Kafka jar (artifact id) -> our folder under schemas/kafka/ ("" = the folder itself). The folder
# name is also the key space of the jar's record types (codegen.spec.KEY_SCOPES).
JAR_FOLDERS = {
    "kafka-clients": "",
    "kafka-metadata": "",
    "kafka-raft": "",
    "kafka-storage": "storage",
    "kafka-group-coordinator": "group-coordinator",
    "kafka-transaction-coordinator": "transaction-coordinator",
    "kafka-share-coordinator": "share-coordinator",
}
# A message renamed between releases: old name -> new name (same api key, same wire form).
RENAMED = {
    "ListClientMetricsResourcesRequest": "ListConfigResourcesRequest",
    "ListClientMetricsResourcesResponse": "ListConfigResourcesResponse",
}


def kafka_oracle() -> ModuleType:
    """tools/kafka_oracle.py: where Kafka's jars are and which releases the project follows."""
    if "kafka_oracle" not in sys.modules:
        spec = importlib.util.spec_from_file_location("kafka_oracle", ORACLE)
        module = importlib.util.module_from_spec(spec)
        sys.modules["kafka_oracle"] = module
        spec.loader.exec_module(module)
    return sys.modules["kafka_oracle"]


def release_schemas(release: str, files=None) -> dict[str, tuple[str, dict]]:
    """name -> (our folder, schema) for every schema in Kafka ``release``'s jars; ``files``, pairs
    of (jar file name, schema text), stands for jars that are not a pinned line's (--try)."""
    if files is None:
        files = ((f.jar, f.text) for f in kafka_oracle().schema_files(release))
    out = {}
    for jar, text in files:
        artifact = jar.rsplit("-", 1)[0]
        if artifact not in JAR_FOLDERS:
            raise MergeError(f"{jar} holds schemas but has no folder in JAR_FOLDERS")
        schema = json.loads(jsonc.strip_comments(text))
        out[schema["name"]] = (JAR_FOLDERS[artifact], schema)
    return out


def merge_releases(
    releases: list[str], read=release_schemas
) -> tuple[dict[str, tuple[str, dict]], list[Merge]]:
    """Fold the release lines, oldest first, into one schema per message (``read``: a release's
    schemas, as release_schemas gives them)."""
    merged: dict[str, tuple[str, dict]] = {}
    reports: dict[str, Merge] = {}
    previous = None
    for release in releases:
        current = read(release)
        if previous is None:
            merged = current
            reports = {n: Merge(n, [(release, str(defined_versions(s)))]) for n, (_, s) in current.items()}
            previous = release
            continue
        # 3.9 coordinator records: their record type was the key's version; match 4.x's shape.
        record_types = {}
        for name, (folder, schema) in list(merged.items()):
            if folder.endswith("coordinator") and schema["type"] == "data" and name.endswith("Key"):
                record_types[name[: -len("Key")]] = defined_versions(schema).lowest
        for name, (folder, schema) in list(merged.items()):
            if folder.endswith("coordinator") and schema["type"] == "data":
                base, kind = (name[:-3], "coordinator-key") if name.endswith("Key") else (name[:-5], "coordinator-value")
                if name in current or (name == "OffsetCommitKey"):
                    del merged[name]  # the newer release defines it (OffsetCommitKey: split in two)
                    continue
                merged[name] = (folder, as_coordinator_record(schema, kind, record_types[base]))
                reports[name].notes.append(f"{previous}'s record type {record_types[base]} in the coordinator-record form of {release}")
        for old_name, new_name in RENAMED.items():
            if old_name in merged and new_name in current:
                folder, schema = merged.pop(old_name)
                schema = {**schema, "name": new_name}
                merged[new_name] = (folder, schema)
                reports.pop(old_name, None)
                reports[new_name] = Merge(new_name, notes=[f"{old_name} in {previous}"])
        for name in sorted(set(merged) | set(current)):
            folder_old, old = merged.get(name, (None, None))
            folder_new, new = current.get(name, (None, None))
            if folder_old is not None and folder_new is not None and folder_old != folder_new:
                raise MergeError(f"{name} moved from {folder_old or 'kafka'} to {folder_new or 'kafka'}")
            schema, report = merge(old, new, previous, release)
            earlier = reports.get(name)
            if earlier is not None and old is not None:
                report.notes = earlier.notes + report.notes
            reports[name] = report
            merged[name] = (folder_new if folder_new is not None else folder_old, schema)
        previous = release
    return merged, [reports[n] for n in sorted(merged)]


def unfetched(releases: list[str]) -> str | None:
    """Why a release line's jars cannot be read here, or None when all of them can."""
    oracle = kafka_oracle()
    for release in releases:
        reason = oracle.missing(release)
        if reason and not (oracle.CACHE / release / "classpath.txt").exists():
            return f"Kafka {release}: {reason}"
    return None
