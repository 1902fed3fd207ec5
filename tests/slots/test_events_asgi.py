"""The event posts through the project's ASGI application: stored, and served on the process's lasting
event threads instead of a new thread per request (config.http)."""

from __future__ import annotations

import asyncio
import threading

import orjson
import pytest
from asgiref.sync import AsyncToSync, SyncToAsync
from asgiref.testing import ApplicationCommunicator
from django.conf import settings
from django.core.signals import request_finished, request_started

from config.http import EVENT_MIDDLEWARE, event_executors, http_application
from slots.models import MachineEvent
from tests.slots.helpers import asgi_scope, game

pytestmark = pytest.mark.django_db(transaction=True)


async def _answer(method: str, path: str, key: str | None = None, body: bytes = b"") -> tuple[dict, bytes]:
    """The response's start message and its body, through the project's ASGI application."""
    communicator = ApplicationCommunicator(http_application(), asgi_scope(method, path, key))
    await communicator.send_input({"type": "http.request", "body": body, "more_body": False})
    start = await communicator.receive_output(10)
    content = await communicator.receive_output(10)
    await communicator.wait(10)
    return start, content["body"]


async def _request(method: str, path: str, key: str | None = None, body: bytes = b"") -> tuple[int, bytes]:
    start, content = await _answer(method, path, key, body)
    return start["status"], content


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


async def test_an_event_post_visits_its_thread_once(machine, machine_key, monkeypatch):
    """The request's start signal, its response and its close (the end signal, which tidies the database
    connections) run in one visit to the event thread: Django's handler made three, each a hop from the
    loop to the thread and back."""
    executor = event_executors()[0]
    submit = executor.submit
    visits: list[object] = []

    def counted(function, *args, **kwargs):
        visits.append(function)
        return submit(function, *args, **kwargs)

    monkeypatch.setattr(executor, "submit", counted)
    signalled: list[tuple[str, str]] = []

    def started(**kwargs: object) -> None:
        signalled.append(("started", threading.current_thread().name))

    def finished(**kwargs: object) -> None:
        signalled.append(("finished", threading.current_thread().name))

    request_started.connect(started, dispatch_uid="test-visits-started")
    request_finished.connect(finished, dispatch_uid="test-visits-finished")
    try:
        body = orjson.dumps({"events": [game(machine, 1)]})
        status, content = await _request("POST", "/api/v1/events", machine_key, body)
    finally:
        request_started.disconnect(dispatch_uid="test-visits-started")
        request_finished.disconnect(dispatch_uid="test-visits-finished")
    assert (status, orjson.loads(content)) == (200, {"accepted": 1, "duplicates": 0, "rejected": []})
    assert len(visits) == 1
    assert signalled == [("started", "events-0_0"), ("finished", "events-0_0")]


async def test_other_paths_keep_a_thread_per_request(db, sync_threads):
    for _ in range(2):
        status, _content = await _request("GET", "/api/v1/jackpots")
        assert status == 200
    assert len(sync_threads) == 2
    assert sync_threads[0] != sync_threads[1]


def _chain(handler: object) -> list[object]:
    """Each step of a Django handler's middleware chain, adapters included, outermost first."""
    steps, node = [], handler._middleware_chain
    while node is not None and len(steps) < 100:
        steps.append(node)
        if isinstance(node, AsyncToSync):
            node = node.awaitable
        elif isinstance(node, SyncToAsync):
            node = node.func
        else:
            node = getattr(node, "__wrapped__", None) or getattr(node, "get_response", None) or _closed(node)
    return steps


def _closed(function: object) -> object:
    """The ``get_response`` a function middleware (a closure) calls, if it is one."""
    code = getattr(function, "__code__", None)
    if code is None or "get_response" not in code.co_freevars:
        return None
    return function.__closure__[code.co_freevars.index("get_response")].cell_contents


def test_an_event_post_crosses_no_thread_on_its_way_through_the_middleware(db):
    """The event posts' sync chain holds no adapter: an async-only middleware in it (ServeStatic) made
    every post go thread -> event loop -> thread. It is the middleware that bears on an API answer, in the
    project's order, and no other (sessions, language, CSRF, logins, messages and lockouts cost a post 6-11%
    of its CPU and do nothing for it)."""
    handler = http_application()._event_handler
    steps = _chain(handler)
    assert [step for step in steps if isinstance(step, AsyncToSync | SyncToAsync)] == []
    assert steps[-1] == handler._get_response
    names = [
        f"{type(step).__module__}.{type(step).__name__}"
        for step in steps[:-1]
        if not hasattr(step, "__wrapped__")  # Django's exception-to-response wrapper around each
    ]
    assert names == [
        "django.middleware.security.SecurityMiddleware",
        "django.middleware.common.CommonMiddleware",
        "django.middleware.clickjacking.XFrameOptionsMiddleware",
    ]
    assert names == [path for path in settings.MIDDLEWARE if path in EVENT_MIDDLEWARE]
    assert settings.MIDDLEWARE[0] == "floor.middleware.nul_path_refuse"  # the project's chain is whole


async def test_an_event_post_answers_with_the_headers_of_every_api_answer(machine, machine_key):
    """Through its own short chain the post answers with what the whole chain gives another API answer:
    the security headers, X-Frame-Options, and a Content-Length."""

    async def headers(method: str, path: str, key: str | None, body: bytes = b"") -> dict[str, str]:
        start, content = await _answer(method, path, key, body)
        found = {name.decode().lower(): value.decode() for name, value in start["headers"]}
        assert found["content-length"] == str(len(content))
        return found

    posted = await headers(
        "POST", "/api/v1/events", machine_key, orjson.dumps({"events": [game(machine, 1)]})
    )
    other = await headers("GET", "/api/v1/jackpots", None)
    shared = ("x-content-type-options", "x-frame-options", "referrer-policy", "cross-origin-opener-policy")
    assert {name: posted.get(name) for name in shared} == {name: other.get(name) for name in shared}
    assert (posted["x-content-type-options"], posted["x-frame-options"]) == ("nosniff", "DENY")


def _backends() -> int:
    """PostgreSQL sessions open on the test database, this one's included."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()")
        return cursor.fetchone()[0]


async def _backends_settled(target: int | None = None) -> int:
    """The sessions' count once a closed session's server process has gone: the same count twice 0.2 s
    apart, or ``target`` reached; at most 5 s."""
    from asgiref.sync import sync_to_async

    count = await sync_to_async(_backends)()
    for _ in range(25):
        await asyncio.sleep(0.2)
        again = await sync_to_async(_backends)()
        if again == target or (target is None and again == count):
            return again
        count = again
    return count


@pytest.mark.postgres
async def test_a_request_on_a_thread_of_its_own_closes_its_connection_as_it_ends(db, settings):
    """Without a pool, a request of any path but the events' runs on a thread of its own that no request
    uses again, so its persistent connection must be closed as the request ends, not left to the garbage
    collector: with the collector's young passes spaced out (common.heap), a busy server kept dozens of
    idle sessions until PostgreSQL refused more clients (the wide-area end-to-end test's 60). Before:
    three requests with the collector off left three sessions open."""
    import gc

    assert settings.DATABASES["default"]["CONN_MAX_AGE"] > 0
    before = await _backends_settled()
    gc.disable()
    try:
        for _ in range(3):
            status, _content = await _request("GET", "/api/v1/jackpots")
            assert status == 200
        after = await _backends_settled(before)
    finally:
        gc.enable()
    assert after == before
