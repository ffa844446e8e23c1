"""Which batch coordinator owns a diskless partition, and where that coordinator is served.

With several ``__diskless-metadata`` partitions there are several coordinators, one per
partition, and each partition of a diskless topic belongs to exactly one of them: the one its
``TopicPartitionToBatchCoordinatorMapping`` record names (the controller writes it on
AssignPartitionToBatchCoordinator; a metadata image keeps it in ``image.diskless``). A
``Routing`` reads that mapping from whatever image is current and says which node serves a
coordinator; ``CoordinatorService`` asks it to answer FindCoordinator keys and to refuse the
partitions it does not own.

A partition the mapping does not name has no coordinator yet (the controller has not been asked
to map it): FindCoordinator answers COORDINATOR_NOT_AVAILABLE, which a caller retries.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from ..kraft.image import MetadataImage
from ..uuid import Uuid

# topic id -> partition -> coordinator (a __diskless-metadata partition), as image.diskless holds it
Mappings = Mapping[Uuid, Mapping[int, int]]


@dataclass(frozen=True)
class Node:
    """How a coordinator is advertised: the node id, host and port FindCoordinator answers."""

    node_id: int
    host: str
    port: int


class Routing:
    """``mappings()``: the current partition -> coordinator mapping; ``nodes(coordinator)``: the
    node serving that coordinator, or None when it is not served now."""

    def __init__(self, mappings: Callable[[], Mappings], nodes: Callable[[int], Node | None]):
        self._mappings = mappings
        self._nodes = nodes

    @classmethod
    def from_image(cls, image: Callable[[], MetadataImage], nodes: Callable[[int], Node | None]) -> Routing:
        """The mapping of whatever image ``image()`` gives now (a broker's follows the log)."""
        return cls(lambda: image().diskless, nodes)

    def owner(self, topic_id: Uuid, partition: int) -> int | None:
        """The coordinator of the partition, or None when it is not mapped."""
        return self._mappings().get(topic_id, {}).get(partition)

    def node(self, coordinator: int) -> Node | None:
        return self._nodes(coordinator)
