"""The rounds API bounds what a table sends: `at` (RFC 3339, offset within ±14:00, within the server's
window) and the jackpot bets. A round beyond a bound is refused with 400, a JSON code, and nothing stored."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from jackpots.models import LedgerEntry
from tables.models import TableRound
from tests.tables.factories import body, seat, tables_ready

pytestmark = pytest.mark.django_db
NOTHING = "2C 5D 7H 9S JC"


@pytest.fixture(autouse=True)
def _server_window(settings):
    """The window of a production server (the other table tests play ahead of the clock)."""
    settings.EVENT_MAX_FUTURE_SECONDS = 300
    settings.EVENT_MAX_AGE_SECONDS = 7 * 24 * 3600


def _round_at(at: str) -> dict:
    return {**body("B-1", [seat(1, NOTHING)]), "at": at}


def _assert_refused(post, code: str) -> None:
    """``post()`` answers 400 with ``code`` and writes no round and no ledger row."""
    ledger = LedgerEntry.objects.count()
    response = post()
    assert response.status_code == 400
    assert response["Content-Type"] == "application/json"
    assert response.json()["error"] == code
    assert response.json()["detail"]
    assert TableRound.objects.count() == 0
    assert LedgerEntry.objects.count() == ledger


@pytest.mark.parametrize(
    ("at", "code"),
    [
        # Year 1 and 9999 with extreme offsets used to be stored, then broke the admin and the audit.
        ("0001-01-01T00:00:00+14:00", "at_too_old"),
        ("0001-01-01T00:00:00Z", "at_too_old"),
        ("9999-12-31T23:59:59-14:00", "at_in_future"),
        ("0001-01-01T00:00:00+23:59", "invalid_at"),
        ("9999-12-31T23:59:59-23:59", "invalid_at"),
        ("{day}T12:00:00+16:00", "invalid_at"),
        # Impossible times used to answer an HTML 500.
        ("{day}T12:60:00Z", "invalid_at"),
        ("{day}T25:00:00Z", "invalid_at"),
        ("2026-02-30T12:00:00Z", "invalid_at"),
        # Not RFC 3339: no offset, no seconds, a number.
        ("{day}T12:00:00", "invalid_at"),
        ("{day}T12:00Z", "invalid_at"),
    ],
)
def test_a_round_dated_out_of_bounds_is_refused(at, code):
    t = tables_ready()
    day = (timezone.now() - timedelta(days=1)).date().isoformat()
    _assert_refused(lambda: t.post("NOG-CSP-1", _round_at(at.format(day=day))), code)


def test_a_round_outside_the_servers_window_is_refused_and_inside_it_is_recorded(settings):
    settings.EVENT_MAX_AGE_SECONDS = 3600
    t = tables_ready()
    now = timezone.now()
    _assert_refused(
        lambda: t.post("NOG-CSP-1", _round_at((now - timedelta(seconds=3700)).isoformat())), "at_too_old"
    )
    _assert_refused(
        lambda: t.post("NOG-CSP-1", _round_at((now + timedelta(seconds=400)).isoformat())), "at_in_future"
    )
    recorded = t.post("NOG-CSP-1", _round_at((now - timedelta(seconds=3500)).isoformat()))
    assert recorded.status_code == 201
    assert TableRound.objects.count() == 1


def test_a_number_for_at_is_refused():
    t = tables_ready()
    _assert_refused(lambda: t.post("NOG-CSP-1", _round_at(1763748185)), "invalid_at")


@pytest.mark.parametrize(
    ("table", "bet", "code"),
    [
        ("NOG-CSP-1", 2**63, "bad_jackpot_bet"),
        ("NOG-CSP-1", 2**31, "bad_jackpot_bet"),
        ("NOG-CSP-1", -100, "invalid_round"),
        ("VEN-CHE-1", 2**63 - 1, "bad_jackpot_bet"),
        ("VEN-CHE-1", 10**30, "invalid_round"),  # beyond 64 bits JSON gives a float
        ("VEN-CHE-1", 1.5, "invalid_round"),
    ],
)
def test_a_jackpot_bet_beyond_the_tables_limits_is_refused(table, bet, code):
    t = tables_ready()
    community = "2H 5S 7D TH 3S" if table == "VEN-CHE-1" else ""
    cards = "KC KD" if table == "VEN-CHE-1" else NOTHING
    data = {**body("B-1", [seat(1, cards, bet)], community=community), "at": timezone.now().isoformat()}
    _assert_refused(lambda: t.post(table, data), code)
