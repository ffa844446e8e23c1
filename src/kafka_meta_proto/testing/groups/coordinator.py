"""``GroupCoordinator``: every group of the fake cluster, served by each broker registered.

One coordinator is shared by all the brokers of a cluster, so groups and committed offsets
outlive any one broker; which broker answers for a group is the cluster's choice
(``is_coordinator`` at registration, ``find_coordinator.coordinator_of`` for the usual one)::

    groups = GroupCoordinator()
    groups.register(broker_server, lambda group_id: coordinator_of(group_id, live) == node_id)
    broker_server.handle(FindCoordinatorRequest, groups.find_coordinator_handler(live_brokers))

Settings are Kafka's broker settings of the same names (``rebalance.GroupSettings``); the one
that differs by default is ``initial_rebalance_delay_ms`` (Kafka's
``group.initial.rebalance.delay.ms``, 3000 there): 100 ms here, so a test's first rebalance
completes quickly while consumers started together still land in one generation. Time is
``clock`` (``clock.SystemClock`` by default; ``clock.ManualClock`` lets a test move it).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from functools import partial

from ...kraft.image import MetadataImage
from ...message import Message
from ...messages.delete_groups_request import DeleteGroupsRequest
from ...messages.describe_groups_request import DescribeGroupsRequest
from ...messages.heartbeat_request import HeartbeatRequest
from ...messages.join_group_request import JoinGroupRequest
from ...messages.leave_group_request import LeaveGroupRequest
from ...messages.list_groups_request import ListGroupsRequest
from ...messages.offset_commit_request import OffsetCommitRequest
from ...messages.offset_fetch_request import OffsetFetchRequest
from ...messages.sync_group_request import SyncGroupRequest
from ...server import Handler, RequestContext, Server
from .admin_handlers import handle_delete, handle_describe, handle_list
from .clock import Clock, SystemClock, Timer
from .find_coordinator import Broker, find_coordinator_handler
from .membership_handlers import handle_heartbeat, handle_join, handle_leave, handle_sync
from .offset_handlers import handle_offset_commit, handle_offset_fetch
from .offsets import CommittedOffset, OffsetStore
from .rebalance import GroupSettings, Rebalancer
from .service import BrokerGroups
from .state import ClassicGroup

DEFAULT_INITIAL_REBALANCE_DELAY_MS = GroupSettings.initial_rebalance_delay_ms

_GroupHandler = Callable[[BrokerGroups, RequestContext], Awaitable[Message]]
HANDLERS: list[tuple[type[Message], _GroupHandler]] = [
    (JoinGroupRequest, handle_join),
    (SyncGroupRequest, handle_sync),
    (HeartbeatRequest, handle_heartbeat),
    (LeaveGroupRequest, handle_leave),
    (OffsetCommitRequest, handle_offset_commit),
    (OffsetFetchRequest, handle_offset_fetch),
    (DescribeGroupsRequest, handle_describe),
    (ListGroupsRequest, handle_list),
    (DeleteGroupsRequest, handle_delete),
]


class GroupCoordinator:
    """The classic consumer-group protocol and committed offsets of one cluster."""

    def __init__(
        self,
        *,
        initial_rebalance_delay_ms: int = DEFAULT_INITIAL_REBALANCE_DELAY_MS,
        clock: Clock | None = None,
        **settings: int,
    ):
        """``settings``: the other fields of ``rebalance.GroupSettings`` (session timeout
        bounds, ``max_size``, ``offset_metadata_max_bytes``, ...)."""
        self.settings = GroupSettings(
            initial_rebalance_delay_ms=initial_rebalance_delay_ms, **settings
        )
        self.clock: Clock = clock if clock is not None else SystemClock()
        self.timer = Timer(self.clock)
        self.engine = Rebalancer(self.settings, self.timer)
        self.offsets = OffsetStore()
        self._brokers: dict[Server, BrokerGroups] = {}

    def __repr__(self) -> str:
        return f"<GroupCoordinator: {len(self.engine.groups)} groups, {len(self._brokers)} brokers>"

    def register(
        self,
        server: Server,
        is_coordinator: Callable[[str], bool],
        *,
        metadata_image: Callable[[], MetadataImage] | None = None,
    ) -> None:
        """Serve JoinGroup, SyncGroup, Heartbeat, LeaveGroup, OffsetCommit, OffsetFetch,
        DescribeGroups, ListGroups and DeleteGroups (every version) on ``server``; a group for
        which ``is_coordinator`` is false gets NOT_COORDINATOR. ``metadata_image`` gives the
        broker's current image, against which commits' topics are checked (unchecked without)."""
        broker = BrokerGroups(self.engine, self.offsets, is_coordinator, metadata_image)
        self._brokers[server] = broker
        for api, handle in HANDLERS:
            server.handle(api, partial(handle, broker))

    def release(self, server: Server) -> None:
        """Before ``server`` stops: its parked JoinGroup and SyncGroup requests are answered
        NOT_COORDINATOR (their clients move to the next coordinator), so the server's close
        does not wait for them."""
        broker = self._brokers.pop(server, None)
        if broker is not None:
            broker.release()

    @staticmethod
    def find_coordinator_handler(live_brokers: Callable[[], Sequence[Broker]]) -> Handler:
        """FindCoordinator over ``live_brokers()``, [(node id, host, port), ...]."""
        return find_coordinator_handler(live_brokers)

    def close(self) -> None:
        """Release every broker and drop every pending deadline."""
        for server in list(self._brokers):
            self.release(server)
        self.timer.cancel_all()

    # --- what tests look at --------------------------------------------------------------

    @property
    def groups(self) -> dict[str, ClassicGroup]:
        return dict(self.engine.groups)

    def group(self, group_id: str) -> ClassicGroup | None:
        return self.engine.groups.get(group_id)

    def committed(self, group_id: str, topic: str, partition: int) -> CommittedOffset | None:
        return self.offsets.get(group_id, topic, partition)
