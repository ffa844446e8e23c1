"""Dump KRaft metadata segments and snapshots as Kafka's ``kafka-dump-log --cluster-metadata-decoder`` does,
and the segments of the coordinators' topics as its ``--offsets-decoder`` and friends do.

The text form mirrors ``DumpLogSegments`` of the Kafka release ``form`` names (``dump_forms``; by
default 4.1/4.2, the last Scala versions of the tool), line for line::

    Dumping <file as given>
    Log starting offset: <base offset from the name>          (a *.log segment)
    Snapshot end offset: <offset>, epoch: <epoch>             (a <offset>-<epoch>.checkpoint)
    KRaft bootstrap snapshot                                  (bootstrap.checkpoint)
    baseOffset: .. lastOffset: .. count: .. baseSequence: .. lastSequence: .. producerId: ..
        producerEpoch: .. partitionLeaderEpoch: .. isTransactional: .. isControl: ..
        deleteHorizonMs: OptionalLong.empty position: .. CreateTime: .. size: .. magic: 2
        compresscodec: none crc: .. isvalid: true                        (one line per batch)
    | offset: .. CreateTime: .. keySize: .. valueSize: .. sequence: .. headerKeys: [] payload: {...}
    | offset: .. CreateTime: .. keySize: 4 valueSize: .. sequence: .. headerKeys: [] LeaderChange: {...}
    Found <n> invalid bytes at the end of <file name>          (a truncated tail)

Record payloads are ``{"type":"TOPIC_RECORD","version":0,"data":{...}}`` with ``data`` in Kafka's
JSON form, written compactly as Jackson writes it; a value that does not decode becomes
``Error at <offset>, skipping. <reason>``. Control records show Kafka's own decoded forms
(``endTxnMarker: COMMIT coordinatorEpoch: 0``, ``LeaderChange: {...}``, ``SnapshotHeader {...}``,
``SnapshotFooter {...}``, ``KRaftVersion {...}``, ``KRaftVoters {...}``, ``controlType: UNKNOWN(9)``).
With ``skip_record_metadata`` a record line is just `` payload: {...}`` (and an empty line for a
control record), as Kafka prints it. Non-consecutive record offsets are reported on stderr after
all files, as Kafka does.

Where Kafka would stop with a stack trace (a batch whose records cannot be parsed, a bad magic or
length field), this module prints the batch line if the header can be read, reports the problem on
stderr and goes on with the next batch when the length field allows it, else with the next file.

``iter_json_records`` is this project's extension (``--json``): one JSON object per record.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Callable, Iterable, Iterator
import itertools
from itertools import islice
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO, Union

from . import kraft, registries
from .coordinator_records import decode_coordinator_record
from .dump_coordinators import coordinator_texts
from .dump_forms import (  # noqa: F401 (re-exported)
    CLUSTER_METADATA,
    COORDINATOR_DECODERS,
    DEFAULT_FORM,
    DEFAULT_RELEASE,
    ToolForm,
    tool_form,
)
from .errors import DecodeError
from .jackson import _dumps, has_float_fields, java_double, kafka_json  # noqa: F401 (re-exported)
from .log.control import (
    CONTROL_TYPE_NAMES,
    KRAFT_VERSION,
    KRAFT_VOTERS,
    LEADER_CHANGE,
    SNAPSHOT_FOOTER,
    SNAPSHOT_HEADER,
    parse_control_key,
)
from .log.errors import LogFormatError, TruncatedBatchError
from .log.header import (
    ATTR_COMPRESSION,
    ATTR_CONTROL,
    ATTR_DELETE_HORIZON,
    ATTR_TIMESTAMP_TYPE,
    ATTR_TRANSACTIONAL,
    BatchHeader,
)
from .log.names import BOOTSTRAP_CHECKPOINT, leading_offset, parse_snapshot_name, suffix_kind
from .log.records import Record
from .log.scanning import BatchView, Damage, scan
from .log.source import ByteSource, MappedFile
from .messages import REGISTRY
from .registries import RegistryLike

_CODEC_NAMES = {0: "none", 1: "gzip", 2: "snappy", 3: "lz4", 4: "zstd"}
_CONTROL_LABELS: dict[int, str] = {  # Kafka's prefix for each KRaft control record type
    LEADER_CHANGE: " LeaderChange: ",
    SNAPSHOT_HEADER: " SnapshotHeader ",
    SNAPSHOT_FOOTER: " SnapshotFooter ",
    KRAFT_VERSION: " KRaftVersion ",
    KRAFT_VOTERS: " KRaftVoters ",
}
BOOTSTRAP_FILENAME = BOOTSTRAP_CHECKPOINT
INT32_MAX = 2**31 - 1
# A file's path as the functions here take it.
StrPath = Union[str, "os.PathLike[str]"]


# --- what one batch and one record look like in the dump ------------------------------------


def _increment_sequence(sequence: int, increment: int) -> int:
    """Kafka's DefaultRecordBatch.incrementSequence: wraps past Integer.MAX_VALUE to 0."""
    if sequence > INT32_MAX - increment:
        return increment - (INT32_MAX - sequence) - 1
    return sequence + increment


def timestamp_label(header: BatchHeader) -> str:
    return "LogAppendTime" if header.attributes & ATTR_TIMESTAMP_TYPE else "CreateTime"


def batch_line(header: BatchHeader, position: int, valid: bool) -> str:
    """Kafka's line for a batch; ``valid``: its CRC matches."""
    base_sequence = header.base_sequence
    last_sequence = (
        -1 if base_sequence == -1 else _increment_sequence(base_sequence, header.last_offset_delta)
    )
    attributes = header.attributes
    horizon = (
        f"OptionalLong[{header.base_timestamp}]"
        if attributes & ATTR_DELETE_HORIZON
        else "OptionalLong.empty"
    )
    codec = attributes & ATTR_COMPRESSION
    codec_name = _CODEC_NAMES.get(codec, f"unknown({codec})")
    return (
        f"baseOffset: {header.base_offset} lastOffset: {header.base_offset + header.last_offset_delta} "
        f"count: {header.records_count} baseSequence: {base_sequence} lastSequence: {last_sequence} "
        f"producerId: {header.producer_id} producerEpoch: {header.producer_epoch} "
        f"partitionLeaderEpoch: {header.partition_leader_epoch} "
        f"isTransactional: {'true' if attributes & ATTR_TRANSACTIONAL else 'false'} "
        f"isControl: {'true' if attributes & ATTR_CONTROL else 'false'} deleteHorizonMs: {horizon} "
        f"position: {position} {timestamp_label(header)}: {header.max_timestamp} size: {header.size} "
        f"magic: {header.magic} compresscodec: {codec_name} crc: {header.crc} "
        f"isvalid: {'true' if valid else 'false'}"
    )


def control_text(
    key: bytes | None, value: bytes | None, form: ToolForm = DEFAULT_FORM
) -> tuple[str, dict[str, Any] | None]:
    """Kafka's text for a control record, and (type, version, data) for the JSON form."""
    try:
        _, type_id = parse_control_key(key)
    except DecodeError as exc:
        return f" controlType: <{exc.reason}>", None
    name = CONTROL_TYPE_NAMES.get(type_id)
    if type_id == LEADER_CHANGE and not form.leader_change_json:
        return f" controlType: {name}({type_id})", {"type": name}  # not decoded before Kafka 4.1
    if name is None:
        return f" controlType: UNKNOWN({type_id})", {
            "type": "UNKNOWN",
            "version": None,
            "data": None,
        }
    try:
        control = kraft.decode_control_record(key, value)
    except DecodeError as exc:
        return f" controlType: {name}({type_id}) error: {exc}", {"type": name, "error": str(exc)}
    data = control.to_json()
    if control.message is None:  # ABORT / COMMIT marker
        text = f" endTxnMarker: {name} coordinatorEpoch: {control.coordinator_epoch}"
    else:
        text = _CONTROL_LABELS[type_id] + kafka_json(data)
    return text, {"type": name, "version": control.json_version, "data": data}


def payload_text(value: bytes | None, offset: int, registry: RegistryLike = None) -> str:
    """Kafka's ClusterMetadataLogMessageParser output for a metadata record value."""
    try:
        if value is None:
            raise DecodeError("record has a null value")
        record = kraft.decode_record_value(value, registry or REGISTRY)
        data = record.message.to_json(record.version)
    except DecodeError as exc:
        return f"Error at {offset}, skipping. {exc}"
    data_text = kafka_json(data, has_float_fields(type(record.message)))
    return f'{{"type":"{record.type_name}","version":{record.version},"data":{data_text}}}'


# --- files --------------------------------------------------------------------------------


def java_file_text(path: StrPath) -> str:
    """How java.io.File prints a path: repeated separators collapsed, no trailing separator."""
    text = re.sub(r"/+", "/", str(path))
    return text[:-1] if len(text) > 1 and text.endswith("/") else text


def file_kind(name: str) -> str | None:
    """``log`` or ``checkpoint`` by the suffix after the last dot (as Kafka picks), else None."""
    return suffix_kind(name)


def heading(path: Path) -> str | None:
    """The line Kafka prints after ``Dumping``: the segment's start or the snapshot's id."""
    name = path.name
    kind = file_kind(name)
    if kind == "log":
        start = leading_offset(name)
        return f"Log starting offset: {start}" if start is not None else None
    if kind == "checkpoint":
        if name == BOOTSTRAP_FILENAME:
            return "KRaft bootstrap snapshot"
        snapshot_id = parse_snapshot_name(name)
        if snapshot_id is not None:
            return f"Snapshot end offset: {snapshot_id[0]}, epoch: {snapshot_id[1]}"
    return None


@dataclass
class FileSummary:
    """What dumping one file found."""

    path: str
    batches: int = 0
    records: int = 0
    invalid_batches: int = 0  # stored CRC does not match
    first_invalid_position: int | None = None
    undecoded_records: int = 0  # payloads printed as "Error at ..."
    trailing_bytes: int = 0
    errors: list[str] = field(default_factory=list)
    # The first NON_CONSECUTIVE_KEPT pairs; non_consecutive_count counts them all.
    non_consecutive: list[tuple[int, int]] = field(default_factory=list)
    non_consecutive_count: int = 0
    last_offset: int = -1  # of the last record dumped


# A batch counting at most this many records, whose keys and values come to at most EAGER_BYTES,
# is read whole before it is shown (a batch whose records do not parse shows none of them); a
# larger one is shown one record at a time as it is read (a compressed one decompressed a piece
# at a time), so memory does not grow with the batch (its records up to a parse error are shown).
EAGER_RECORDS = 4096
EAGER_BYTES = 16 << 20
# Non-consecutive offset pairs kept for the report on stderr (a hostile batch can hold millions).
NON_CONSECUTIVE_KEPT = 1000
# Record lines written to the output at once.
LINES_PER_WRITE = 1024


def iter_file_batches(
    source: ByteSource, summary: FileSummary
) -> Iterator[tuple[int, BatchHeader, bool, Iterable[Record] | None]]:
    """``(position, header, CRC valid, records or None)`` for each batch, as Kafka's tool shows them.

    The records are a list for a batch of at most EAGER_RECORDS records (and EAGER_BYTES of keys
    and values), else an iterator reading them one at a time (a parse error ends it, its problem in ``summary.errors``): use them before
    asking for the next batch.

    dump-log's policy over the scan: a batch whose CRC does not match is shown with its records,
    as Kafka shows it; a batch whose records cannot be read comes with None, its problem in
    ``summary.errors``; at bytes that are no batch, or a batch running past the end, the dump of
    the file stops (``summary.trailing_bytes``), as Kafka's does. A batch cut by the source's
    limit (``--max-bytes``) in a file that holds more ends the dump without a problem.
    """
    for item in scan(source):
        view: BatchView
        if isinstance(item, Damage):
            if item.view is None:  # truncated, or unreadable
                truncated = isinstance(item.error, TruncatedBatchError)
                if not truncated:
                    summary.errors.append(f"position {item.position}: {item.error.reason}")
                if truncated and source.size < getattr(source, "file_size", source.size):
                    # The cut of --max-bytes fell inside this batch: the dump ends before it,
                    # as Kafka's does, and that is no damage (the file goes on).
                    return
                summary.trailing_bytes = source.size - item.position
                return
            view, valid = item.view, False
        else:
            view, valid = item, True
        records: Iterable[Record] | None
        if view.header.records_count > EAGER_RECORDS:
            records = _streamed_records(view.records, summary, view.position)
        else:
            records = _eager_records(view, summary)
        summary.batches += 1
        if not valid:
            summary.invalid_batches += 1
            if summary.first_invalid_position is None:
                summary.first_invalid_position = view.position
        yield view.position, view.header, valid, records


def _streamed_records(
    records: Callable[[], Iterable[Record]], summary: FileSummary, position: int
) -> Iterator[Record]:
    """``records()``'s records, a parse error ending them (noted in ``summary``)."""
    try:
        yield from records()
    except LogFormatError as exc:
        summary.errors.append(f"position {position}: {exc.reason}")


def _eager_records(view: BatchView, summary: FileSummary) -> Iterable[Record] | None:
    """A small batch's records as a list (None, its problem noted, if they do not parse); past
    EAGER_BYTES of keys and values, the ones read and then the rest streamed."""
    read: list[Record] = []
    size = 0
    try:
        records = view.records()
        for record in records:
            read.append(record)
            size += len(record.key or b"") + len(record.value or b"")
            if size > EAGER_BYTES:
                rest = _streamed_records(lambda: records, summary, view.position)
                return itertools.chain(read, rest)
    except LogFormatError as exc:
        summary.errors.append(f"position {view.position}: {exc.reason}")
        return None
    return read


def header_key_text(name: str) -> str:
    """A record header key as Kafka's tool prints it: decoded as UTF-8 with each invalid sequence
    replaced by U+FFFD (Java's ``new String(bytes, UTF_8)``), so it can always be written."""
    if name.isascii():
        return name
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def _record_line(record: Record, header: BatchHeader, label: str, offset: int) -> str:
    """A record's metadata as Kafka prints it, up to what follows (payload or control text)."""
    key, value = record.key, record.value
    base_sequence = header.base_sequence
    sequence = -1 if base_sequence < 0 else _increment_sequence(base_sequence, record.offset_delta)
    headers = record.headers
    names = ",".join([header_key_text(name) for name, _ in headers]) if headers else ""
    return (
        f"| offset: {offset} {label}: {_timestamp(header, record)} "
        f"keySize: {-1 if key is None else len(key)} "
        f"valueSize: {-1 if value is None else len(value)} "
        f"sequence: {sequence} headerKeys: [{names}]"
    )


def _timestamp(header: BatchHeader, record: Record) -> int:
    """The record's timestamp (the batch's append time under LogAppendTime)."""
    timestamp: int  # a namedtuple's fields are untyped
    if header.attributes & ATTR_TIMESTAMP_TYPE:
        timestamp = header.max_timestamp
    else:
        timestamp = header.base_timestamp + record.timestamp_delta
    return timestamp


def _note_gap(summary: FileSummary, last_offset: int, offset: int) -> None:
    summary.non_consecutive_count += 1
    if len(summary.non_consecutive) < NON_CONSECUTIVE_KEPT:
        summary.non_consecutive.append((last_offset, offset))


def _batch_lines(
    header: BatchHeader,
    records: Iterable[Record],
    summary: FileSummary,
    skip_record_metadata: bool,
    form: ToolForm = DEFAULT_FORM,
    scope: str | None = None,
    registry: RegistryLike = None,
) -> Iterator[str]:
    """The lines of a batch's records, one at a time (``summary.last_offset`` follows them).

    ``scope``: the coordinator whose records these are (``--offsets-decoder`` and the like), or
    None for cluster metadata, read with ``registry`` (default Kafka's)."""
    base_offset = header.base_offset
    label = timestamp_label(header)
    control = bool(header.attributes & ATTR_CONTROL)
    last_offset = summary.last_offset
    # Kafka's Java tool (4.3 on) compares even the first record of a file with offset -1.
    check_first = form.java_tool
    for record in records:
        summary.records += 1
        offset = base_offset + record.offset_delta
        if offset != last_offset + 1 and (last_offset != -1 or check_first):
            _note_gap(summary, last_offset, offset)
        last_offset = summary.last_offset = offset
        if skip_record_metadata:
            if control:
                yield ""
                continue
            text = ""
            lead = "| " if form.java_tool else " "
        else:
            text = _record_line(record, header, label, offset)
            if control:
                shown, described = control_text(record.key, record.value, form)
                if described is None or described.get("error") or described["type"] == "UNKNOWN":
                    summary.undecoded_records += 1
                yield text + shown
                continue
            lead = " "
        if scope is None:
            payload = payload_text(record.value, offset, registry)
            if payload.startswith("Error at "):
                summary.undecoded_records += 1
            yield f"{text}{lead}payload: {payload}"
            continue
        key_text, value_text, decoded = coordinator_texts(
            scope, record.key, record.value, offset, form
        )
        if not decoded:
            summary.undecoded_records += 1
        if skip_record_metadata:
            lead = "| "  # every release indents a key that starts the line
        line = f"{text}{lead}key: {key_text}"
        yield line if value_text is None else f"{line} payload: {value_text}"


def dump_file(
    path: StrPath,
    out: TextIO,
    *,
    skip_record_metadata: bool = False,
    max_bytes: int | None = None,
    form: ToolForm = DEFAULT_FORM,
    scope: str | None = None,
    registry: RegistryLike = None,
) -> FileSummary:
    """Write Kafka's dump of one segment or snapshot file to ``out`` (a text stream), in the
    form of Kafka release ``form``; ``scope`` names the coordinator whose records the file holds
    (None: cluster metadata, read with ``registry``, default Kafka's)."""
    shown = java_file_text(path)
    path = Path(path)
    summary = FileSummary(shown)
    write = out.write
    write(f"Dumping {shown}\n")
    line = heading(path)
    if line is not None:
        write(line + "\n")
    elif file_kind(path.name) is not None:
        summary.errors.append(f"cannot read an offset from the file name {path.name!r}")
    with MappedFile(path, max_bytes) as source:
        for position, header, valid, records in iter_file_batches(source, summary):
            write(batch_line(header, position, valid) + "\n")
            if records is None:
                continue
            lines = _batch_lines(
                header, records, summary, skip_record_metadata, form, scope, registry
            )
            if type(records) is list and len(records) <= LINES_PER_WRITE:
                if records:
                    write("\n".join(lines) + "\n")
                continue
            for chunk in iter(lambda: list(islice(lines, LINES_PER_WRITE)), []):
                write("\n".join(chunk) + "\n")
        if summary.trailing_bytes and max_bytes is None:
            write(f"Found {summary.trailing_bytes} invalid bytes at the end of {path.name}\n")
    return summary


def iter_json_records(
    path: StrPath,
    *,
    max_bytes: int | None = None,
    summary: FileSummary | None = None,
    scope: str | None = None,
    registry: RegistryLike = None,
) -> Iterator[dict[str, Any]]:
    """One dict per record of a segment or snapshot (the ``--json`` form).

    Keys: ``file``, ``position`` (of the batch), ``batchBaseOffset``, ``offset``, ``timestamp``,
    ``leaderEpoch``, ``control``, ``crcValid``, ``type``, ``version``, ``data`` (Kafka's JSON form,
    unknown tagged fields kept under ``_unknownTaggedFields``) and ``error`` (None, or why the
    value did not decode; ``type``, ``version`` and ``data`` are then None).

    With ``scope`` (a coordinator's records, as ``COORDINATOR_DECODERS`` names them) ``type`` is
    the record type's name (``OffsetCommit``, ``GroupMetadata``, ``TransactionLog``...),
    ``version`` the value's version and ``data`` ``{"key": {...}, "value": {...}}`` (the value
    None for a tombstone).
    """
    shown = java_file_text(path)
    summary = summary if summary is not None else FileSummary(shown)
    with MappedFile(Path(path), max_bytes) as source:
        for position, header, valid, records in iter_file_batches(source, summary):
            base_offset = header.base_offset
            epoch = header.partition_leader_epoch
            control = header.is_control
            for record in records or ():
                summary.records += 1
                obj: dict[str, Any] = {
                    "file": shown,
                    "position": position,
                    "batchBaseOffset": base_offset,
                    "offset": base_offset + record.offset_delta,
                    "timestamp": _timestamp(header, record),
                    "leaderEpoch": epoch,
                    "control": control,
                    "crcValid": valid,
                }
                if scope is None or control:
                    payload = _json_payload(record, control, summary, registry)
                else:
                    payload = _json_coordinator_payload(scope, record, summary)
                obj["type"], obj["version"], obj["data"], obj["error"] = payload
                yield obj


def _json_coordinator_payload(
    scope: str, record: Record, summary: FileSummary
) -> tuple[str | None, int | None, dict[str, Any] | None, str | None]:
    """``type``, ``version``, ``data`` and ``error`` of a coordinator's record in the --json form."""
    try:
        if record.key is None:
            raise DecodeError("the record has no key")
        decoded = decode_coordinator_record(scope, record.key, record.value)
        data: dict[str, Any] = {
            "key": decoded.key.to_json(decoded.key.LOWEST_VERSION),
            "value": None,
        }
        if decoded.value is not None and decoded.value_version is not None:
            data["value"] = decoded.value.to_json(decoded.value_version)
    except DecodeError as exc:
        summary.undecoded_records += 1
        return None, None, None, str(exc)
    return decoded.key.NAME.removesuffix("Key"), decoded.value_version, data, None


def _json_payload(
    record: Record, control: bool, summary: FileSummary, registry: RegistryLike = None
) -> tuple[str | None, int | None, Any, str | None]:
    """``type``, ``version``, ``data`` and ``error`` of a record in the --json form."""
    kind: str | None = None
    version: int | None = None
    data: Any = None  # the record's JSON form
    error: str | None = None
    if control:
        described = control_text(record.key, record.value)[1]
        if described is None:
            error = "malformed control record key"
        else:
            kind, version, data = (
                described["type"],
                described.get("version"),
                described.get("data"),
            )
            error = described.get("error")
            if kind == "UNKNOWN":
                error = "unknown control record type"
        if error:
            summary.undecoded_records += 1
    else:
        try:
            if record.value is None:
                raise DecodeError("record has a null value")
            decoded = kraft.decode_record_value(record.value, registry or REGISTRY)
            kind, version = decoded.type_name, decoded.version
            data = decoded.message.to_json(decoded.version)
        except DecodeError as exc:
            error = str(exc)
            summary.undecoded_records += 1
    return kind, version, data, error


def _json_line(obj: dict[str, Any]) -> str:
    try:
        return _dumps(obj)
    except ValueError:  # NaN / infinity: write them as Kafka's JSON form does, as strings
        return json.dumps(_nan_to_text(obj), ensure_ascii=False, separators=(",", ":"))


def _nan_to_text(obj: Any) -> Any:
    if isinstance(obj, float) and (obj != obj or obj in (float("inf"), float("-inf"))):
        return "NaN" if obj != obj else ("Infinity" if obj > 0 else "-Infinity")
    if isinstance(obj, dict):
        return {k: _nan_to_text(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_nan_to_text(v) for v in obj]
    return obj


def java_absolute_path(path: StrPath) -> str:
    """How java.io.File's getAbsolutePath prints a path: a relative one joined to the working
    directory (as the system gives it, links resolved) with ``.`` and ``..`` kept as written;
    nothing is resolved or normalised lexically (that could name another file through a link)."""
    text = java_file_text(path)
    return text if text.startswith("/") else java_file_text(f"{os.getcwd()}/{text}")


def dump(
    paths: Iterable[StrPath],
    out: TextIO | None = None,
    err: TextIO | None = None,
    *,
    skip_record_metadata: bool = False,
    as_json: bool = False,
    max_bytes: int | None = None,
    form: ToolForm = DEFAULT_FORM,
    decoder: str = CLUSTER_METADATA,
    registry: RegistryLike = None,
) -> int:
    """Dump every file in turn; 0 when all were read completely, 1 when any had a problem.

    A CRC mismatch, a record that does not decode or a truncated tail is shown in the dump and
    makes the result 1; so does a file that cannot be opened (reported on ``err``). ``form``:
    the Kafka release whose text to write (``tool_form("3.9")``); ``decoder``: what the records
    hold, ``CLUSTER_METADATA`` or a key of ``COORDINATOR_DECODERS`` (``"offsets"`` for
    ``__consumer_offsets``, ``"transaction-log"`` for ``__transaction_state``...); ``registry``:
    the one to read metadata records with (a registry or a shipped one's name), default the one a
    file's marker names (``registries.MARKER``), else Kafka's.
    """
    out = out if out is not None else sys.stdout
    err = err if err is not None else sys.stderr
    if decoder != CLUSTER_METADATA and decoder not in COORDINATOR_DECODERS:
        raise ValueError(f"unknown decoder {decoder!r}")
    scope = COORDINATOR_DECODERS.get(decoder)
    status = 0
    summaries: list[tuple[StrPath, FileSummary]] = []
    for path in paths:
        name = Path(path).name
        if file_kind(name) is None:
            if not as_json:  # Kafka names every file before it looks at its suffix
                out.write(f"Dumping {java_file_text(path)}\n")
                out.flush()
            err.write(f"Ignoring unknown file {java_file_text(path)}\n")
            status = 1
            continue
        try:
            reading = registries.resolve(
                registry if registry is not None else registries.for_paths([path])
            )
        except ValueError as exc:  # a marker naming no registry we ship
            err.write(f"Cannot read {java_file_text(path)}: {exc}\n")
            status = 1
            continue
        try:
            if as_json:
                summary = FileSummary(java_file_text(path))
                records = iter_json_records(
                    path, max_bytes=max_bytes, summary=summary, scope=scope, registry=reading
                )
                for obj in records:
                    out.write(_json_line(obj) + "\n")
            else:
                summary = dump_file(path, out, skip_record_metadata=skip_record_metadata,
                                    max_bytes=max_bytes, form=form, scope=scope, registry=reading)  # fmt: skip
        except BrokenPipeError:
            raise
        except OSError as exc:
            err.write(f"Cannot read {java_file_text(path)}: {exc.strerror or exc}\n")
            status = 1
            continue
        summaries.append((path, summary))
        for problem in summary.errors:
            err.write(f"Error in {summary.path}: {problem}\n")
        if summary.invalid_batches:  # shown as "isvalid: false"; said once here, with where
            err.write(f"Error in {summary.path}: {summary.invalid_batches} batch(es) fail their CRC check, "
                      f"the first at position {summary.first_invalid_position}\n")  # fmt: skip
        if summary.trailing_bytes and (max_bytes is not None or as_json):  # not said in the dump
            err.write(
                f"Error in {summary.path}: {summary.trailing_bytes} bytes at the end are no complete batch\n"
            )
        if (
            summary.errors
            or summary.invalid_batches
            or summary.undecoded_records
            or summary.trailing_bytes
        ):
            status = 1
    if not as_json:
        for path, summary in summaries:
            if summary.non_consecutive:
                _write_gaps(err, path, summary, form)
    return status


def _write_gaps(err: TextIO, path: StrPath, summary: FileSummary, form: ToolForm) -> None:
    """Kafka's report of a file's non-consecutive offsets: the Scala tool lists the newest pair
    first; the Java tool (4.3 on) keeps one pair per preceding offset, in increasing order."""
    err.write(f"Non-consecutive offsets in {java_absolute_path(path)}\n")
    pairs = summary.non_consecutive
    if form.java_tool:
        pairs = sorted(dict(pairs).items())
    else:
        pairs = list(reversed(pairs))
    for first, second in pairs:
        err.write(f"  {first} is followed by {second}\n")
    more = summary.non_consecutive_count - len(summary.non_consecutive)
    if more:
        err.write(f"  ... and {more} more after those\n")
