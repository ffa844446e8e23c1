"""Segments of the coordinators' topics, written with this library's log writer: every record type
of the group, transaction and share coordinators at every value version, a tombstone, a group
whose members' consumer-protocol bytes decode (and one whose bytes do not), a transaction marker,
and records no decoder can read (unknown type, cut value, a version past the schema's).

The interop tests give the same files to Kafka's DumpLogSegments; the unit tests to dump-log."""

from __future__ import annotations

import base64
import struct
from pathlib import Path

from kafka_meta_proto import message_class
from kafka_meta_proto.kraft.coordinator_records import (
    GROUP_COORDINATOR,
    SHARE_COORDINATOR,
    TRANSACTION_COORDINATOR,
)
from kafka_meta_proto.log import Record, RecordBatch, control_key
from kafka_meta_proto.messages import REGISTRY

BASE_TIMESTAMP = 1_730_000_000_000


def prefixed(name: str, version: int, data: dict | None = None) -> bytes:
    """``int16 version`` then the message ``name`` at that version (Kafka's coordinator framing)."""
    cls = message_class(name)
    message = cls.from_json(data, version) if data is not None else cls()
    return struct.pack(">h", version) + message.encode(version)


def _subscription(version: int) -> str:
    data = {"topics": ["orders", "payments"], "userData": base64.b64encode(b"\x00\x01").decode()}
    if version >= 1:
        data["ownedPartitions"] = [{"topic": "orders", "partitions": [0, 2]}]
    if version >= 2:
        data["generationId"] = 7
    if version >= 3:
        data["rackId"] = "rack-a"
    return base64.b64encode(prefixed("ConsumerProtocolSubscription", version, data)).decode()


def _assignment(version: int) -> str:
    data = {"assignedPartitions": [{"topic": "orders", "partitions": [0, 1]}], "userData": None}
    return base64.b64encode(prefixed("ConsumerProtocolAssignment", version, data)).decode()


def _group_value(version: int, protocol_type: str = "consumer", garbage: bool = False) -> dict:
    member = {
        "memberId": f"member-{version}",
        "clientId": "client-1",
        "clientHost": "/127.0.0.1",
        "sessionTimeout": 45000,
        "subscription": (
            base64.b64encode(b"\x00").decode() if garbage else _subscription(min(version, 3))
        ),
        "assignment": _assignment(min(version, 3)),
    }
    if version >= 1:
        member["rebalanceTimeout"] = 300000
    if version >= 3:
        member["groupInstanceId"] = "instance-1"
    value = {"protocolType": protocol_type, "generation": 3, "protocol": "range", "leader": "member-0",
             "members": [member]}  # fmt: skip
    if version >= 2:
        value["currentStateTimestamp"] = BASE_TIMESTAMP
    return value


def _offset_value(version: int) -> dict:
    value = {"offset": 42 + version, "metadata": "m", "commitTimestamp": BASE_TIMESTAMP}
    if version == 1:
        value["expireTimestamp"] = BASE_TIMESTAMP + 1000
    if version >= 3:
        value["leaderEpoch"] = 5
    if version >= 4:
        value["topicId"] = "v9meXjI1RVKB-NSvF0GXDA"
    return value


def _key(record_type: int, name: str, data: dict | None = None) -> bytes:
    return struct.pack(">h", record_type) + message_class(name).from_json(data or {}, 0).encode(0) \
        if data else struct.pack(">h", record_type) + message_class(name)().encode(0)  # fmt: skip


def group_records(broken: bool = True) -> list[tuple[bytes | None, bytes | None]]:
    """(key, value) pairs of __consumer_offsets (with ``broken``, ending with unreadable ones)."""
    offset_key = _key(1, "OffsetCommitKey", {"group": "g1", "topic": "orders", "partition": 3})
    pairs = [(offset_key, prefixed("OffsetCommitValue", v, _offset_value(v))) for v in range(5)]
    pairs.append((offset_key, None))  # tombstone
    group_key = _key(2, "GroupMetadataKey", {"group": "g1"})
    pairs += [(group_key, prefixed("GroupMetadataValue", v, _group_value(v))) for v in range(5)]
    pairs.append((group_key, prefixed("GroupMetadataValue", 3, _group_value(3, garbage=True))))
    pairs.append(
        (group_key, prefixed("GroupMetadataValue", 3, _group_value(3, protocol_type="connect")))
    )
    pairs.append((group_key, None))
    # Every newer record type, with the values a default message holds.
    for record_type in range(3, 24):
        try:
            key_class, value_class = REGISTRY.coordinator_classes(GROUP_COORDINATOR, record_type)
        except KeyError:
            continue
        pairs.append(
            (
                _key(record_type, key_class.NAME),
                prefixed(value_class.NAME, value_class.HIGHEST_VERSION),
            )
        )
    return pairs + (broken_records(offset_key) if broken else [])


def broken_records(good_key: bytes) -> list[tuple[bytes | None, bytes | None]]:
    """Records no decoder reads: an unknown type, a cut value, a key of one byte."""
    return [
        (struct.pack(">h", 99) + b"\x00\x01x", b"\x00\x00"),
        (good_key, b"\x00\x03\x00"),
        (b"\x00", b"\x00\x00"),
    ]


def transaction_records(broken: bool = True) -> list[tuple[bytes | None, bytes | None]]:
    """(key, value) pairs of __transaction_state (with ``broken``, ending with unreadable ones)."""
    key = _key(0, "TransactionLogKey", {"transactionalId": "tx-1"})
    pairs = []
    for version in (0, 1):
        value = {"producerId": 4000, "producerEpoch": 2, "transactionTimeoutMs": 60000,
                 "transactionStatus": 2, "transactionLastUpdateTimestampMs": BASE_TIMESTAMP,
                 "transactionStartTimestampMs": BASE_TIMESTAMP - 5,
                 "transactionPartitions": [{"topic": "orders", "partitionIds": [0, 1]}]}  # fmt: skip
        if version >= 1:
            value.update(
                previousProducerId=3999,
                nextProducerId=-1,
                nextProducerEpoch=-1,
                clientTransactionVersion=2,
            )
        pairs.append((key, prefixed("TransactionLogValue", version, value)))
    empty = {"producerId": 4001, "producerEpoch": 0, "transactionTimeoutMs": 60000, "transactionStatus": 0,
             "transactionLastUpdateTimestampMs": BASE_TIMESTAMP, "transactionStartTimestampMs": -1,
             "transactionPartitions": None}  # fmt: skip
    pairs.append((key, prefixed("TransactionLogValue", 0, empty)))
    pairs.append((key, None))
    if broken:  # a state id no state has: 4.4's tool prints it as a quoted number, 3.9's stops
        pairs.append((key, prefixed("TransactionLogValue", 0, {**empty, "transactionStatus": 9})))
    return pairs + (broken_records(key) if broken else [])


def share_records(broken: bool = True) -> list[tuple[bytes | None, bytes | None]]:
    """(key, value) pairs of __share_group_state, default messages of each type."""
    pairs = []
    for record_type in (0, 1):
        key_class, value_class = REGISTRY.coordinator_classes(SHARE_COORDINATOR, record_type)
        pairs.append(
            (
                _key(record_type, key_class.NAME),
                prefixed(value_class.NAME, value_class.HIGHEST_VERSION),
            )
        )
    return pairs + (broken_records(pairs[0][0]) if broken else [])


RECORDS = {
    GROUP_COORDINATOR: group_records,
    TRANSACTION_COORDINATOR: transaction_records,
    SHARE_COORDINATOR: share_records,
}


def write_segment(directory: Path, scope: str, base_offset: int = 0, broken: bool = True) -> Path:
    """A segment of ``scope``'s topic: its records in batches of three, then a transaction's
    COMMIT marker (a control batch) as the coordinators' topics hold them. ``broken=False``
    leaves out the records no decoder reads (Kafka 3.9's transaction decoder stops at them)."""
    pairs = RECORDS[scope](broken)
    batches = []
    offset = base_offset
    for start in range(0, len(pairs), 3):
        chunk = pairs[start : start + 3]
        records = [
            Record(key=k, value=v, offset_delta=i, timestamp_delta=i)
            for i, (k, v) in enumerate(chunk)
        ]
        batches.append(RecordBatch.create(records, base_offset=offset, base_timestamp=BASE_TIMESTAMP + start,
                                          partition_leader_epoch=0))  # fmt: skip
        offset += len(chunk)
    marker = Record(key=control_key(1), value=struct.pack(">hi", 0, 3))
    batches.append(RecordBatch.create([marker], base_offset=offset, base_timestamp=BASE_TIMESTAMP, control=True,
                                      transactional=True, producer_id=4000, producer_epoch=2,
                                      partition_leader_epoch=0))  # fmt: skip
    path = Path(directory) / f"{base_offset:020d}.log"
    path.write_bytes(b"".join(b.encode() for b in batches))
    return path
