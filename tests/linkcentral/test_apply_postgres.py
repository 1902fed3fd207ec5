"""On the real PostgreSQL: two callers applying one pool at the same moment (a site's post's task and the
periodic sweep, on two connections) apply each entry once: the level's row lock orders them and the second
reads the entries only once it holds it."""

from __future__ import annotations

import threading

import pytest
from django.db import connections

from jackpots.audit import jackpots_audit
from jackpots.models import Hit, LedgerEntry
from linkcentral.models import LinkAward, LinkAwardPart, LinkEntry
from linkcentral.services.apply import pool_entries_apply
from tests.linkcentral.factories import at, entry, linked_pool, through

pytestmark = [pytest.mark.postgres, pytest.mark.django_db(transaction=True)]


def test_two_callers_at_once_apply_each_entry_once() -> None:
    linked = linked_pool()
    nog, chx = linked.members["NOG"], linked.members["CHX"]
    for seq in range(1, 21):
        entry(nog, seq, seq, wagered=100 * seq)
        entry(chx, seq, seq, rate="0.935", wagered=935)
    entry(chx, 21, 20, rate="0.935", seats=((1, 1000), (2, 500)))  # weights 1069, 534
    through(nog, 30)
    through(chx, 30)
    barrier = threading.Barrier(2)
    counts: list[int] = []
    errors: list[BaseException] = []

    def apply() -> None:
        try:
            barrier.wait()
            counts.append(pool_entries_apply(linked.pool.id, now=at(40)))
        except BaseException as error:  # reported by the assertion below
            errors.append(error)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=apply) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)

    assert errors == []
    assert sorted(counts) == [0, 41]
    assert LinkEntry.objects.filter(applied_at=at(40)).count() == 41
    assert LedgerEntry.objects.filter(kind=LedgerEntry.Kind.CONTRIBUTION).count() == 40
    assert (LinkAward.objects.count(), LinkAwardPart.objects.count(), Hit.objects.count()) == (1, 2, 1)
    # 21_000 EUR cents and 20 x 1000 CHF-converted cents at 20%: 8_200_000 mc on the reset value.
    assert LinkAward.objects.get().amount_mc == 108_200_000
    # 108,200 cents x (1069, 534) / 1603 = 72155.83, 36044.17: the cent left to the first.
    parts = LinkAwardPart.objects.order_by("number").values_list("seat", "amount_mc", "site_cents")
    assert list(parts) == [(1, 72_156_000, 67_465), (2, 36_044_000, 33_701)]
    linked.level.refresh_from_db()
    assert (linked.level.current_mc, linked.level.cycle) == (100_000_000, 2)
    assert jackpots_audit()[1] == []
