"""A level whose pool is kept elsewhere (a wide-area pool's level at a site) is shown at the amount and value
sequence heard from there, by the API, the signs' snapshot and their updates, without its row changing;
a progressive an app above says is down is shown down."""

from __future__ import annotations

import pytest

from jackpots.hooks import providers
from jackpots.models import Level
from jackpots.selectors import LINK_DOWN, progressive_links, progressives_list, progressives_public
from signage.selectors import level_updates
from tests.factories import LevelFactory, ProgressiveFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def elsewhere(monkeypatch):
    """A provider answering for one level: 12,345,678 mc at the link's value sequence 981."""
    heard: dict[int, tuple[int, int]] = {}
    down: set[int] = set()
    monkeypatch.setattr(
        providers, "levels_shown_elsewhere", [lambda ids: {i: heard[i] for i in ids if i in heard}]
    )
    monkeypatch.setattr(providers, "progressives_down", [lambda ids: down & set(ids)])
    return heard, down


def test_a_level_kept_elsewhere_shows_the_heard_amount_and_seq_and_its_row_stays(elsewhere) -> None:
    heard, _ = elsewhere
    linked = LevelFactory(name="Jackpot", current_mc=5_000_000, seq=7)
    local = LevelFactory(name="Grand", current_mc=100_000_000, seq=3)
    heard[linked.id] = (12_345_678, 981)

    shown = progressives_public(
        progressives_list().filter(id__in=[linked.progressive_id, local.progressive_id])
    )
    levels = {level["id"]: (level["amount_eur"], level["seq"]) for p in shown for level in p["levels"]}
    assert levels == {linked.id: ("123.45", 981), local.id: ("1000.00", 3)}
    assert level_updates([linked.id, local.id]) == {
        linked.progressive_id: {
            "pool_currency": "EUR",
            "levels": [
                {"id": linked.id, "amount_eur": "123.45", "seq": 981, "state": "active", "cents": 12_345}
            ],
        },
        local.progressive_id: {
            "pool_currency": "EUR",
            "levels": [
                {"id": local.id, "amount_eur": "1000.00", "seq": 3, "state": "active", "cents": 100_000}
            ],
        },
    }
    assert Level.objects.values_list("current_mc", "seq").get(id=linked.id) == (5_000_000, 7)


def test_a_progressive_an_app_above_says_is_down_is_down(elsewhere) -> None:
    _, down = elsewhere
    progressive = ProgressiveFactory()
    down.add(progressive.id)
    assert progressive_links([progressive.id]) == {progressive.id: LINK_DOWN}
