"""The floor ticker reaches the server through common.lifespan: the demo app registers it (config cannot
import the demo), and config/lifespan.py starts whatever is registered and stops it with the server."""

from __future__ import annotations

import asyncio

import pytest
from django.apps import apps
from django.test import override_settings

from common import lifespan
from config.lifespan import Lifespan
from demo.services.ticker import beat_jobs_serve


@pytest.fixture
def no_server_tasks(monkeypatch: pytest.MonkeyPatch) -> lifespan.LifespanHooks:
    registry = lifespan.LifespanHooks()
    monkeypatch.setattr(lifespan, "hooks", registry)
    return registry


@override_settings(FLOOR_TICKER_IN_SERVER=True)
def test_the_demo_registers_the_ticker_once_when_it_runs_in_the_server(no_server_tasks) -> None:
    config = apps.get_app_config("demo")
    config.ready()
    config.ready()

    assert no_server_tasks.server_tasks == [beat_jobs_serve]


@override_settings(FLOOR_TICKER_IN_SERVER=False)
def test_without_the_setting_the_server_runs_nothing_beside_its_requests(no_server_tasks) -> None:
    apps.get_app_config("demo").ready()

    assert no_server_tasks.server_tasks == []


async def test_the_server_starts_each_registered_task_and_cancels_it_at_shutdown(monkeypatch) -> None:
    events: list[str] = []
    started = asyncio.Event()

    async def forever() -> None:
        events.append("started")
        started.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            events.append("cancelled")
            raise

    monkeypatch.setattr("config.lifespan.hooks", lifespan.LifespanHooks(server_tasks=[forever]))
    inbox: asyncio.Queue[dict] = asyncio.Queue()
    sent: list[str] = []

    async def send(message: dict) -> None:
        sent.append(message["type"])

    server = asyncio.create_task(Lifespan()({"type": "lifespan"}, inbox.get, send))
    await inbox.put({"type": "lifespan.startup"})
    await asyncio.wait_for(started.wait(), timeout=5)
    await inbox.put({"type": "lifespan.shutdown"})
    await asyncio.wait_for(server, timeout=5)

    assert events == ["started", "cancelled"]
    assert sent == ["lifespan.startup.complete", "lifespan.shutdown.complete"]
