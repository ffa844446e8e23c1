"""The fake cluster's KRaft controller: registrations, heartbeats and fencing, producer-ID blocks,
topics and leadership, every change a record in a real ``__cluster_metadata`` log."""
