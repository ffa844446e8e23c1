"""The command-line tools behind ``commands/`` and their text forms.

``dump`` prints Kafka log files as kafka-dump-log does, ``shell`` browses a metadata image as
kafka-metadata-shell does, ``storage`` formats a node's log directories as kafka-storage does;
``localfiles`` reads and writes the small text files a broker keeps beside its logs, ``jackson``
prints JSON as Kafka's Jackson does. The modules here import the runtime, the log layer and the
KRaft domain, never the other way round.
"""
