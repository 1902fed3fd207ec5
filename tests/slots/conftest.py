"""Fixtures of the events API tests: machines with keys and a fixture that posts a batch."""

from __future__ import annotations

import orjson
import pytest
from asgiref.sync import SyncToAsync
from django.db import connections
from django.test import Client

from common.credentials import credential_issue
from config.http import event_executors
from slots.models import GatewayKey, MachineKey, SlotMachine
from slots.services.auth import principal_cache_clear
from tests.factories import SlotMachineFactory
from tests.slots.helpers import PostEvents


@pytest.fixture(autouse=True)
def _lasting_thread_connections_closed():
    """The event threads and asgiref's shared thread (async ORM calls of a test) keep their own
    connections; closed so the test database can be dropped."""
    yield
    for executor in (*event_executors(), SyncToAsync.single_thread_executor):
        executor.submit(connections.close_all).result()


@pytest.fixture(autouse=True)
def _fresh_key_cache() -> None:
    principal_cache_clear()


@pytest.fixture
def machine(db) -> SlotMachine:
    return SlotMachineFactory(asset_number="NOG-0101", min_bet_cents=50, max_bet_cents=450)


@pytest.fixture
def machine_key(machine: SlotMachine) -> str:
    return credential_issue(MachineKey, kind="mach", machine=machine)[1]


@pytest.fixture
def gateway_key(machine: SlotMachine) -> str:
    return credential_issue(GatewayKey, kind="gw", venue=machine.room.venue)[1]


@pytest.fixture
def post_events(client: Client) -> PostEvents:
    """Posts ``{"events": events}`` (or a raw ``body``) with ``key``; returns status and decoded JSON."""

    def post(events: list | None = None, *, key: str | None = None, body: bytes | None = None, **headers):
        if body is None:
            body = orjson.dumps({"events": events})
        if key is not None:
            headers["HTTP_AUTHORIZATION"] = f"Bearer {key}"
        response = client.post("/api/v1/events", data=body, content_type="application/json", **headers)
        return response.status_code, orjson.loads(response.content)

    return post
