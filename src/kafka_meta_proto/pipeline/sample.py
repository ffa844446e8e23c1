"""The built-in sample: a simulated fleet with one planted fault per cluster (and a clean one).

``write_sample(directory)`` writes, with the cluster simulator, ``clusters`` clusters sharing
``records`` log records between them; cluster ``i`` gets fault ``SAMPLE_FAULTS[i % 6]`` (the first
is clean), so an audit of the sample shows each audit finding its fault. The same arguments
write the same bytes.
"""

from __future__ import annotations

import os
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

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


def sample_plan(records: int = SAMPLE_RECORDS, clusters: int = SAMPLE_CLUSTERS) -> list[tuple[str, int, tuple]]:
    """(cluster name, records, faults) of each sample cluster."""
    from .. import simulator

    names = simulator.cluster_names(clusters)
    per, extra = divmod(records, clusters)
    return [(name, per + (i < extra), SAMPLE_FAULTS[i % len(SAMPLE_FAULTS)]) for i, name in enumerate(names)]


def _one(args):
    from .. import simulator

    directory, name, records, faults, seed = args
    config = simulator.SimulationConfig(records=max(1, records), seed=seed, faults=faults)
    return simulator.simulate_cluster(directory, name, config)


def write_sample(directory, records: int = SAMPLE_RECORDS, clusters: int = SAMPLE_CLUSTERS,
                 seed: int = SAMPLE_SEED, jobs: int | None = None) -> list:  # fmt: skip
    """Simulate the sample fleet into ``directory``; return the simulator's ClusterResults."""
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    work = [(directory, name, n, faults, seed) for name, n, faults in sample_plan(records, clusters)]
    jobs = jobs or min(len(work), os.cpu_count() or 1)
    if jobs > 1:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            return list(pool.map(_one, work))
    return [_one(w) for w in work]
