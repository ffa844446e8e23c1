"""What the broker and controller records do to a metadata image: registrations replaced or
removed, and the fencing, controlled shutdown and directories a broker record changes. Whether
Kafka refuses a broker record is ``kraft.brokers``' rule, shared with the audit."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from .brokers import (
    FENCE_BROKER,
    NEVER_REGISTERED,
    NOT_REGISTERED,
    UNFENCE_BROKER,
    WRONG_EPOCH,
    BrokerState,
    broker_problem,
    op_of_change,
)
from .image_parts import (
    BrokerRegistration,
    ControllerRegistration,
    Endpoint,
    FeatureRange,
    ReplayError,
)
from .rules import FENCE, FENCING_UNCHANGED, UNFENCE, fenced_after

if TYPE_CHECKING:
    from ..messages.broker_registration_change_record import BrokerRegistrationChangeRecord
    from ..messages.fence_broker_record import FenceBrokerRecord
    from ..messages.register_broker_record import RegisterBrokerRecord
    from ..messages.register_controller_record import RegisterControllerRecord
    from ..messages.unfence_broker_record import UnfenceBrokerRecord
    from ..messages.unregister_broker_record import UnregisterBrokerRecord
    from ..messages.unregister_controller_record import UnregisterControllerRecord
    from .image import Handler, MetadataImage


def _listeners(end_points: Iterable[Any]) -> dict[str, Endpoint]:
    """A registration's listeners by name (brokers and controllers list them alike)."""
    return {e.name: Endpoint(e.name, e.host, e.port, e.security_protocol) for e in end_points}


def _features(features: Iterable[Any]) -> dict[str, FeatureRange]:
    """A registration's supported feature ranges by feature name."""
    return {
        f.name: FeatureRange(f.min_supported_version, f.max_supported_version) for f in features
    }


def register_broker_record(image: MetadataImage, r: RegisterBrokerRecord) -> None:
    image.brokers[r.broker_id] = BrokerRegistration(
        id=r.broker_id,
        epoch=r.broker_epoch,
        incarnation_id=r.incarnation_id,
        listeners=_listeners(r.end_points),
        supported_features=_features(r.features),
        rack=r.rack,
        fenced=r.fenced,
        in_controlled_shutdown=r.in_controlled_shutdown,
        is_migrating_zk_broker=r.is_migrating_zk_broker,
        directories=list(r.log_dirs),
        cordoned_directories=(None if r.cordoned_log_dirs is None else list(r.cordoned_log_dirs)),
    )


def unregister_broker_record(image: MetadataImage, r: UnregisterBrokerRecord) -> None:
    image.brokers.pop(r.broker_id, None)


def unregister_controller_record(image: MetadataImage, r: UnregisterControllerRecord) -> None:
    # Kafka 4.4: a controller's registration ends; like a broker's, unknown ids are no error
    image.controllers.pop(r.controller_id, None)


def _registration(
    image: MetadataImage, broker_id: int, epoch: int, op: str, action: str
) -> BrokerRegistration:
    """The registration a broker record changes; a record Kafka refuses raises."""
    broker = image.brokers.get(broker_id)
    state = NEVER_REGISTERED if broker is None else BrokerState(True, broker.epoch, broker.fenced)
    problem = broker_problem(state, op, epoch)
    if problem == NOT_REGISTERED:
        raise ReplayError(f"cannot {action} broker {broker_id}: it is not registered")
    if problem == WRONG_EPOCH:
        raise ReplayError(
            f"cannot {action} broker {broker_id}: epoch {epoch} is not its registered epoch {state.epoch}"
        )
    assert broker is not None  # an absent broker is NOT_REGISTERED
    return broker


def fence_broker_record(image: MetadataImage, r: FenceBrokerRecord) -> None:
    _registration(image, r.id, r.epoch, FENCE_BROKER, "fence").fenced = True


def unfence_broker_record(image: MetadataImage, r: UnfenceBrokerRecord) -> None:
    _registration(image, r.id, r.epoch, UNFENCE_BROKER, "unfence").fenced = False


def broker_registration_change_record(
    image: MetadataImage, r: BrokerRegistrationChangeRecord
) -> None:
    broker = _registration(image, r.broker_id, r.broker_epoch, op_of_change(r.fenced), "change")
    if r.fenced not in (UNFENCE, FENCING_UNCHANGED, FENCE):
        raise ReplayError(f"unknown Fenced value {r.fenced}")
    if r.in_controlled_shutdown not in (0, 1):
        raise ReplayError(f"unknown InControlledShutdown value {r.in_controlled_shutdown}")
    broker.fenced = fenced_after(r.fenced, broker.fenced)
    if r.in_controlled_shutdown == 1:
        broker.in_controlled_shutdown = True
    if r.log_dirs:
        broker.directories = list(r.log_dirs)
    if r.cordoned_log_dirs is not None:  # null (the default) leaves the cordoned set alone
        broker.cordoned_directories = list(r.cordoned_log_dirs)


def register_controller_record(image: MetadataImage, r: RegisterControllerRecord) -> None:
    image.controllers[r.controller_id] = ControllerRegistration(
        id=r.controller_id,
        incarnation_id=r.incarnation_id,
        zk_migration_ready=r.zk_migration_ready,
        listeners=_listeners(r.end_points),
        supported_features=_features(r.features),
    )


HANDLERS: dict[str, Handler] = {
    "RegisterBrokerRecord": register_broker_record,
    "UnregisterBrokerRecord": unregister_broker_record,
    "UnregisterControllerRecord": unregister_controller_record,
    "FenceBrokerRecord": fence_broker_record,
    "UnfenceBrokerRecord": unfence_broker_record,
    "BrokerRegistrationChangeRecord": broker_registration_change_record,
    "RegisterControllerRecord": register_controller_record,
}
