"""Broker registration, heartbeats, sessions and fencing: Kafka's ClusterControlManager and
BrokerHeartbeatManager, and the broker half of its ReplicationControlManager.

- BrokerRegistration: a cluster id other than the controller's is INCONSISTENT_CLUSTER_ID; a
  broker id registered with another incarnation id whose session is still valid is
  DUPLICATE_BROKER_REGISTRATION (the same incarnation registering again is a retry, and is
  accepted); a metadata.version range without the finalized level is UNSUPPORTED_VERSION. The
  RegisterBrokerRecord (fenced) is written at the log end, and its offset is the broker epoch.
  A session is the (broker id, epoch) of a registration and the time of its last heartbeat, as
  Kafka's BrokerHeartbeatTracker keeps it: a broker stopped and started again with a new
  incarnation is refused until the old session expires ("this should self-resolve").
- BrokerHeartbeat: an unknown broker or another epoch is STALE_BROKER_EPOCH. A fenced broker that
  does not want to be fenced is unfenced once its metadata offset reaches its RegisterBrokerRecord
  (and then becomes the leader of the leaderless partitions whose ISR holds it); an unfenced one
  wanting shutdown enters controlled shutdown when it leads partitions (its leaderships move to
  other ISR members, it leaves the ISRs) and is told to shut down once it leads nothing and every
  active broker has replayed the controlled-shutdown records; then it is fenced. The answer's
  IsCaughtUp says whether the metadata offset reached the registration.
- Sessions: a broker unfenced (or in controlled shutdown) that sends no heartbeat for the session
  timeout is fenced, its partitions moved as above. A fenced broker has no session to lose.

Fault entry points (``fence``, ``unregister``) write what Kafka's controller writes for a session
lost or an UnregisterBroker request; a broker fenced by ``fence`` stays fenced (its heartbeats
answer IsFenced) until ``release`` lets it be unfenced again.

Where this differs from Kafka's controller: Kafka checks expired sessions one broker at a time,
this checks them all at each tick; Kafka also handles ZooKeeper migration brokers and KIP-966's
unclean-shutdown epochs (PreviousBrokerEpoch), which a controller without eligible leader
replicas has no use for and which are ignored here.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Callable

from ...error_codes import ErrorCode
from ...kraft.image import MetadataImage
from ...kraft.rules import FENCE, UNFENCE
from ...messages.broker_registration_change_record import BrokerRegistrationChangeRecord
from ...messages.register_broker_record import RegisterBrokerRecord
from ...messages.unregister_broker_record import UnregisterBrokerRecord
from .metadata_log import Entries
from .partitions import has_leaderships, is_active, leadership_changes

V_REGISTER_BROKER = 3  # at metadata.version 3.9-IV0
METADATA_VERSION_FEATURE = "metadata.version"
MINIMUM_KRAFT_VERSION = 1  # the level assumed for a broker naming no metadata.version range

Commit = Callable[[Entries], int]  # appends a batch, applies it; returns its base offset


class ControllerError(Exception):
    """A request refused with a Kafka error code."""

    def __init__(self, error: int, message: str):
        super().__init__(message)
        self.error = error  # an ErrorCode


@dataclass
class Session:
    """What the controller knows of a broker between records: Kafka's BrokerHeartbeatState."""

    epoch: int  # of the registration the heartbeats came for
    last_contact: float
    metadata_offset: int = -1
    shutdown_offset: int | None = None  # the last offset of its controlled-shutdown records


@dataclass
class HeartbeatReply:
    caught_up: bool
    fenced: bool
    shutting_down: bool
    should_shut_down: bool


def _monotonic() -> float:
    return time.monotonic()


class BrokerControl:
    """Registrations and heartbeats, over the controller's image and log."""

    def __init__(self, image: MetadataImage, commit: Commit, *, cluster_id: str,
                 session_timeout_ms: int, clock: Callable[[], float] = _monotonic):  # fmt: skip
        self.image = image
        self.commit = commit
        self.cluster_id = cluster_id
        self.session_timeout = session_timeout_ms / 1000
        self.clock = clock
        self.sessions: dict[int, Session] = {}
        self.registration_offsets: dict[int, int] = {}
        self.held: set[int] = set()  # fenced by a fault until released
        # Where the next record lands: a registration's epoch (the controller points it at its log).
        self.next_offset: Callable[[], int] = lambda: image.offset + 1

    # --- registration ------------------------------------------------------------------------

    def has_valid_session(self, broker_id: int, epoch: int) -> bool:
        session = self.sessions.get(broker_id)
        return (session is not None and session.epoch == epoch
                and self.clock() - session.last_contact <= self.session_timeout)  # fmt: skip

    def register(self, request: Any) -> int:
        """Register a broker; returns its epoch (the offset of its RegisterBrokerRecord)."""
        if request.cluster_id != self.cluster_id:
            raise ControllerError(ErrorCode.INCONSISTENT_CLUSTER_ID,
                                  f"Expected cluster ID {self.cluster_id}, but got cluster ID {request.cluster_id}")  # fmt: skip
        existing = self.image.brokers.get(request.broker_id)
        if existing is not None and existing.incarnation_id != request.incarnation_id:
            if self.has_valid_session(request.broker_id, existing.epoch):
                raise ControllerError(ErrorCode.DUPLICATE_BROKER_REGISTRATION,
                                      "Another broker is registered with that broker id.")  # fmt: skip
        features = self._features(request)
        record = RegisterBrokerRecord(
            broker_id=request.broker_id,
            is_migrating_zk_broker=False,
            incarnation_id=request.incarnation_id,
            broker_epoch=0,  # set below: the offset the record lands at
            end_points=[
                RegisterBrokerRecord.BrokerEndpoint(name=l.name, host=l.host, port=l.port,
                                                    security_protocol=l.security_protocol)  # fmt: skip
                for l in request.listeners
            ],
            features=features,
            rack=request.rack,
            fenced=True,
            in_controlled_shutdown=False,
            log_dirs=list(request.log_dirs),
        )
        record.broker_epoch = self.next_offset()
        offset = self.commit([(record, V_REGISTER_BROKER)])
        assert offset == record.broker_epoch
        self.registration_offsets[request.broker_id] = offset
        self.sessions.pop(request.broker_id, None)  # the old incarnation's session ends
        return offset

    def _features(self, request: Any) -> list[RegisterBrokerRecord.BrokerFeature]:
        """The broker's feature ranges, each checked against the finalized level."""
        ranges = {f.name: (f.min_supported_version, f.max_supported_version) for f in request.features}
        ranges.setdefault(METADATA_VERSION_FEATURE, (MINIMUM_KRAFT_VERSION, MINIMUM_KRAFT_VERSION))
        for name, (low, high) in ranges.items():
            finalized = self.image.features.get(name)
            if finalized is not None and not low <= finalized <= high:
                raise ControllerError(ErrorCode.UNSUPPORTED_VERSION,
                    f"Unable to register because the broker does not support version {finalized} "
                    f"of {name}. It wants a version between {low} and {high}, inclusive.")  # fmt: skip
        return [RegisterBrokerRecord.BrokerFeature(name=n, min_supported_version=lo, max_supported_version=hi)
                for n, (lo, hi) in ranges.items()]  # fmt: skip

    def check_epoch(self, broker_id: int, epoch: int) -> None:
        broker = self.image.brokers.get(broker_id)
        if broker is None:
            raise ControllerError(ErrorCode.STALE_BROKER_EPOCH,
                                  f"No broker registration found for broker id {broker_id}")  # fmt: skip
        if broker.epoch != epoch:
            raise ControllerError(ErrorCode.STALE_BROKER_EPOCH,
                                  f"Expected broker epoch {broker.epoch}, but got broker epoch {epoch}")  # fmt: skip

    # --- heartbeats --------------------------------------------------------------------------

    def heartbeat(self, request: Any) -> HeartbeatReply:
        """Kafka's processBrokerHeartbeat: the broker's next state and the records it takes."""
        broker_id = request.broker_id
        self.check_epoch(broker_id, request.broker_epoch)
        session = self.sessions.get(broker_id)
        if session is None or session.epoch != request.broker_epoch:
            session = self.sessions[broker_id] = Session(request.broker_epoch, self.clock())
        session.last_contact = self.clock()
        session.metadata_offset = request.current_metadata_offset
        registered_at = self.registration_offsets.get(broker_id, self.image.brokers[broker_id].epoch)
        caught_up = request.current_metadata_offset >= registered_at
        state = self._next_state(broker_id, request, caught_up, session)
        return HeartbeatReply(caught_up, state in ("fenced", "shutdown now"),
                              state == "controlled shutdown", state == "shutdown now")  # fmt: skip

    def _current_state(self, broker_id: int) -> str:
        broker = self.image.brokers[broker_id]
        if broker.in_controlled_shutdown and not broker.fenced:
            return "controlled shutdown"
        return "fenced" if broker.fenced else "unfenced"

    def _next_state(self, broker_id: int, request: Any, caught_up: bool, session: Session) -> str:
        """BrokerHeartbeatManager.calculateNextBrokerState, with the records each move takes."""
        current = self._current_state(broker_id)
        if current == "fenced":
            if request.want_shut_down:
                return "shutdown now"
            if request.want_fence or not caught_up or broker_id in self.held:
                return "fenced"
            self.commit(self.unfence_entries(broker_id))
            return "unfenced"
        if current == "unfenced":
            if request.want_fence or (request.want_shut_down and not has_leaderships(self.image, broker_id)):
                self.commit(self.fence_entries(broker_id))
                return "shutdown now" if request.want_shut_down else "fenced"
            if request.want_shut_down:
                self.commit(self.shutdown_entries(broker_id))
                session.shutdown_offset = self.image.offset  # the last of those records
                return "controlled shutdown"
            return "unfenced"
        return self._shutting_down(broker_id, session)

    def _shutting_down(self, broker_id: int, session: Session) -> str:
        if has_leaderships(self.image, broker_id):
            return "controlled shutdown"
        lowest = min((s.metadata_offset for b, s in self.sessions.items()
                      if b != broker_id and is_active(self.image, b)), default=None)  # fmt: skip
        shutdown_at = session.shutdown_offset if session.shutdown_offset is not None else -1
        if lowest is not None and shutdown_at > lowest:
            return "controlled shutdown"
        self.commit(self.fence_entries(broker_id))
        return "shutdown now"

    # --- the records of each move ------------------------------------------------------------

    def _change(self, broker_id: int, **fields: int) -> BrokerRegistrationChangeRecord:
        epoch = self.image.brokers[broker_id].epoch
        values: dict[str, Any] = {"broker_id": broker_id, "broker_epoch": epoch, **fields}
        return BrokerRegistrationChangeRecord(**values)

    def fence_entries(self, broker_id: int) -> Entries:
        """Kafka's handleBrokerFenced: the broker's partitions first, then the fence."""
        return leadership_changes(self.image, remove=broker_id) + [(self._change(broker_id, fenced=FENCE), 0)]

    def unfence_entries(self, broker_id: int) -> Entries:
        """handleBrokerUnfenced: the unfence, then the leaderless partitions it can lead. The
        partitions are chosen as if the broker were unfenced already."""
        unfence: Entries = [(self._change(broker_id, fenced=UNFENCE), 0)]
        return unfence + leadership_changes(self.image, add=broker_id)

    def shutdown_entries(self, broker_id: int) -> Entries:
        """handleBrokerInControlledShutdown: the flag, then its partitions moved away."""
        flag: Entries = [(self._change(broker_id, in_controlled_shutdown=1), 1)]
        return flag + leadership_changes(self.image, remove=broker_id)

    # --- sessions and faults -----------------------------------------------------------------

    def expire_sessions(self) -> list[int]:
        """Fence every unfenced broker whose session ran out; returns their ids."""
        now = self.clock()
        expired = [b for b, s in sorted(self.sessions.items())
                   if now - s.last_contact > self.session_timeout
                   and b in self.image.brokers and not self.image.brokers[b].fenced]  # fmt: skip
        for broker_id in expired:
            self.commit(self.fence_entries(broker_id))
            del self.sessions[broker_id]
        return expired

    def fence(self, broker_id: int) -> None:
        """Fence a broker as a lost session does, and hold it fenced until ``release``."""
        broker = self.image.brokers.get(broker_id)
        if broker is None:
            raise KeyError(f"broker {broker_id} is not registered")
        self.held.add(broker_id)
        if not broker.fenced:
            self.commit(self.fence_entries(broker_id))
        self.sessions.pop(broker_id, None)

    def release(self, broker_id: int) -> None:
        """Let a broker fenced by ``fence`` be unfenced by its next heartbeat."""
        self.held.discard(broker_id)

    def unregister(self, broker_id: int) -> None:
        """Kafka's UnregisterBroker: the broker's partitions moved away, then its registration
        removed. BROKER_ID_NOT_REGISTERED for an unknown id."""
        broker = self.image.brokers.get(broker_id)
        if broker is None:
            raise ControllerError(ErrorCode.BROKER_ID_NOT_REGISTERED,
                                  f"Broker ID {broker_id} is not currently registered")  # fmt: skip
        record = UnregisterBrokerRecord(broker_id=broker_id, broker_epoch=broker.epoch)
        self.commit(leadership_changes(self.image, remove=broker_id) + [(record, 0)])
        self.sessions.pop(broker_id, None)
        self.registration_offsets.pop(broker_id, None)
