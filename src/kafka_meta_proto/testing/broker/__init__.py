"""The fake cluster's broker: partitions kept as real log segments, and the requests that read and
write them, over the server framework.

- ``broker``: ``Broker``, the server and the state its handlers share;
- ``static_metadata``: ``StaticMetadata``, a metadata image changed by applying records, for a
  broker without a controller;
- ``partition`` (one replica: high watermark, log start offset, leader epochs, offsets by
  timestamp), ``batch_checks`` (a produced batch checked and stamped), ``producer_state``
  (idempotent producers), ``replicas`` (the replicas a broker holds, in-process replication),
  ``fetch_sessions``, ``leadership`` (who may serve a partition), ``versioned`` (answers fitted
  to the request's version);
- the handlers: ``produce``, ``fetch``, ``cluster_info``, ``offsets``, ``configs``, ``admin``.
"""

from .broker import Broker
from .static_metadata import StaticMetadata

__all__ = ["Broker", "StaticMetadata"]
