"""The worker side: one unit (a file or a byte range of one) in, Arrow record batches out.

Runs wherever the decoding runs (a Spark executor's Python worker, or one plain process) and
needs only this package and pyarrow. The bytes come from ``log.source`` (a local file mapped,
any other URI read in windows through ``pyarrow.fs``), the batches and the damage from the scan
of ``log.scan``, the records' rows from a ``RecordDecoder``; ``rows.py`` lays them out in the
columns of ``columns.py``.

Per file, the records the batch headers announce (plus those of a truncated tail) equal the
RECORD rows plus the ``records_lost`` of the ISSUE rows: nothing is dropped without a row saying so.

Byte ranges: a unit ``[start, end)`` owns the batches that start in it, as ``log.scan`` walks a
range: the units of a file cover it with no gap and no overlap, and a damaged region is walked
through by the unit it starts in.
"""

from __future__ import annotations

from collections.abc import Iterator

import pyarrow as pa

from ..log.scanning import Damage, range_start, scan_step
from ..log.source import ByteSource, arrow_uri, open_source
from .columns import ARROW_SCHEMA, COLUMNS, SPARK_DDL, UNIT_CONSTANTS, RowKind
from .record_decoder import Decoders, RecordDecoder
from .rows import UnitRows

RECORD, BATCH, ISSUE = RowKind.RECORD, RowKind.BATCH, RowKind.ISSUE
BATCH_ROWS = 65536  # rows per Arrow record batch handed to Spark

__all__ = ["ARROW_SCHEMA", "BATCH", "BATCH_ROWS", "COLUMNS", "ISSUE", "RECORD", "SPARK_DDL",
           "arrow_uri", "decode_unit", "decode_units", "decode_value", "map_in_arrow"]  # fmt: skip


def decode_unit(
    unit: dict, batch_rows: int = BATCH_ROWS, decoder: RecordDecoder | Decoders | None = None,
    rows_out: list | None = None,
) -> Iterator[pa.RecordBatch]:
    """Arrow record batches (``ARROW_SCHEMA``) of all rows of one unit. Pass one ``Decoders`` (or
    one ``decoder``) to the units of a task, so that what it learns serves them all; a unit is read
    with the registry it names (``unit["registry"]``, default Kafka's). ``rows_out``, a list,
    receives the unit's ``UnitRows``: its ``flushed_data`` are the JSON forms of the last RECORD batch."""
    if decoder is None or isinstance(decoder, Decoders):
        decoder = (decoder if decoder is not None else Decoders()).for_unit(unit)
    constants = {UNIT_CONSTANTS[0]: unit["cluster"], UNIT_CONSTANTS[1]: unit["file"],
                 UNIT_CONSTANTS[2]: unit["kind"]}  # fmt: skip
    rows = UnitRows(constants, decoder, batch_rows)
    if rows_out is not None:
        rows_out.append(rows)
    with open_source(unit["uri"]) as source:
        yield from _walk(source, unit["start"], unit["end"], rows)
    yield from rows.rest()


def _walk(source: ByteSource, start: int, end: int, rows: UnitRows) -> Iterator[pa.RecordBatch]:
    """The rows of the batches and damage of ``source`` in ``[start, end)``, walked as
    ``log.scan`` walks them: where the source is held whole and the compiled walk is there, it
    makes the rows of the sound plain batches it meets, straight from the buffer, and
    ``scan_step`` the rest, one batch or damage at a time."""
    whole = source.whole if rows.decoder.compiled_walk is not None else None
    pos = range_start(source, start)
    while True:
        if whole is not None and pos < end:
            after = rows.walk_plain_batches(whole, pos, end)
            if after != pos:
                pos = after
                yield from rows.full()
                continue
        step = scan_step(source, pos, end)
        if step is None:
            return
        item, pos = step
        if isinstance(item, Damage):
            rows.add_damage(item)
        else:
            yield from rows.add_batch(item)


def decode_units(units, batch_rows: int = BATCH_ROWS) -> Iterator[pa.RecordBatch]:
    decoder = Decoders()
    for unit in units:
        yield from decode_unit(unit, batch_rows, decoder)


def map_in_arrow(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """The function given to ``DataFrame.mapInArrow``: unit rows in, decoded rows out."""
    decoder = Decoders()
    for unit_batch in batches:
        for unit in unit_batch.to_pylist():
            yield from decode_unit(unit, decoder=decoder)


def decode_value(value) -> tuple[int, int, str, str]:
    """``(record type, version, type name, payload JSON)`` of one metadata record value."""
    return RecordDecoder().decode_value(value)
