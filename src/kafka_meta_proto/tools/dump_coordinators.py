"""dump-log's text for the records of the coordinators' topics, as Kafka's DumpLogSegments prints
them with ``--offsets-decoder``, ``--transaction-log-decoder`` and ``--share-group-state-decoder``.

From Kafka 4.0 on, a record is ``key: {"type":"<record type>","data":{...}}`` and ``payload:
{"version":"<value version>","data":{...}}`` (both numbers as JSON strings), ``payload: <DELETE>``
for a tombstone, ``key: Unknown record type N at offset O, skipping.`` for a type the release has
no schema for. Kafka 3.9 printed the same JSON for the group coordinator (knowing record types 0
to 8) but its own text for transactions: ``key: transaction_metadata::transactionalId=ID payload:
producerId:P,producerEpoch:E,state=NAME,partitions=[t-0,...],txnLastUpdateTimestamp=T,
txnTimeoutMs=M`` (``key: unknown::version=N`` for another type).
"""

from __future__ import annotations

import base64
from typing import TYPE_CHECKING, Any, cast

from ..kraft.coordinator_records import (
    GROUP_COORDINATOR,
    SHARE_COORDINATOR,
    TRANSACTION_COORDINATOR,
    CoordinatorRecord,
    UnknownRecordTypeError,
    decode_coordinator_record,
)
from .dump_forms import ToolForm
from ..errors import DecodeError, KafkaProtocolError
from .jackson import kafka_json
from ..messages import REGISTRY

if TYPE_CHECKING:
    from ..messages.transaction_log_key import TransactionLogKey
    from ..messages.transaction_log_value import TransactionLogValue

# Group coordinator record types each release's tool reads: 3.9 knew the classic and consumer
# group records (0-8); 4.x no longer reads type 9 (ShareGroupPartitionMetadata, an early-access
# record replaced by ShareGroupStatePartitionMetadata, type 15). Checked against 3.9.2, 4.3.1 and 4.4.0.
GROUP_TYPES_3_9 = frozenset(range(9))
GROUP_TYPES_DROPPED_IN_4 = frozenset({9})

# TransactionLogValue.transactionStatus as Kafka names the states.
TRANSACTION_STATES = {0: "Empty", 1: "Ongoing", 2: "PrepareCommit", 3: "PrepareAbort",
                      4: "CompleteCommit", 5: "CompleteAbort", 6: "Dead", 7: "PrepareEpochFence"}  # fmt: skip


def has_decoder(scope: str, form: ToolForm) -> bool:
    """Whether the release's tool has the flag for ``scope`` (the share coordinator's came in 4.0)."""
    return scope != SHARE_COORDINATOR or form.release >= (4, 0)


def _knows(scope: str, record_type: int, form: ToolForm) -> bool:
    if scope != GROUP_COORDINATOR:
        return True
    if form.release < (4, 0):
        return record_type in GROUP_TYPES_3_9
    return record_type not in GROUP_TYPES_DROPPED_IN_4


def coordinator_texts(
    scope: str, key: bytes | None, value: bytes | None, offset: int, form: ToolForm
) -> tuple[str, str | None, bool]:
    """The texts after ``key:`` and ``payload:`` (None when Kafka prints no payload) for a record
    of ``scope``'s topic, and whether the record decoded."""
    if key is None:  # Kafka's tool stops here with an exception; this one goes on
        return f"Error at offset {offset}, skipping. the record has no key", None, False
    legacy_transactions = scope == TRANSACTION_COORDINATOR and form.release < (4, 0)
    try:
        record = decode_coordinator_record(scope, key, value)
        if not _knows(scope, record.record_type, form):
            raise UnknownRecordTypeError(record.record_type, scope)
        if legacy_transactions:
            return _transaction_text_3_9(record) + (True,)
        key_data = record.key.to_json(record.key.LOWEST_VERSION)
        value_data = None
        if record.value is not None and record.value_version is not None:
            value_data = record.value.to_json(record.value_version)
    except UnknownRecordTypeError as exc:
        if legacy_transactions:
            return f"unknown::version={exc.record_type}", None, False
        return f"Unknown record type {exc.record_type} at offset {offset}, skipping.", None, False
    except DecodeError as exc:
        return f"Error at offset {offset}, skipping. {exc}", None, False
    key_text = f'{{"type":"{record.record_type}","data":{kafka_json(key_data)}}}'
    if value_data is None or record.value is None:
        return key_text, "<DELETE>", True
    if record.value.NAME == "GroupMetadataValue":
        _decode_consumer_protocol(value_data)
    elif record.value.NAME == "TransactionLogValue" and form.transaction_state_names:
        status = value_data["transactionStatus"]
        value_data["transactionStatus"] = TRANSACTION_STATES.get(status, str(status))
    elif record.value.NAME == "OffsetCommitValue" and form.release < (4, 0):
        value_data.pop("topicId", None)  # a tagged field 3.9 did not have: unknown to it, unshown
    payload = f'{{"version":"{record.value_version}","data":{kafka_json(value_data)}}}'
    return key_text, payload, True


def _transaction_text_3_9(record: CoordinatorRecord) -> tuple[str, str]:
    """Kafka 3.9's text for a __transaction_state record."""
    # The transaction coordinator's only record type (0): its key and value classes.
    transactional_id = cast("TransactionLogKey", record.key).transactional_id
    key = f"transaction_metadata::transactionalId={transactional_id}"
    value = cast("TransactionLogValue | None", record.value)
    if value is None:
        return key, "<DELETE>"
    state = TRANSACTION_STATES.get(value.transaction_status)
    if state is None:
        raise DecodeError(
            f"unknown transaction state {value.transaction_status}", None, "transaction_status"
        )
    partitions = ",".join(f"{entry.topic}-{p}" for entry in value.transaction_partitions or ()
                          for p in entry.partition_ids)  # fmt: skip
    return key, (
        f"producerId:{value.producer_id},producerEpoch:{value.producer_epoch},state={state},"
        f"partitions=[{partitions}],txnLastUpdateTimestamp={value.transaction_last_update_timestamp_ms},"
        f"txnTimeoutMs={value.transaction_timeout_ms}"
    )


def _decode_consumer_protocol(group: dict[str, Any]) -> None:
    """In a classic group's metadata of protocol type "consumer", each member's subscription and
    assignment bytes (``int16 version, body``) replaced by their JSON, as Kafka's tool shows them;
    bytes that do not decode stay as they are."""
    if group.get("protocolType") != "consumer":
        return
    for member in group.get("members") or ():
        for field, name in (("subscription", "ConsumerProtocolSubscription"),
                            ("assignment", "ConsumerProtocolAssignment")):  # fmt: skip
            text = member.get(field)
            if not isinstance(text, str):
                continue
            try:
                data = base64.b64decode(text, validate=True)
                if len(data) < 2:
                    continue
                version = int.from_bytes(data[:2], "big", signed=True)
                cls = REGISTRY.message_class(name)
                member[field] = cls.decode_from(data, version, 2)[0].to_json(version)
            except (ValueError, KafkaProtocolError):  # DecodeError, a version it lacks, bad base64
                continue
