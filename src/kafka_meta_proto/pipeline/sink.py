"""The worker side of the ``records`` table: each task writes the records it decodes itself.

Handing every record to the JVM to be written costs the JVM about 3.5 us per record (reading the
Arrow stream, a row per record, Spark's Parquet writer), a third of the Python decoding, on the
same cores (measured in docs/pipeline.md). So the worker writes its records with pyarrow, one
Parquet file per unit, and hands Spark only the small rows: batch headers, problems and one
count per record type.

A unit's file is written under a hidden name and renamed to ``part-<unit>.parquet`` when
complete: a failed task leaves no visible part, and a retried or speculative attempt writes the
same name again (a rename replaces it), so the table holds each unit once. Readers (Spark,
pyarrow) skip names starting with ``.``.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Iterator

import pyarrow as pa
import pyarrow.parquet as pq

from ..log.source import arrow_uri
from .columns import ARROW_SCHEMA, Column, RowKind
from .decode import decode_unit
from .inputs import is_local, local_path
from .record_decoder import RecordDecoder
from .tables import RECORD_TABLE

RECORD, COUNTS = RowKind.RECORD, RowKind.COUNTS  # COUNTS: records written, per (unit, record type)
RECORDS_SCHEMA = pa.schema([ARROW_SCHEMA.field(n) for n in RECORD_TABLE])
COMPRESSION = "zstd"


class _Directory:
    """Where parts go: a local directory, or any URI pyarrow.fs can write."""

    def __init__(self, uri: str):
        if is_local(uri):
            self.fs, self.path = None, local_path(uri)
        else:
            from pyarrow import fs as pafs

            self.fs, self.path = pafs.FileSystem.from_uri(arrow_uri(uri))

    def parquet_writer(self, name: str) -> pq.ParquetWriter:
        # given the file system, the writer opens the file and closes it on close(), which is
        # what completes an object store's upload
        return pq.ParquetWriter(f"{self.path}/{name}", RECORDS_SCHEMA, compression=COMPRESSION, filesystem=self.fs)

    def commit(self, temp: str, final: str) -> None:
        if self.fs is None:
            os.replace(f"{self.path}/{temp}", f"{self.path}/{final}")
        else:
            self.fs.move(f"{self.path}/{temp}", f"{self.path}/{final}")

    def discard(self, temp: str) -> None:
        try:
            if self.fs is None:
                os.remove(f"{self.path}/{temp}")
            else:
                self.fs.delete_file(f"{self.path}/{temp}")
        except OSError:  # never written, or already gone
            pass


def write_unit(
    directory: _Directory, unit: dict, decoder: RecordDecoder | None = None
) -> Iterator[pa.RecordBatch]:
    """Decode one unit; its records go to ``part-<unit>.parquet``; yields the other rows, then
    one COUNTS row per record type (type_name, records_count)."""
    temp = f".part-{unit['unit']:05d}-{uuid.uuid4().hex}.parquet"
    writer = None
    counts: dict[str, int] = {}
    try:
        for batch in decode_unit(unit, decoder=decoder):
            if batch.column(0)[0].as_py() != RECORD:
                yield batch
                continue
            if writer is None:
                writer = directory.parquet_writer(temp)
            writer.write_batch(batch.select(RECORD_TABLE))
            for name, n in zip(*batch.column(Column.TYPE_NAME).value_counts().flatten()):
                counts[name.as_py()] = counts.get(name.as_py(), 0) + n.as_py()
        if writer is not None:
            writer.close()
            writer = None
            directory.commit(temp, f"part-{unit['unit']:05d}.parquet")
    finally:
        if writer is not None:  # the unit failed: leave nothing visible
            writer.close()
            directory.discard(temp)
    if counts:
        yield count_rows(unit, counts)


def count_rows(unit: dict, counts: dict[str, int]) -> pa.RecordBatch:
    n = len(counts)
    arrays = []
    for field in ARROW_SCHEMA:
        if field.name == Column.KIND:
            arrays.append(pa.array([int(COUNTS)] * n, field.type))
        elif field.name in (Column.CLUSTER, Column.FILE):
            arrays.append(pa.array([unit[field.name]] * n, field.type))
        elif field.name == Column.FILE_KIND:
            arrays.append(pa.array([unit["kind"]] * n, field.type))
        elif field.name == Column.TYPE_NAME:
            arrays.append(pa.array(list(counts), field.type))
        elif field.name == Column.RECORDS_COUNT:
            arrays.append(pa.array(list(counts.values()), field.type))
        else:
            arrays.append(pa.nulls(n, field.type))
    return pa.RecordBatch.from_arrays(arrays, schema=ARROW_SCHEMA)


def writing_records(records_uri: str) -> Callable[[Iterator[pa.RecordBatch]], Iterator[pa.RecordBatch]]:
    """The function given to ``DataFrame.mapInArrow``: unit rows in; records written under
    ``records_uri``; batch, problem and count rows out."""

    def run(unit_batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        directory = _Directory(records_uri)
        decoder = RecordDecoder()  # one per task: what it learns serves all of its units
        for unit_batch in unit_batches:
            for unit in unit_batch.to_pylist():
                yield from write_unit(directory, unit, decoder)

    return run
