"""Simulating a fleet: clusters side by side, each in its own directory, in parallel processes
if asked."""

from __future__ import annotations

import os
from pathlib import Path

from ..log.names import METADATA_LOG_DIR, SEGMENT_SUFFIX, SNAPSHOT_SUFFIX
from .cluster import ClusterSimulation
from .config import ClusterResult, SimulationConfig
from .side_files import SIDE_FILES


def cluster_names(clusters: int) -> list[str]:
    width = max(1, len(str(clusters - 1)))
    return [f"cluster-{i:0{width}d}" for i in range(clusters)]


def simulate_cluster(out_dir, name: str, config: SimulationConfig) -> ClusterResult:
    """Simulate one cluster into ``out_dir/name``."""
    directory = Path(out_dir) / name
    directory.mkdir(parents=True, exist_ok=True)
    clean_directory(directory)
    return ClusterSimulation(directory, name, config).run()


def _simulate_one(args) -> ClusterResult:
    return simulate_cluster(*args)


def simulate(
    out_dir,
    *,
    records: int = 10_000,
    seed: int = 0,
    clusters: int = 1,
    faults: tuple[str, ...] = (),
    jobs: int = 1,
    **options,
) -> list[ClusterResult]:
    """Simulate a fleet of ``clusters`` clusters, each with ``records`` records, into ``out_dir``.

    ``options`` are further SimulationConfig fields. ``jobs`` > 1 simulates clusters in parallel
    processes; the output does not depend on it.
    """
    if clusters < 1:
        raise ValueError("clusters must be at least 1")
    config = SimulationConfig(records=records, seed=seed, faults=tuple(faults), **options)
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    work = [(out_dir, name, config) for name in cluster_names(clusters)]
    if jobs > 1 and clusters > 1:
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(max_workers=min(jobs, clusters)) as pool:
            return list(pool.map(_simulate_one, work))
    return [_simulate_one(w) for w in work]


def clean_directory(path) -> None:
    """Remove files a previous run left in a cluster directory (only the kinds the simulator writes)."""
    path = Path(path)
    for sub in (path / METADATA_LOG_DIR, path):
        if not sub.is_dir():
            continue
        for entry in os.scandir(sub):
            if entry.is_file() and (
                entry.name.endswith((SEGMENT_SUFFIX, SNAPSHOT_SUFFIX)) or entry.name in SIDE_FILES
            ):
                os.unlink(entry.path)
