"""The serving commands' event loop: uvloop where installed (the dev setup installs it), asyncio's
own when it is absent or the environment asks for it."""

from __future__ import annotations

import asyncio
import sys

import pytest

from kafka_meta_proto.server import event_loop


async def running_loop_module() -> str:
    return type(asyncio.get_running_loop()).__module__


def test_uvloop_when_installed(monkeypatch):
    pytest.importorskip("uvloop")
    monkeypatch.delenv(event_loop.EVENT_LOOP_ENV, raising=False)
    assert event_loop.loop_name() == "uvloop"
    assert event_loop.run(running_loop_module()).startswith("uvloop")


def test_the_environment_keeps_asyncios_loop(monkeypatch):
    monkeypatch.setenv(event_loop.EVENT_LOOP_ENV, "asyncio")
    assert event_loop.loop_name() == "asyncio"
    assert event_loop.run(running_loop_module()).startswith("asyncio")


def test_asyncios_loop_without_uvloop(monkeypatch):
    monkeypatch.delenv(event_loop.EVENT_LOOP_ENV, raising=False)
    monkeypatch.setitem(sys.modules, "uvloop", None)  # an import of it raises ImportError
    assert event_loop.loop_name() == "asyncio"
    assert event_loop.run(running_loop_module()).startswith("asyncio")


def test_the_result_is_returned():
    async def answer() -> int:
        await asyncio.sleep(0)
        return 42

    assert event_loop.run(answer()) == 42
