"""Caribbean Stud rounds: contributions, the pay table, split prizes, changed cards, the dealer."""

from __future__ import annotations

import pytest

from jackpots.models import Hit
from tables.models import TableRound
from tests.tables.factories import assert_conserved, body, seat, tables_ready

pytestmark = pytest.mark.django_db

# Seeded Caribbean Stud level: reset €10,000 (1,000,000,000 mc), 35% of each €1 chip to the meter
# (35,000 mc) and 5% to the reserve (5,000 mc).
RESET_MC = 1_000_000_000
NOTHING = "2C 5D 7H 9S JC"


def awards(response) -> dict[int, int]:
    return {s["seat"]: s["award"]["amount"] for s in response.json()["seats"]}


def test_contributions_and_fixed_prizes_pay_whatever_the_dealer_holds() -> None:
    t = tables_ready()
    # The dealer's 2-4-6-8-T without ace and king does not qualify; jackpot hands still pay.
    response = t.post(
        "NOG-CSP-1",
        body(
            "NOG-CSP-1-0001",
            [
                seat(1, "9C 9D 9H 9S 2D"),
                seat(2, "KC KD KH 3S 3D"),
                seat(3, "2H 6H 8H JH AH"),
                seat(4, "TC JD QH KS AC"),
                seat(5, "3C 3H 4C 5S 6D", bet=0),
            ],
            dealer=["2S", "4D", "6C", "8S", "TD"],
        ),
    )
    assert response.status_code == 201
    answer = response.json()
    assert awards(response) == {1: 50_000, 2: 10_000, 3: 5_000, 4: 0, 5: 0}
    assert [s["hand"] for s in answer["seats"]] == [
        "four_of_a_kind",
        "full_house",
        "flush",
        "straight",
        "one_pair",
    ]
    assert [s["contribution"]["amount_mc"] for s in answer["seats"]] == [40_000] * 4 + [0]
    assert answer["seats"][0]["contribution"] == {
        "amount": 40,
        "amount_mc": 40_000,
        "amount_eur": "0.40",
        "currency": "EUR",
    }
    assert answer["seats"][0]["award"]["amount_eur"] == "500.00"
    level = t.level("NOG-CSP-1")
    # Fixed prizes are the house's: the meter keeps every contribution.
    assert (level.current_mc, level.reserve_mc, level.wagered_cents) == (RESET_MC + 140_000, 20_000, 400)
    assert_conserved(level)


def test_two_royals_in_one_round_divide_the_meter_the_odd_cent_to_the_first_seat() -> None:
    t = tables_ready()
    response = t.post(
        "NOG-CSP-1",
        body(
            "NOG-CSP-1-0002",
            [seat(1, "AS KS QS JS TS"), seat(2, "AH KH QH JH TH"), seat(3, NOTHING)],
        ),
    )
    # 1,000,000,000 + 3 x 35,000 mc = €10,001.05 -> 1,000,105 cents in two: 500,053 and 500,052.
    assert awards(response) == {1: 500_053, 2: 500_052, 3: 0}
    level = t.level("NOG-CSP-1")
    # The level restarts at reset + reserve (3 x 5,000 mc); no sub-cent rest was left.
    assert (level.current_mc, level.reserve_mc, level.cycle, level.hits) == (RESET_MC + 15_000, 0, 2, 1)
    hit = Hit.objects.get(level=level)
    assert (hit.kind, hit.amount_cents, hit.amount_mc) == ("table", 1_000_105, RESET_MC + 105_000)
    assert_conserved(level)


def test_royals_at_two_linked_tables_within_the_window_share_the_first_amount() -> None:
    t = tables_ready()
    first = t.post("NOG-CSP-1", body("N-1", [seat(1, "AS KS QS JS TS")], seconds=0))
    assert awards(first) == {1: 1_000_035}
    # Played 20 s before at the other venue, posted while the royal is declared: the same prize, divided;
    # the level is not paid twice.
    second = t.post("VEN-CSP-1", body("V-1", [seat(3, "AD KD QD JD TD"), seat(4, NOTHING)], seconds=-20))
    assert awards(second) == {3: 500_017, 4: 0}
    assert TableRound.objects.get(round_id="N-1").seat_rows.get().award_cents == 500_018
    level = t.level("NOG-CSP-1")
    # Reset after the first royal (+5,000 reserve), then the second round's 2 chips.
    assert level.current_mc == RESET_MC + 5_000 + 70_000
    assert Hit.objects.filter(level=level).count() == 1
    # Past the window (60 s) a royal wins the amount standing then.
    third = t.post("NOG-CSP-2", body("N2-1", [seat(1, "AC KC QC JC TC")], seconds=200))
    assert awards(third) == {1: (RESET_MC + 5_000 + 70_000 + 35_000) // 1000}
    assert_conserved(level)


def test_a_royal_posted_late_but_played_at_the_same_time_shares_too() -> None:
    t = tables_ready()
    t.post("NOG-CSP-1", body("N-1", [seat(1, "AS KS QS JS TS")], seconds=30))
    late = t.post("VEN-CSP-1", body("V-1", [seat(1, "AD KD QD JD TD")], seconds=0))
    assert awards(late) == {1: 500_017}
    assert TableRound.objects.get(round_id="N-1").seat_rows.get().award_cents == 500_018


def test_straight_flushes_share_ten_percent_of_the_amount_before_the_first_is_paid() -> None:
    t = tables_ready()
    response = t.post(
        "NOG-CSP-1",
        body("R-SF", [seat(1, "9S 8S 7S 6S 5S"), seat(2, "5H 4H 3H 2H AH"), seat(3, "KD QD JD TD 9D")]),
    )
    # Standing before the first: 1,000,105,000 mc; 10% = 100,010,500 mc = 100,010 cents (500 mc stay).
    assert awards(response) == {1: 33_337, 2: 33_337, 3: 33_336}
    level = t.level("NOG-CSP-1")
    # 1,000,105,000 - 100,010,000 mc is below the reset value: the house tops the meter up to it.
    assert level.current_mc == RESET_MC
    assert (level.cycle, level.hits) == (1, 1)
    assert_conserved(level)


def test_a_seat_that_changed_a_card_cannot_win_but_its_chip_counts() -> None:
    t = tables_ready()
    response = t.post(
        "NOG-CSP-1",
        body("R-CH", [seat(1, "AS KS QS JS TS", changed=True), seat(2, "9C 9D 9H 9S 2D", changed=True)]),
    )
    answer = response.json()
    assert awards(response) == {1: 0, 2: 0}
    assert [s["eligible"] for s in answer["seats"]] == [False, False]
    level = t.level("NOG-CSP-1")
    assert (level.current_mc, level.hits) == (RESET_MC + 70_000, 0)


def test_royal_then_straight_flush_in_one_round_each_on_the_amount_of_its_turn() -> None:
    t = tables_ready()
    response = t.post("NOG-CSP-1", body("R-RS", [seat(1, "AS KS QS JS TS"), seat(2, "9H 8H 7H 6H 5H")]))
    # Royal: 1,000,070 cents; the level restarts at 1,000,010,000 mc; SF: 10% of that = 100,001 cents.
    assert awards(response) == {1: 1_000_070, 2: 100_001}
    level = t.level("NOG-CSP-1")
    # 1,000,010,000 - 100,001,000 mc is below the reset value: topped up.
    assert (level.current_mc, level.cycle, level.hits) == (RESET_MC, 2, 2)
    assert_conserved(level)
