"""Fixtures of the events API tests: machines with keys and a helper that posts a batch."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

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
from tests.staff_fixtures import floor_manager  # noqa: F401  (the admin revocation test)

BASE_AT = (datetime.now(UTC) - timedelta(days=1)).replace(microsecond=0)


def at(seconds: float = 0) -> str:
    """An RFC 3339 instant ``seconds`` after BASE_AT (always in the past of the test run)."""
    return (BASE_AT + timedelta(seconds=seconds)).isoformat().replace("+00:00", "Z")


def game(machine: SlotMachine, seq: int, wager: int = 450, win: int = 0, **extra) -> dict:
    return {
        "machine": machine.asset_number,
        "seq": seq,
        "at": at(seq),
        "type": "game",
        "wager": wager,
        "win": win,
        **extra,
    }


def meters_event(machine: SlotMachine, meters: object, seq: int = 1) -> dict:
    return {"machine": machine.asset_number, "seq": seq, "at": at(seq), "type": "meters", "meters": meters}


def asgi_scope(method: str, path: str, key: str | None = None) -> dict:
    """An ASGI HTTP scope for the project's application."""
    headers = [(b"host", b"testserver"), (b"content-type", b"application/json")]
    if key:
        headers.append((b"authorization", f"Bearer {key}".encode()))
    return {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": headers,
        "client": ("127.0.0.1", 5000),
        "server": ("testserver", 80),
    }


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


PostEvents = Callable[..., tuple[int, dict]]


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
