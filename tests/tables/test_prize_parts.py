"""A shared table prize is paid part by part (issue 21, findings 2 and 3): one PrizePart per winning seat,
at its table's venue, in that venue's currency, under that venue's two-person threshold decided again when a
winner joins; each part paid once, the parts always summing to the prize."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.utils import timezone

from floor.models import Venue
from jackpots.models import Hit
from jackpots.services import EngineError
from jackpots.services.winners import Winner
from tables.models import PrizePart, PrizeShare
from tables.services.parts import part_pay, part_verify
from tests.tables.factories import body, seat, tables_ready

pytestmark = pytest.mark.django_db

ROYAL = "AS KS QS JS TS"
ROYAL_2 = "AH KH QH JH TH"
STRAIGHT_FLUSH = "9H 8H 7H 6H 5H"
STRAIGHT_FLUSH_2 = "9D 8D 7D 6D 5D"
WINNER = Winner("Mario Rossi", "id_card", "CA12345AB", "IT")


def _thresholds(ven: int, nog: int) -> None:
    Venue.objects.filter(code="VEN").update(handpay_threshold_cents=ven)
    Venue.objects.filter(code="NOG").update(handpay_threshold_cents=nog)


def _parts() -> list[PrizePart]:
    return list(PrizePart.objects.select_related("seat__round__table", "paid_by_table").order_by("id"))


def _where(part: PrizePart) -> tuple:
    return (
        part.seat.round.table.code,
        part.seat.round.round_id,
        part.seat.seat,
        part.amount_cents,
        part.currency,
    )


def test_two_royals_at_two_venues_make_two_parts_that_sum_to_the_prize_odd_cent_first() -> None:
    t = tables_ready()
    t.post("NOG-CSP-1", body("R-1", [seat(3, ROYAL)]))
    t.post("VEN-CSP-1", body("V-1", [seat(5, ROYAL_2)], seconds=-2))
    share = PrizeShare.objects.get()
    parts = _parts()
    # The whole €10,000.35 pool, one prize: the odd cent to the first winner.
    assert share.prize_cents == 1_000_035
    assert [_where(p) for p in parts] == [
        ("NOG-CSP-1", "R-1", 3, 500_018, "EUR"),
        ("VEN-CSP-1", "V-1", 5, 500_017, "EUR"),
    ]
    assert sum(p.amount_cents for p in parts) == share.prize_cents
    # Both at or above the €1,200 thresholds: the floor pays each, nothing paid at a table.
    assert [p.state for p in parts] == [PrizePart.State.OPEN, PrizePart.State.OPEN]


def test_three_seats_divide_an_odd_prize_without_losing_a_cent() -> None:
    t = tables_ready()
    t.post("NOG-CSP-1", body("R-1", [seat(1, ROYAL), seat(2, ROYAL_2)]))
    t.post("VEN-CSP-1", body("V-1", [seat(4, "AD KD QD JD TD")], seconds=-1))
    parts = _parts()
    # The pool with the round's two chips, €10,000.70 = 3 x €3,333.56 + 2 cents: one each to the first two.
    assert [p.amount_cents for p in parts] == [333_357, 333_357, 333_356]
    assert sum(p.amount_cents for p in parts) == PrizeShare.objects.get().prize_cents == 1_000_070


def test_finding_3_each_part_takes_its_own_venues_threshold_when_a_winner_joins() -> None:
    """VEN €1,500, NOG €900: a straight flush at NOG opens a €1,000.03 prize, at or above NOG's threshold, so
    it waited on the desk; a VEN straight flush 2 s later joins: NOG's part (€500.02) is now under NOG's
    threshold and its table pays it; VEN's (€500.01) under VEN's, paid at VEN-CSP-1."""
    t = tables_ready()
    _thresholds(ven=150_000, nog=90_000)
    t.post("NOG-CSP-1", body("R-1", [seat(1, STRAIGHT_FLUSH)]))
    (alone,) = _parts()
    assert (alone.amount_cents, alone.state) == (100_003, PrizePart.State.OPEN)
    t.post("VEN-CSP-1", body("V-1", [seat(2, STRAIGHT_FLUSH_2)], seconds=-2))
    nog, ven = _parts()
    assert (_where(nog), nog.state, nog.paid_by_table.code) == (
        ("NOG-CSP-1", "R-1", 1, 50_002, "EUR"),
        PrizePart.State.PAID,
        "NOG-CSP-1",
    )
    assert (_where(ven), ven.state, ven.paid_by_table.code) == (
        ("VEN-CSP-1", "V-1", 2, 50_001, "EUR"),
        PrizePart.State.PAID,
        "VEN-CSP-1",
    )
    hit = Hit.objects.get()
    assert (hit.state, hit.amount_cents) == (Hit.State.PAID, 100_003)


def test_finding_3_a_part_at_its_threshold_waits_for_the_floor_though_the_prize_opened_at_a_table() -> None:
    """VEN €1,500, NOG €500: a VEN straight flush opens a €1,000.03 prize under VEN's threshold (its table
    pays); a NOG one 2 s later joins: NOG's €500.01 part is at NOG's threshold, so it waits for two people
    on the desk (before, the prize was decided once, paid at the table, and NOG's part with it). A third
    winner then brings NOG's part under its threshold: decided again, its table pays it."""
    t = tables_ready()
    _thresholds(ven=150_000, nog=50_001)
    t.post("VEN-CSP-1", body("V-1", [seat(1, STRAIGHT_FLUSH)]))
    t.post("NOG-CSP-1", body("R-1", [seat(2, STRAIGHT_FLUSH_2)], seconds=-2))
    ven, nog = _parts()
    assert (ven.amount_cents, ven.state, ven.paid_by_table.code) == (
        50_002,
        PrizePart.State.PAID,
        "VEN-CSP-1",
    )
    assert (nog.amount_cents, nog.state, nog.paid_by_table) == (50_001, PrizePart.State.OPEN, None)
    assert Hit.objects.get().state == Hit.State.HIT
    t.post("VEN-CSP-1", body("V-2", [seat(3, "9C 8C 7C 6C 5C")], seconds=-3))
    ven, nog, ven2 = _parts()
    # VEN's part, already paid at its table, is never moved nor paid again.
    assert [p.paid_by_table.code for p in (ven, nog, ven2)] == ["VEN-CSP-1", "NOG-CSP-1", "VEN-CSP-1"]
    assert [p.amount_cents for p in (ven, nog, ven2)] == [33_335, 33_334, 33_334]
    assert Hit.objects.get().state == Hit.State.PAID


def _paid_first(part: PrizePart) -> tuple[PrizePart, object]:
    anna, bruno = (
        get_user_model().objects.create_user(username=n, first_name=n.title()) for n in ("anna", "bruno")
    )
    part_verify(part, anna)
    part_verify(part, bruno)
    PrizeShare.objects.update(closes_at=timezone.now() - timedelta(seconds=1))
    return part_pay(part, bruno, WINNER), anna


def test_paying_a_part_twice_is_refused_naming_the_hit_number_and_who_paid() -> None:
    t = tables_ready()
    t.post("NOG-CSP-1", body("R-1", [seat(3, ROYAL)]))
    t.post("VEN-CSP-1", body("V-1", [seat(5, ROYAL_2)], seconds=-2))
    first, anna = _paid_first(_parts()[0])
    with pytest.raises(EngineError) as error:
        part_pay(first, anna, WINNER)
    when = timezone.localtime(first.paid_at).strftime("%H:%M")
    number = Hit.objects.get().ref
    assert number.startswith("NOG-2036-")
    assert error.value.code == "already_paid"
    assert error.value.message == f"{number}, NOG-CSP-1 round R-1 seat 3 was paid by Bruno at {when}."
    # The other part is still owed: the prize is not paid until both are.
    assert Hit.objects.get().state == Hit.State.HIT
    assert PrizePart.objects.filter(state=PrizePart.State.PAID).count() == 1


def test_a_part_is_not_paid_while_a_later_winner_may_still_divide_it() -> None:
    # Jumbo 7: no declaration holds its tables, so the window alone says when the division is final (a
    # declared Caribbean prize may be paid while pending: tests/tables/test_declarations.py).
    t = tables_ready()
    Venue.objects.filter(code="VEN").update(handpay_threshold_cents=1)  # the floor pays it, not the table
    t.post("VEN-CHE-1", body("J-1", [seat(3, "7H 8H", bet=2_500)], community="2H 3H 4H 5H 6H"))
    part = _parts()[0]
    users = [get_user_model().objects.create_user(username=n) for n in ("anna", "bruno")]
    part_verify(part, users[0])
    part_verify(part, users[1])
    with pytest.raises(EngineError) as error:
        part_pay(part, users[1], WINNER)
    assert error.value.code == "part_provisional"
    assert PrizePart.objects.get().state == PrizePart.State.VERIFIED


def test_finding_9_a_table_key_cannot_void_a_round_carrying_a_prize_at_or_above_the_threshold() -> None:
    t = tables_ready()
    t.post("NOG-CSP-1", body("R-1", [seat(3, ROYAL)]))
    response = t.void("NOG-CSP-1", "R-1", by_key=True)
    assert (response.status_code, response.json()) == (
        409,
        {
            "error": "void_needs_person",
            "detail": "Round R-1 carries a prize at or above the two-person threshold: only people in the "
            "workspace can void it, with a reason.",
        },
    )
    assert PrizePart.objects.get().state == PrizePart.State.OPEN
    # A person can, with a reason: the part is void with its round.
    assert t.void("NOG-CSP-1", "R-1").status_code == 200
    assert PrizePart.objects.get().state == PrizePart.State.VOIDED


def test_a_table_key_still_voids_a_round_whose_prize_its_table_pays() -> None:
    t = tables_ready()
    t.post("NOG-CSP-1", body("R-1", [seat(1, STRAIGHT_FLUSH)]))
    assert t.void("NOG-CSP-1", "R-1", by_key=True).status_code == 200
    assert (Hit.objects.get().state, PrizePart.objects.get().state) == (
        Hit.State.VOIDED,
        PrizePart.State.VOIDED,
    )


def test_each_seats_answer_says_whether_its_own_part_is_a_handpay() -> None:
    """VEN €1,500, NOG €500.01: of one €1,000.03 prize VEN's part is paid from its table's float, NOG's
    is not."""
    t = tables_ready()
    _thresholds(ven=150_000, nog=50_001)
    t.post("VEN-CSP-1", body("V-1", [seat(1, STRAIGHT_FLUSH)]))
    nog = t.post("NOG-CSP-1", body("R-1", [seat(2, STRAIGHT_FLUSH_2)], seconds=-2)).json()
    ven = t.post("VEN-CSP-1", body("V-1", [seat(1, STRAIGHT_FLUSH)])).json()  # a retry: the answer now
    assert [(a["seats"][0]["award"]["amount"], a["seats"][0]["award"]["handpay"]) for a in (ven, nog)] == [
        (50_002, False),
        (50_001, True),
    ]
