"""A Kafka cluster inside a Python process, for tests: brokers and a KRaft controller on loopback
ports that real clients (Kafka's Java clients, librdkafka, kafka-python, aiokafka) accept.

- ``controller``: the KRaft controller: broker registration, heartbeats and fencing, producer-ID
  blocks, topics and partition leadership, written to a real ``__cluster_metadata`` log;
- ``broker``: a broker on the server framework: it registers with the controller over the wire,
  follows the metadata log into a ``kraft.MetadataImage`` and serves the data plane from
  partitions kept as real log segments;
- ``groups``: the classic consumer-group protocol and committed offsets.
"""
