"""Table progressives on the signs and in GET /api/v1/jackpots: their tables are members (link, venues)
and a table's jackpot win is celebrated like a machine's."""

from __future__ import annotations

from decimal import Decimal
from typing import NamedTuple

import pytest
from channels.db import database_sync_to_async
from django.test import Client

from common.credentials import screen_token_issue
from floor.models import Venue
from jackpots.models import Hit, Level, Progressive
from tables.models import Table
from tables.seed import CARIBBEAN_STUD, tables_seed
from tables.services import table_key_issue
from tests.factories import SignageScreenFactory
from tests.signage.helpers import SOCKET_TESTS, receive_until
from tests.signage.test_signage_consumer import link_frame, open_sign
from tests.signage.test_signage_links import api_links
from tests.tables.factories import body, seat

pytestmark = SOCKET_TESTS


class TableSign(NamedTuple):
    path: str
    progressive: Progressive
    level: Level


@pytest.fixture
def table_sign(transactional_db, quiet_signs, settings) -> TableSign:
    settings.SIGNAGE_LINK_CHECK_SECONDS = Decimal("0.05")
    tables_seed()
    progressive = Progressive.objects.get(name=CARIBBEAN_STUD)
    screen = SignageScreenFactory(slug="nog-tables", venue=Venue.objects.get(code="NOG"))
    screen.progressives.add(progressive)
    path = f"/ws/signage/{screen.slug}/?token={screen_token_issue(screen)}"
    return TableSign(path, progressive, progressive.pay_table.level)


@database_sync_to_async
def tables_set_active(active: bool, *codes: str) -> None:
    Table.objects.filter(code__in=codes).update(active=active)


async def test_a_table_progressive_is_up_with_its_tables_venues_and_down_with_no_active_table(
    table_sign: TableSign,
) -> None:
    pid = table_sign.progressive.id
    sign = await open_sign(table_sign)
    shown = (await sign.receive_json_from(timeout=3))["jackpots"]
    assert [(j["id"], j["link"], j["venues"]) for j in shown] == [(pid, "up", ["NOG", "VEN"])]
    assert await api_links(pid) == ("up", "up")
    assert await api_links(pid, "venues") == (["NOG", "VEN"], ["NOG", "VEN"])

    await tables_set_active(False, "NOG-CSP-1", "NOG-CSP-2")  # VEN-CSP-1 still active
    assert await sign.receive_nothing(timeout=0.3)
    await tables_set_active(False, "VEN-CSP-1")
    assert await sign.receive_json_from(timeout=3) == link_frame(2, pid, "down")
    assert await api_links(pid) == ("down", "down")
    assert await api_links(pid, "venues") == (["NOG", "VEN"], ["NOG", "VEN"])

    await tables_set_active(True, "NOG-CSP-2")
    assert await sign.receive_json_from(timeout=3) == link_frame(3, pid, "up")
    assert await api_links(pid) == ("up", "up")
    await sign.disconnect()


@database_sync_to_async
def royal_posted(code: str) -> tuple[int, dict]:
    """A round with a royal flush (one €1 chip) at ``code``, through the API with the table's key."""
    key = table_key_issue(Table.objects.get(code=code))[1]
    response = Client().post(
        f"/api/v1/tables/{code}/rounds",
        body("R-1", [seat(1, "AS KS QS JS TS"), seat(2, "2C 5D 7H 9S JC", bet=0)]),
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {key}",
    )
    return response.status_code, response.json()


async def test_a_royal_flush_round_is_celebrated_with_the_table_and_the_exact_amount(
    table_sign: TableSign,
) -> None:
    sign = await open_sign(table_sign)
    await sign.receive_json_from(timeout=3)

    status, answer = await royal_posted("NOG-CSP-1")
    assert (status, answer["seats"][0]["award"]["amount"]) == (201, 1_000_035)
    frames = await receive_until(sign, "hit")
    hit = await database_sync_to_async(Hit.objects.get)(level=table_sign.level)
    # €10,000.00 standing plus 35% of the €1 chip: 1,000,035 cents won; the level restarts at the reset.
    assert frames[-1] == {
        "type": "hit",
        "n": frames[-1]["n"],
        "level": table_sign.level.id,
        "amount_eur": "10000.35",
        "machine": "NOG-CSP-1",
        "place": "Caribbean Stud Poker",  # a table with no room: the game alone
        "reset_eur": "10000.00",
        "seq": hit.level_seq,
    }
    assert [f["type"] for f in frames].count("hit") == 1
    assert hit.amount_cents == 1_000_035
    detail = await database_sync_to_async(
        lambda: Client().get(f"/api/v1/jackpots/{table_sign.progressive.id}")
    )()
    assert detail.json()["levels"][0]["last_hit"]["machine"] == "NOG-CSP-1"
    assert detail.json()["levels"][0]["last_hit"]["amount_eur"] == "10000.35"
    await sign.disconnect()
