"""Loading a metadata image from files: a snapshot, or a metadata log directory (its newest
snapshot, then the segments after it). The image's ``load_snapshot`` and ``load_log_dir`` call
these; ``MetadataImage.replay_segment`` and ``replay_batches`` read records from a segment and from
batches with the functions below."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING

from ..log.names import BOOTSTRAP_CHECKPOINT, METADATA_LOG_DIR, is_metadata_log_dir
from .records import decode_record_value

if TYPE_CHECKING:
    from ..log.batch import RecordBatch
    from ..log.header import BatchHeader
    from ..log.records import Record
    from ..registries import RegistryLike
    from .image import MetadataImage


def load_snapshot(image: MetadataImage, path: str | os.PathLike[str]) -> MetadataImage:
    """Replace ``image`` with the one a snapshot holds."""
    from ..log.segment import SnapshotReader  # loaded when a file is read: importing stays cheap

    image._reset()
    with SnapshotReader(path) as reader:
        image.replay_batches((batch for _, batch in reader), registry=image._registry_for(path))
        snapshot_id = reader.snapshot_id
    if image.transaction is not None:
        image._problem(
            f"snapshot {path} ends inside metadata transaction {image.transaction!r}", None, None
        )
    if snapshot_id is not None:
        image.snapshot_id = snapshot_id
        image.offset, image.epoch = snapshot_id[0] - 1, snapshot_id[1]
    return image


def load_log_dir(image: MetadataImage, directory: str | os.PathLike[str]) -> MetadataImage:
    """Replace ``image`` with the state a ``__cluster_metadata-0`` directory holds.

    Starts from the newest complete snapshot there (if any) and replays the records of the
    ``*.log`` segments from the snapshot's end offset on. A log directory holding a
    ``__cluster_metadata-0`` folder may be given instead of the folder itself. A node
    formatted but never started holds its bootstrap records either as the snapshot
    ``00000000000000000000-0000000000.checkpoint`` there (Kafka 4.4 on) or, when the metadata
    log holds nothing, as ``bootstrap.checkpoint`` beside it (up to 4.3): that file is read then,
    as Kafka's controller reads it on its first start.
    """
    from ..log.segment import list_segments, list_snapshots

    directory = Path(directory)
    if not directory.is_dir():
        raise FileNotFoundError(f"{directory}: no such directory")
    inner = directory / METADATA_LOG_DIR
    empty = not list_segments(directory) and not list_snapshots(directory)
    if empty and inner.is_dir():
        directory = inner
        empty = not list_segments(directory) and not list_snapshots(directory)
    log_dir = directory.parent if is_metadata_log_dir(directory.name) else directory
    if empty and (log_dir / BOOTSTRAP_CHECKPOINT).is_file():
        return load_snapshot(image, log_dir / BOOTSTRAP_CHECKPOINT)
    snapshots = list_snapshots(directory)
    image._reset()
    start = 0
    if snapshots:
        load_snapshot(image, snapshots[-1].path)
        start = snapshots[-1].end_offset
    segments = list_segments(directory)
    if segments and segments[0].base_offset > start:
        image._problem(f"the log starts at offset {segments[0].base_offset}: offsets {start} to "
                       f"{segments[0].base_offset - 1} are in no snapshot or segment", None, None)  # fmt: skip
    for i, segment in enumerate(segments):
        if i + 1 < len(segments) and segments[i + 1].base_offset <= start:
            continue  # wholly inside the snapshot
        image.replay_segment(segment.path, min_offset=start)
    return image


def replay_segment(
    image: MetadataImage, path: str | os.PathLike[str], min_offset: int
) -> MetadataImage:
    """Apply the metadata records of a ``*.log`` segment whose offset is at least ``min_offset``."""
    # Each batch's records are read one at a time: memory does not grow with a batch's
    # record count. A truncated tail ends the segment (as SegmentReader); other damage
    # raises, or for a lenient image is noted and skipped, as dump-log goes on past it.
    from ..log.errors import LogFormatError, TruncatedBatchError
    from ..log.scanning import Damage, scan
    from ..log.source import MappedFile

    path = Path(path)
    registry = image._registry_for(path)
    with MappedFile(path) as source:
        for item in scan(source):
            if isinstance(item, Damage):
                if isinstance(item.error, TruncatedBatchError):
                    break
                if image.strict:
                    item.error.file = path
                    raise item.error
                image._problem(f"{item.kind} in {path} at byte {item.position} ({item.length} bytes): "
                              f"{item.detail}", None, None)  # fmt: skip
                continue
            header = item.header
            if header.is_control or header.last_offset < min_offset:
                continue
            try:
                replay_records(image, header, item.records(), min_offset, registry)
            except LogFormatError as exc:
                exc.file = path
                if exc.position is None:
                    exc.position = exc.offset = item.position
                if image.strict:
                    raise
                image._problem(
                    f"malformed batch in {path} at byte {item.position}: {exc}", None, None
                )
                continue
            image.timestamp = header.max_timestamp
    return image


def replay_records(
    image: MetadataImage,
    batch: BatchHeader | RecordBatch,
    records: Iterable[Record],
    min_offset: int,
    registry: RegistryLike,
) -> None:
    """Apply a batch's records from ``min_offset`` on; an undecodable one is a problem."""
    base_offset, epoch = batch.base_offset, batch.partition_leader_epoch
    for record in records:
        offset = base_offset + record.offset_delta
        if offset < min_offset:
            continue
        try:
            if record.value is None:  # the problem bytes(None) in decode_record_value gave
                raise TypeError("cannot convert 'NoneType' object to bytes")
            decoded = decode_record_value(record.value, registry)
        except Exception as exc:
            image._problem(f"undecodable record: {exc}", offset, None)
            continue
        image.apply(decoded, offset=offset, epoch=epoch)


def replay_batches(
    image: MetadataImage,
    batches: Iterable[RecordBatch | tuple[int, RecordBatch]],
    min_offset: int,
    registry: RegistryLike,
) -> MetadataImage:
    """Apply the metadata records of record batches (control batches are skipped)."""
    for batch in batches:
        if isinstance(batch, tuple):  # (file position, batch) from a reader
            batch = batch[1]
        if batch.is_control or batch.last_offset < min_offset:
            continue
        replay_records(image, batch, batch.records, min_offset, registry)
        image.timestamp = batch.max_timestamp
    return image
