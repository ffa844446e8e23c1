"""AllocateProducerIds: blocks of producer ids, Kafka's ProducerIdControlManager.

A broker asks with its id and epoch; another epoch (or no registration) is STALE_BROKER_EPOCH,
checked as every broker request is (a fenced broker with the right epoch gets its block). The
block starts where the last ProducerIdsRecord's NextProducerId points (0 for the first), holds
``PRODUCER_ID_BLOCK_SIZE`` ids, and the ProducerIdsRecord written names the broker, its epoch and
the start of the next block, so blocks never overlap (the producer-ID design's one rule).
"""

from __future__ import annotations

from typing import Callable

from ...error_codes import ErrorCode
from ...kraft.image import MetadataImage
from ...kraft.rules import PRODUCER_ID_BLOCK_SIZE
from ...messages.producer_ids_record import ProducerIdsRecord
from .brokers import ControllerError
from .metadata_log import Entries

MAX_PRODUCER_ID = (1 << 63) - 1


def allocate(image: MetadataImage, commit: Callable[[Entries], int], broker_id: int) -> tuple[int, int]:
    """Hand the next block to ``broker_id`` (its epoch already checked): (first id, count)."""
    first = image.producer_ids.next_producer_id if image.producer_ids is not None else 0
    if first > MAX_PRODUCER_ID - PRODUCER_ID_BLOCK_SIZE:
        raise ControllerError(ErrorCode.UNKNOWN_SERVER_ERROR, "Exhausted all producerIds as the next block's end producerId would exceed the long type limit")
    epoch = image.brokers[broker_id].epoch
    record = ProducerIdsRecord(broker_id=broker_id, broker_epoch=epoch,
                               next_producer_id=first + PRODUCER_ID_BLOCK_SIZE)  # fmt: skip
    commit([(record, 0)])
    return first, PRODUCER_ID_BLOCK_SIZE
