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

``iter_json_records`` (from ``dump_json``) is this project's extension (``--json``): one JSON
object per record. This module drives the dump; ``dump_batches`` reads a file's batches and
``dump_lines`` writes the text of a batch and of a record.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from itertools import islice
from pathlib import Path
from typing import TextIO

from .. import registries
from ..log.header import ATTR_CONTROL, BatchHeader
from ..log.records import Record
from ..log.source import MappedFile
from ..registries import RegistryLike
from .dump_batches import (  # noqa: F401 (re-exported)
    NON_CONSECUTIVE_KEPT,
    FileSummary,
    StrPath,
    file_kind,
    heading,
    iter_file_batches,
    java_file_text,
)
from .dump_coordinators import coordinator_texts
from .dump_forms import (  # noqa: F401 (re-exported)
    CLUSTER_METADATA,
    COORDINATOR_DECODERS,
    DEFAULT_FORM,
    DEFAULT_RELEASE,
    ToolForm,
    tool_form,
)
from .dump_json import iter_json_records, json_line
from .dump_lines import (  # noqa: F401 (re-exported)
    batch_line,
    control_text,
    payload_text,
    record_line,
    timestamp_label,
)
from .jackson import has_float_fields, java_double, kafka_json  # noqa: F401 (re-exported)

# Record lines written to the output at once.
LINES_PER_WRITE = 1024


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
            text = record_line(record, header, label, offset)
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
    options = _Options(skip_record_metadata, as_json, max_bytes, form,
                       COORDINATOR_DECODERS.get(decoder), registry)  # fmt: skip
    status = 0
    summaries: list[tuple[StrPath, FileSummary]] = []
    for path in paths:
        summary = _dump_path(path, out, err, options)
        if summary is None:
            status = 1
            continue
        summaries.append((path, summary))
        if _report_problems(err, summary, options):
            status = 1
    if not as_json:
        for path, summary in summaries:
            if summary.non_consecutive:
                _write_gaps(err, path, summary, form)
    return status


@dataclass(frozen=True)
class _Options:
    """How ``dump`` was asked to show each file (``scope``: the coordinator the decoder names)."""

    skip_record_metadata: bool
    as_json: bool
    max_bytes: int | None
    form: ToolForm
    scope: str | None
    registry: RegistryLike


def _dump_path(path: StrPath, out: TextIO, err: TextIO, options: _Options) -> FileSummary | None:
    """Dump one file in the form asked; None (the reason on ``err``) when it cannot be read."""
    if file_kind(Path(path).name) is None:
        if not options.as_json:  # Kafka names every file before it looks at its suffix
            out.write(f"Dumping {java_file_text(path)}\n")
            out.flush()
        err.write(f"Ignoring unknown file {java_file_text(path)}\n")
        return None
    registry = options.registry
    try:
        reading = registries.resolve(
            registry if registry is not None else registries.for_paths([path])
        )
    except ValueError as exc:  # a marker naming no registry we ship
        err.write(f"Cannot read {java_file_text(path)}: {exc}\n")
        return None
    max_bytes, scope = options.max_bytes, options.scope
    try:
        if not options.as_json:
            return dump_file(path, out, skip_record_metadata=options.skip_record_metadata,
                             max_bytes=max_bytes, form=options.form, scope=scope, registry=reading)  # fmt: skip
        summary = FileSummary(java_file_text(path))
        records = iter_json_records(
            path, max_bytes=max_bytes, summary=summary, scope=scope, registry=reading
        )
        for obj in records:
            out.write(json_line(obj) + "\n")
        return summary
    except BrokenPipeError:
        raise
    except OSError as exc:
        err.write(f"Cannot read {java_file_text(path)}: {exc.strerror or exc}\n")
        return None


def _report_problems(err: TextIO, summary: FileSummary, options: _Options) -> bool:
    """Say on ``err`` what went wrong in a file the dump does not show; True if anything did."""
    for problem in summary.errors:
        err.write(f"Error in {summary.path}: {problem}\n")
    if summary.invalid_batches:  # shown as "isvalid: false"; said once here, with where
        err.write(f"Error in {summary.path}: {summary.invalid_batches} batch(es) fail their CRC check, "
                  f"the first at position {summary.first_invalid_position}\n")  # fmt: skip
    if summary.trailing_bytes and (options.max_bytes is not None or options.as_json):
        # (the text dump says it itself, unless --max-bytes cut the file)
        err.write(
            f"Error in {summary.path}: {summary.trailing_bytes} bytes at the end are no complete batch\n"
        )
    return bool(
        summary.errors
        or summary.invalid_batches
        or summary.undecoded_records
        or summary.trailing_bytes
    )


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
