"""The fake cluster's KRaft controller: registrations, heartbeats and fencing, producer-ID blocks,
topics and leadership, every change a record in a real ``__cluster_metadata`` log.

- ``controller``: ``Controller``, the server, the records committed and the faults;
- ``metadata_log``: the log directory (segments, snapshots, Kafka's side files) and its reads;
- ``brokers``: registration, heartbeats, sessions and fencing;
- ``partitions``: replica placement, leaders and ISRs when brokers come and go;
- ``topics``, ``configs``, ``producer_ids``: the admin requests and producer-id blocks;
- ``isr``: AlterPartition, a leader's ISR proposals;
- ``coordinator_mappings``: AssignPartitionToBatchCoordinator (a diskless controller only);
- ``handlers``: the requests on the server framework, Fetch of the metadata log included;
- ``snapshot``: the image as snapshot records.
"""

from .controller import Controller

__all__ = ["Controller"]
