"""Who pays a table prize and when: under the venue's two-person threshold the table pays it when the round
is recorded (the hit is paid at once, the table and its key in the trail); at or above it the prize waits in
the hits queue for two people, like a machine's handpay. The liability report's "won, unpaid" follows."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from jackpots.models import Hit, Level, Progressive
from jackpots.services import hit_pay, hit_verify, level_hit
from jackpots.services.hit_payment import hit_payer
from jackpots.services.winners import Winner
from tables.models import HitTablePayment, PrizePart, PrizeShare, TableKey
from tables.services.parts import part_pay, part_verify
from tests.tables.factories import assert_conserved, body, seat, tables_ready
from workspace.reports.jackpots import jackpot_liability

pytestmark = pytest.mark.django_db

WINNER = Winner("Mario Rossi", "id_card", "CA12345AB", "IT")
STRAIGHT_FLUSH = "9H 8H 7H 6H 5H"
ROYAL_FLUSH = "AS KS QS JS TS"


def _people():
    return [get_user_model().objects.create_user(username=name) for name in ("anna", "bruno")]


def _unpaid(name: str) -> int:
    return next(row.unpaid_cents for row in jackpot_liability().rows if row.progressive.name == name)


def test_a_prize_under_the_threshold_is_paid_at_the_table_when_the_round_is_recorded() -> None:
    t = tables_ready()
    assert t.post("NOG-CSP-1", body("R-1", [seat(1, STRAIGHT_FLUSH)])).status_code == 201
    hit = Hit.objects.get()
    key = TableKey.objects.get(table__code="NOG-CSP-1")
    # 10% of the €10,000.35 pool: under the venue's €1,200 threshold.
    assert (hit.amount_cents, hit.state) == (100_003, Hit.State.PAID)
    payment = HitTablePayment.objects.get(hit=hit)
    assert (hit.paid_by, payment.table.code, payment.key) == (None, "NOG-CSP-1", key)
    # Who paid, as the engine says it (the hits list, a second pay's refusal): the table, through tables.
    assert hit_payer(hit) == "table NOG-CSP-1"
    assert hit.paid_at is not None
    assert _unpaid("Caribbean Stud Progressive") == 0
    assert_conserved(t.level("NOG-CSP-1"))


def test_a_prize_at_or_above_the_threshold_waits_for_two_people_and_then_the_floor_pays_it() -> None:
    t = tables_ready()
    assert t.post("NOG-CSP-1", body("R-1", [seat(1, ROYAL_FLUSH)])).status_code == 201
    hit = Hit.objects.get()
    assert (hit.amount_cents, hit.state) == (1_000_035, Hit.State.HIT)
    assert not HitTablePayment.objects.filter(hit=hit).exists()
    assert _unpaid("Caribbean Stud Progressive") == 1_000_035
    anna, bruno = _people()
    part = part_verify(PrizePart.objects.get(), anna)
    assert part.state == PrizePart.State.OPEN
    part = part_verify(part, bruno)
    assert part.state == PrizePart.State.VERIFIED
    assert _unpaid("Caribbean Stud Progressive") == 1_000_035
    PrizeShare.objects.update(closes_at=timezone.now() - timedelta(seconds=1))  # the window has closed
    part = part_pay(part, bruno, WINNER)
    assert (part.state, part.paid_by, part.paid_by_table) == (PrizePart.State.PAID, bruno, None)
    hit.refresh_from_db()
    assert (hit.state, HitTablePayment.objects.filter(hit=hit).exists()) == (Hit.State.PAID, False)
    assert _unpaid("Caribbean Stud Progressive") == 0


def test_a_prize_shared_across_tables_is_still_divided_after_the_first_table_paid_its_part() -> None:
    t = tables_ready()
    t.post("NOG-CSP-1", body("R-1", [seat(1, STRAIGHT_FLUSH)]))
    second = t.post("VEN-CSP-1", body("V-1", [seat(2, "9D 8D 7D 6D 5D")], seconds=-10)).json()
    # One prize of 100,003 cents, paid at the tables, divided between the two seats (odd cent first).
    assert Hit.objects.get().state == Hit.State.PAID
    assert second["seats"][0]["award"]["amount"] == 50_001
    assert (
        t.post("NOG-CSP-1", body("R-1", [seat(1, STRAIGHT_FLUSH)])).json()["seats"][0]["award"]["amount"]
        == 50_002
    )


def test_the_liability_report_equals_independent_sums(linked) -> None:
    progressive, machines, machine_level = linked
    t = tables_ready()
    # Table prizes: a straight flush paid at the table, a royal (its level reset) waiting for the floor.
    t.post("NOG-CSP-1", body("R-1", [seat(1, STRAIGHT_FLUSH), seat(2, "2C 4D JS QS KC")]))
    t.post("VEN-CSP-1", body("V-1", [seat(3, ROYAL_FLUSH)], seconds=120))
    # Jumbo 7 takes bets and pays nothing.
    t.post("NOG-CHE-1", body("C-1", [seat(1, "2C 3D", bet=500)], community="9S TS JH 4D 6C"))
    # A machine hit, unpaid; a second one paid.
    level_hit(machine_level.id, machine_id=machines[0].id)
    anna, _ = _people()
    paid = level_hit(machine_level.id, machine_id=machines[1].id)
    hit_verify(paid, anna)
    hit_pay(paid, anna)

    report = {row.progressive.name: row for row in jackpot_liability().rows}
    caribbean = report["Caribbean Stud Progressive"]
    # Independently: the straight flush took 10% of €10,000.70 (two chips) and the house topped the meter
    # up to the reset value; the royal's chip came after, then it took the whole amount and reset.
    # Current after the reset: the reset value + the three chips' reserve (5% each).
    assert (caribbean.current_mc, caribbean.reserve_mc, caribbean.overflow_mc) == (1_000_015_000, 0, 0)
    assert caribbean.unpaid_cents == 1_000_035
    assert caribbean.total_mc == 1_000_015_000 + 1_000_035_000
    jumbo = report["Jumbo 7 Jackpot"]
    assert (jumbo.current_mc, jumbo.reserve_mc, jumbo.unpaid_cents) == (60_000, 15_000, 0)
    grand = report[progressive.name]
    first_machine_hit = Hit.objects.filter(level=machine_level).order_by("number").first()
    assert grand.unpaid_cents == first_machine_hit.amount_cents == 100_000
    # Every figure equals the sums over the rows, done here without the report's query.
    for name, row in report.items():
        levels = Level.objects.filter(progressive__name=name)
        assert row.current_mc == sum(level.current_mc for level in levels)
        assert row.reserve_mc == sum(level.reserve_mc for level in levels)
        hits = Hit.objects.filter(level__in=levels)
        assert row.unpaid_cents == sum(h.amount_cents for h in hits if h.state in ("hit", "verified"))
    euro = jackpot_liability().per_currency["EUR"]
    assert euro.unpaid_cents == 1_000_035 + 100_000
    assert Progressive.objects.filter(currency="EUR").count() == 3


def test_a_fixed_prize_at_or_above_the_threshold_is_a_hit_waiting_for_two_people() -> None:
    t = tables_ready()
    # A 6-card straight flush (2 to 7 of clubs, €5,000) and a 5-card one (9 to K of hearts, €250).
    answer = t.post(
        "NOG-CHE-1",
        body("C-1", [seat(1, "3C 5C", bet=500), seat(2, "KD JS", bet=100)], community="2C 4C 6C 7C 9D"),
    ).json()
    assert [(s["hand"], s["award"]["amount"], s["award"]["handpay"]) for s in answer["seats"]] == [
        ("straight_flush_6", 500_000, True),
        ("high_card", 0, False),
    ]
    hit = Hit.objects.get()
    assert (hit.kind, hit.amount_cents, hit.state, hit.table_seat.seat) == ("table", 500_000, "hit", 1)
    # It moves nothing on the level: the house pays it.
    level = t.level("NOG-CHE-1")
    assert (level.current_mc, level.reserve_mc, level.total_won_cents) == (72_000, 18_000, 0)
    assert _unpaid("Jumbo 7 Jackpot") == 500_000
    anna, bruno = _people()
    hit_pay(hit_verify(hit_verify(hit, anna), bruno), bruno, WINNER)
    assert _unpaid("Jumbo 7 Jackpot") == 0
    assert_conserved(level)


def test_a_fixed_prize_under_the_threshold_is_paid_at_the_table_without_a_hit() -> None:
    t = tables_ready()
    answer = t.post("NOG-CHE-1", body("C-1", [seat(1, "KH QH", bet=100)], community="9H TH JH 2C 4D")).json()
    assert (answer["seats"][0]["hand"], answer["seats"][0]["award"]["amount"]) == ("straight_flush_5", 25_000)
    assert answer["seats"][0]["award"]["handpay"] is False
    assert Hit.objects.count() == 0
    assert _unpaid("Jumbo 7 Jackpot") == 0
