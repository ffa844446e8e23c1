"""dump-log's ``--json`` form, this project's extension: one JSON object per record."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .. import kraft
from ..kraft.coordinator_records import decode_coordinator_record
from ..errors import DecodeError
from ..log.records import Record
from ..log.source import MappedFile
from ..messages import REGISTRY
from ..registries import RegistryLike
from .dump_batches import FileSummary, StrPath, iter_file_batches, java_file_text
from .dump_lines import control_text, record_timestamp
from .jackson import _dumps


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
                    "timestamp": record_timestamp(header, record),
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


def json_line(obj: dict[str, Any]) -> str:
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
