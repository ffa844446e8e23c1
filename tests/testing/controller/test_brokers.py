"""Registration, heartbeats, sessions and controlled shutdown, against the controller on loopback:
raw requests where the answer is the point, BrokerLifecycle where the image is."""

from __future__ import annotations

import asyncio

from kafka_meta_proto import message_class
from kafka_meta_proto.error_codes import ErrorCode
from kafka_meta_proto.uuid import Uuid

from testing.controller.scene import SESSION_MS, heartbeat, registration, run, scene, topic

BrokerRegistrationResponse = message_class("BrokerRegistrationResponse")
BrokerHeartbeatResponse = message_class("BrokerHeartbeatResponse")


def test_a_broker_epoch_is_the_offset_of_its_registration_record(tmp_path):
    async def scenario():
        async with scene(tmp_path) as s, await s.connection() as conn:
            first = s.controller.log.end_offset
            answer = await conn.send(registration(s.cluster_id, 5), expect=BrokerRegistrationResponse)
            assert (answer.error_code, answer.broker_epoch) == (0, first)
            broker = s.controller.image.brokers[5]
            assert (broker.epoch, broker.fenced) == (first, True)
            assert s.controller.image.offset == first  # the RegisterBrokerRecord is that offset

    run(scenario())


def test_registration_refuses_another_cluster_and_a_live_duplicate(tmp_path):
    async def scenario():
        async with scene(tmp_path) as s, await s.connection() as conn:
            wrong = await conn.send(registration(str(Uuid.random()), 1), expect=BrokerRegistrationResponse)
            assert (wrong.error_code, wrong.broker_epoch) == (ErrorCode.INCONSISTENT_CLUSTER_ID, -1)
            assert 1 not in s.controller.image.brokers
            incarnation = Uuid.random()
            epoch = (await conn.send(registration(s.cluster_id, 1, incarnation))).broker_epoch
            beat = await conn.send(heartbeat(1, epoch, epoch), expect=BrokerHeartbeatResponse)
            assert (beat.error_code, beat.is_caught_up, beat.is_fenced) == (0, True, False)
            # Another incarnation while the session lives: refused; the same one: a retry.
            other = await conn.send(registration(s.cluster_id, 1), expect=BrokerRegistrationResponse)
            assert other.error_code == ErrorCode.DUPLICATE_BROKER_REGISTRATION
            again = await conn.send(registration(s.cluster_id, 1, incarnation))
            assert again.error_code == 0 and again.broker_epoch > epoch
            # Once the session has expired the other incarnation is accepted.
            beat = await conn.send(heartbeat(1, again.broker_epoch, again.broker_epoch))
            await asyncio.sleep(SESSION_MS * 1.5 / 1000)
            late = await conn.send(registration(s.cluster_id, 1), expect=BrokerRegistrationResponse)
            assert late.error_code == 0 and late.broker_epoch > again.broker_epoch

    run(scenario())


def test_heartbeats_unfence_only_a_caught_up_broker_and_check_the_epoch(tmp_path):
    async def scenario():
        async with scene(tmp_path) as s, await s.connection() as conn:
            epoch = (await conn.send(registration(s.cluster_id, 2))).broker_epoch
            behind = await conn.send(heartbeat(2, epoch, epoch - 1), expect=BrokerHeartbeatResponse)
            assert (behind.is_caught_up, behind.is_fenced) == (False, True)
            assert s.controller.image.brokers[2].fenced
            fence_wanted = await conn.send(heartbeat(2, epoch, epoch, want_fence=True))
            assert (fence_wanted.is_caught_up, fence_wanted.is_fenced) == (True, True)
            stale = await conn.send(heartbeat(2, epoch + 1, epoch), expect=BrokerHeartbeatResponse)
            assert stale.error_code == ErrorCode.STALE_BROKER_EPOCH
            unknown = await conn.send(heartbeat(9, epoch, epoch), expect=BrokerHeartbeatResponse)
            assert unknown.error_code == ErrorCode.STALE_BROKER_EPOCH
            caught_up = await conn.send(heartbeat(2, epoch, epoch), expect=BrokerHeartbeatResponse)
            assert (caught_up.error_code, caught_up.is_fenced) == (0, False)
            assert not s.controller.image.brokers[2].fenced

    run(scenario())


def test_lifecycles_are_unfenced_and_see_each_other(tmp_path):
    async def scenario():
        async with scene(tmp_path) as s:
            b0, b1 = await s.unfenced(0, 1)
            assert b0.fenced is False and b1.fenced is False
            image = await b1.caught_up()
            assert image.brokers[0].epoch == b0.broker_epoch
            assert image.brokers[0].listeners["PLAINTEXT"].port == 9092
            assert image.brokers[1].directories == [b1.directory_id]
            assert image.offset == s.controller.image.offset

    run(scenario())


def test_a_silent_broker_is_fenced_and_its_partitions_move(tmp_path):
    async def scenario():
        async with scene(tmp_path) as s:
            b0, b1 = await s.unfenced(0, 1)
            created = await b0.forward(topic("t", 2, 2))
            assert created.topics[0].error_code == 0
            led_by_1 = [i for i, p in b0.image.topic("t").partitions.items() if p.leader == 1]
            assert led_by_1
            await b1.stop()  # no more heartbeats
            image = await b0.wait_until(lambda im: im.brokers[1].fenced, timeout=5)
            for index, p in image.topic("t").partitions.items():
                assert p.isr == [0] and p.leader == 0, (index, p)
            for index in led_by_1:
                assert image.topic("t").partitions[index].leader_epoch == 1

    run(scenario())


def test_a_fenced_broker_back_leads_the_leaderless_partitions_it_holds(tmp_path):
    async def scenario():
        async with scene(tmp_path) as s:
            (b0,) = await s.unfenced(0)
            await b0.forward(topic("alone", 1, 1))
            await b0.stop()
            while not s.controller.image.brokers[0].fenced:
                await asyncio.sleep(0.02)
            p = s.controller.image.topic("alone").partitions[0]
            assert (p.leader, p.isr) == (-1, [0])  # the last ISR member stays in the ISR
            again = await s.broker(0)
            image = await again.wait_until(lambda im: 0 in im.brokers and not im.brokers[0].fenced, timeout=5)
            p = image.topic("alone").partitions[0]
            assert (p.leader, p.isr, p.leader_epoch) == (0, [0], 2)

    run(scenario())


def test_controlled_shutdown_moves_leaders_then_lets_the_broker_go(tmp_path):
    async def scenario():
        async with scene(tmp_path, session_timeout_ms=5000) as s:
            b0, b1 = await s.unfenced(0, 1)
            await b0.forward(topic("t", 4, 2))
            assert any(p.leader == 1 for p in b0.image.topic("t").partitions.values())
            seen = []
            b0.add_listener(lambda image: seen.append(image.brokers[1].in_controlled_shutdown))
            await b1.controlled_shutdown()
            image = await b0.caught_up()
            assert image.brokers[1].fenced and image.brokers[1].in_controlled_shutdown
            assert True in seen  # the image went through the controlled-shutdown state
            for p in image.topic("t").partitions.values():
                assert p.leader == 0 and p.isr == [0]
            assert b1.last_heartbeat.should_shut_down

    run(scenario())


def test_a_broker_restarted_with_a_new_incarnation_waits_for_the_old_session(tmp_path):
    async def scenario():
        async with scene(tmp_path) as s:
            (b0,) = await s.unfenced(0)
            old_epoch = b0.broker_epoch
            await b0.stop()
            again = await s.broker(0)  # refused as a duplicate until the session expired
            assert again.broker_epoch > old_epoch
            assert again.incarnation_id != b0.incarnation_id

    run(scenario())
