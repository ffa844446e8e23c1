"""Building the Arrow rows of one unit: a RECORD row per record, a BATCH row per batch header, an
ISSUE row per thing that could not be read (columns.py says what each holds).

Rows are gathered column by column, in Python lists, and become an Arrow record batch of their
kind when ``batch_rows`` of them are waiting (and at the end of the unit).
"""

from __future__ import annotations

import base64
from collections.abc import Iterable, Iterator

import pyarrow as pa

from ..log.crc import crc32c
from ..log.errors import LogFormatError
from ..log.header import ATTR_CONTROL, ATTR_TIMESTAMP_TYPE, BatchHeader
from ..log.batch import plain_records
from ..log.records import Record, records_from
from ..log.scanning import BatchView, Damage, DamageKind, malformed
from .arrays import arrow_array
from .columns import (
    ARROW_SCHEMA,
    BATCH_COLUMNS,
    COLUMNS,
    HEADER_COLUMNS,
    ISSUE_COLUMNS,
    RECORD_COLUMNS,
    Column,
    Issue,
    RowKind,
)
from .record_decoder import DECODE_ERRORS, RecordDecoder

C = Column
UNKNOWN_CONTROL = "?"  # in control_types, a control record that did not decode
# Payload bytes waiting in a buffer before it is handed on, whatever its rows: values can be
# large, and an undecodable record's is kept (base64).
ROW_BYTES = 8 << 20
ALL_READ: Iterable[Record] = ()  # what _compiled_rows returns when it read every record
CONTROL_TYPES_KEPT = 1000  # control_types names this many records' types at most (then a count)
# The RECORD columns the compiled row makers fill, in the order they take them (then the JSON forms).
COMPILED_ROW_COLUMNS = (C.OFFSET, C.TIMESTAMP, C.RECORD_TYPE, C.TYPE_NAME, C.VERSION, C.PAYLOAD)


def _control_types(names: list[str], count: int) -> str:
    """A control batch's ``control_types``: its records' types, the first CONTROL_TYPES_KEPT."""
    text = ",".join(names)
    return text if count <= len(names) else f"{text},... {count - len(names)} more"


class RowBuffer:
    """Column lists for one kind of row, in ``names`` order; ``flush`` turns them into an Arrow
    record batch. ``appends`` are the lists' append methods, in the same order, for the hot loops
    (a Column member costs an attribute lookup each time it is named)."""

    def __init__(self, kind: RowKind, names: list[Column]):
        self.kind = kind
        self.names = names
        self.columns = [[] for _ in names]
        self.appends = tuple(column.append for column in self.columns)
        # by name: the same lists (they are emptied, never replaced)
        self.column = dict(zip(names, self.columns))
        self.append = dict(zip(names, self.appends))
        self.size = 0  # bytes of payload text waiting (what makes a row large)

    @property
    def count(self) -> int:
        return len(self.columns[0])

    def add(self, values: dict) -> None:
        """One row from a dict of column -> value (columns it lacks are null)."""
        for name, append in zip(self.names, self.appends):
            append(values.get(name))

    def is_full(self, rows: int) -> bool:
        return len(self.columns[0]) >= rows or self.size >= ROW_BYTES

    def truncate(self, count: int) -> None:
        """Drop the rows after the first ``count`` (their payload stays counted in ``size``,
        which only flushes a little early)."""
        for values in self.columns:
            del values[count:]

    def flush(self, constants: dict) -> pa.RecordBatch | None:
        n = self.count
        if not n:
            return None
        columns = dict(zip(self.names, self.columns))
        constants = {**constants, C.KIND: int(self.kind)}
        arrays = []
        for name, pa_type, _ in COLUMNS:
            values = columns.get(name)
            if values is not None:
                arrays.append(arrow_array(values, pa_type))
            elif name in constants:
                arrays.append(pa.repeat(pa.scalar(constants[name], pa_type), n))
            else:
                arrays.append(pa.nulls(n, pa_type))
        for values in self.columns:
            values.clear()
        self.size = 0
        return pa.RecordBatch.from_arrays(arrays, schema=ARROW_SCHEMA)


def header_columns(fields: dict) -> dict:
    """A (damaged) batch's header fields as the columns they fill."""
    return {HEADER_COLUMNS[name]: value for name, value in fields.items() if name in HEADER_COLUMNS}


def _base64(value) -> str | None:
    return None if value is None else base64.b64encode(value).decode()


class UnitRows:
    """The rows of one unit, added batch by batch."""

    def __init__(self, constants: dict, decoder: RecordDecoder, batch_rows: int):
        self.constants = constants
        self.decoder = decoder
        self.batch_rows = batch_rows
        self.records = RowBuffer(RowKind.RECORD, RECORD_COLUMNS)
        # each RECORD row's JSON form (a dict, not an Arrow column), for the typed tables
        self.record_data: list[dict] = []
        self.flushed_data: list[dict] = []  # those of the RECORD batch last handed on
        self._compiled_columns: tuple | None = None  # the lists _compiled_rows fills
        self.batches = RowBuffer(RowKind.BATCH, BATCH_COLUMNS)
        self.issues = RowBuffer(RowKind.ISSUE, ISSUE_COLUMNS)

    # --- what could not be read ----------------------------------------------------------------

    def add_damage(self, damage: Damage) -> None:
        """An ISSUE row, and a BATCH row for a batch whose framing was sound."""
        facts = header_columns(damage.fields)
        if damage.kind in (DamageKind.CORRUPT, DamageKind.MALFORMED):
            facts[C.CRC_OK] = damage.kind == DamageKind.MALFORMED
            self.batches.add({**facts, C.POSITION: damage.position, C.OFFSETS_OK: None})
        self.issues.add({**facts, C.POSITION: damage.position, C.ISSUE: Issue(damage.kind.value),
                         C.DETAIL: damage.detail, C.BYTES_LOST: damage.length,
                         C.RECORDS_LOST: damage.records_held})  # fmt: skip

    def _undecodable(self, header: BatchHeader, position: int, offset: int, timestamp: int,
                     value, detail: str) -> None:  # fmt: skip
        self.issues.add({C.POSITION: position, C.BATCH_OFFSET: header.base_offset, C.OFFSET: offset,
                         C.TIMESTAMP: timestamp, C.LEADER_EPOCH: header.partition_leader_epoch,
                         C.PAYLOAD: _base64(value), C.ISSUE: Issue.UNDECODABLE_RECORD,
                         C.DETAIL: detail, C.RECORDS_LOST: 1})  # fmt: skip
        self.issues.size += 0 if value is None else len(value) * 4 // 3

    # --- sound batches -----------------------------------------------------------------------

    def add_batch(self, view: BatchView) -> Iterator[pa.RecordBatch]:
        """The rows of a sound batch, its records' and its header's; yields the Arrow batches of
        the kinds whose rows fill a buffer, as the records are read.

        The records are read one at a time (a compressed batch decompressed a piece at a time)
        and handed on whenever ``batch_rows`` rows, or ROW_BYTES of payload, wait: what is held
        is a buffer's rows, whatever the batch's size. Records that do not parse make the batch
        MALFORMED damage, with no rows of its records when none had to be handed on yet; else
        the rows handed on stay, and the ISSUE row counts the records the header announces
        beyond them as lost.
        """
        position, header = view[0], view[1]  # (BatchView's position and header)
        records_buffer, batches, issues = buffers = (self.records, self.batches, self.issues)
        # to drop the batch's rows
        marks = (records_buffer.count, batches.count, issues.count)
        control = header.attributes & ATTR_CONTROL
        fill = self._control_records if control else self._metadata_records
        names: list[str] = []
        progress = [0, True]  # records read, offset deltas 0, 1, 2... so far
        handed_on = False
        try:
            records = self._compiled_rows(view, progress) if not control else None
            if records is None:
                records = view.records()
            elif records is not ALL_READ and records_buffer.is_full(self.batch_rows):
                for out in self.full():  # (the compiled rows fill only the RECORD buffer)
                    handed_on = True
                    yield out
            while records is not ALL_READ and not fill(position, header, records, progress, names):
                for out in self.full():
                    handed_on = True
                    yield out
        except LogFormatError as exc:
            damage = malformed(view, exc)
            if not handed_on:
                for buffer, mark in zip(buffers, marks):
                    buffer.truncate(mark)
                del self.record_data[marks[0] :]  # (in step with the RECORD rows)
                self.add_damage(damage)
            else:
                self._cut_short(damage, progress[0])
            yield from self.full()
            return
        n, offsets_ok = progress
        self._batch_row(position, header, n, offsets_ok, _control_types(names, n) if control else None)
        rows = self.batch_rows
        if records_buffer.is_full(rows) or batches.is_full(rows) or issues.is_full(rows):
            yield from self.full()

    def _batch_row(self, position: int, header: BatchHeader, n: int, offsets_ok: bool,
                   control_types: str | None) -> None:  # fmt: skip
        """The BATCH row of a sound batch of which ``n`` records were read."""
        last_ok = header.last_offset_delta == n - 1 or (n == 0 and header.last_offset_delta == 0)
        append = self.batches.append
        append[C.POSITION](position)
        append[C.BATCH_OFFSET](header.base_offset)
        append[C.TIMESTAMP](header.max_timestamp)
        append[C.LEADER_EPOCH](header.partition_leader_epoch)
        append[C.LAST_OFFSET_DELTA](header.last_offset_delta)
        append[C.RECORDS_COUNT](n)
        append[C.BATCH_LENGTH](header.batch_length)
        append[C.ATTRIBUTES](header.attributes)
        append[C.CRC_OK](True)
        append[C.OFFSETS_OK](offsets_ok and last_ok)
        append[C.CONTROL_TYPES](control_types)

    def _cut_short(self, damage: Damage, read: int) -> None:
        """The rows of a batch whose records stopped parsing after ``read`` of them were handed
        on: a BATCH row and an ISSUE row counting the records announced beyond them as lost."""
        facts = header_columns(damage.fields)
        self.batches.add({**facts, C.POSITION: damage.position, C.CRC_OK: True, C.OFFSETS_OK: None})
        lost = max(damage.view.header.records_count - read, 0)
        self.issues.add({**facts, C.POSITION: damage.position, C.ISSUE: Issue(damage.kind.value),
                         C.DETAIL: f"{damage.detail} (after {read} records)",
                         C.BYTES_LOST: damage.length, C.RECORDS_LOST: lost})  # fmt: skip

    def walk_plain_batches(self, buffer, pos: int, end: int) -> int:
        """The rows of the sound plain batches that start at ``pos`` and follow it before ``end``
        in ``buffer`` (a whole file), made by the compiled walk exactly as ``add_batch`` makes
        them (every buffer stays under its limits, a batch is walked whole or not at all); the
        position after them (``pos`` when there was none)."""
        records, batches = self.records, self.batches
        pos, records.size = self.decoder.compiled_walk(
            buffer, pos, end, crc32c, self.batch_rows, ROW_BYTES, records.size,
            (*records.columns, self.record_data), tuple(batches.columns), self.issues.columns[0],
        )  # fmt: skip
        return pos

    def _compiled_rows(self, view: BatchView, progress: list) -> Iterable[Record] | None:
        """The RECORD rows the compiled codec makes of an uncompressed data batch's records, as
        many as fit the buffer and it accepts; the records left, for ``_metadata_records``. None
        (nothing done) for a batch it does not read, or under pure Python."""
        header, data = view[1], view[2]  # (BatchView's header and data)
        compiled_rows = self.decoder.compiled_rows
        plain = plain_records(header, data) if compiled_rows is not None else None
        if plain is None:
            return None
        start, count = plain
        buffer = self.records
        if self._compiled_columns is None:  # (record_data changes at a flush)
            self._compiled_columns = (*map(buffer.column.get, COMPILED_ROW_COLUMNS), self.record_data)
        fixed_time = header.attributes & ATTR_TIMESTAMP_TYPE
        read, pos, size, in_order = compiled_rows(
            data, start, min(count, self.batch_rows - buffer.count), header.base_offset,
            header.max_timestamp if fixed_time else header.base_timestamp, bool(fixed_time),
            ROW_BYTES - buffer.size, self._compiled_columns,
        )  # fmt: skip
        if read:
            self._same_for_the_batch(view[0], header.base_offset, read)
            buffer.size += size
        progress[:] = read, in_order
        if read == count and pos == len(data):
            return ALL_READ
        return records_from(data, pos, read, count)

    def _metadata_records(self, position: int, header: BatchHeader, records: Iterable[Record],
                          progress: list, names: list) -> bool:  # fmt: skip
        """RECORD rows of a data batch's next records: True once ``records`` is done, False when
        a buffer is full first. ``progress`` (records read, offset deltas in order) is kept up
        to date even when ``records`` raises."""
        append = self.records.append
        r_offset, r_timestamp, r_type = append[C.OFFSET], append[C.TIMESTAMP], append[C.RECORD_TYPE]
        r_name, r_version, r_payload = append[C.TYPE_NAME], append[C.VERSION], append[C.PAYLOAD]
        remembered, learn = self.decoder.remembered, self.decoder.learn
        r_data = self.record_data.append
        base_offset = header.base_offset
        fixed_time = header.attributes & ATTR_TIMESTAMP_TYPE
        ts_base = header.max_timestamp if fixed_time else header.base_timestamp
        index, offsets_ok = progress
        room = self.batch_rows - self.records.count
        budget = ROW_BYTES - self.records.size
        added = size = 0
        try:
            for record in records:
                if record.offset_delta != index:
                    offsets_ok = False
                index += 1
                value = record.value
                row = remembered(value) if value is not None else None
                if row is None:
                    try:
                        row = learn(value)
                    except DECODE_ERRORS as exc:
                        timestamp = ts_base if fixed_time else ts_base + record.timestamp_delta
                        self._undecodable(header, position, base_offset + record.offset_delta,
                                          timestamp, value, str(exc))  # fmt: skip
                        if self.issues.is_full(self.batch_rows):
                            return False
                        continue
                r_offset(base_offset + record.offset_delta)
                r_timestamp(ts_base if fixed_time else ts_base + record.timestamp_delta)
                r_type(row[0])
                r_version(row[1])
                r_name(row[2])
                r_payload(row[3])
                r_data(row[4])
                added += 1
                size += len(row[3])
                if added >= room or size >= budget:
                    return False
            return True
        finally:
            progress[:] = index, offsets_ok
            if added:
                self._same_for_the_batch(position, base_offset, added)
                self.records.size += size

    def _same_for_the_batch(self, position: int, base_offset: int, n: int) -> None:
        """The RECORD columns that are the same for the batch's ``n`` metadata records just added."""
        column = self.records.column
        column[C.POSITION].extend([position] * n)
        column[C.BATCH_OFFSET].extend([base_offset] * n)
        column[C.CONTROL_TYPE].extend([None] * n)  # null for a metadata record

    def _control_records(self, position: int, header: BatchHeader, records: Iterable[Record],
                         progress: list, names: list[str]) -> bool:  # fmt: skip
        """RECORD rows of a control batch's next records, their types added to ``names`` (the
        first CONTROL_TYPES_KEPT); returns and keeps ``progress`` as ``_metadata_records``."""
        base_offset = header.base_offset
        fixed_time = header.attributes & ATTR_TIMESTAMP_TYPE
        index, offsets_ok = progress
        try:
            for record in records:
                if record.offset_delta != index:
                    offsets_ok = False
                kept = index < CONTROL_TYPES_KEPT
                index += 1
                offset = base_offset + record.offset_delta
                timestamp = (
                    header.max_timestamp
                    if fixed_time
                    else header.base_timestamp + record.timestamp_delta
                )
                try:
                    control_type, version, name, payload, data = self.decoder.control(
                        record.key, record.value
                    )
                except DECODE_ERRORS as exc:
                    self._undecodable(header, position, offset, timestamp, record.value,
                                      f"control record: {exc}")  # fmt: skip
                    if kept:
                        names.append(UNKNOWN_CONTROL)
                else:
                    if kept:
                        names.append(name)
                    self.records.add({C.POSITION: position, C.BATCH_OFFSET: base_offset,
                                      C.OFFSET: offset, C.TIMESTAMP: timestamp,
                                      C.CONTROL_TYPE: control_type, C.TYPE_NAME: name,
                                      C.VERSION: version, C.PAYLOAD: payload})  # fmt: skip
                    self.records.size += len(payload)
                    self.record_data.append(data)
                if self.records.is_full(self.batch_rows) or self.issues.is_full(self.batch_rows):
                    return False
            return True
        finally:
            progress[:] = index, offsets_ok

    # --- out -----------------------------------------------------------------------------------

    def _flush(self, buffer: RowBuffer) -> pa.RecordBatch | None:
        if buffer is self.records:  # its rows' JSON forms go with it (``flushed_data``)
            self.flushed_data, self.record_data = self.record_data, []
            self._compiled_columns = None
        return buffer.flush(self.constants)

    def full(self) -> Iterator[pa.RecordBatch]:
        """The record batches of the kinds that have ``batch_rows`` rows (or ROW_BYTES of
        payload) waiting."""
        for buffer in (self.records, self.batches, self.issues):
            if buffer.is_full(self.batch_rows):
                yield self._flush(buffer)

    def rest(self) -> Iterator[pa.RecordBatch]:
        """The record batches of every row still waiting."""
        for buffer in (self.records, self.batches, self.issues):
            out = self._flush(buffer)
            if out is not None:
                yield out
