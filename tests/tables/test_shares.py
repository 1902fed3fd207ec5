"""A percentage prize divided across linked tables: every round's stored answer follows the division, and
the answer says the share is provisional until the sharing window has closed."""

from __future__ import annotations

from datetime import timedelta

import pytest

from jackpots.models import Hit
from tables.services import round_record
from tests.tables.factories import T0, assert_conserved, at, body, seat, tables_ready

pytestmark = pytest.mark.django_db

RESET_MC = 1_000_000_000
NOTHING = "2C 5D 7H 9S JC"
ROYAL_N = body("N-1", [seat(1, "AS KS QS JS TS")], seconds=0)


def award_of(answer: dict, number: int) -> dict:
    return next(s["award"] for s in answer["seats"] if s["seat"] == number)


def euro_award(cents: int, *, provisional: bool, final_at: str | None) -> dict:
    """A seat's award at a euro table of the euro progressive, all of it from a percentage prize."""
    return {
        "amount": cents,
        "currency": "EUR",
        "amount_eur": f"{cents // 100}.{cents % 100:02d}",
        "pool_amount": cents,
        "share": cents,
        "fixed": 0,
        "progressive": final_at is not None,
        "provisional": provisional,
        "final_at": final_at,
        # A royal is over the two-person threshold: the floor pays it, not the table.
        "handpay": final_at is not None,
    }


def test_a_retry_of_the_first_royal_answers_the_divided_amount_and_a_void_restores_it() -> None:
    t = tables_ready()
    first = t.post("NOG-CSP-1", ROYAL_N)
    assert first.status_code == 201
    assert award_of(first.json(), 1) == euro_award(1_000_035, provisional=True, final_at=at(60))
    second = t.post("VEN-CSP-1", body("V-1", [seat(3, "AD KD QD JD TD"), seat(4, NOTHING)], seconds=-20))
    assert award_of(second.json(), 3)["amount"] == 500_017
    assert award_of(second.json(), 4) == euro_award(0, provisional=False, final_at=None)
    retry = t.post("NOG-CSP-1", ROYAL_N)
    assert retry.status_code == 200
    assert award_of(retry.json(), 1) == euro_award(500_018, provisional=True, final_at=at(60))
    # Without the second royal the first table is owed the whole prize again, and its retry says so.
    assert t.void("VEN-CSP-1", "V-1").status_code == 200
    assert award_of(t.post("NOG-CSP-1", ROYAL_N).json(), 1)["amount"] == 1_000_035
    assert_conserved(t.level("NOG-CSP-1"))


def test_after_the_window_the_share_is_final_and_a_late_royal_no_longer_divides_it() -> None:
    t = tables_ready()
    t.post("NOG-CSP-1", ROYAL_N)
    t.post("VEN-CSP-1", body("V-1", [seat(3, "AD KD QD JD TD"), seat(4, NOTHING)], seconds=-20))
    closed = T0 + timedelta(seconds=61)
    answer, created = round_record(t.table("NOG-CSP-1"), ROYAL_N, received_at=closed)
    assert created is False
    assert (award_of(answer, 1)["amount"], award_of(answer, 1)["provisional"]) == (500_018, False)
    assert award_of(answer, 1)["final_at"] == at(60)
    # Played inside the window but received after it closed: the paid prize is not divided again; the
    # royal wins the amount standing now (reset + 1 reserve chip, then 3 chips at 35,000 mc).
    late, created = round_record(
        t.table("NOG-CSP-2"), body("N2-1", [seat(1, "AC KC QC JC TC")], seconds=30), received_at=closed
    )
    assert created is True
    assert award_of(late, 1)["amount"] == (RESET_MC + 5_000 + 70_000 + 35_000) // 1000
    # A new prize of its own, open to other tables until 60 s after it was played.
    assert (award_of(late, 1)["provisional"], award_of(late, 1)["final_at"]) == (True, at(90))
    level = t.level("NOG-CSP-1")
    assert Hit.objects.filter(level=level).count() == 2
    again, _ = round_record(t.table("NOG-CSP-1"), ROYAL_N, received_at=closed)
    assert award_of(again, 1)["amount"] == 500_018
    assert_conserved(level)
