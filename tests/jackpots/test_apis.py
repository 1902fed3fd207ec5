from __future__ import annotations

import pytest
from django.test import Client
from django.utils import timezone

from jackpots.models import Hit
from jackpots.services import contributions_apply
from tests.jackpots.factories import GameEventFactory, JackpotEventFactory

pytestmark = pytest.mark.django_db


def test_list_and_detail_follow_the_contract(linked):
    progressive, machines, level = linked
    for _ in range(3):
        GameEventFactory(machine=machines[0], wager_cents=4_567)
    JackpotEventFactory(machine=machines[0], level_id=level.id, amount_cents=100_137)
    GameEventFactory(machine=machines[0], wager_cents=4_567)
    contributions_apply()
    level.refresh_from_db()
    hit = Hit.objects.get(level=level)
    client = Client()
    listed = client.get("/api/v1/jackpots")
    assert listed.status_code == 200
    detail = client.get(f"/api/v1/jackpots/{progressive.id}")
    assert detail.status_code == 200
    assert listed.json() == [detail.json()]
    body = detail.json()
    at = timezone.localtime(hit.at).isoformat()
    assert body == {
        "id": progressive.id,
        "name": "Diamond Vault",
        "kind": "linked",
        "currency": "EUR",
        "venues": ["NOG"],
        "link": "up",
        "levels": [
            {
                "id": level.id,
                "name": "Grand",
                # 13,701 cents x 1% = 137,010 mc: €1,001.37 won; then reset + reserve + rest + 45,670 mc.
                "amount_eur": "1000.73",
                "reset_eur": "1000.00",
                "seq": level.seq,
                "state": "active",
                "last_hit": {
                    "at": at,
                    "amount_eur": "1001.37",
                    "machine": machines[0].asset_number,
                    "hit_number": hit.ref,
                },
            }
        ],
    }
    assert hit.discrepancy_cents == 0
    assert hit.ref == f"NOG-{timezone.localtime(hit.at).year}-00001"
    missing = client.get("/api/v1/jackpots/999999")
    assert (missing.status_code, missing.json()) == (
        404,
        {"error": "not_found", "detail": "There is no jackpot 999999."},
    )
    for malformed in ["null,null", "9" * 30, "\u0663"]:
        response = client.get(f"/api/v1/jackpots/{malformed}")
        assert (response.status_code, response.json()) == (
            404,
            {"error": "not_found", "detail": f"There is no jackpot {malformed}."},
        )


def test_link_is_down_when_events_wait_too_long(linked, settings):
    progressive, machines, _ = linked
    settings.CELERY_TASK_ALWAYS_EAGER = True
    GameEventFactory(machine=machines[0], received_at=timezone.now() - timezone.timedelta(seconds=60))
    assert Client().get(f"/api/v1/jackpots/{progressive.id}").json()["link"] == "down"
    contributions_apply()
    assert Client().get(f"/api/v1/jackpots/{progressive.id}").json()["link"] == "up"
