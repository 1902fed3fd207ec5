"""A screen shows each progressive in its venue's currency: the Diamond Vault pool is in euros, the
Lugano screen shows francs at the EUR/CHF rate in force, the Ca' Noghera screen keeps docs/api.md's euros."""

from __future__ import annotations

import dataclasses
import time
from datetime import timedelta
from decimal import Decimal

import pytest
from channels.db import database_sync_to_async
from django.test import Client
from django.utils import timezone

from common.credentials import screen_token_issue
from floor.models import Room
from jackpots.models import ExchangeRate
from signage import currency, publish
from tests.factories import SignageScreenFactory, VenueFactory
from tests.signage.helpers import SOCKET_TESTS, SignSetup, hit_record_and_announce
from tests.signage.test_signage_consumer import level_set, open_sign

pytestmark = SOCKET_TESTS

# 1 EUR = 0.94123456 CHF is in force: set an hour ago, after an older rate and before a future one.
RATE_IN_FORCE = "0.94123456"


def rate_add(base: str, quote: str, rate: str, valid_from_seconds: float) -> None:
    ExchangeRate.objects.create(
        base=base,
        quote=quote,
        rate=Decimal(rate),
        valid_from=timezone.now() + timedelta(seconds=valid_from_seconds),
    )


@pytest.fixture
def eur_chf_rates(transactional_db) -> None:
    rate_add("EUR", "CHF", "0.93000000", -2 * 86400)
    rate_add("EUR", "CHF", RATE_IN_FORCE, -3600)
    rate_add("EUR", "CHF", "0.99000000", 86400)


@pytest.fixture
def chf_sign(sign_setup: SignSetup) -> SignSetup:
    """A screen of a casino that plays in francs, showing the same euro progressive."""
    venue = VenueFactory(code="LUG", name="Casinò Lugano", currency="CHF")
    screen = SignageScreenFactory(slug="lug-1", venue=venue)
    screen.progressives.add(sign_setup.progressive)
    return dataclasses.replace(sign_setup, screen=screen, token=screen_token_issue(screen))


async def test_chf_snapshot_shows_francs_at_the_rate_in_force(
    eur_chf_rates, sign_setup: SignSetup, chf_sign: SignSetup
) -> None:
    sign = await open_sign(chf_sign)
    snapshot = await sign.receive_json_from(timeout=3)
    jackpot = snapshot["jackpots"][0]
    api = await database_sync_to_async(Client().get)(f"/api/v1/jackpots/{sign_setup.progressive.id}")
    api_levels = api.json()["levels"]
    assert [level["amount_eur"] for level in api_levels] == ["1523.47", "105.00"]
    assert jackpot["currency"] == "EUR"  # the pool's currency, as in the API
    assert jackpot["rate"] == RATE_IN_FORCE
    # The API's fields unchanged, plus francs: whole cents of the pool times the rate, rounded down.
    assert jackpot["levels"] == [
        # 152,347 x 0.94123456 = 143,394.26...; 100,000 x 0.94123456 = 94,123.456
        {**api_levels[0], "amount": 143_394, "reset": 94_123, "currency": "CHF", "mystery": False},
        # 10,500 x 0.94123456 = 9,882.96...; 10,000 x 0.94123456 = 9,412.3456
        {**api_levels[1], "amount": 9_882, "reset": 9_412, "currency": "CHF", "mystery": False},
    ]
    await sign.disconnect()


async def test_a_rate_quoted_the_other_way_is_inverted(sign_setup: SignSetup, chf_sign: SignSetup) -> None:
    await database_sync_to_async(rate_add)("CHF", "EUR", "1.06250000", -60)
    sign = await open_sign(chf_sign)
    jackpot = (await sign.receive_json_from(timeout=3))["jackpots"][0]
    # 1 / 1.0625 = 0.941176470588..., kept to 8 places rounded down.
    assert jackpot["rate"] == "0.94117647"
    assert [(level["amount"], level["reset"]) for level in jackpot["levels"]] == [
        (143_385, 94_117),
        (9_882, 9_411),
    ]
    await sign.disconnect()


async def test_updates_and_hits_reach_chf_screens_in_francs_and_eur_screens_unchanged(
    eur_chf_rates, sign_setup: SignSetup, chf_sign: SignSetup
) -> None:
    eur_sign = await open_sign(sign_setup)
    chf = await open_sign(chf_sign)
    eur_snapshot = await eur_sign.receive_json_from(timeout=3)
    assert "rate" not in eur_snapshot["jackpots"][0]
    assert {"amount", "reset", "currency"}.isdisjoint(eur_snapshot["jackpots"][0]["levels"][0])
    await chf.receive_json_from(timeout=3)
    grand = sign_setup.grand

    def change_and_hit() -> None:
        Room.objects.filter(machines__asset_number="NOG-0104").update(name="Sala Uno")
        level_set(grand, 160_000_999, 8)
        publish.levels_changed([grand.id])
        hit_record_and_announce(grand, "NOG-0104", 198_820, 9)

    await database_sync_to_async(change_and_hit)()
    eur_frames = {
        frame.pop("type"): frame for frame in [await eur_sign.receive_json_from(timeout=3) for _ in range(2)]
    }
    chf_frames = [await chf.receive_json_from(timeout=3) for _ in range(2)]
    # The euro screen's frames are exactly docs/api.md's.
    assert {kind: {k: v for k, v in frame.items() if k != "n"} for kind, frame in eur_frames.items()} == {
        "hit": {
            "level": grand.id,
            "amount_eur": "1988.20",
            "machine": "NOG-0104",
            "place": "Sala Uno · Diamond Vault",
            "reset_eur": "1000.00",
            "seq": 9,
        },
        "update": {"levels": [{"id": grand.id, "amount_eur": "1600.00", "seq": 8, "state": "active"}]},
    }
    by_type = {frame["type"]: frame for frame in chf_frames}
    assert by_type["update"]["levels"] == [
        # 160,000 x 0.94123456 = 150,597.5296
        {
            "id": grand.id,
            "amount_eur": "1600.00",
            "seq": 8,
            "amount": 150_597,
            "currency": "CHF",
            "state": "active",
        }
    ]
    hit = dict(by_type["hit"])
    del hit["n"]
    assert hit == {
        "type": "hit",
        "level": grand.id,
        "amount_eur": "1988.20",
        "machine": "NOG-0104",
        "place": "Sala Uno · Diamond Vault",
        "reset_eur": "1000.00",
        "seq": 9,
        "amount": 187_136,  # 198,820 x 0.94123456 = 187,136.25...
        "reset": 94_123,
        "currency": "CHF",
    }
    await eur_sign.disconnect()
    await chf.disconnect()


async def test_a_rate_entered_ahead_takes_over_at_its_time(
    eur_chf_rates, sign_setup: SignSetup, chf_sign: SignSetup
) -> None:
    await database_sync_to_async(rate_add)("EUR", "CHF", "1.02000000", 1.0)
    sign = await open_sign(chf_sign)
    await sign.receive_json_from(timeout=3)
    grand = sign_setup.grand

    def change(seq: int) -> None:
        level_set(grand, 160_000_999, seq)
        publish.levels_changed([grand.id])

    await database_sync_to_async(change)(8)
    assert (await sign.receive_json_from(timeout=3))["levels"][0]["amount"] == 150_597
    started = time.monotonic()
    while time.monotonic() - started < 1.1:
        await sign.receive_nothing(timeout=0.1)
    await database_sync_to_async(change)(9)
    assert (await sign.receive_json_from(timeout=3))["levels"][0] == {
        "id": grand.id,
        "amount_eur": "1600.00",
        "seq": 9,
        "state": "active",
        "amount": 163_200,  # 160,000 x 1.02
        "currency": "CHF",
    }
    await sign.disconnect()


async def test_with_no_rate_in_force_the_screen_shows_the_pools_currency(
    sign_setup: SignSetup, chf_sign: SignSetup, monkeypatch
) -> None:
    monkeypatch.setattr(currency, "RATE_RECHECK_SECONDS", 0.0)
    sign = await open_sign(chf_sign)
    jackpot = (await sign.receive_json_from(timeout=3))["jackpots"][0]
    assert "rate" not in jackpot
    assert [(level["amount"], level["reset"], level["currency"]) for level in jackpot["levels"]] == [
        (152_347, 100_000, "EUR"),
        (10_500, 10_000, "EUR"),
    ]

    def change(seq: int) -> None:
        level_set(sign_setup.grand, 160_000_999, seq)
        publish.levels_changed([sign_setup.grand.id])

    await database_sync_to_async(change)(8)
    update = await sign.receive_json_from(timeout=3)
    assert update["levels"][0] == {
        "id": sign_setup.grand.id,
        "amount_eur": "1600.00",
        "seq": 8,
        "state": "active",
        "amount": 160_000,
        "currency": "EUR",
    }
    # Once a floor manager enters a rate, the next frame is in francs.
    await database_sync_to_async(rate_add)("EUR", "CHF", RATE_IN_FORCE, -1)
    await sign.receive_nothing(timeout=0.3)
    await database_sync_to_async(change)(9)
    update = await sign.receive_json_from(timeout=3)
    assert (update["levels"][0]["amount"], update["levels"][0]["currency"]) == (150_597, "CHF")
    await sign.disconnect()
