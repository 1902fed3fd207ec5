"""On the real PostgreSQL: linked tables posting at the same moment are serialized by the level's row
lock; a round posted twice at once is recorded once."""

from __future__ import annotations

import threading

import pytest
from django.db import connections

from jackpots.audit import jackpots_audit
from jackpots.models import Hit
from jackpots.tables.models import Table, TableRound
from jackpots.tables.seed import tables_seed
from jackpots.tables.services import round_record
from tests.jackpots.tables.factories import body, seat

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
