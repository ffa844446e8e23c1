"""Simulating a fleet: clusters side by side, each in its own directory, in parallel processes
if asked."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Union

from ..log.names import METADATA_LOG_DIR, SEGMENT_SUFFIX, SNAPSHOT_SUFFIX
from .cluster import ClusterSimulation
from .config import ClusterResult, SimulationConfig
from .processes import map_interruptibly, worker_pool
from .side_files import SIDE_FILES

# A directory as the functions here take it.
StrPath = Union[str, "os.PathLike[str]"]
# One cluster to simulate: simulate_cluster's arguments.
_Work = tuple[Path, str, SimulationConfig]


def cluster_names(clusters: int) -> list[str]:
    width = max(1, len(str(clusters - 1)))
    return [f"cluster-{i:0{width}d}" for i in range(clusters)]


def simulate_cluster(out_dir: StrPath, name: str, config: SimulationConfig) -> ClusterResult:
    """Simulate one cluster into ``out_dir/name``."""
    directory = Path(out_dir) / name
    directory.mkdir(parents=True, exist_ok=True)
    clean_directory(directory)
    (directory / MARKER).write_text("written by kafka-meta-proto simulate\n", encoding="utf-8")
    return ClusterSimulation(directory, name, config).run()


def _run_in_processes(work: list[_Work], jobs: int) -> list[ClusterResult]:
    """The clusters in ``jobs`` processes; on Ctrl-C the pool is terminated at once, queued
    clusters included, instead of finishing its queue first."""
    with worker_pool(jobs) as pool:
        return map_interruptibly(pool, _simulate_one, work)


def _simulate_one(args: _Work) -> ClusterResult:
    return simulate_cluster(*args)


def simulate(
    out_dir: StrPath,
    *,
    records: int = 10_000,
    seed: int = 0,
    clusters: int = 1,
    faults: tuple[str, ...] = (),
    jobs: int = 1,
    **options: Any,
) -> list[ClusterResult]:
    """Simulate a fleet of ``clusters`` clusters, each with ``records`` records, into ``out_dir``.

    ``options`` are further SimulationConfig fields. ``jobs`` > 1 simulates clusters in parallel
    processes; the output does not depend on it.
    """
    if clusters < 1:
        raise ValueError("clusters must be at least 1")
    try:
        config = SimulationConfig(records=records, seed=seed, faults=tuple(faults), **options)
    except ValueError as exc:
        raise SetupError(str(exc)) from None
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    names = cluster_names(clusters)
    for name in names:  # refuse foreign files before writing anything
        _written_before_or_refuse(out_dir / name)
    work = [(out_dir, name, config) for name in names]
    if jobs > 1 and clusters > 1:
        return _run_in_processes(work, min(jobs, clusters))
    return [_simulate_one(w) for w in work]


class SetupError(ValueError):
    """The simulation cannot start: a setting is out of range, or the output is not ours."""


class ForeignFilesError(SetupError):
    """A cluster directory holds log files this simulator did not write."""


# Marks a cluster directory as ours before the first file is written, so that a later run may
# replace whatever an earlier one left, even one stopped half way (it has no summary.json then).
MARKER = ".kafka-meta-proto-simulate"


def clean_directory(path: StrPath) -> None:
    """Remove what an earlier run wrote in a cluster directory. Files it did not write are never
    touched: log, snapshot and side files in a directory without our marker are an error, so that
    a run neither overwrites nor mixes with someone else's files."""
    for file in _written_before_or_refuse(Path(path)):
        os.unlink(file)


def _written_before_or_refuse(path: Path) -> list[Path]:
    """The files of ``path`` an earlier run wrote; ForeignFilesError if it holds files of the
    kinds we write while not marked as ours."""
    ours = (path / MARKER).is_file()
    found = []
    for sub in (path / METADATA_LOG_DIR, path):
        if not sub.is_dir():
            continue
        for entry in os.scandir(sub):
            our_kind = (
                entry.name.endswith((SEGMENT_SUFFIX, SNAPSHOT_SUFFIX)) or entry.name in SIDE_FILES
            )
            if not (entry.is_file() and our_kind):
                continue
            if not ours:
                raise ForeignFilesError(
                    f"{entry.path} was not written by kafka-meta-proto simulate; "
                    "give --out an empty directory (or one an earlier simulate wrote)"
                )
            found.append(Path(entry.path))
    return found
