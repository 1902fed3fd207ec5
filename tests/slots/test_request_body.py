"""API request bodies through the project's ASGI application (config.http): a body declared too large is
refused unread, a refused key costs no more than the body's first part, and what arrives is cut off at
the limit. The same for the events API and the table rounds API."""

from __future__ import annotations

import asyncio
import gc
from dataclasses import dataclass
from decimal import Decimal

import orjson
import pytest

from common.api_errors import API_ERRORS
from common.request_body import body_budget
from config.http import http_application
from tables.models import Table
from tables.seed import tables_seed
from tables.services import table_key_issue
from tests.slots.helpers import asgi_scope

pytestmark = pytest.mark.django_db(transaction=True)

MIB = 1024 * 1024
CHUNK = 64 * 1024
EVENTS = "/api/v1/events"
ROUNDS = "/api/v1/tables/NOG-CSP-1/rounds"
TOO_LARGE = {"error": "body_too_large", "detail": "The body is larger than 1 MiB."}
BUSY = API_ERRORS["server_busy"]


@dataclass
class Answer:
    status: int
    headers: dict[bytes, bytes]
    body: dict
    receives: int  # how many body messages the application asked for


async def _post(path: str, key: str | None, parts: int, *, content_length: int | None = None) -> Answer:
    """Posts ``parts`` messages of CHUNK bytes (the body of a chunked upload: no Content-Length unless
    given) and records how many of them the application received."""
    scope = asgi_scope("POST", path, key)
    if content_length is not None:
        scope["headers"].append((b"content-length", str(content_length).encode()))
    received = 0
    sent: list[dict] = []

    async def receive() -> dict:
        nonlocal received
        if received == parts:  # the whole body was read: the application waits for a disconnect
            await asyncio.Event().wait()
        received += 1
        return {"type": "http.request", "body": b" " * CHUNK, "more_body": received < parts}

    async def send(message: dict) -> None:
        sent.append(message)

    await asyncio.wait_for(http_application()(scope, receive, send), 10)
    start, content = sent[0], sent[1]
    return Answer(start["status"], dict(start["headers"]), orjson.loads(content["body"]), received)


@pytest.fixture(autouse=True)
def _request_threads_connections_closed():
    """A table request runs in a thread of its own, gone with the request; its database connection is
    closed when collected, which must happen before the test database is flushed or dropped."""
    yield
    gc.collect()


@pytest.fixture
def table_key(db) -> str:
    tables_seed()
    return table_key_issue(Table.objects.get(code="NOG-CSP-1"))[1]


@pytest.fixture
def keys(machine_key, table_key) -> dict[str, str]:
    return {EVENTS: machine_key, ROUNDS: table_key}


@pytest.mark.parametrize("path", [EVENTS, ROUNDS])
async def test_a_body_declared_over_the_limit_is_refused_unread(path):
    answer = await _post(path, None, 40, content_length=MIB + 1)
    assert (answer.status, answer.body, answer.receives) == (413, TOO_LARGE, 0)
    assert answer.headers[b"Connection"] == b"close"


@pytest.mark.parametrize(
    ("path", "code", "detail", "realm"),
    [
        (EVENTS, "invalid_key", "The key is unknown or has been revoked.", b'Bearer realm="events"'),
        (
            ROUNDS,
            "unauthorized",
            "A table key is required: Authorization: Bearer <key>.",
            b'Bearer realm="tables"',
        ),
    ],
)
async def test_a_refused_key_costs_only_the_first_part_of_the_body(path, code, detail, realm):
    # 2.5 MiB in 40 parts, an unknown key: refused after the first part, the rest never received.
    answer = await _post(path, "pv_mach_not-a-real-key", 40)
    assert (answer.status, answer.body, answer.receives) == (401, {"error": code, "detail": detail}, 1)
    assert answer.headers[b"WWW-Authenticate"] == realm
    assert answer.headers[b"Connection"] == b"close"


@pytest.mark.parametrize("path", [EVENTS, ROUNDS])
async def test_a_chunked_body_past_the_limit_is_cut_off_at_the_limit(keys, path):
    # A valid key and 2.5 MiB without Content-Length: 16 parts are exactly 1 MiB, the 17th is past it.
    answer = await _post(path, keys[path], 40)
    assert (answer.status, answer.body, answer.receives) == (413, TOO_LARGE, 17)
    assert answer.headers[b"Connection"] == b"close"


@pytest.mark.parametrize("path", [EVENTS, ROUNDS])
async def test_a_body_of_exactly_the_limit_in_parts_reaches_the_view(keys, path):
    # 16 parts of blanks: exactly 1 MiB, read whole, and the view finds it is no JSON document.
    answer = await _post(path, keys[path], 16)
    assert (answer.status, answer.body["error"], answer.receives) == (400, "invalid_json", 16)


class Upload:
    """A chunked upload (no Content-Length) of ``parts`` parts of blanks, whose parts after the first
    ``hold`` come only once ``go`` is set (or a disconnect, once ``gone``); ``received`` counts the parts
    the application asked for."""

    def __init__(self, path: str, key: str, parts: int, hold: int | None = None) -> None:
        self.scope = asgi_scope("POST", path, key)
        self.parts, self.hold = parts, hold
        self.received = 0
        self.go = asyncio.Event()
        self.gone = False
        self.sent: list[dict] = []

    async def receive(self) -> dict:
        if self.received == self.parts:
            await asyncio.Event().wait()
        if self.received == self.hold:
            await self.go.wait()
            if self.gone:
                return {"type": "http.disconnect"}
        self.received += 1
        return {"type": "http.request", "body": b" " * CHUNK, "more_body": self.received < self.parts}

    async def send(self, message: dict) -> None:
        self.sent.append(message)

    def start(self) -> asyncio.Task:
        application = http_application()(self.scope, self.receive, self.send)
        return asyncio.create_task(asyncio.wait_for(application, 10))

    def answer(self) -> tuple[int, dict, dict]:
        return self.sent[0]["status"], dict(self.sent[0]["headers"]), orjson.loads(self.sent[1]["body"])


async def _until(check) -> None:
    for _ in range(1000):
        if check():
            return
        await asyncio.sleep(0.005)
    raise AssertionError("not reached in 5 s")


@pytest.fixture
def one_body_budget(settings):
    """The process may hold one body of the limit: a second one arriving in parts waits."""
    settings.API_BODY_BUDGET = MIB
    yield body_budget
    assert (body_budget.held, len(body_budget._waiting)) == (0, 0)


@pytest.mark.parametrize("path", [EVENTS, ROUNDS])
async def test_a_body_in_parts_waits_while_others_hold_the_budget(keys, path, one_body_budget):
    first = Upload(path, keys[path], 16, hold=2)
    first_task = first.start()
    await _until(lambda: first.received == 2)
    second = Upload(path, keys[path], 16)
    second_task = second.start()
    await _until(lambda: len(one_body_budget._waiting) == 1)
    # The second holds its first part only; the first holds the budget until it is answered.
    assert (second.received, one_body_budget.held) == (1, MIB)
    first.go.set()
    await first_task
    await second_task
    assert (first.received, second.received) == (16, 16)
    assert [upload.answer()[2]["error"] for upload in (first, second)] == ["invalid_json", "invalid_json"]


async def test_a_body_that_waits_past_its_time_is_refused_with_503(keys, settings, one_body_budget):
    settings.API_BODY_WAIT_SECONDS = Decimal("0.2")
    first = Upload(EVENTS, keys[EVENTS], 16, hold=2)
    first_task = first.start()
    await _until(lambda: first.received == 2)
    second = Upload(EVENTS, keys[EVENTS], 16)
    await second.start()
    status, headers, body = second.answer()
    assert (status, body, second.received) == (503, {"error": "server_busy", "detail": BUSY}, 1)
    assert (headers[b"Retry-After"], headers[b"Connection"]) == (b"1", b"close")
    first.go.set()
    await first_task


@pytest.mark.parametrize("parts", [40, 3])
async def test_a_body_refused_or_abandoned_gives_its_share_back(keys, parts, one_body_budget):
    upload = Upload(EVENTS, keys[EVENTS], parts, hold=2)
    task = upload.start()
    await _until(lambda: upload.received == 2)
    assert one_body_budget.held == MIB
    upload.gone = parts == 3  # the caller goes away mid-body
    upload.go.set()
    await task
    assert one_body_budget.held == 0
    assert [message["status"] for message in upload.sent[:1]] == ([413] if parts == 40 else [])
