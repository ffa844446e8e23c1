"""A consumer group's conversation as kafka-python and aiokafka write it: their own protocol
classes encode each request (at the versions their group coordinators send) and decode each
answer, over a raw socket to a broker serving the group handlers. A real foreign consumer needs
a broker that also serves data, which is the fake cluster's own test; this one pins the bytes
and versions of the group APIs those clients use."""

from __future__ import annotations

import asyncio
import struct
from io import BytesIO

import pytest

from kafka_meta_proto.server import Server
from kafka_meta_proto.testing.groups import GroupCoordinator
from testing.groups.loopback import MEMBER_ID_REQUIRED, NONE, run, serving

kafka_consumer = pytest.importorskip("kafka.protocol.consumer.group")
aiokafka_group = pytest.importorskip("aiokafka.protocol.group")
aiokafka_commit = pytest.importorskip("aiokafka.protocol.commit")
aiokafka_coordination = pytest.importorskip("aiokafka.protocol.coordination")


class Raw:
    """Frames over a socket, as the clients write them."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter):
        self.reader, self.writer = reader, writer

    @classmethod
    async def open(cls, server: Server) -> Raw:
        return cls(*await asyncio.open_connection(*server.addresses[0]))

    async def exchange(self, frame: bytes) -> bytes:
        """Send a whole frame; the answer's frame, without its size."""
        self.writer.write(frame)
        await self.writer.drain()
        size = struct.unpack(">i", await self.reader.readexactly(4))[0]
        return await self.reader.readexactly(size)

    def close(self) -> None:
        self.writer.close()


class KafkaPython:
    """kafka-python's classes: encode with header and frame, decode with the header."""

    def __init__(self, raw: Raw):
        self.raw, self.correlation = raw, 0

    async def send(self, request, version: int):
        self.correlation += 1
        request.with_header(correlation_id=self.correlation, client_id="kafka-python")
        frame = await self.raw.exchange(
            bytes(request.encode(version=version, header=True, framed=True))
        )
        response_class = getattr(
            kafka_consumer, type(request).__name__.replace("Request", "Response")
        )
        response = response_class.decode(frame, version=version, header=True)
        assert response.header.correlation_id == self.correlation
        return response


def test_kafka_pythons_group_conversation():
    k = kafka_consumer

    async def scenario():
        async with serving(GroupCoordinator(initial_rebalance_delay_ms=10)) as (groups, server):
            raw = await Raw.open(server)
            client = KafkaPython(raw)
            protocol = k.JoinGroupRequest.JoinGroupRequestProtocol(
                name="range", metadata=b"\x00\x03sub"
            )

            def join(member_id):
                return k.JoinGroupRequest(group_id="kp", session_timeout_ms=10_000, rebalance_timeout_ms=300_000,
                                          member_id=member_id, group_instance_id=None, protocol_type="consumer",
                                          protocols=[protocol])  # fmt: skip

            first = await client.send(join(""), 7)  # kafka-python's coordinator: max_version=7
            assert first.error_code == MEMBER_ID_REQUIRED
            joined = await client.send(join(first.member_id), 7)
            member = first.member_id
            assert (joined.error_code, joined.generation_id, joined.leader) == (NONE, 1, member)
            assert (joined.protocol_type, joined.protocol_name) == ("consumer", "range")
            assert [(m.member_id, bytes(m.metadata)) for m in joined.members] == [
                (member, b"\x00\x03sub")
            ]
            assignment = k.SyncGroupRequest.SyncGroupRequestAssignment(
                member_id=member, assignment=b"parts"
            )
            sync = k.SyncGroupRequest(group_id="kp", generation_id=1, member_id=member, group_instance_id=None,
                                      protocol_type="consumer", protocol_name="range", assignments=[assignment])  # fmt: skip
            synced = await client.send(sync, 5)
            assert (synced.error_code, bytes(synced.assignment), synced.protocol_name) == (
                NONE,
                b"parts",
                "range",
            )
            beat = k.HeartbeatRequest(
                group_id="kp", generation_id=1, member_id=member, group_instance_id=None
            )
            assert (await client.send(beat, 4)).error_code == NONE
            part = k.OffsetCommitRequest.OffsetCommitRequestTopic.OffsetCommitRequestPartition
            topic = k.OffsetCommitRequest.OffsetCommitRequestTopic(
                name="t", partitions=[part(partition_index=0, committed_offset=42, committed_leader_epoch=-1,
                                           committed_metadata="")])  # fmt: skip
            commit = k.OffsetCommitRequest(group_id="kp", generation_id_or_member_epoch=1, member_id=member,
                                           group_instance_id=None, topics=[topic])  # fmt: skip
            committed = await client.send(commit, 8)
            assert [p.error_code for t in committed.topics for p in t.partitions] == [NONE]
            asked = k.OffsetFetchRequest.OffsetFetchRequestGroup(
                group_id="kp",
                topics=[
                    k.OffsetFetchRequest.OffsetFetchRequestGroup.OffsetFetchRequestTopics(
                        name="t", partition_indexes=[0]
                    )
                ],
            )
            fetched = await client.send(
                k.OffsetFetchRequest(groups=[asked], require_stable=True), 8
            )
            assert [
                (p.committed_offset, p.error_code)
                for t in fetched.groups[0].topics
                for p in t.partitions
            ] == [(42, NONE)]
            identity = k.LeaveGroupRequest.MemberIdentity(
                member_id=member, group_instance_id=None, reason="bye"
            )
            left = await client.send(k.LeaveGroupRequest(group_id="kp", members=[identity]), 5)
            assert left.error_code == NONE and [m.error_code for m in left.members] == [NONE]
            assert groups.group("kp").state == "Empty"
            raw.close()

    run(scenario())


async def _aiokafka_send(raw: Raw, request, versions: dict[int, tuple[int, int]], correlation: int):
    """As aiokafka's connection sends: the newest version both speak, its header, its decoder."""
    built = request.prepare(versions)
    header = built.build_request_header(correlation_id=correlation, client_id="aiokafka")
    message = header.encode() + built.encode()
    answer = BytesIO(await raw.exchange(struct.pack(">i", len(message)) + message))
    assert built.parse_response_header(answer).correlation_id == correlation
    return built.API_VERSION, built.RESPONSE_TYPE.decode(answer)


def test_aiokafkas_group_conversation():
    g, c, f = aiokafka_group, aiokafka_commit, aiokafka_coordination
    from kafka_meta_proto import REGISTRY

    versions = {
        key: (0, REGISTRY.request_class(key).versions()[-1]) for key in (8, 9, 10, 11, 12, 13, 14)
    }

    async def scenario():
        groups = GroupCoordinator(initial_rebalance_delay_ms=10)
        server = Server()
        server.handle(10, groups.find_coordinator_handler(lambda: [(0, "127.0.0.1", 9092)]))
        async with serving(groups) as (_, groups_server):
            async with server.listening(("127.0.0.1", 0)):
                raw = await Raw.open(server)
                v, found = await _aiokafka_send(raw, f.FindCoordinatorRequest("ai", 0), versions, 1)
                assert (v, found.error_code, found.coordinator_id) == (1, NONE, 0)
                raw.close()
            raw = await Raw.open(groups_server)
            protocols = [("roundrobin", b"\x00\x00sub")]
            v, first = await _aiokafka_send(
                raw,
                g.JoinGroupRequest("ai", 10_000, 300_000, "", None, "consumer", protocols),
                versions,
                1,
            )
            assert (v, first.error_code) == (5, MEMBER_ID_REQUIRED)
            member = first.member_id
            _, joined = await _aiokafka_send(
                raw,
                g.JoinGroupRequest("ai", 10_000, 300_000, member, None, "consumer", protocols),
                versions,
                2,
            )
            assert (joined.error_code, joined.generation_id, joined.leader_id) == (NONE, 1, member)
            v, synced = await _aiokafka_send(
                raw, g.SyncGroupRequest("ai", 1, member, None, [(member, b"parts")]), versions, 3
            )
            assert (v, synced.error_code, synced.member_assignment) == (3, NONE, b"parts")
            v, beat = await _aiokafka_send(raw, g.HeartbeatRequest("ai", 1, member), versions, 4)
            assert (v, beat.error_code) == (1, NONE)
            commit = c.OffsetCommitRequest("ai", 1, member, -1, [("t", [(0, 7, "")])])
            v, committed = await _aiokafka_send(raw, commit, versions, 5)
            assert v >= 2 and [p[1] for t in committed.topics for p in t[1]] == [NONE]
            v, fetched = await _aiokafka_send(
                raw, c.OffsetFetchRequest("ai", [("t", [0])]), versions, 6
            )
            assert [(p[0], p[1]) for t in fetched.topics for p in t[1]] == [(0, 7)]
            v, left = await _aiokafka_send(raw, g.LeaveGroupRequest("ai", member), versions, 7)
            assert (v, left.error_code) == (1, NONE)
            assert groups.group("ai").state == "Empty"
            raw.close()

    run(scenario())
