"""The diskless batch coordinator of the design in ``../shared/design`` (KIP-1164): the source of
truth about the objects, partitions and batches of diskless topics, kept as records in the
``__diskless-metadata`` topic and materialized in SQLite."""
