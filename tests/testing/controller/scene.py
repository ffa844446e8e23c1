"""What the controller tests share: a controller on loopback with a short session timeout, and
brokers' lifecycles started against it."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

from kafka_meta_proto import message_class
from kafka_meta_proto.client import Connection, connect
from kafka_meta_proto.testing.broker.lifecycle import BrokerLifecycle
from kafka_meta_proto.testing.controller import Controller
from kafka_meta_proto.uuid import Uuid

SESSION_MS = 200  # short, so a silent broker is fenced quickly
HEARTBEAT_MS = 40
TIMEOUT_MS = 30000  # the admin requests' TimeoutMs: 0 would time them out at once, as in Kafka

BrokerRegistrationRequest = message_class("BrokerRegistrationRequest")
BrokerHeartbeatRequest = message_class("BrokerHeartbeatRequest")
CreateTopicsRequest = message_class("CreateTopicsRequest")
CreatableTopic = CreateTopicsRequest.CreatableTopic


def run(coroutine):
    return asyncio.run(asyncio.wait_for(coroutine, 60))  # a hang fails the test, never blocks it


class Scene:
    """A started controller, its cluster id, and the lifecycles started in the scene."""

    def __init__(self, controller: Controller):
        self.controller = controller
        self.cluster_id = controller.cluster_id
        self.lifecycles: list[BrokerLifecycle] = []

    async def broker(self, node_id: int, **options) -> BrokerLifecycle:
        lifecycle = BrokerLifecycle(node_id, self.controller.address, cluster_id=self.cluster_id,
                                    listeners=[("PLAINTEXT", "127.0.0.1", 9092 + node_id)],
                                    heartbeat_interval_ms=HEARTBEAT_MS, **options)  # fmt: skip
        await lifecycle.start()
        self.lifecycles.append(lifecycle)
        return lifecycle

    async def unfenced(self, *node_ids: int) -> list[BrokerLifecycle]:
        """Start brokers and wait until the controller has unfenced them all."""
        started = [await self.broker(n) for n in node_ids]
        for lifecycle in started:
            await lifecycle.wait_until(lambda image: all(
                n in image.brokers and not image.brokers[n].fenced for n in node_ids))  # fmt: skip
        return started

    async def connection(self) -> Connection:
        return await connect(*self.controller.address)


@contextlib.asynccontextmanager
async def scene(tmp_path: Path, **options) -> AsyncIterator[Scene]:
    controller = Controller(tmp_path, cluster_id=str(Uuid.random()),
                            session_timeout_ms=options.pop("session_timeout_ms", SESSION_MS), **options)  # fmt: skip
    await controller.start()
    staged = Scene(controller)
    try:
        yield staged
    finally:
        for lifecycle in staged.lifecycles:
            await lifecycle.stop()
        await controller.close()


def registration(cluster_id: str, broker_id: int, incarnation: Uuid | None = None, **fields):
    return BrokerRegistrationRequest(
        broker_id=broker_id, cluster_id=cluster_id, incarnation_id=incarnation or Uuid.random(),
        listeners=[BrokerRegistrationRequest.Listener(name="PLAINTEXT", host="127.0.0.1", port=9000 + broker_id,
                                                      security_protocol=0)],
        features=[BrokerRegistrationRequest.Feature(name="metadata.version", min_supported_version=7,
                                                    max_supported_version=21)], **fields)  # fmt: skip


def heartbeat(broker_id: int, epoch: int, offset: int, **fields):
    fields = {"want_fence": False, "want_shut_down": False, **fields}
    return BrokerHeartbeatRequest(broker_id=broker_id, broker_epoch=epoch, current_metadata_offset=offset,
                                  **fields)  # fmt: skip


def topic(name: str, partitions: int = -1, replication: int = -1, **fields):
    return CreateTopicsRequest(topics=[CreatableTopic(name=name, num_partitions=partitions,
                                                      replication_factor=replication, **fields)],
                               timeout_ms=TIMEOUT_MS)  # fmt: skip
