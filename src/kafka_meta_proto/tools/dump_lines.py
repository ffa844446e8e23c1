"""The dump's text for one batch and one record, as Kafka's ``DumpLogSegments`` writes it: the
batch line, a record's metadata, a metadata record's payload and a control record's forms."""

from __future__ import annotations

from typing import Any

from .. import kraft
from ..errors import DecodeError
from ..log.control import (
    CONTROL_TYPE_NAMES,
    KRAFT_VERSION,
    KRAFT_VOTERS,
    LEADER_CHANGE,
    SNAPSHOT_FOOTER,
    SNAPSHOT_HEADER,
    parse_control_key,
)
from ..log.header import (
    ATTR_COMPRESSION,
    ATTR_CONTROL,
    ATTR_DELETE_HORIZON,
    ATTR_TIMESTAMP_TYPE,
    ATTR_TRANSACTIONAL,
    BatchHeader,
)
from ..log.records import Record
from ..messages import REGISTRY
from ..registries import RegistryLike
from .dump_forms import DEFAULT_FORM, ToolForm
from .jackson import has_float_fields, kafka_json

_CODEC_NAMES = {0: "none", 1: "gzip", 2: "snappy", 3: "lz4", 4: "zstd"}
_CONTROL_LABELS: dict[int, str] = {  # Kafka's prefix for each KRaft control record type
    LEADER_CHANGE: " LeaderChange: ",
    SNAPSHOT_HEADER: " SnapshotHeader ",
    SNAPSHOT_FOOTER: " SnapshotFooter ",
    KRAFT_VERSION: " KRaftVersion ",
    KRAFT_VOTERS: " KRaftVoters ",
}
INT32_MAX = 2**31 - 1


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


def header_key_text(name: str) -> str:
    """A record header key as Kafka's tool prints it: decoded as UTF-8 with each invalid sequence
    replaced by U+FFFD (Java's ``new String(bytes, UTF_8)``), so it can always be written."""
    if name.isascii():
        return name
    return name.encode("utf-8", "surrogateescape").decode("utf-8", "replace")


def record_line(record: Record, header: BatchHeader, label: str, offset: int) -> str:
    """A record's metadata as Kafka prints it, up to what follows (payload or control text)."""
    key, value = record.key, record.value
    base_sequence = header.base_sequence
    sequence = -1 if base_sequence < 0 else _increment_sequence(base_sequence, record.offset_delta)
    headers = record.headers
    names = ",".join([header_key_text(name) for name, _ in headers]) if headers else ""
    return (
        f"| offset: {offset} {label}: {record_timestamp(header, record)} "
        f"keySize: {-1 if key is None else len(key)} "
        f"valueSize: {-1 if value is None else len(value)} "
        f"sequence: {sequence} headerKeys: [{names}]"
    )


def record_timestamp(header: BatchHeader, record: Record) -> int:
    """The record's timestamp (the batch's append time under LogAppendTime)."""
    timestamp: int  # a namedtuple's fields are untyped
    if header.attributes & ATTR_TIMESTAMP_TYPE:
        timestamp = header.max_timestamp
    else:
        timestamp = header.base_timestamp + record.timestamp_delta
    return timestamp
