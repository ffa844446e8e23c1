"""The same decoding in one plain Python process, without Spark.

For checking the Spark job's counts, for small inputs, and as the single-process baseline of
``bench/pipeline.py``: the units are decoded by the very function the executors run.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field

import pyarrow as pa
import pyarrow.compute as pc

from .columns import Column, Issue
from .decode import BATCH, ISSUE, RECORD, decode_units
from .inputs import DEFAULT_CHUNK_BYTES, discover


def decode_paths(paths: list[str], chunk_bytes: int = DEFAULT_CHUNK_BYTES) -> Iterator[pa.RecordBatch]:
    """Every row of every unit under ``paths``, decoded here."""
    yield from decode_units(unit.row() for unit in discover(paths).units(chunk_bytes))


@dataclass
class Counts:
    """What a plain read of the input found."""

    records: Counter = field(default_factory=Counter)  # (cluster, file) -> records decoded
    types: Counter = field(default_factory=Counter)  # type name -> records decoded
    batches: Counter = field(default_factory=Counter)  # (cluster, file) -> batches
    announced: Counter = field(default_factory=Counter)  # (cluster, file) -> records the headers announce
    lost: Counter = field(default_factory=Counter)  # (cluster, file) -> records in issue rows
    issues: list = field(default_factory=list)  # (cluster, file, issue, position, records_lost)

    @property
    def total_records(self) -> int:
        return sum(self.records.values())


def count_paths(paths: list[str], chunk_bytes: int = DEFAULT_CHUNK_BYTES) -> Counts:
    counts = Counts()
    for batch in decode_paths(paths, chunk_bytes):
        add_counts(counts, batch)
    return counts


def add_counts(counts: Counts, batch: pa.RecordBatch) -> None:
    kind = batch.column(Column.KIND)[0].as_py()
    key = (batch.column(Column.CLUSTER)[0].as_py(), batch.column(Column.FILE)[0].as_py())
    n = batch.num_rows
    if kind == RECORD:
        counts.records[key] += n
        for name, c in zip(*_value_counts(batch.column(Column.TYPE_NAME))):
            counts.types[name] += c
    elif kind == BATCH:
        counts.batches[key] += n
        counts.announced[key] += pc.sum(batch.column(Column.RECORDS_COUNT)).as_py() or 0
    elif kind == ISSUE:
        for row in batch.select([Column.ISSUE, Column.POSITION, Column.RECORDS_LOST]).to_pylist():
            lost = row[Column.RECORDS_LOST]
            counts.issues.append((*key, row[Column.ISSUE], row[Column.POSITION], lost))
            counts.lost[key] += lost or 0
            if row[Column.ISSUE] == Issue.TRUNCATED_TAIL:
                counts.announced[key] += lost or 0


def _value_counts(array) -> tuple[list, list]:
    vc = pc.value_counts(array)
    return vc.field("values").to_pylist(), vc.field("counts").to_pylist()
