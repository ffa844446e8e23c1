"""Waiting on a live cluster, and a stable copy of its metadata log to read."""

from __future__ import annotations

import shutil
import time
from pathlib import Path

from kafka_client import KafkaConnection, broker_ids


def wait_for(condition, what: str, timeout: float = 60, every: float = 0.25):
    """Poll ``condition()`` until it returns something true; return that."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError(f"waited {timeout} s for {what}")
        time.sleep(every)


def listed_brokers(cluster, via: int) -> set[int]:
    try:
        with KafkaConnection("127.0.0.1", cluster.node(via).port, timeout=5) as conn:
            return broker_ids(conn)
    except OSError:
        return set()


def copy_metadata_log(cluster, target: Path) -> Path:
    """A copy of the controller's ``__cluster_metadata-0`` (the live files keep growing)."""
    out = target / "__cluster_metadata-0"
    shutil.copytree(cluster.metadata_dir(), out)
    return out


def log_files(directory: Path) -> list[Path]:
    """Segments and snapshots, in Kafka's order: by base offset, snapshots by end offset."""
    return sorted(p for p in directory.iterdir() if p.suffix in (".log", ".checkpoint"))
