"""Hostile input over every endpoint: the API, the signage pages, the floor pages, the admin, health and
the schema. Whatever is sent, no answer is a 5xx, every error of /api/... is JSON {"error", "detail"},
and a refused request (or a refused event) changes nothing in the database: every model's row count and
every level's state are the same before and after.

"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

import orjson
import pytest
from django.apps import apps
from django.db import connection
from django.test import Client
from django.utils import timezone

from common.credentials import credential_issue, screen_token_issue
from jackpots.models import Level
from slots.models import MachineKey
from tests.factories import SignageScreenFactory, SlotMachineFactory
from tests.tables.factories import body, seat, tables_ready

pytestmark = pytest.mark.django_db

HUGE = 10**40
DEEP = "[" * 5000 + "]" * 5000
NUL = "\x00"


@dataclass
class World:
    client: Client
    staff: Client
    machine_key: str
    table_key: str
    other_table_key: str
    screen_token: str
    keys: dict[str, str] = field(default_factory=dict)


@pytest.fixture
def world(admin_user) -> World:
    t = tables_ready()
    machine = SlotMachineFactory(asset_number="NOG-0101", min_bet_cents=50, max_bet_cents=450)
    screen = SignageScreenFactory(slug="nog-1")
    staff = Client(raise_request_exception=False)
    staff.force_login(admin_user)
    return World(
        client=Client(raise_request_exception=False),
        staff=staff,
        machine_key=credential_issue(MachineKey, kind="mach", machine=machine)[1],
        table_key=t.keys["NOG-CSP-1"],
        other_table_key=t.keys["VEN-CSP-1"],
        screen_token=screen_token_issue(screen),
    )


def database_state() -> tuple:
    """Every table's row count (one query) and every level's full state."""
    models = [model for model in apps.get_models() if model._meta.managed and not model._meta.proxy]
    # The staff client's session is made at login, before the first snapshot.
    tables = [m._meta.db_table for m in models if m._meta.label != "sessions.Session"]
    counts = ", ".join(f'(SELECT COUNT(*) FROM "{table}")' for table in tables)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {counts}")
        row = cursor.fetchone()
    return dict(zip(tables, row, strict=True)), list(Level.objects.order_by("pk").values())


def _send(world: World, method: str, path: str, data: object = None, *, key: str | None = None, staff=False):
    client = world.staff if staff else world.client
    headers = {"HTTP_AUTHORIZATION": f"Bearer {key}"} if key else {}
    if method == "get":
        return client.get(path, **headers)
    if isinstance(data, str):
        data = data.encode("utf-8", "surrogatepass")
    elif not isinstance(data, bytes):
        data = json.dumps(data).encode()  # orjson cannot write integers past 64 bits
    return client.generic(method.upper(), path, data, content_type="application/json", **headers)


def _check(world: World, method: str, path: str, data=None, *, key=None, staff=False) -> list[str]:
    """Sends one request; returns what is wrong with its answer (nothing: an empty list)."""
    before = database_state()
    response = _send(world, method, path, data, key=key, staff=staff)
    problems = []
    status = response.status_code
    # /healthz answers 503 when a service is down: the services' state, whatever the request.
    if status >= 500 and not (path.startswith("/healthz") and status == 503):
        problems.append(f"{status}")
    if path.startswith("/api/") and status >= 400:
        try:
            content = orjson.loads(response.content)
        except orjson.JSONDecodeError:
            content = None
        if not (isinstance(content, dict) and set(content) == {"error", "detail"}):
            problems.append(f"{status} not in the error shape: {response.content[:80]!r}")
        if status == 401 and not response.get("WWW-Authenticate", "").startswith("Bearer"):
            problems.append("401 without WWW-Authenticate: Bearer")
    if path == "/api/v1/events" and status == 200:
        result = orjson.loads(response.content)
        if result["accepted"] or result["duplicates"]:
            problems.append(f"accepted a hostile event: {result}")
    if (status >= 400 or path == "/api/v1/events") and database_state() != before:
        problems.append(f"{status} but the database changed")
    return [f"{method.upper()} {path[:60]!r} {data!r:.80}: {p}" for p in problems]


def _game(**fields) -> dict:
    """A valid game (accepted as it is), with ``fields`` changed."""
    now = timezone.now().isoformat()
    return {"events": [{"machine": "NOG-0101", "seq": 1, "at": now, "type": "game", "wager": 100,
                        "win": 0, **fields}]}  # fmt: skip


EVENT_BODIES = [
    b"",
    b"not json",
    b"\xff\xfe",
    DEEP,
    b"[]",
    b"null",
    {"events": "x"},
    {"events": [1, "a", None, [], {}]},
    {"events": [{}] * 1001},
    _game(seq=HUGE),
    _game(seq=-1),
    _game(seq=0),
    _game(seq="1"),
    _game(seq=1.5),
    _game(seq=True),
    _game(wager=HUGE),
    _game(wager=-100),
    _game(wager="100"),
    _game(wager=100.0),
    _game(machine=NUL),
    _game(machine="NOG-0101" + NUL),
    _game(machine=["NOG-0101"]),
    _game(machine="X" * 100_000),
    _game(at="not a date"),
    _game(at="9999-12-31T23:59:59Z"),
    _game(at="2026-11-21T18:03:05+25:00"),
    _game(at=NUL),
    _game(at=HUGE),
    _game(type="jackpot", level=HUGE, amount=100),
    _game(type="jackpot", level=-1, amount=HUGE),
    _game(type="meters", meters={"coin_in": HUGE}),
    _game(type="meters", meters={NUL: 1}),
    _game(type="meters", meters=[1, 2]),
    _game(type="status", status=NUL),
    _game(type=NUL),
    _game(win=HUGE),
    _game(win=-1),
]


def test_events_refuse_hostile_bodies_and_change_nothing(world) -> None:
    problems = []
    for data in EVENT_BODIES:
        problems += _check(world, "post", "/api/v1/events", data, key=world.machine_key)
    assert problems == []


def test_the_valid_game_is_accepted(world) -> None:
    """The hostile events below are this one with one field changed: it must itself be accepted."""
    response = _send(world, "post", "/api/v1/events", _game(), key=world.machine_key)
    assert orjson.loads(response.content) == {"accepted": 1, "duplicates": 0, "rejected": []}


@pytest.mark.parametrize(
    "key", [None, "", "pv_mach_not-a-key", NUL, "x" * 10_000, "table"], ids=lambda k: repr(k)[:12]
)
def test_events_with_a_wrong_key_change_nothing(world, key) -> None:
    key = world.table_key if key == "table" else key
    assert _check(world, "post", "/api/v1/events", _game(), key=key) == []


def test_an_event_of_year_1_is_refused(world) -> None:
    assert (
        _check(world, "post", "/api/v1/events", _game(at="0001-01-01T00:00:00Z"), key=world.machine_key) == []
    )


def test_an_event_whose_type_is_an_object_is_refused(world) -> None:
    data = _game(type={"deep": [[[[[]]]]]})
    assert _check(world, "post", "/api/v1/events", data, key=world.machine_key) == []


def _round(**fields) -> dict:
    # Played now: a round must fall within the server's time window to be recorded.
    now = timezone.now().isoformat()
    return {**body("H-1", [seat(1, "2C 5D 7H 9S JC")]), "at": now, **fields}


def _seat_round(**fields) -> dict:
    return body("H-1", [{**seat(1, "2C 5D 7H 9S JC"), **fields}])


ROUND_BODIES = [
    b"",
    b"not json",
    DEEP,
    b"[]",
    {"round": None},
    _round(round=NUL),
    _round(round="R" + NUL),
    _round(round="x" * 10_000),
    _round(round=HUGE),
    _round(at="not a date"),
    _round(at="0001-01-01T00:00:00Z"),
    _round(at="9999-12-31T23:59:59-14:00"),
    _round(at=NUL),
    _round(at=HUGE),
    _round(seats="x"),
    _round(seats=[]),
    _round(seats=[1, None]),
    _round(community=NUL),
    _round(community=[NUL]),
    _seat_round(seat=HUGE),
    _seat_round(seat=-1),
    _seat_round(seat="1"),
    _seat_round(jackpot_bet=HUGE),
    _seat_round(jackpot_bet=-100),
    _seat_round(jackpot_bet=1.5),
    _seat_round(cards=[NUL] * 5),
    _seat_round(cards="AS KS QS JS TS"),
    _seat_round(cards=[[["AS"]]]),
    _seat_round(changed_card=NUL),
]


def test_rounds_refuse_hostile_bodies_and_change_nothing(world) -> None:
    problems = []
    for data in ROUND_BODIES:
        problems += _check(world, "post", "/api/v1/tables/NOG-CSP-1/rounds", data, key=world.table_key)
    assert problems == []


def test_rounds_with_a_wrong_key_or_table_change_nothing(world) -> None:
    problems = []
    for code, key in [
        ("NOG-CSP-1", None),
        ("NOG-CSP-1", "pv_tbl_not-a-key"),
        ("NOG-CSP-1", world.other_table_key),
        ("NOG-CSP-1", world.machine_key),
        ("NO-SUCH-TABLE", world.table_key),
        ("%00", world.table_key),
        ("x" * 5000, world.table_key),
    ]:
        problems += _check(world, "post", f"/api/v1/tables/{code}/rounds", _round(), key=key)
    assert problems == []


def test_voids_refuse_hostile_input_and_change_nothing(world) -> None:
    assert (
        _send(world, "post", "/api/v1/tables/NOG-CSP-1/rounds", _round(), key=world.table_key).status_code
        == 201
    )
    problems = []
    for round_id, data, key in [
        ("H-1", b"not json", world.table_key),
        ("H-1", DEEP, world.table_key),
        ("H-1", {"reason": HUGE}, world.table_key),
        ("H-1", {"reason": ["x"]}, world.table_key),
        ("H-1", b"{}", None),
        ("H-1", b"{}", world.other_table_key),
        ("NO-SUCH-ROUND", b"{}", world.table_key),
        ("%00", b"{}", world.table_key),
        ("x" * 5000, b"{}", world.table_key),
    ]:
        problems += _check(world, "post", f"/api/v1/tables/NOG-CSP-1/rounds/{round_id}/void", data, key=key)
    assert problems == []


def test_a_void_reason_with_a_nul_is_refused(world) -> None:
    assert (
        _send(world, "post", "/api/v1/tables/NOG-CSP-1/rounds", _round(), key=world.table_key).status_code
        == 201
    )
    data = {"reason": "jam" + NUL}
    assert _check(world, "post", "/api/v1/tables/NOG-CSP-1/rounds/H-1/void", data, key=world.table_key) == []


JUNK = ["%00", "-1", "0", "99999999999999999999999", "1e5", "%FF", "%ED%A0%80", "x" * 3000, "%20", "%25"]

PUBLIC_PATHS = [
    *[f"/api/v1/jackpots/{junk}" for junk in JUNK],
    *[f"/api/v1/tables/{junk}" for junk in JUNK],
    *[f"/signage/{junk}/" for junk in JUNK],
    "/signage/nog-1/?token=%00",
    "/signage/nog-1/?token=" + "x" * 5000,
    "/signage/nog-1/?token=a&token=b",
    "/api/v1/jackpots?format=%00",
    "/api/schema/?format=junk",
    "/api/schema/?lang=%00",
    "/healthz?%00",
    "/api/v2/",
    "/api/v1/%00",
]


def test_public_reads_refuse_junk_without_a_5xx(world) -> None:
    problems = []
    for path in PUBLIC_PATHS:
        problems += _check(world, "get", path)
    for method in ["put", "delete", "patch"]:
        for path in ["/api/v1/jackpots", "/api/v1/jackpots/1", "/api/v1/tables/NOG-CSP-1", "/api/schema/"]:
            problems += _check(world, method, path, b"{}")
    problems += _check(world, "post", "/healthz", b"{}")
    assert problems == []


STAFF_PATHS = [
    *[f"/floor/machines/{junk}/" for junk in JUNK],
    *[f"/floor/{junk}/" for junk in JUNK],
    *[f"/floor/NOG/{junk}/" for junk in JUNK],
    *[f"/admin/slots/slotmachine/{junk}/change/" for junk in JUNK],
    *[f"/admin/tables/paytable/{junk}/stage/" for junk in JUNK],
    *[f"/admin/tables/tablekey/{junk}/change/" for junk in JUNK],
    "/admin/slots/slotmachine/?q=%00",
    "/admin/slots/slotmachine/?room__id__exact=%00",
    "/admin/slots/slotmachine/?o=%00",
    "/admin/slots/slotmachine/?p=99999999999999999999999",
    "/admin/tables/tablekey/?q=%00&state=%00",
    "/admin/tables/tableround/?at__year=99999999999999999999999",
    "/admin/tables/tableround/?at__year=9999&at__month=12&at__day=31",
    "/admin/jackpots/hit/?at__year=99999999999999999999999",
    "/admin/slots/machinekey/?created_at__year=9999&created_at__month=12&created_at__day=31",
    "/floor/reports/games/?venue=%00&start=0001-01-01&end=9999-12-31",
    "/floor/reports/room-hours/?venue=%00&day=%00",
    "/floor/reports/liability/?venue=%00&at=%00",
    "/floor/reports/level-history/?level=99999999999999999999999",
    "/floor/reports/level-history/?level=%00",
    "/floor/inventory/?q=%00",
]


def test_staff_pages_refuse_junk_without_a_5xx(world) -> None:
    problems = []
    for path in STAFF_PATHS:
        problems += _check(world, "get", path, staff=True)
    assert problems == []


@pytest.mark.parametrize(
    "cookie", ['sessionid="abcdefghij\\000"', 'csrftoken="\\000"', "django_language=\\000"]
)
def test_junk_cookies_are_ignored(world, cookie) -> None:
    problems = []
    for path in ["/admin/", "/floor/reports/", "/api/v1/jackpots", "/signage/nog-1/?token=x"]:
        response = world.client.get(path, HTTP_COOKIE=cookie)
        if response.status_code >= 500:
            problems.append(f"{path}: {response.status_code}")
    assert problems == []
