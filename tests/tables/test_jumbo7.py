"""Jumbo 7 rounds: the proportional division, the 3% reserve, fixed prizes, other currencies."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from floor.models import Venue
from jackpots.models import ExchangeRate
from tables.models import Table, TableRound
from tables.services import table_key_issue
from tests.tables.factories import T0, assert_conserved, body, seat, tables_ready

pytestmark = pytest.mark.django_db

# Seeded Jumbo 7 level: reset 0, 12% of every bet to the meter, 3% to the reserve of the next start.
# Community A-2-4-6-7 of hearts: every seat holds at least a flush (€4); 3H 5H make A to 7 of hearts.
COMMUNITY = "AH 2H 4H 6H 7H"


def seats_of(response) -> dict[int, dict]:
    return {s["seat"]: s for s in response.json()["seats"]}


def grow(t, code: str = "VEN-CHE-1") -> None:
    """A round without a prize worth the meter: 33,333 cents of bets (all seats make a pair at most)."""
    response = t.post(
        code,
        body(
            f"{code}-grow",
            [
                seat(1, "KC KD", 10_000),
                seat(2, "QC QD", 10_000),
                seat(3, "JC JD", 10_000),
                seat(4, "9S 8D", 3_333),
            ],
            community="2C 5S 7D TH 3S",
        ),
    )
    assert [s["award"]["amount"] for s in response.json()["seats"]] == [0, 0, 0, 0]


def test_three_percent_of_every_bet_goes_to_the_reserve_and_twelve_to_the_meter() -> None:
    t = tables_ready()
    grow(t)
    level = t.level("VEN-CHE-1")
    # floor(33,333 x 0.12) and floor(33,333 x 0.03) in millicents, exactly.
    assert (level.current_mc, level.reserve_mc, level.wagered_cents) == (3_999_960, 999_990, 33_333)
    assert_conserved(level)


def test_seven_card_straight_flush_divides_the_meter_by_bet_odd_cent_to_the_largest_remainder() -> None:
    t = tables_ready()
    grow(t)
    response = t.post(
        "VEN-CHE-1",
        body(
            "J7-WIN",
            [seat(1, "3H 5H", 100), seat(2, "KC KD", 200), seat(3, "4C 4D", 400), seat(4, "9S 9D", 0)],
            community=COMMUNITY,
            seconds=5,
        ),
    )
    seats = seats_of(response)
    assert [seats[n]["hand"] for n in (1, 2, 3, 4)] == ["straight_flush_7", "flush", "flush", "flush"]
    # Meter: floor(34,033 x 0.12) = 4,083.96 EUR cents -> a prize of 4,083 cents, by 100:200:400.
    # Exact parts 583.29, 1,166.57, 2,333.14: the one cent left goes to the largest remainder (seat 2).
    assert [seats[n]["award"]["share"] for n in (1, 2, 3)] == [583, 1_167, 2_333]
    # Fixed prizes on each seat's own hand; the seat without a Jumbo 7 bet wins nothing.
    assert [seats[n]["award"]["fixed"] for n in (1, 2, 3, 4)] == [0, 400, 400, 0]
    assert [seats[n]["award"]["amount"] for n in (1, 2, 3, 4)] == [583, 1_567, 2_733, 0]
    level = t.level("VEN-CHE-1")
    # Next cycle: reset 0 + the 960 mc rest + the reserve floor(34,033 x 0.03) = 1,020,990 mc.
    assert (level.current_mc, level.reserve_mc, level.cycle) == (1_021_950, 0, 2)
    assert_conserved(level)


def test_equal_bets_odd_cent_to_the_first_seat() -> None:
    t = tables_ready()
    grow(t)
    response = t.post(
        "VEN-CHE-1",
        body("J7-EVEN", [seat(1, "3H 5H", 100), seat(2, "KC KD", 100)], community=COMMUNITY, seconds=5),
    )
    # floor(33,533 x 0.12) = 4,023.96 cents -> 4,023 cents in two equal parts.
    assert [s["award"]["share"] for s in response.json()["seats"]] == [2_012, 2_011]


def test_a_table_in_another_currency_bets_and_is_paid_in_its_own_at_a_recorded_rate() -> None:
    t = tables_ready()
    lugano = Venue.objects.create(code="LUG", name="Casinò Lugano", currency="CHF")
    jumbo = t.table("VEN-CHE-1").progressive
    table = Table.objects.create(
        venue=lugano, code="LUG-CHE-1", game="casino_holdem", progressive=jumbo, min_jackpot_bet_cents=100
    )
    key = table_key_issue(table)[1]
    rate = ExchangeRate.objects.create(
        base="EUR", quote="CHF", rate=Decimal("0.93710000"), valid_from=T0.replace(year=2020)
    )
    # A later rate does not apply to a round played before it.
    ExchangeRate.objects.create(base="EUR", quote="CHF", rate=Decimal("2"), valid_from=T0 + timedelta(days=1))
    grow(t)
    response = t.post(
        "LUG-CHE-1",
        body("L-1", [seat(1, "3H 5H", 1_000), seat(2, "KC KD", 2_000)], community=COMMUNITY, seconds=5),
        key=key,
    )
    answer = response.json()
    assert (answer["currency"], answer["pool_currency"], answer["rate"]) == ("CHF", "EUR", "0.93710000")
    assert answer["exchange_rate"] == rate.pk
    seats = seats_of(response)
    # CHF 10.00 and 20.00 are floor(1000 / 0.9371) = 1,067 and 2,134 EUR cents of bets.
    round_ = TableRound.objects.get(round_id="L-1")
    assert [s.bet_pool_cents for s in round_.seat_rows.order_by("seat")] == [1_067, 2_134]
    # Meter floor((33,333 + 3,201) x 0.12) = 4,384.08 -> 4,384 EUR cents by 1,067:2,134 -> 1,461 and 2,923
    # (exact 1,461.33 and 2,922.67: the cent to seat 2). Paid in CHF at 0.9371, rounded down.
    assert [seats[n]["award"]["share"] for n in (1, 2)] == [1_461, 2_923]
    assert [seats[n]["award"]["pool_amount"] for n in (1, 2)] == [1_461, 3_323]
    assert [seats[n]["award"]["amount"] for n in (1, 2)] == [1_369, 3_113]
    assert seats[2]["award"]["currency"] == "CHF"
    # The display in Lugano shows CHF at the rate in force now; in Venice EUR.
    display = t.client.get("/api/v1/tables/LUG-CHE-1").json()
    level = t.level("VEN-CHE-1")
    in_force = Decimal(2) if timezone.now() >= T0 + timedelta(days=1) else Decimal("0.9371")
    assert (display["currency"], Decimal(display["rate"])) == ("CHF", in_force)
    assert display["amount"] == int((level.current_mc // 1000) * in_force)
    assert display["pay_table"][1] == {
        "hand": "straight_flush_6",
        "kind": "fixed",
        "amount": int(500_000 * in_force),
    }
    assert t.client.get("/api/v1/tables/VEN-CHE-1").json()["amount"] == level.current_mc // 1000


def test_a_missing_rate_refuses_the_round_and_changes_nothing() -> None:
    t = tables_ready()
    zurich = Venue.objects.create(code="ZRH", name="Swiss Casinos Zürich", currency="CHF")
    table = Table.objects.create(
        venue=zurich, code="ZRH-CHE-1", game="casino_holdem", progressive=t.table("VEN-CHE-1").progressive
    )
    response = t.post(
        "ZRH-CHE-1", body("Z-1", [seat(1, "KC KD", 500)], community=COMMUNITY), key=table_key_issue(table)[1]
    )
    assert response.status_code == 409
    assert response.json()["error"] == "no_exchange_rate"
    assert TableRound.objects.count() == 0
    assert t.level("VEN-CHE-1").wagered_cents == 0


def test_void_of_a_jumbo_7_win_restores_the_meter_and_refunds_every_bet() -> None:
    t = tables_ready()
    grow(t)
    level = t.level("VEN-CHE-1")
    before = (level.current_mc, level.reserve_mc, level.wagered_cents, level.cycle, level.carry_wagered_cents)
    t.post(
        "VEN-CHE-1",
        body("J7-V", [seat(1, "3H 5H", 100), seat(2, "KC KD", 200)], community=COMMUNITY, seconds=5),
    )
    response = t.void("VEN-CHE-1", "J7-V")
    assert response.json()["refunds"] == [{"seat": 1, "jackpot_bet": 100}, {"seat": 2, "jackpot_bet": 200}]
    level.refresh_from_db()
    after = (level.current_mc, level.reserve_mc, level.wagered_cents, level.cycle, level.carry_wagered_cents)
    assert after == before == (3_999_960, 999_990, 33_333, 1, 33_333)
    assert_conserved(level)
