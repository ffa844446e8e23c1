"""The worker side of the output: each decoding task writes every table of what it decodes.

Handing every record to the JVM costs the JVM about 3.5 us per record (reading the Arrow stream,
a row per record, Spark's Parquet writer), and parsing JSON there to type the records costs more
(measured in docs/pipeline.md). So each Spark task writes, with pyarrow, one Parquet part per
table: ``records`` (Kafka's JSON form), ``typed/<type>`` (built from the decoded records, see
typed.py), ``batches`` and ``quarantine``; plus, per cluster, the narrow sorted files the audits
read (events.py). It hands Spark only a summary: per file, record type and issue, how many rows
and records.

A part is written under a hidden name and renamed to ``part-<first unit>.parquet`` when the
whole task is done: a failed task leaves no visible part, and a retried or speculative attempt
(the same units, so the same name) replaces it, so each table holds each record once. Readers
(Spark, pyarrow) skip names starting with ``.``.

Memory per task: one Arrow batch of at most 64k rows per kind of row, a Parquet writer per table,
and the task's audit rows (narrow; sorted when the task ends), which grow with the task's bytes
(``partition_bytes``), not with the input.
"""

from __future__ import annotations

import gc
import os
import uuid
from collections.abc import Callable, Iterator

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

from ..log.source import arrow_uri
from .columns import Column, RowKind
from .decode import decode_unit
from .events import AUDIT_BATCH_SCHEMA, AUDIT_ISSUE_SCHEMA, BATCH_SORT, EVENT_SCHEMA, EVENT_SORT, ISSUE_SORT
from .events import audit_batches, audit_issues, events
from .inputs import is_local, local_path
from .record_decoder import Decoders, RecordDecoder
from .tables import (
    BATCHES_SCHEMA,
    QUARANTINE_SCHEMA,
    RECORDS_SCHEMA,
    TIMESTAMP,
    TYPED_META,
    table_name,
)
from .typed import TypedBuilder

C = Column
RECORD, BATCH, ISSUE, COUNTS = RowKind.RECORD, RowKind.BATCH, RowKind.ISSUE, RowKind.COUNTS
COMPRESSION = "zstd"
ROW_GROUP_ROWS = 1 << 16
COLLECT_BYTES = 64 << 20  # input decoded between two passes of the cyclic collector
# Columns of long, mostly distinct text (Kafka's JSON form, a record's bytes in base64): no
# dictionary (it is given up on after the first page, at a cost) and no min/max, which no query
# uses. Numbers get no dictionary either (offsets and timestamps are all distinct; zstd packs the
# rest): together a fifth less to write and a sixth smaller files than Parquet's defaults.
TEXT_COLUMNS = frozenset({"payload"})
AUDIT_DIR = "_audit"  # under the output: the audits' inputs, removed when the job ends
# What a task hands Spark: per (file, kind, type or issue), rows and records.
SUMMARY_SCHEMA = pa.schema([
    ("cluster", pa.string()), ("file", pa.string()), ("kind", pa.int8()), ("type_name", pa.string()),
    ("issue", pa.string()), ("rows", pa.int64()), ("announced", pa.int64()), ("lost", pa.int64()),
    ("bytes_lost", pa.int64()),
])  # fmt: skip
SUMMARY_DDL = ("cluster STRING, file STRING, kind TINYINT, type_name STRING, issue STRING, rows BIGINT, "
               "announced BIGINT, lost BIGINT, bytes_lost BIGINT")  # fmt: skip


def _dictionary_columns(schema: pa.Schema) -> list[str]:
    """The columns worth a dictionary: strings (names, files, kinds), not long text or numbers."""
    return [f.name for f in schema if pa.types.is_string(f.type) and f.name not in TEXT_COLUMNS]


class _Directory:
    """Where parts go: a local directory, or any URI pyarrow.fs can write."""

    def __init__(self, uri: str):
        if is_local(uri):
            self.fs, self.path = None, local_path(uri)
        else:
            from pyarrow import fs as pafs

            self.fs, self.path = pafs.FileSystem.from_uri(arrow_uri(uri))

    def parquet_writer(self, name: str, schema: pa.Schema, compression: str = COMPRESSION) -> pq.ParquetWriter:
        folder = os.path.dirname(f"{self.path}/{name}")
        if self.fs is None:
            os.makedirs(folder, exist_ok=True)
        else:
            self.fs.create_dir(folder, recursive=True)
        # given the file system, the writer opens the file and closes it on close(), which is
        # what completes an object store's upload
        return pq.ParquetWriter(f"{self.path}/{name}", schema, compression=compression, filesystem=self.fs,
                                use_dictionary=_dictionary_columns(schema),
                                write_statistics=[f.name for f in schema if f.name not in TEXT_COLUMNS])  # fmt: skip

    def exists(self, name: str) -> bool:
        if self.fs is None:
            return os.path.exists(f"{self.path}/{name}")
        from pyarrow import fs as pafs

        return self.fs.get_file_info(f"{self.path}/{name}").type != pafs.FileType.NotFound

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


class TaskOutput:
    """The parts one task writes, committed together when it ends (or discarded).

    Rows wait until a row group's worth (ROW_GROUP_ROWS) is there: a rare record type's typed
    batches are small, and a Parquet row group per batch would cost more than the rows."""

    def __init__(self, directory: _Directory):
        self.directory = directory
        self.attempt = uuid.uuid4().hex
        self.parts: dict[str, tuple[pq.ParquetWriter, str]] = {}  # folder -> (writer, temp name)
        self.waiting: dict[str, tuple[pa.Schema, list]] = {}  # folder -> rows not written yet
        self.audit: dict[tuple[int, str], list[pa.RecordBatch]] = {}  # (cluster index, file) -> rows

    def write(self, folder: str, schema: pa.Schema, rows: pa.RecordBatch) -> None:
        waiting = self.waiting.setdefault(folder, (schema, []))[1]
        waiting.append(rows)
        if sum(b.num_rows for b in waiting) >= ROW_GROUP_ROWS:
            self._flush(folder)

    def _flush(self, folder: str, compression: str = COMPRESSION) -> None:
        schema, waiting = self.waiting.pop(folder, (None, []))
        if not waiting:
            return
        self._writer(folder, schema, compression).write_table(pa.Table.from_batches(waiting, schema=schema))

    def _writer(self, folder: str, schema: pa.Schema, compression: str = COMPRESSION) -> pq.ParquetWriter:
        part = self.parts.get(folder)
        if part is None:
            temp = f"{folder}/.part-{self.attempt}.parquet"
            part = self.parts[folder] = (self.directory.parquet_writer(temp, schema, compression), temp)
        return part[0]

    def add_audit(self, cluster_index: int, name: str, batch: pa.RecordBatch) -> None:
        self.audit.setdefault((cluster_index, name), []).append(batch)

    def commit(self, task: str) -> None:
        for (cluster_index, name), batches in sorted(self.audit.items()):
            schema, order = AUDIT_FILES[name]
            table = pa.Table.from_batches(batches, schema=schema).sort_by(order)
            # read once by the audits, then deleted: not worth compressing
            self._writer(f"{AUDIT_DIR}/c{cluster_index}/{name}", schema, "none").write_table(table, row_group_size=1 << 16)
        self.audit.clear()
        for folder in list(self.waiting):
            self._flush(folder)
        for folder, (writer, temp) in list(self.parts.items()):
            writer.close()
            self.directory.commit(temp, f"{folder}/part-{task}.parquet")
            del self.parts[folder]

    def discard(self) -> None:
        for writer, temp in self.parts.values():
            writer.close()
            self.directory.discard(temp)
        self.parts.clear()
        self.waiting.clear()


AUDIT_FILES = {"events": (EVENT_SCHEMA, EVENT_SORT), "batches": (AUDIT_BATCH_SCHEMA, BATCH_SORT),
               "issues": (AUDIT_ISSUE_SCHEMA, ISSUE_SORT)}  # fmt: skip


def _view(batch: pa.RecordBatch, schema: pa.Schema) -> pa.RecordBatch:
    """A decoder batch's columns as a table's (milliseconds become TIMESTAMP, a view)."""
    columns = [batch.column(f.name).view(TIMESTAMP) if f.type == TIMESTAMP else batch.column(f.name) for f in schema]
    return pa.RecordBatch.from_arrays(columns, schema=schema)


def _null_last(pair: tuple) -> tuple:
    return pair[0] is None, pair[0] or ""


class UnitWriter:
    """Writes the rows of the units of one task, and counts them for the summary."""

    def __init__(self, output: TaskOutput, decoder: RecordDecoder | Decoders):
        self.output = output
        self.decoder = decoder  # one per task: what it learns serves all of its units
        self.builders: dict[str, TypedBuilder] = {}
        self.summary: dict[tuple, list[int]] = {}  # (cluster, file, kind, type, issue) -> rows, announced, lost, bytes

    def _count(self, key: tuple, rows: int, announced: int = 0, lost: int = 0, bytes_lost: int = 0) -> None:
        total = self.summary.setdefault(key, [0, 0, 0, 0])
        total[0] += rows
        total[1] += announced
        total[2] += lost
        total[3] += bytes_lost

    def unit(self, unit: dict) -> None:
        holder: list = []
        for batch in decode_unit(unit, decoder=self.decoder, rows_out=holder):
            kind = batch.column(0)[0].as_py()
            if kind == RECORD:
                self.records(unit, batch, holder[0].flushed_data)
            elif kind == BATCH:
                self.output.write("batches", BATCHES_SCHEMA, _view(batch, BATCHES_SCHEMA))
                self.output.add_audit(unit["cluster_index"], "batches", audit_batches(batch))
                announced = pc.sum(batch.column(C.RECORDS_COUNT)).as_py() or 0
                self._count((unit["cluster"], unit["file"], int(BATCH), None, None), batch.num_rows, announced)
            else:
                self.output.write("quarantine", QUARANTINE_SCHEMA, _view(batch, QUARANTINE_SCHEMA))
                self.output.add_audit(unit["cluster_index"], "issues", audit_issues(batch, unit))
                for issue, lost, length in zip(*(batch.column(c).to_pylist() for c in (C.ISSUE, C.RECORDS_LOST, C.BYTES_LOST))):
                    self._count((unit["cluster"], unit["file"], int(ISSUE), None, issue), 1, 0, lost or 0, length or 0)

    def records(self, unit: dict, batch: pa.RecordBatch, data: list[dict]) -> None:
        self.output.write("records", RECORDS_SCHEMA, _view(batch, RECORDS_SCHEMA))
        names = batch.column(C.TYPE_NAME)
        meta = [batch.column(f.name) for f in TYPED_META if f.name not in ("timestamp", "record_version")]
        meta.insert(5, batch.column(C.TIMESTAMP).view(TIMESTAMP))
        meta.append(batch.column(C.VERSION).cast(pa.int16()))
        counts = names.value_counts()
        if len(counts) > 1:  # the rows of each type together, in their order: one take, then slices
            order = pc.sort_indices(names)  # (stable)
            meta = [column.take(order) for column in meta]
            data = [data[i] for i in order.to_pylist()]
        start = 0
        # in sort_indices' order: UTF-8 bytes sort as their code points do; a null would come last
        for name, count in sorted(zip(*(c.to_pylist() for c in counts.flatten())), key=_null_last):
            self._count((unit["cluster"], unit["file"], int(COUNTS), name, None), count)
            rows = [column.slice(start, count) for column in meta]
            part = data[start : start + count]
            start += count
            builder = self.builders.get(name)
            if builder is None:
                builder = self.builders[name] = TypedBuilder(name)
            typed = builder.build(rows, part)
            self.output.write(f"typed/{table_name(name)}", builder.schema, typed)
            found = events(name, typed, unit)
            if found is not None:
                self.output.add_audit(unit["cluster_index"], "events", found)

    def summary_batch(self) -> pa.RecordBatch:
        keys = list(self.summary)
        values = list(self.summary.values())
        columns = [[k[i] for k in keys] for i in range(5)] + [[v[i] for v in values] for i in range(4)]
        return pa.RecordBatch.from_arrays([pa.array(c, f.type) for c, f in zip(columns, SUMMARY_SCHEMA)], schema=SUMMARY_SCHEMA)


def write_task(directory: _Directory, units, decoder: RecordDecoder | Decoders | None = None) -> Iterator[pa.RecordBatch]:
    """Decode the units of one task and write their tables; yield the summary (SUMMARY_SCHEMA)."""
    output = TaskOutput(directory)
    writer = UnitWriter(output, decoder if decoder is not None else Decoders())
    first = None
    # Decoding makes millions of small containers (JSON forms, rows, messages) without cycles;
    # the cyclic collector's passes over them, the decoder's cache most of all, cost as much as a
    # third of the task. So it runs after every COLLECT_BYTES of input, over the young objects
    # only (each pass walks the rows still waiting in the buffers: once per unit cost 7% of a task).
    collecting = gc.isenabled()
    gc.disable()
    read = 0
    try:
        for unit in units:
            first = unit["unit"] if first is None else first
            writer.unit(unit)
            read += unit["end"] - unit["start"]
            if read >= COLLECT_BYTES:
                gc.collect(1)
                read = 0
        if first is not None:
            output.commit(f"{first:05d}")
    finally:
        output.discard()  # what is left after a failure: nothing becomes visible
        if collecting:
            gc.enable()
    if writer.summary:
        yield writer.summary_batch()


TABLES = {"records": RECORDS_SCHEMA, "batches": BATCHES_SCHEMA, "quarantine": QUARANTINE_SCHEMA}


def complete_tables(out_uri: str) -> None:
    """Give a table no task wrote (no problem anywhere: no quarantine) an empty part, so that
    every table is there to be read, with its schema."""
    directory = _Directory(out_uri)
    for name, schema in TABLES.items():
        if not directory.exists(name):
            directory.parquet_writer(f"{name}/part-empty.parquet", schema).close()


def writing_tables(out_uri: str) -> Callable[[Iterator[pa.RecordBatch]], Iterator[pa.RecordBatch]]:
    """The function given to ``DataFrame.mapInArrow``: unit rows in; the tables written under
    ``out_uri``; the summary out."""

    def run(unit_batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        units = (unit for batch in unit_batches for unit in batch.to_pylist())
        yield from write_task(_Directory(out_uri), units)

    return run
