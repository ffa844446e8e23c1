"""What the group tests share: a broker of the server framework with the group coordinator's
handlers on a loopback port, and a consumer-group member driven by the package's client at the
versions a test chooses (one connection per member: a parked JoinGroup holds back the answers
behind it on its connection, as on Kafka's)."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable

from kafka_meta_proto import message_class
from kafka_meta_proto.client import Connection, connect
from kafka_meta_proto.server import Server
from kafka_meta_proto.testing.groups import GroupCoordinator, ManualClock

JoinGroupRequest = message_class("JoinGroupRequest")
SyncGroupRequest = message_class("SyncGroupRequest")
HeartbeatRequest = message_class("HeartbeatRequest")
LeaveGroupRequest = message_class("LeaveGroupRequest")
OffsetCommitRequest = message_class("OffsetCommitRequest")
OffsetFetchRequest = message_class("OffsetFetchRequest")
DescribeGroupsRequest = message_class("DescribeGroupsRequest")
ListGroupsRequest = message_class("ListGroupsRequest")
DeleteGroupsRequest = message_class("DeleteGroupsRequest")
FindCoordinatorRequest = message_class("FindCoordinatorRequest")
LOOPBACK = ("127.0.0.1", 0)
SESSION_MS = 10_000
REBALANCE_MS = 30_000

# error codes the tests read
NONE = 0
UNKNOWN_TOPIC_OR_PARTITION = 3
OFFSET_METADATA_TOO_LARGE = 12
COORDINATOR_NOT_AVAILABLE = 15
NOT_COORDINATOR = 16
ILLEGAL_GENERATION = 22
INCONSISTENT_GROUP_PROTOCOL = 23
INVALID_GROUP_ID = 24
UNKNOWN_MEMBER_ID = 25
INVALID_SESSION_TIMEOUT = 26
REBALANCE_IN_PROGRESS = 27
INVALID_REQUEST = 42
NON_EMPTY_GROUP = 68
GROUP_ID_NOT_FOUND = 69
MEMBER_ID_REQUIRED = 79
GROUP_MAX_SIZE_REACHED = 81
FENCED_INSTANCE_ID = 82
UNKNOWN_TOPIC_ID = 100


SERVING: dict[Server, GroupCoordinator] = {}  # the coordinator behind each test broker


def run(coroutine):
    return asyncio.run(asyncio.wait_for(coroutine, 60))  # a hang fails the test


async def settle(condition: Callable[[], bool]) -> None:
    """Let the loop run until ``condition()`` holds (the test's timeout bounds it)."""
    while not condition():
        await asyncio.sleep(0.002)


@contextlib.asynccontextmanager
async def serving(
    groups: GroupCoordinator | None = None,
    is_coordinator: Callable[[str], bool] = lambda group_id: True,
    **register,
) -> AsyncIterator[tuple[GroupCoordinator, Server]]:
    """A broker on loopback serving ``groups`` (a fresh coordinator if none)."""
    groups = groups if groups is not None else GroupCoordinator()
    server = Server(shutdown_timeout=1)
    groups.register(server, is_coordinator, **register)
    SERVING[server] = groups
    pumping = None
    if isinstance(groups.clock, ManualClock):  # what falls due now runs; time moves when told
        pumping = asyncio.ensure_future(_pump(groups.clock))
    async with server.listening(LOOPBACK):
        try:
            yield groups, server
        finally:
            groups.release(server)
            if pumping is not None:
                pumping.cancel()
            del SERVING[server]
    groups.close()


@contextlib.asynccontextmanager
async def serving_manually(
    **settings,
) -> AsyncIterator[tuple[GroupCoordinator, Server, ManualClock]]:
    """``serving`` a coordinator on a manual clock: what falls due runs, time moves when told."""
    clock = ManualClock()
    async with serving(GroupCoordinator(clock=clock, **settings)) as (groups, server):
        yield groups, server, clock


async def close_all(*connections) -> None:
    for c in connections:
        await c.close()


async def _pump(clock: ManualClock) -> None:
    while True:
        clock.advance(0)
        await asyncio.sleep(0.002)


def server_groups(server: Server) -> GroupCoordinator:
    return SERVING[server]


async def client(server: Server, client_id: str = "tests") -> Connection:
    return await connect(*server.addresses[0], client_id=client_id)


def protocols(*names: str, metadata: bytes = b"meta"):
    return [JoinGroupRequest.JoinGroupRequestProtocol(name=n, metadata=metadata) for n in names]


class Member:
    """One group member over its own connection; remembers its member id and generation."""

    def __init__(
        self,
        conn: Connection,
        group_id: str,
        *,
        instance: str | None = None,
        join_version: int | None = None,
        sync_version: int | None = None,
        session_ms: int = SESSION_MS,
        rebalance_ms: int = REBALANCE_MS,
    ):
        self.conn, self.group_id, self.instance = conn, group_id, instance
        self.session_ms, self.rebalance_ms = session_ms, rebalance_ms
        self.join_version, self.sync_version = join_version, sync_version
        self.member_id, self.generation = "", -1
        self.leader = False

    @classmethod
    async def open(cls, server: Server, group_id: str, client_id: str = "tests", **options):
        return cls(await client(server, client_id), group_id, **options)

    async def join_once(self, names=("range",), *, session_ms=None, metadata=b"meta"):
        """One JoinGroup; the member id and generation it hands out are kept."""
        request = JoinGroupRequest(
            group_id=self.group_id,
            session_timeout_ms=self.session_ms if session_ms is None else session_ms,
            rebalance_timeout_ms=self.rebalance_ms,
            member_id=self.member_id,
            group_instance_id=self.instance,
            protocol_type="consumer",
            protocols=protocols(*names, metadata=metadata),
        )
        response = await self.conn.send(request, self.join_version)
        if response.member_id:
            self.member_id = response.member_id
        if response.error_code == NONE:
            self.generation = response.generation_id
            self.leader = response.leader == self.member_id
        return response

    async def join(self, names=("range",), **options):
        """JoinGroup, again with the member id when the coordinator asks for one."""
        response = await self.join_once(names, **options)
        if response.error_code == MEMBER_ID_REQUIRED:
            response = await self.join_once(names, **options)
        return response

    async def sync(self, assignments: dict[str, bytes] | None = None, *, generation=None):
        entry = SyncGroupRequest.SyncGroupRequestAssignment
        request = SyncGroupRequest(
            group_id=self.group_id,
            generation_id=self.generation if generation is None else generation,
            member_id=self.member_id,
            group_instance_id=self.instance,
            protocol_type="consumer",
            protocol_name="range",
            assignments=[entry(member_id=m, assignment=a) for m, a in (assignments or {}).items()],
        )
        return await self.conn.send(request, self.sync_version)

    async def heartbeat(self, version: int | None = None, *, generation=None) -> int:
        request = HeartbeatRequest(
            group_id=self.group_id,
            generation_id=self.generation if generation is None else generation,
            member_id=self.member_id,
            group_instance_id=self.instance,
        )
        return (await self.conn.send(request, version)).error_code

    async def leave(self, version: int | None = None):
        if version is not None and version < 3:  # one member, by member id
            request = LeaveGroupRequest(group_id=self.group_id, member_id=self.member_id)
        else:
            identity = LeaveGroupRequest.MemberIdentity(
                member_id=self.member_id, group_instance_id=self.instance
            )
            request = LeaveGroupRequest(group_id=self.group_id, members=[identity])
        return await self.conn.send(request, version)

    async def close(self) -> None:
        await self.conn.close()


async def stable_group(
    server: Server, group_id: str, count: int, clock: ManualClock | None = None, **options
) -> list[Member]:
    """``count`` members joined together and synced: the leader gives each its member id.
    With a manual ``clock``, the initial rebalance delay is passed once all have joined."""
    members = [await Member.open(server, group_id, f"client-{i}", **options) for i in range(count)]
    joining = asyncio.gather(*(m.join() for m in members))
    if clock is not None:
        groups = server_groups(server)
        await settle(lambda: len(getattr(groups.group(group_id), "members", ())) == count)
        while not joining.done():  # each member that came extends the delay once more
            clock.advance(groups.settings.initial_rebalance_delay_ms)
            await asyncio.sleep(0.005)
    answers = await joining
    assert {a.error_code for a in answers} == {NONE}, answers
    (leader,) = [m for m in members if m.leader]
    leader_answer = answers[members.index(leader)]
    assignment = {m.member_id: m.member_id.encode() for m in leader_answer.members}
    syncs = [m.sync(assignment if m is leader else None) for m in members]
    results = await asyncio.gather(*syncs)
    assert [r.assignment for r in results] == [m.member_id.encode() for m in members]
    return members
