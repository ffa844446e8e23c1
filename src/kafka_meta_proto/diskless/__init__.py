"""The diskless batch coordinator of the design in ``../shared/design`` (KIP-1164): the source of
truth about the objects, partitions and batches of diskless topics, kept as records in the
``__diskless-metadata`` topic and materialized in SQLite.

- ``coordinator``: ``BatchCoordinator``, the design's plugin interface over one partition;
- ``types``: its requests and answers; ``commits``: the commit rules (offsets, idempotence);
  ``reads``: finding batches and listing offsets;
- ``store``: the SQLite state and how each record changes it; ``topic_backend``: what the
  coordinator needs of its partition's log, kept in a local log (``topic_log``) or in a Kafka
  cluster's topic (``kafka_topic``);
- ``wire``: the RPCs 93-98 as calls (``commit_answer``, ``find_answer``: the CommitBatches and
  FindDisklessBatches answers written without message objects); ``service``: the server (FindCoordinator v7 and the RPCs);
  ``group_commit``: the writes of concurrent requests sharing one transaction and fsync;
  ``running``: serving until SIGTERM or SIGINT (the ``batch-coordinator`` command);
- ``routing``: which coordinator owns a partition (the metadata image's mapping) and where it
  is served; ``group``: ``CoordinatorGroup``, one coordinator per ``__diskless-metadata``
  partition in one process.
"""

from .coordinator import BatchCoordinator

__all__ = ["BatchCoordinator"]
