"""How the simulation writes its metadata log: each event's records as one batch, NoOps, the
snapshot of the image."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, BinaryIO, cast

from .. import kraft
from ..log.names import METADATA_LOG_DIR, snapshot_name
from ..log.plain_batch import encode_plain_batch, frame_plain_records
from ..log.snapshot_writer import write_snapshot as write_snapshot_file
from .config import _Room
from .model import (
    NOOP_VALUE,
    V_PARTITION_CHANGE,
    PartitionChangeRecord,
    SnapshotFooterRecord,
    SnapshotHeaderRecord,
    Topic,
)
from .faults import corrupt, due
from .image_records import image_records

# One record, offset delta 0, holding the NoOpRecord: the commonest batch of a quiet metadata log.
_NOOP_RECORDS = b"\x14\x00\x00\x00\x01\x08" + NOOP_VALUE + b"\x00"


def encode_noop_batch(base_offset: int, timestamp: int, epoch: int) -> bytes:
    """A batch holding one NoOpRecord (the same bytes as encode_plain_batch([NOOP_VALUE], ...))."""
    return frame_plain_records(_NOOP_RECORDS, 1, base_offset, timestamp, epoch)


if TYPE_CHECKING:
    from ..message import Message
    from .state import Cluster, Entry, FaultEntry


def write_batch(
    sim: Cluster, messages: Sequence[Entry], *, control_keys: list[bytes] | None = None
) -> tuple[int, str, int]:
    """Append one batch; return (base offset, file, position).

    ``messages`` holds ``(message, version)`` pairs or already encoded ``(type name, value)``
    pairs. ``control_keys`` makes it a control batch whose record values are message bodies.
    """
    count = len(messages)
    if count > sim.room():
        raise _Room
    timestamp = sim.now if sim.now > sim.last_timestamp else sim.last_timestamp
    sim.last_timestamp = timestamp
    base_offset = sim.writer.next_offset
    values: list[bytes] = []
    counts = sim.type_counts
    for first, second in messages:
        if isinstance(first, str):  # (type name, value)
            counts[first] += 1
            values.append(cast(bytes, second))
        else:  # (message, version)
            counts[first.NAME] += 1
            version = cast(int, second)
            if control_keys is None:
                values.append(kraft.encode_record_value(first, version))
            else:
                values.append(first.encode(version))
    data = encode_plain_batch(values, base_offset, timestamp, sim.epoch, control_keys)
    fault: FaultEntry | None = None
    if (
        "corrupt-batch" in sim.pending_faults
        and control_keys is None
        and due(sim, "corrupt-batch")
        and count <= sim.room() - 2
    ):
        data, fault = corrupt(sim, data, values[-1])
    name, position = sim.writer.append(data, count, sim.epoch, timestamp)
    sim.written += count
    if fault is not None:
        fault.update(file=f"{METADATA_LOG_DIR}/{name}", offset=base_offset, lastOffset=base_offset + count - 1,
                     position=position, bytePosition=position + fault.pop("index"), records=count)  # fmt: skip
        sim.faults.append(fault)
    return base_offset, name, position


def noop(sim: Cluster) -> None:
    if sim.room() < 1:
        raise _Room
    if "corrupt-batch" in sim.pending_faults:
        write_batch(sim, [("NoOpRecord", NOOP_VALUE)])
        return
    timestamp = sim.now if sim.now > sim.last_timestamp else sim.last_timestamp
    sim.last_timestamp = timestamp
    sim.writer.append(
        encode_noop_batch(sim.writer.next_offset, timestamp, sim.epoch),
        1,
        sim.epoch,
        timestamp,
    )
    sim.written += 1
    sim.type_counts["NoOpRecord"] += 1


def pcr(
    sim: Cluster,
    topic: Topic,
    index: int,
    isr: list[int] | None = None,
    leader: int | None = None,
) -> tuple[str, bytes]:
    """A PartitionChangeRecord, encoded (the same changes recur: their values are cached)."""
    key = (topic.id.bytes, index, None if isr is None else tuple(isr), leader)
    value = sim._pcr_cache.get(key)
    if value is None:
        fields: dict[str, Any] = {}
        if isr is not None:
            fields["isr"] = list(isr)
        if leader is not None:
            fields["leader"] = leader
        value = kraft.encode_record_value(
            PartitionChangeRecord(partition_id=index, topic_id=topic.id, **fields),
            V_PARTITION_CHANGE,
        )
        if len(sim._pcr_cache) >= 50_000:
            sim._pcr_cache.clear()
        sim._pcr_cache[key] = value
    return "PartitionChangeRecord", value


def write_snapshot(sim: Cluster) -> None:
    """The image now as ``<end offset>-<epoch>.checkpoint``: header, image records, footer."""
    end_offset = sim.writer.next_offset
    name = snapshot_name(end_offset, sim.epoch)
    sim.snapshot_name = name
    timestamp = sim.last_timestamp + sim.rng.randint(5, 60)
    header = SnapshotHeaderRecord(version=0, last_contained_log_timestamp=sim.last_timestamp)
    with open(sim.log_dir / name, "wb", buffering=1 << 20) as f:
        _write_snapshot(f, header, image_records(sim), sim.epoch, timestamp)


def _write_snapshot(
    f: BinaryIO,
    header: Message,
    records: Iterable[tuple[Message, int]],
    epoch: int,
    timestamp: int,
    *,
    step_ms: int = 0,
) -> None:
    """A snapshot file of ``(message, version)`` records behind ``header`` (log/snapshot_writer)."""
    values = (kraft.encode_record_value(message, version) for message, version in records)
    footer = SnapshotFooterRecord(version=0).encode(0)
    write_snapshot_file(
        f, header.encode(0), values, footer, epoch=epoch, timestamp=timestamp, step_ms=step_ms
    )
