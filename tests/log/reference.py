"""Where the Kafka reference data lives, and how tests skip without it: the real KRaft logs and
batches of ../shared are recorded third-party files, a second check no clone needs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

REFERENCE = Path(__file__).resolve().parents[2].parent / "shared" / "kafka-reference"
REAL = REFERENCE / "real"
KRAFT_LOGS = REAL / "kraft-logs"
SKIP_REASON = f"second check on recorded data: ../shared's real KRaft logs not found at {REFERENCE}"

needs_reference = pytest.mark.skipif(not REAL.is_dir(), reason=SKIP_REASON)


def real_log_files() -> list[Path]:
    """Every segment and snapshot file under real/kraft-logs."""
    if not KRAFT_LOGS.is_dir():
        return []
    return sorted(
        p for p in KRAFT_LOGS.rglob("*") if p.suffix in (".log", ".checkpoint") and p.is_file()
    )


def file_params() -> list:
    """pytest params, one per real file (ids relative to kraft-logs), or one skipped param."""
    files = real_log_files()
    if not files:
        return [pytest.param(None, marks=pytest.mark.skip(reason=SKIP_REASON), id="no-reference")]
    return [pytest.param(p, id=str(p.relative_to(KRAFT_LOGS))) for p in files]


def jsonl(name: str) -> list[dict]:
    """The objects of real/<name>; skips the calling test when the file is absent."""
    path = REAL / name
    if not path.is_file():
        pytest.skip(SKIP_REASON)
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]
