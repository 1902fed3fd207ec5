"""On the real PostgreSQL: linked tables posting at the same moment are serialized by the level's row
lock; a round posted twice at once is recorded once."""

from __future__ import annotations

import threading

import pytest
from django.db import connections

from jackpots.audit import jackpots_audit
from jackpots.models import Hit
from tables.models import Table, TableRound
from tables.seed import tables_seed
from tables.services import round_record
from tests.tables.factories import body, seat

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]
RESET_MC = 1_000_000_000


def _at_once(calls: list) -> list:
    """Runs the calls in threads released together; returns their results (or exceptions)."""
    barrier = threading.Barrier(len(calls))
    results: list = [None] * len(calls)

    def run(i: int, call) -> None:
        try:
            barrier.wait()
            results[i] = call()
        except Exception as error:  # reported by the test
            results[i] = error
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(i, call)) for i, call in enumerate(calls)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


def test_royals_at_three_linked_tables_at_once_share_one_prize() -> None:
    tables_seed()
    codes = ["NOG-CSP-1", "NOG-CSP-2", "VEN-CSP-1"]
    tables = {code: Table.objects.select_related("progressive__pay_table").get(code=code) for code in codes}
    royals = ["AS KS QS JS TS", "AH KH QH JH TH", "AD KD QD JD TD"]
    calls = [
        (lambda code=code, cards=cards: round_record(tables[code], body(f"{code}-R", [seat(1, cards)])))
        for code, cards in zip(codes, royals, strict=True)
    ]
    results = _at_once(calls)
    assert all(isinstance(r, tuple) and r[1] for r in results), results
    # Each round adds its chip under the level's lock before it is evaluated, so the first to lock wins
    # 1,000,000,000 + 35,000 mc; the two others join within the window and the prize is cut in three.
    hit = Hit.objects.get()
    assert hit.amount_cents == 1_000_035
    assert [r.seat_rows.get().award_cents for r in TableRound.objects.all()] == [333_345] * 3
    level = tables["NOG-CSP-1"].progressive.pay_table.level
    level.refresh_from_db()
    # The next cycle: reset + the first chip's reserve, then the two later chips.
    assert (level.current_mc, level.reserve_mc, level.cycle) == (RESET_MC + 5_000 + 70_000, 10_000, 2)
    assert jackpots_audit()[1] == []


def test_a_round_posted_twice_at_once_is_recorded_once() -> None:
    tables_seed()
    table = Table.objects.select_related("progressive__pay_table").get(code="NOG-CSP-1")
    data = body("TWICE", [seat(1, "9C 9D 9H 9S 2D"), seat(2, "2C 5D 7H 8S JC")])
    results = _at_once([lambda: round_record(table, data), lambda: round_record(table, data)])
    assert sorted(created for _, created in results) == [False, True]
    assert results[0][0] == results[1][0]
    assert TableRound.objects.count() == 1
    level = table.progressive.pay_table.level
    level.refresh_from_db()
    assert (level.current_mc, level.wagered_cents) == (RESET_MC + 70_000, 200)


def test_two_pays_of_one_part_at_once_pay_it_once_and_the_loser_reads_who_paid() -> None:
    """Issue 28's "Also": the loser of two concurrent pays read "Hit 1 is paid; it must be verified before
    paying"; it now names the hit number, who paid and when (the part's row lock orders the two)."""
    from datetime import timedelta

    from django.contrib.auth import get_user_model
    from django.utils import timezone

    from jackpots.services import EngineError
    from jackpots.services.winners import Winner
    from tables.models import PrizePart, PrizeShare
    from tables.services.parts import part_pay, part_verify

    tables_seed()
    table = Table.objects.get(code="NOG-CSP-1")
    round_record(table, body("R-1", [seat(3, "AS KS QS JS TS")]))
    anna, bruno = (
        get_user_model().objects.create_user(username=n, first_name=n.title()) for n in ("anna", "bruno")
    )
    part = part_verify(part_verify(PrizePart.objects.get(), anna), bruno)
    PrizeShare.objects.update(closes_at=timezone.now() - timedelta(seconds=1))
    winner = Winner("Mario Rossi", "passport", "YA1234567", "IT")
    results = _at_once([lambda user=user: part_pay(part, user, winner) for user in (anna, bruno)])
    paid = [r for r in results if isinstance(r, PrizePart)]
    refused = [r for r in results if isinstance(r, EngineError)]
    assert (len(paid), len(refused)) == (1, 1), results
    winner_name = paid[0].paid_by.first_name
    when = timezone.localtime(paid[0].paid_at).strftime("%H:%M")
    number = Hit.objects.get().ref
    assert refused[0].code == "already_paid"
    assert refused[0].message == f"{number}, NOG-CSP-1 round R-1 seat 3 was paid by {winner_name} at {when}."
    assert PrizePart.objects.get().paid_by == paid[0].paid_by


def test_hits_recorded_at_once_on_two_levels_of_one_venue_take_different_numbers() -> None:
    """The venue-year counter's row lock: two tables of one venue on two progressives, at once."""
    tables_seed()
    stud, holdem = Table.objects.get(code="NOG-CSP-1"), Table.objects.get(code="NOG-CHE-1")
    calls = [
        lambda: round_record(stud, body("S-1", [seat(1, "AS KS QS JS TS")])),
        lambda: round_record(holdem, body("H-1", [seat(1, "9H 8H", 500)], community="7H 6H 5H 4H 3H")),
    ]
    results = _at_once(calls)
    assert all(isinstance(r, tuple) for r in results), results
    refs = sorted(Hit.objects.values_list("ref", flat=True))
    year = refs[0].split("-")[1]
    assert refs == [f"NOG-{year}-00001", f"NOG-{year}-00002"]


def test_two_pays_of_one_hit_at_once_pay_it_once_and_the_loser_reads_its_number() -> None:
    """Issue 28's "Also" on a hit (a €5,000 fixed prize at the tables): the loser read "Hit 1 is paid; it
    must be verified before paying", with the level's count; now the hit number, who paid and when."""
    from django.contrib.auth import get_user_model
    from django.utils import timezone

    from jackpots.services import EngineError, hit_pay, hit_verify
    from jackpots.services.winners import Winner

    tables_seed()
    holdem = Table.objects.get(code="NOG-CHE-1")
    round_record(holdem, body("C-1", [seat(1, "3C 5C", bet=500)], community="2C 4C 6C 7C 9D"))
    anna, bruno = (
        get_user_model().objects.create_user(username=n, first_name=n.title()) for n in ("anna", "bruno")
    )
    hit = hit_verify(hit_verify(Hit.objects.get(), anna), bruno)
    winner = Winner("Mario Rossi", "passport", "YA1234567", "IT")
    results = _at_once([lambda user=user: hit_pay(hit, user, winner) for user in (anna, bruno)])
    paid = [r for r in results if isinstance(r, Hit)]
    refused = [r for r in results if isinstance(r, EngineError)]
    assert (len(paid), len(refused)) == (1, 1), results
    when = timezone.localtime(paid[0].paid_at).strftime("%H:%M")
    assert hit.ref.startswith("NOG-") and hit.ref.endswith("-00001")
    assert (refused[0].code, refused[0].message) == (
        "already_paid",
        f"{hit.ref} was paid by {paid[0].paid_by.first_name} at {when}.",
    )
