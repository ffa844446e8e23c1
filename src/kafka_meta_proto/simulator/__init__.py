"""A KRaft cluster simulator: realistic ``__cluster_metadata`` logs in Kafka's on-disk format.

``simulate(out_dir, records=N, seed=S)`` writes, for each simulated cluster::

    <out>/<cluster>/bootstrap.checkpoint              metadata.version as kafka-storage format writes it
    <out>/<cluster>/meta.properties
    <out>/<cluster>/__cluster_metadata-0/
        00000000000000000000.log ...                  segments, rolled every ~segment_bytes (or 7 days)
        <20-digit end offset>-<10-digit epoch>.checkpoint   one snapshot of the image
        leader-epoch-checkpoint, partition.metadata, quorum-state
    <out>/<cluster>/faults.json                       the planted faults and where they are
    <out>/<cluster>/summary.json                      counts: records, batches, record types, segments

The log is what a Kafka 3.9 controller quorum (metadata.version 3.9-IV0) writes, driven by a
seeded random model of a cluster's life: the bootstrap records, controllers and brokers
registering, brokers unfenced once caught up, fenced after a missed session or a controlled
shutdown and registering again with a new incarnation and epoch (the offset of the registration,
as Kafka assigns it), topics created with their configs and partitions, deleted and re-created
under the same name with a new topic ID, ISR shrinks and expansions and leader elections,
producer-ID blocks of 1000 handed to registered brokers at their current epoch, diskless topics
whose partitions are mapped to batch coordinators, dynamic configs, a NoOpRecord every 500 ms as
Kafka's controller writes them, and LeaderChange control batches when the controller quorum elects
a new leader (every batch carries the leader epoch it was written in). Heartbeats leave no record.

Everything derives from the seed: two runs with the same arguments write the same bytes. Memory
stays constant: batches are written as they are made, and the model keeps only the current image
(the number of live topics is bounded). ``--records N`` is the number of records in the log
segments, exactly (snapshot and bootstrap records are not counted).

Planted faults (each optional, see ``FAULTS``) are listed in ``faults.json`` with the file and the
offset they are at.

The package, by concern: ``config`` (what to simulate, the faults), ``model`` (brokers, partitions,
topics and the messages they become), ``state`` (a cluster's state as the events see it),
``cluster`` (the main loop and the choice of events; it holds the state and passes it on), the
events, functions of that state, in ``controllers``, ``brokers``, ``partitions`` and ``topics``,
``image_records`` (the state as records, for the snapshot), ``log_output`` (batches into the log
through ``log.segment_writer``), ``faults`` (planting them), ``side_files`` and ``fleet`` (many
clusters).
"""

from __future__ import annotations

from ..kraft.rules import PRODUCER_ID_BLOCK_SIZE
from ..log.plain_batch import encode_plain_batch as encode_batch
from .cluster import ClusterSimulation
from .config import (
    DEFAULT_SEGMENT_BYTES,
    DEFAULT_SEGMENT_MS,
    FAULTS,
    METADATA_VERSION,
    ClusterResult,
    SimulationConfig,
)
from .fleet import ForeignFilesError, SetupError, clean_directory, cluster_names, simulate, simulate_cluster
from .log_output import encode_noop_batch
from .model import NOOP_VALUE

__all__ = [
    "ClusterResult",
    "ClusterSimulation",
    "DEFAULT_SEGMENT_BYTES",
    "DEFAULT_SEGMENT_MS",
    "FAULTS",
    "METADATA_VERSION",
    "NOOP_VALUE",
    "PRODUCER_ID_BLOCK_SIZE",
    "SimulationConfig",
    "ForeignFilesError",
    "SetupError",
    "clean_directory",
    "cluster_names",
    "encode_batch",
    "encode_noop_batch",
    "simulate",
    "simulate_cluster",
]
