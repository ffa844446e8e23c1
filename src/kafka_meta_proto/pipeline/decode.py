"""The worker side: one unit (a file or a byte range of one) in, Arrow record batches out.

Runs wherever the decoding runs (a Spark executor's Python worker, or one plain process) and
needs only this package and pyarrow. A local file is memory-mapped; any other URI is read in
windows through ``pyarrow.fs``.

Every row has a ``kind``:

- ``RECORD``: one record, decoded with the generated classes; ``payload`` is Kafka's JSON form
  (``Message.to_json``) of the metadata record, or of the control record's message;
- ``BATCH``: one batch header (also for a batch whose CRC does not match: ``crc_ok`` false);
- ``ISSUE``: what could not be read: a batch with a CRC mismatch (``corrupt batch``) or with
  malformed records (``malformed batch``), a ``truncated tail``, ``unreadable bytes`` between two
  sound batches, or one ``undecodable record`` value (``payload`` then holds its bytes, base64).
  ``records_lost`` counts the records it held (from the batch header, when readable).

Per file, the records the batch headers announce (plus those of a truncated tail) equal the
RECORD rows plus the ``records_lost`` of the ISSUE rows: nothing is dropped without a row saying so.

Byte ranges: a unit ``[start, end)`` owns the batches that start in it, where a unit that does
not begin the file starts at the first position >= ``start`` holding a batch whose CRC matches,
and walks batch by batch (by each batch's length) until it reaches, at or after ``end``, another
such position: the next unit starts exactly there, so the units of a file cover it with no gap
and no overlap. A damaged region is walked through by the unit it starts in.
"""

from __future__ import annotations

import base64
import json
import mmap
import os
import struct
from collections.abc import Iterator

import pyarrow as pa

from .. import kraft
from ..errors import KafkaProtocolError
from ..log import CorruptBatchError, LogFormatError, TruncatedBatchError, crc32c, decode_batch
from ..log.batch import HEADER, HEADER_SIZE, LOG_OVERHEAD, MIN_BATCH_LENGTH
from ..messages import REGISTRY
from .inputs import is_local, local_path

RECORD, BATCH, ISSUE = 0, 1, 2
BATCH_ROWS = 65536  # rows per Arrow record batch handed to Spark
WINDOW = 16 << 20  # bytes read at a time from a non-local file

# (column, Arrow type, Spark SQL type) of the rows decode_unit yields.
COLUMNS = [
    ("kind", pa.int8(), "TINYINT"),
    ("cluster", pa.string(), "STRING"),
    ("file", pa.string(), "STRING"),
    ("file_kind", pa.string(), "STRING"),
    ("position", pa.int64(), "BIGINT"),  # byte position of the batch in the file
    ("batch_offset", pa.int64(), "BIGINT"),
    ("offset", pa.int64(), "BIGINT"),
    ("timestamp", pa.int64(), "BIGINT"),  # ms since the epoch (batch max timestamp for BATCH)
    ("record_type", pa.int16(), "SMALLINT"),  # metadata record type; null for control records
    ("control_type", pa.int16(), "SMALLINT"),  # control record type; null for metadata records
    ("type_name", pa.string(), "STRING"),  # TOPIC_RECORD, ..., LEADER_CHANGE, SNAPSHOT_HEADER
    ("version", pa.int16(), "SMALLINT"),
    ("payload", pa.string(), "STRING"),
    ("leader_epoch", pa.int32(), "INT"),
    ("last_offset_delta", pa.int32(), "INT"),
    ("records_count", pa.int32(), "INT"),
    ("batch_length", pa.int32(), "INT"),
    ("attributes", pa.int16(), "SMALLINT"),
    ("crc_ok", pa.bool_(), "BOOLEAN"),
    ("offsets_ok", pa.bool_(), "BOOLEAN"),  # record offset deltas are 0..n-1, lastOffsetDelta n-1
    ("control_types", pa.string(), "STRING"),  # control batches: the types of their records
    ("issue", pa.string(), "STRING"),
    ("detail", pa.string(), "STRING"),
    ("records_lost", pa.int32(), "INT"),
    ("bytes_lost", pa.int64(), "BIGINT"),
]
ARROW_SCHEMA = pa.schema([(name, t) for name, t, _ in COLUMNS])
SPARK_DDL = ", ".join(f"`{name}` {ddl}" for name, _, ddl in COLUMNS)
_TYPES = {name: t for name, t, _ in COLUMNS}

_INT32 = struct.Struct(">i")
_UINT32 = struct.Struct(">I")
_INT16 = struct.Struct(">h")
_INT64 = struct.Struct(">q")
_LOG_APPEND_TIME = 0x08

_dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), check_circular=False).encode

# --- record values ---------------------------------------------------------------------------

_TYPE_NAMES: dict[int, str] = {}
_CACHE: dict[bytes, tuple] = {}  # record value -> (type, version, type name, payload JSON)
_CACHE_LIMIT = 100_000
_CACHE_VALUE_BYTES = 256  # small values recur (NoOps, ISR changes, heartbeats): decode them once


_CLASSES: dict[int, type] = {}


def _record_class(record_type: int):
    cls = _CLASSES.get(record_type)
    if cls is None:
        cls = _CLASSES[record_type] = REGISTRY.record_class(record_type)
        _TYPE_NAMES[record_type] = kraft.record_type_name(cls.NAME)
    return cls


def decode_value(value) -> tuple[int, int, str, str]:
    """``(record type, version, type name, payload JSON)`` of a metadata record value.

    The same as ``kraft.decode_record_value`` (which it falls back to, for anything unusual and
    for the error), with the frame read inline when its three varints take a byte each."""
    if value is None:
        raise KafkaProtocolError("a metadata record with a null value")
    if len(value) >= 3 and value[0] == kraft.FRAME_VERSION and value[1] < 0x80 and value[2] < 0x80:
        record_type, version = value[1], value[2]
        try:
            cls = _record_class(record_type)
        except KeyError:
            cls = None
        if cls is not None and cls.LOWEST_VERSION <= version <= cls.HIGHEST_VERSION:
            message, end = cls.decode_from(value, version, 3)
            if end == len(value):
                return record_type, version, _TYPE_NAMES[record_type], _dumps(message.to_json(version))
    rec = kraft.decode_record_value(value)  # raises the precise DecodeError
    _record_class(rec.record_type)
    record_type = rec.record_type
    return record_type, rec.version, _TYPE_NAMES[record_type], _dumps(rec.message.to_json(rec.version))


def decode_control(key, value) -> tuple[int, int, str, str]:
    """``(control type, version, type name, payload JSON)`` of a control record."""
    rec = kraft.decode_control_record(key, value)
    if rec.message is None:  # ABORT / COMMIT marker: version int16, coordinatorEpoch int32
        version = _INT16.unpack_from(value, 0)[0]
        payload = _dumps({"version": version, "coordinatorEpoch": rec.coordinator_epoch})
        return rec.control_type, version, rec.type_name, payload
    return rec.control_type, 0, rec.type_name, _dumps(rec.message.to_json(0))


# --- reading the bytes -----------------------------------------------------------------------


# Hadoop's names for object stores -> the schemes pyarrow.fs knows
ARROW_SCHEMES = {"s3a": "s3", "s3n": "s3", "gcs": "gs"}


def arrow_uri(uri: str) -> str:
    scheme, sep, rest = uri.partition("://")
    return f"{ARROW_SCHEMES.get(scheme, scheme)}{sep}{rest}" if sep else uri


class Source:
    """The bytes of one file: a memory map of a local file, or windows read through pyarrow.fs."""

    def __init__(self, uri: str):
        self._file = self._remote = None
        self.buf: bytes | mmap.mmap = b""
        self.base = 0
        if is_local(uri):
            self._file = open(local_path(uri), "rb")
            self.size = os.fstat(self._file.fileno()).st_size
            if self.size:
                self.buf = mmap.mmap(self._file.fileno(), 0, access=mmap.ACCESS_READ)
        else:
            from pyarrow import fs as pafs

            filesystem, path = pafs.FileSystem.from_uri(arrow_uri(uri))
            self._remote = filesystem.open_input_file(path)
            self.size = self._remote.size()

    def view(self, pos: int, need: int):
        """``(buffer, base)``: a buffer holding file bytes [base, base + len) that covers
        [pos, min(size, pos + need))."""
        if self._remote is None:
            return self.buf, 0
        stop = min(self.size, pos + need)
        if self.base <= pos and stop <= self.base + len(self.buf):
            return self.buf, self.base
        length = min(self.size - pos, max(need, WINDOW))
        self.buf = self._remote.read_at(length, pos)
        self.base = pos
        return self.buf, self.base

    def close(self) -> None:
        if isinstance(self.buf, mmap.mmap):
            self.buf.close()
        self.buf = b""
        for f in (self._file, self._remote):
            if f is not None:
                f.close()


def _plausible_header(buf, rel: int, left: int) -> int:
    """The batch length if the bytes at ``rel`` look like a v2 batch header fitting in ``left``
    bytes (before checking its CRC), else -1."""
    if left < HEADER_SIZE or buf[rel + 16] != 2:
        return -1
    length = _INT32.unpack_from(buf, rel + 8)[0]
    if length < MIN_BATCH_LENGTH or LOG_OVERHEAD + length > left:
        return -1
    if _INT16.unpack_from(buf, rel + 21)[0] & ~0x7F:  # attribute bits Kafka does not use
        return -1
    if _INT32.unpack_from(buf, rel + 57)[0] < 0:  # records count
        return -1
    return length


def valid_start(src: Source, pos: int) -> bool:
    """A sound batch starts at ``pos``: a plausible header and a CRC that matches."""
    buf, base = src.view(pos, HEADER_SIZE)
    length = _plausible_header(buf, pos - base, src.size - pos)
    if length < 0:
        return False
    buf, base = src.view(pos, LOG_OVERHEAD + length)
    rel = pos - base
    stored = _UINT32.unpack_from(buf, rel + 17)[0]
    return crc32c(memoryview(buf)[rel + 21 : rel + LOG_OVERHEAD + length]) == stored


def sync(src: Source, pos: int) -> int:
    """The first position >= ``pos`` where a sound batch starts (the file size if none)."""
    size = src.size
    while pos + HEADER_SIZE <= size:
        buf, base = src.view(pos, WINDOW)
        i = buf.find(b"\x02", pos + 16 - base)
        if i < 0:
            if base + len(buf) >= size:
                return size
            pos = base + len(buf) - 16
            continue
        q = base + i - 16
        if q + HEADER_SIZE > size:
            return size
        if valid_start(src, q):
            return q
        pos = q + 1
    return size


def _header_facts(src: Source, pos: int) -> dict:
    """What can be read of a batch header at ``pos`` (for a damaged or cut batch)."""
    left = src.size - pos
    buf, base = src.view(pos, HEADER_SIZE)
    rel = pos - base
    facts = {}
    if left >= 8:
        facts["batch_offset"] = _INT64.unpack_from(buf, rel)[0]
    if left >= 12:
        facts["batch_length"] = _INT32.unpack_from(buf, rel + 8)[0]
    if left >= 16:
        facts["leader_epoch"] = _INT32.unpack_from(buf, rel + 12)[0]
    if left >= 27:
        facts["last_offset_delta"] = _INT32.unpack_from(buf, rel + 23)[0]
    if left >= HEADER_SIZE:
        facts["records_count"] = _INT32.unpack_from(buf, rel + 57)[0]
        facts["attributes"] = _INT16.unpack_from(buf, rel + 21)[0]
        facts["timestamp"] = _INT64.unpack_from(buf, rel + 35)[0]
    return facts


def _records_in(facts: dict) -> int | None:
    """Records a damaged batch held, from its header: the count, else lastOffsetDelta + 1."""
    count = facts.get("records_count")
    if count is not None and 0 <= count <= 1 << 24:
        return count
    delta = facts.get("last_offset_delta")
    if delta is not None and 0 <= delta < 1 << 24:
        return delta + 1
    return None


def walk(src: Source, start: int, end: int) -> Iterator[tuple]:
    """The batches a unit owns, as ``("batch", position, RecordBatch)`` or
    ``(issue, position, facts)`` for what cannot be read (see the module docstring)."""
    size = src.size
    pos = start if start == 0 else sync(src, start)
    while pos < size:
        if pos >= end and valid_start(src, pos):
            return  # the next unit's first batch
        left = size - pos
        length = -1
        if left >= LOG_OVERHEAD:
            buf, base = src.view(pos, LOG_OVERHEAD)
            length = _INT32.unpack_from(buf, pos - base + 8)[0]
        need = LOG_OVERHEAD + length if length >= MIN_BATCH_LENGTH else HEADER_SIZE
        buf, base = src.view(pos, need)
        rel = pos - base
        try:
            batch, after = decode_batch(buf, rel)
        except TruncatedBatchError:
            q = sync(src, pos + 1)
            if q >= size:
                yield "truncated tail", pos, {**_header_facts(src, pos), "bytes_lost": left,
                                               "detail": f"the file ends {left} bytes into a batch"}  # fmt: skip
                return
            yield "unreadable bytes", pos, {"bytes_lost": q - pos,
                                            "detail": f"batch length {length} runs past the end of the file"}  # fmt: skip
            pos = q
            continue
        except CorruptBatchError as exc:
            yield "corrupt batch", pos, {**_header_facts(src, pos), "bytes_lost": need, "crc_ok": False,
                                         "detail": exc.reason}  # fmt: skip
            pos += need
            continue
        except LogFormatError as exc:
            if length >= MIN_BATCH_LENGTH and need <= left and valid_start(src, pos):
                # sound framing and CRC, records that do not parse: skip the batch by its length
                yield "malformed batch", pos, {**_header_facts(src, pos), "bytes_lost": need, "crc_ok": True,
                                               "detail": exc.reason}  # fmt: skip
                pos += need
            else:
                q = sync(src, pos + 1)
                yield "unreadable bytes", pos, {"bytes_lost": q - pos, "detail": exc.reason}
                pos = q
            continue
        yield "batch", pos, batch
        pos += after - rel


# --- rows ------------------------------------------------------------------------------------


class _Columns:
    """Column lists for one kind of row; ``flush`` turns them into an Arrow record batch."""

    def __init__(self, kind: int, names: list[str]):
        self.kind = kind
        self.names = names
        self.cols = {n: [] for n in names}
        self.count = 0

    def flush(self, constants: dict) -> pa.RecordBatch | None:
        n = self.count
        if not n:
            return None
        constants = {**constants, "kind": self.kind}
        arrays = []
        for name, pa_type, _ in COLUMNS:
            values = self.cols.get(name)
            if values is not None:
                arrays.append(pa.array(values, pa_type))
            elif name in constants:
                arrays.append(pa.repeat(pa.scalar(constants[name], pa_type), n))
            else:
                arrays.append(pa.nulls(n, pa_type))
        for values in self.cols.values():
            values.clear()
        self.count = 0
        return pa.RecordBatch.from_arrays(arrays, schema=ARROW_SCHEMA)


RECORD_COLUMNS = ["position", "batch_offset", "offset", "timestamp", "record_type", "control_type",
                  "type_name", "version", "payload"]  # fmt: skip
BATCH_COLUMNS = ["position", "batch_offset", "timestamp", "leader_epoch", "last_offset_delta", "records_count",
                 "batch_length", "attributes", "crc_ok", "offsets_ok", "control_types"]  # fmt: skip
ISSUE_COLUMNS = ["position", "batch_offset", "offset", "timestamp", "leader_epoch", "last_offset_delta",
                 "records_count", "batch_length", "attributes", "crc_ok", "issue", "detail", "records_lost",
                 "bytes_lost", "payload"]  # fmt: skip


def decode_unit(unit: dict, batch_rows: int = BATCH_ROWS) -> Iterator[pa.RecordBatch]:
    """Arrow record batches (``ARROW_SCHEMA``) of all rows of one unit."""
    src = Source(unit["uri"])
    try:
        yield from _decode(src, unit, batch_rows)
    finally:
        src.close()


def _decode(src: Source, unit: dict, batch_rows: int) -> Iterator[pa.RecordBatch]:
    constants = {"cluster": unit["cluster"], "file": unit["file"], "file_kind": unit["kind"]}
    records = _Columns(RECORD, RECORD_COLUMNS)
    batches = _Columns(BATCH, BATCH_COLUMNS)
    issues = _Columns(ISSUE, ISSUE_COLUMNS)
    rc = records.cols
    r_position, r_batch_offset, r_offset, r_timestamp = rc["position"], rc["batch_offset"], rc["offset"], rc["timestamp"]
    r_type, r_control, r_name, r_version, r_payload = (rc["record_type"], rc["control_type"], rc["type_name"],
                                                       rc["version"], rc["payload"])  # fmt: skip
    bc = batches.cols
    ic = issues.cols
    cache = _CACHE
    cache_get = cache.get

    def issue(kind: str, position: int, facts: dict, **more) -> None:
        facts = {**facts, **more}
        for name in ISSUE_COLUMNS:
            ic[name].append(facts.get(name))
        ic["issue"][-1] = kind
        ic["position"][-1] = position
        issues.count += 1

    for what, position, item in walk(src, unit["start"], unit["end"]):
        if what != "batch":
            facts = item
            if what in ("corrupt batch", "malformed batch"):
                for name in BATCH_COLUMNS:
                    bc[name].append(facts.get(name))
                bc["position"][-1] = position
                bc["offsets_ok"][-1] = None
                batches.count += 1
            lost = _records_in(facts) if what != "unreadable bytes" else None
            issue(what, position, facts, records_lost=lost)
            continue
        batch = item
        recs = batch.records
        n = len(recs)
        base_offset = batch.base_offset
        offsets_ok = batch.last_offset_delta == n - 1 or (n == 0 and batch.last_offset_delta == 0)
        if batch.attributes & _LOG_APPEND_TIME:
            ts_base, ts_fixed = batch.max_timestamp, True
        else:
            ts_base, ts_fixed = batch.base_timestamp, False
        control_names = None
        if batch.is_control:
            names = []
            for index, rec in enumerate(recs):
                if rec.offset_delta != index:
                    offsets_ok = False
                offset = base_offset + rec.offset_delta
                timestamp = ts_base if ts_fixed else ts_base + rec.timestamp_delta
                try:
                    ctype, version, name, payload = decode_control(rec.key, rec.value)
                except (KafkaProtocolError, LogFormatError, ValueError, struct.error) as exc:
                    issue("undecodable record", position, {"batch_offset": base_offset, "offset": offset,
                          "timestamp": timestamp, "leader_epoch": batch.partition_leader_epoch,
                          "payload": None if rec.value is None else base64.b64encode(rec.value).decode(),
                          "detail": f"control record: {exc}"}, records_lost=1)  # fmt: skip
                    names.append("?")
                    continue
                names.append(name)
                r_position.append(position)
                r_batch_offset.append(base_offset)
                r_offset.append(offset)
                r_timestamp.append(timestamp)
                r_type.append(None)
                r_control.append(ctype)
                r_name.append(name)
                r_version.append(version)
                r_payload.append(payload)
                records.count += 1
            control_names = ",".join(names)
        else:
            index = 0
            for rec in recs:
                if rec.offset_delta != index:
                    offsets_ok = False
                index += 1
                value = rec.value
                hit = cache_get(value) if value is not None else None
                if hit is None:
                    try:
                        hit = decode_value(value)
                    except (KafkaProtocolError, ValueError, struct.error) as exc:
                        issue("undecodable record", position, {"batch_offset": base_offset,
                              "offset": base_offset + rec.offset_delta,
                              "timestamp": ts_base if ts_fixed else ts_base + rec.timestamp_delta,
                              "leader_epoch": batch.partition_leader_epoch,
                              "payload": None if value is None else base64.b64encode(value).decode(),
                              "detail": str(exc)}, records_lost=1)  # fmt: skip
                        continue
                    if len(value) <= _CACHE_VALUE_BYTES:
                        if len(cache) >= _CACHE_LIMIT:
                            cache.clear()
                        cache[value] = hit
                r_offset.append(base_offset + rec.offset_delta)
                r_timestamp.append(ts_base if ts_fixed else ts_base + rec.timestamp_delta)
                r_type.append(hit[0])
                r_version.append(hit[1])
                r_name.append(hit[2])
                r_payload.append(hit[3])
            added = len(r_offset) - len(r_position)
            if added:
                r_position.extend([position] * added)
                r_batch_offset.extend([base_offset] * added)
                r_control.extend([None] * added)
                records.count += added
        bc["position"].append(position)
        bc["batch_offset"].append(base_offset)
        bc["timestamp"].append(batch.max_timestamp)
        bc["leader_epoch"].append(batch.partition_leader_epoch)
        bc["last_offset_delta"].append(batch.last_offset_delta)
        bc["records_count"].append(n)
        bc["batch_length"].append(batch.batch_length)
        bc["attributes"].append(batch.attributes)
        bc["crc_ok"].append(True)
        bc["offsets_ok"].append(offsets_ok)
        bc["control_types"].append(control_names)
        batches.count += 1
        if records.count >= batch_rows:
            yield records.flush(constants)
        if batches.count >= batch_rows:
            yield batches.flush(constants)
    for columns in (records, batches, issues):
        out = columns.flush(constants)
        if out is not None:
            yield out


def decode_units(units, batch_rows: int = BATCH_ROWS) -> Iterator[pa.RecordBatch]:
    for unit in units:
        yield from decode_unit(unit, batch_rows)


def map_in_arrow(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    """The function given to ``DataFrame.mapInArrow``: unit rows in, decoded rows out."""
    for unit_batch in batches:
        for unit in unit_batch.to_pylist():
            yield from decode_unit(unit)
