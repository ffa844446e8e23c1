"""The RPCs 93-98 from the caller's side, for the tests: requests built from plain values, the
answers flattened to tuples."""

from __future__ import annotations

import contextlib

from kafka_meta_proto import DISKLESS_REGISTRY
from kafka_meta_proto.client import connect
from kafka_meta_proto.diskless.service import CoordinatorService, Node

M = DISKLESS_REGISTRY.message_class
LOOPBACK = ("127.0.0.1", 0)


@contextlib.asynccontextmanager
async def served(coordinator, leader=None):
    """The coordinator listening on the loopback interface, and a connection to it."""
    service = CoordinatorService(coordinator, Node(1, "", 0), leader)
    async with service.listening(LOOPBACK):
        async with await connect(*service.server.addresses[0], client_id="test", registry=DISKLESS_REGISTRY) as conn:
            yield Caller(conn), service


async def talk(host, port, work):
    """``work(caller)`` over a fresh connection to the coordinator at host:port; its result."""
    async with await connect(host, port, client_id="t", registry=DISKLESS_REGISTRY) as conn:
        return await work(Caller(conn))


class Caller:
    def __init__(self, conn):
        self.conn = conn

    async def init(self, topics: dict) -> list[int]:
        body = {"topics": [{"topicId": str(t), "numPartitions": n} for t, n in topics.items()]}
        answer = await self.conn.send(M("InitDisklessTopicsRequest").from_json(body, 0))
        return [r.error_code for r in answer.responses]

    async def commit(self, broker: int, entries: list[tuple]) -> list[tuple]:
        """``entries``: (topic, partition, object key, byte offset, size, count, max timestamp,
        timestamp type, producer id, epoch, base sequence), each its own topic entry; answers:
        (error, assigned base offset, log-append time, log start offset, is duplicate)."""
        topics = []
        for topic, partition, key, at, size, count, ts, ts_type, pid, epoch, seq in entries:
            last_seq = -1 if pid < 0 else (seq + count - 1) % (1 << 31)
            topics.append({"topicId": str(topic), "partitions": [{
                "partitionIndex": partition, "objectKey": key, "byteOffset": at, "size": size,
                "baseOffset": 0, "lastOffset": count - 1, "batchMaxTimestamp": ts,
                "messageTimestampType": ts_type, "producerId": pid, "producerEpoch": epoch,
                "baseSequence": seq, "lastSequence": last_seq}]})  # fmt: skip
        body = {"brokerId": broker, "batches": [{"topics": topics}]}
        answer = await self.conn.send(M("CommitBatchesRequest").from_json(body, 0))
        return [(p.error_code, p.assigned_base_offset, p.log_append_time, p.log_start_offset, p.is_duplicate)
                for t in answer.topics for p in t.partitions]  # fmt: skip

    async def find(self, asks: list[tuple], max_bytes: int) -> list[tuple]:
        """``asks``: (topic, partition, offset, max bytes); answers: one (partition, error, log start,
        high watermark, object key, byte offset, size, base offset, last offset) per entry."""
        body = {"topics": [{"topicId": str(t), "partitions": [{"partitionIndex": p, "offset": o, "maxBytes": m}]}
                           for t, p, o, m in asks], "maxBytes": max_bytes}  # fmt: skip
        answer = await self.conn.send(M("FindDisklessBatchesRequest").from_json(body, 0))
        return [(p.partition_index, p.error_code, p.log_start_offset, p.high_watermark, p.object_key,
                 p.byte_offset, p.size, p.base_offset, p.last_offset)
                for t in answer.responses for p in t.partitions]  # fmt: skip

    async def list_offsets(self, asks: list[tuple]) -> list[tuple]:
        """``asks``: (topic, partition, timestamp); answers: (error, timestamp, offset)."""
        body = {"topics": [{"topicId": str(t), "partitions": [{"partitionIndex": p, "timestamp": ts}]}
                           for t, p, ts in asks]}  # fmt: skip
        answer = await self.conn.send(M("ListDisklessOffsetsRequest").from_json(body, 0))
        return [(p.error_code, p.timestamp, p.offset) for t in answer.responses for p in t.partitions]

    async def delete_records(self, asks: list[tuple]) -> list[int]:
        body = {"topics": [{"topicId": str(t), "partitions": [{"partitionIndex": p, "offset": o}]} for t, p, o in asks]}
        answer = await self.conn.send(M("DeleteDisklessRecordsRequest").from_json(body, 0))
        return [p.error_code for t in answer.responses for p in t.partitions]

    async def delete_topics(self, topics: list) -> list[int]:
        body = {"topics": [{"topicId": str(t)} for t in topics]}
        answer = await self.conn.send(M("DeleteDisklessTopicsRequest").from_json(body, 0))
        return [r.error_code for r in answer.responses]

    async def find_coordinator(self, keys: list[str], key_type: int = 3, version: int = 7) -> list[tuple]:
        request = M("FindCoordinatorRequest")(key_type=key_type, coordinator_keys=keys)
        answer = await self.conn.send(request, version)
        return [(c.error_code, c.node_id, c.host, c.port) for c in answer.coordinators]
