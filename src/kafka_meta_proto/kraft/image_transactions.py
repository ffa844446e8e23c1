"""The marker records in a metadata image: ``NoOpRecord`` only moves the offset;
``BeginTransactionRecord`` / ``EndTransactionRecord`` bracket a metadata transaction and
``AbortTransactionRecord`` rolls the image back to where it began, as Kafka's metadata loader
does."""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING

from .image_parts import ReplayError

if TYPE_CHECKING:
    from ..messages.abort_transaction_record import AbortTransactionRecord
    from ..messages.begin_transaction_record import BeginTransactionRecord
    from ..messages.end_transaction_record import EndTransactionRecord
    from ..messages.no_op_record import NoOpRecord
    from .image import Handler, MetadataImage

# The image's fields a transaction's abort restores.
_STATE = ("brokers", "controllers", "topics", "configs", "features", "zk_migration_state", "producer_ids",
          "acls", "client_quotas", "scram", "delegation_tokens", "diskless")  # fmt: skip


def no_op_record(image: MetadataImage, r: NoOpRecord) -> None:
    pass


def begin_transaction_record(image: MetadataImage, r: BeginTransactionRecord) -> None:
    if image.transaction is not None:
        raise ReplayError(f"a metadata transaction begins inside transaction {image.transaction!r}")
    image._before_transaction = copy.deepcopy({name: getattr(image, name) for name in _STATE})
    image.transaction = r.name or ""


def end_transaction_record(image: MetadataImage, r: EndTransactionRecord) -> None:
    if image.transaction is None:
        raise ReplayError("a metadata transaction ends outside any transaction")
    image.transaction = image._before_transaction = None


def abort_transaction_record(image: MetadataImage, r: AbortTransactionRecord) -> None:
    if image.transaction is None:
        raise ReplayError("a metadata transaction is aborted outside any transaction")
    before = image._before_transaction
    assert before is not None  # set when the transaction began
    for name, value in before.items():
        setattr(image, name, value)
    image.transaction = image._before_transaction = None


HANDLERS: dict[str, Handler] = {
    "NoOpRecord": no_op_record,
    "BeginTransactionRecord": begin_transaction_record,
    "EndTransactionRecord": end_transaction_record,
    "AbortTransactionRecord": abort_transaction_record,
}
