"""The event posts through the project's ASGI application: stored, and served on the process's lasting
event threads instead of a new thread per request (config.http)."""

from __future__ import annotations

import threading

import orjson
import pytest
from asgiref.testing import ApplicationCommunicator
from django.core.signals import request_started

from config.http import http_application
from slots.models import MachineEvent
from tests.slots.helpers import asgi_scope, game

pytestmark = pytest.mark.django_db(transaction=True)


async def _request(method: str, path: str, key: str | None = None, body: bytes = b"") -> tuple[int, bytes]:
    communicator = ApplicationCommunicator(http_application(), asgi_scope(method, path, key))
    await communicator.send_input({"type": "http.request", "body": body, "more_body": False})
    start = await communicator.receive_output(10)
    content = await communicator.receive_output(10)
    await communicator.wait(10)
    return start["status"], content["body"]


@pytest.fixture
def sync_threads():
    """The name of the thread each request's sync code (its request_started receivers) ran in."""
    names: list[str] = []

    def record(**kwargs: object) -> None:
        names.append(threading.current_thread().name)

    request_started.connect(record, dispatch_uid="test-sync-threads")
    yield names
    request_started.disconnect(dispatch_uid="test-sync-threads")


async def test_event_posts_are_stored_and_served_on_a_lasting_thread(machine, machine_key, sync_threads):
    for seq in (1, 2):
        body = orjson.dumps({"events": [game(machine, seq)]})
        status, content = await _request("POST", "/api/v1/events", machine_key, body)
        assert (status, orjson.loads(content)) == (200, {"accepted": 1, "duplicates": 0, "rejected": []})
    assert await MachineEvent.objects.filter(machine=machine).acount() == 2
    assert len(sync_threads) == 2
    # One post at a time: both went to the first event thread, which outlived the first post.
    assert sync_threads == ["events-0_0", "events-0_0"]


async def test_other_paths_keep_a_thread_per_request(db, sync_threads):
    for _ in range(2):
        status, _content = await _request("GET", "/api/v1/jackpots")
        assert status == 200
    assert len(sync_threads) == 2
    assert sync_threads[0] != sync_threads[1]
