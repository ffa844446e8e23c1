"""The built-in sample: a simulated fleet with one planted fault per cluster (and a clean one).

``write_sample(directory)`` writes, with the cluster simulator, ``clusters`` clusters sharing
``records`` log records between them; cluster ``i`` gets fault ``SAMPLE_FAULTS[i % 6]`` (the first
is clean), so an audit of the sample shows each audit finding its fault. The same arguments
write the same bytes.

While it writes, ``progress`` (a callable taking one line of text) hears how much is on disk
against the expected size, every few seconds; Ctrl-C stops the worker processes at once.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from typing import Callable, Optional

SAMPLE_RECORDS = 300_000
SAMPLE_CLUSTERS = 6
SAMPLE_SEED = 2024
SAMPLE_FAULTS = (
    (),
    ("overlapping-producer-ids",),
    ("reused-topic-id",),
    ("epoch-regression",),
    ("corrupt-batch",),
    ("truncated-tail",),
)
# Bytes on disk of the sample (segments, snapshots, checkpoints and side files): about 74 per
# record and 100 kB per cluster, fitted to samples of 20,000 to 1,000,000 records in 2 to 6
# clusters (300,000 records in 6 clusters take 23.4 MB; the estimate is within 3% from 100,000
# records up, 11% below).
BYTES_PER_RECORD = 74
BYTES_PER_CLUSTER = 100_000
PROGRESS_EVERY = 5.0  # seconds between progress lines


def sample_plan(records: int = SAMPLE_RECORDS, clusters: int = SAMPLE_CLUSTERS) -> list[tuple[str, int, tuple]]:
    """(cluster name, records, faults) of each sample cluster."""
    from .. import simulator

    names = simulator.cluster_names(clusters)
    per, extra = divmod(records, clusters)
    return [(name, per + (i < extra), SAMPLE_FAULTS[i % len(SAMPLE_FAULTS)]) for i, name in enumerate(names)]


def estimated_bytes(records: int, clusters: int = SAMPLE_CLUSTERS) -> int:
    """About how many bytes a sample of ``records`` records in ``clusters`` clusters takes on disk."""
    return records * BYTES_PER_RECORD + clusters * BYTES_PER_CLUSTER


def _one(args):
    from .. import simulator

    directory, name, records, faults, seed = args
    # diskless topics too, so the diskless audit has work; their clusters carry the registry marker
    config = simulator.SimulationConfig(records=max(1, records), seed=seed, faults=faults, diskless=True)
    return simulator.simulate_cluster(directory, name, config)


def write_sample(directory, records: int = SAMPLE_RECORDS, clusters: int = SAMPLE_CLUSTERS,
                 seed: int = SAMPLE_SEED, jobs: int | None = None,
                 progress: Optional[Callable[[str], None]] = None) -> list:  # fmt: skip
    """Simulate the sample fleet into ``directory``; return the simulator's ClusterResults."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    work = [(directory, name, n, faults, seed) for name, n, faults in sample_plan(records, clusters)]
    jobs = jobs or min(len(work), os.cpu_count() or 1)

    def watch() -> Optional[_Watcher]:
        return _Watcher(directory, estimated_bytes(records, clusters), progress) if progress else None

    if jobs > 1:
        return _in_processes(work, jobs, watch)
    watcher = watch()
    try:
        return [_one(w) for w in work]
    finally:
        if watcher is not None:
            watcher.stop()


def _in_processes(work: list, jobs: int, watch: Callable[[], Optional["_Watcher"]]) -> list:
    """The clusters in ``jobs`` processes; on Ctrl-C (or any error) the pool is terminated at once,
    queued clusters included, instead of finishing its queue first. ``watch`` starts the progress
    thread once the workers are started (they inherit no running thread)."""
    from ..simulator.processes import map_interruptibly, worker_pool

    watcher = None
    try:
        with worker_pool(jobs) as pool:
            watcher = watch()
            return map_interruptibly(pool, _one, work)
    finally:
        if watcher is not None:
            watcher.stop()


def directory_bytes(directory: Path) -> int:
    """Bytes in the files under ``directory`` (files that vanish meanwhile are skipped)."""
    total = 0
    for root, _, names in os.walk(directory):
        for name in names:
            try:
                total += os.stat(os.path.join(root, name)).st_size
            except OSError:
                pass
    return total


class _Watcher:
    """A thread that reports the bytes written so far against the estimate, every PROGRESS_EVERY
    seconds, until stopped."""

    def __init__(self, directory: Path, expected: int, report: Callable[[str], None]):
        self.directory, self.expected, self.report = directory, max(1, expected), report
        self.started = time.monotonic()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="sample-progress", daemon=True)
        self._thread.start()

    def _line(self) -> str:
        written = directory_bytes(self.directory)
        share = min(99, 100 * written // self.expected)
        return (f"[audit] writing the sample: {written / 1e6:.1f} MB of about {self.expected / 1e6:.1f} MB "
                f"({share}%), {time.monotonic() - self.started:.0f} s")  # fmt: skip

    def _run(self) -> None:
        while not self._stop.wait(PROGRESS_EVERY):
            self.report(self._line())

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()
