"""The link applies its pool's settled entries in the order of play (``services.apply``), exact values: two
sites (EUR and CHF), contributions and a claim, entries arriving out of order, a silent site past the settle
window, a late contribution going to the next cycle, a run twice, and the engine's audit after each."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from jackpots.audit import jackpots_audit
from jackpots.models import Hit, HitKind, LedgerEntry, Level, LevelChange
from jackpots.services.parameters import level_parameters_change
from linkcentral.models import LinkAward, LinkAwardPart, LinkEntry
from linkcentral.services import apply
from linkcentral.services.apply import pool_entries_apply, pools_entries_apply
from linkcentral.tasks import link_entries_apply_task, link_pools_apply_task
from tests.linkcentral.factories import at, entry, linked_pool, through

pytestmark = pytest.mark.django_db

CHF = "0.935"


def amounts(level: Level) -> tuple[int, int, int]:
    level.refresh_from_db()
    return level.current_mc, level.cycle, level.hits


def applied(*entries: LinkEntry) -> list[tuple[object, int | None, int]]:
    for row in entries:
        row.refresh_from_db()
    return [(row.applied_at, row.cycle, row.wagered_pool_cents) for row in entries]


def test_two_sites_contributions_and_a_claim() -> None:
    linked = linked_pool()
    nog, chx = linked.members["NOG"], linked.members["CHX"]
    a = entry(nog, 1, 1, wagered=2500)  # +500_000 mc
    b = entry(chx, 1, 2, rate=CHF, wagered=1500)  # 1604 pool cents: +320_800 mc
    c = entry(chx, 2, 2, rate=CHF, seats=((2, 500), (5, 1000), (6, 100)))  # weights 534, 1069, 106
    through(nog, 10)
    through(chx, 10)

    assert pool_entries_apply(linked.pool.id, now=at(20)) == 3

    assert amounts(linked.level) == (100_000_800, 2, 1)  # the 800 mc below a cent stay in the pool
    assert applied(a, b, c) == [(at(20), 1, 2500), (at(20), 1, 1604), (at(20), 1, 0)]
    award = LinkAward.objects.get()
    assert (award.played_at, award.decided_at, award.amount_mc, award.cycle) == (
        at(2),
        at(20),
        100_820_000,
        1,
    )
    parts = LinkAwardPart.objects.filter(award=award).values_list(
        "number", "entry_id", "seat", "amount_mc", "site_cents"
    )
    # 100,820 cents x (534, 1069, 106) / 1709 = 31502.56, 63064.12, 6253.32: the cent left to the first;
    # each part in CHF at 0.935, down.
    assert list(parts) == [
        (1, c.id, 2, 31_503_000, 29_455),
        (2, c.id, 5, 63_064_000, 58_964),
        (3, c.id, 6, 6_253_000, 5_846),
    ]
    hit = Hit.objects.get()
    assert (hit.level_id, hit.kind, hit.at, hit.amount_cents, hit.amount_mc, hit.cycle) == (
        linked.level.id,
        HitKind.TABLE,
        at(2),
        100_820,
        100_820_800,
        1,
    )
    assert award.hit_id == hit.id
    ledger = LedgerEntry.objects.filter(level=linked.level).order_by("id")
    assert [(e.kind, e.at, e.wagered_cents, e.contributed_mc, e.awarded_mc, e.reference) for e in ledger] == [
        (LedgerEntry.Kind.SEED, at(0), 0, 0, 0, "opening"),
        (LedgerEntry.Kind.CONTRIBUTION, at(1), 2500, 500_000, 0, "link NOG #1"),
        (LedgerEntry.Kind.CONTRIBUTION, at(2), 1604, 320_800, 0, "link CHX #1"),
        (LedgerEntry.Kind.HIT, at(2), 0, 0, 100_820_000, "link CHX #2"),
    ]
    assert jackpots_audit()[1] == []


def test_claims_of_one_instant_at_two_sites_share_one_prize() -> None:
    linked = linked_pool()
    nog, chx = linked.members["NOG"], linked.members["CHX"]
    entry(chx, 1, 2, rate=CHF, wagered=935)  # 1000 pool cents: +200_000 mc
    entry(chx, 2, 2, rate=CHF, seats=((2, 500), (5, 1000)))  # weights 534, 1069
    entry(nog, 1, 2, seats=((1, 2500),))  # weight 2500
    through(nog, 3)
    through(chx, 3)

    assert pool_entries_apply(linked.pool.id, now=at(4)) == 3

    award = LinkAward.objects.get()
    assert award.amount_mc == 100_200_000
    parts = award.parts.values_list("entry__member__site__code", "seat", "amount_mc", "site_cents")
    # 100,200 cents x (534, 1069, 2500) / 4103 = 13040.90, 26106.21, 61052.89: one cent to the first
    # (its remainder 3680 of 4103 just above the third's 3644).
    assert list(parts) == [
        ("CHX", 2, 13_041_000, 12_193),
        ("CHX", 5, 26_106_000, 24_409),
        ("NOG", 1, 61_053_000, 61_053),
    ]
    assert Hit.objects.count() == 1
    assert LedgerEntry.objects.get(kind=LedgerEntry.Kind.HIT).reference == "link CHX #2, NOG #1"
    assert amounts(linked.level) == (100_000_000, 2, 1)
    assert jackpots_audit()[1] == []


def test_entries_arriving_out_of_order_are_applied_in_the_order_of_play() -> None:
    linked = linked_pool()
    nog, chx = linked.members["NOG"], linked.members["CHX"]
    claim = entry(chx, 1, 5, rate=CHF, seats=((3, 500),))
    through(chx, 10)

    # NOG has not been heard from and the window has not passed: the claim waits.
    assert pool_entries_apply(linked.pool.id, now=at(20)) == 0
    assert applied(claim) == [(None, None, 0)]

    earlier = entry(nog, 1, 3, wagered=1000)  # played before the claim, arrived after it
    through(nog, 10)
    assert pool_entries_apply(linked.pool.id, now=at(21)) == 2

    assert applied(earlier, claim) == [(at(21), 1, 1000), (at(21), 1, 0)]
    assert LinkAward.objects.get().amount_mc == 100_200_000
    assert list(LinkAwardPart.objects.values_list("seat", "site_cents")) == [(3, 93_687)]
    assert amounts(linked.level) == (100_000_000, 2, 1)
    assert jackpots_audit()[1] == []


def test_a_silent_site_is_waited_for_the_settle_window_then_its_late_play_goes_to_the_next_cycle() -> None:
    linked = linked_pool(settle_seconds=120)
    nog, chx = linked.members["NOG"], linked.members["CHX"]
    bet = entry(chx, 1, 1, rate=CHF, wagered=1870)  # 2000 pool cents: +400_000 mc
    claim = entry(chx, 2, 2, rate=CHF, seats=((4, 500),))
    through(chx, 60)

    assert pool_entries_apply(linked.pool.id, now=at(121)) == 0  # horizon at(1): nothing before it
    assert pool_entries_apply(linked.pool.id, now=at(122)) == 1  # horizon at(2): the bet, not the claim
    assert applied(bet, claim) == [(at(122), 1, 2000), (None, None, 0)]
    assert amounts(linked.level) == (100_400_000, 1, 0)
    assert pool_entries_apply(linked.pool.id, now=at(123)) == 1
    assert LinkAward.objects.get().amount_mc == 100_400_000
    assert amounts(linked.level) == (100_000_000, 2, 1)

    # The silent site's round played before the claim arrives after it was decided: the next cycle.
    late = entry(nog, 1, 1.5, wagered=5000)  # +1_000_000 mc
    through(nog, 130)
    assert pool_entries_apply(linked.pool.id, now=at(131)) == 1
    assert applied(late) == [(at(131), 2, 5000)]
    assert amounts(linked.level) == (101_000_000, 2, 1)
    assert LedgerEntry.objects.filter(kind=LedgerEntry.Kind.CONTRIBUTION).latest("id").cycle == 2
    assert jackpots_audit()[1] == []


def test_applying_twice_applies_nothing_twice() -> None:
    linked = linked_pool()
    nog, chx = linked.members["NOG"], linked.members["CHX"]
    entry(nog, 1, 1, wagered=2500)
    entry(chx, 1, 2, rate=CHF, seats=((1, 500),))
    through(nog, 10)
    through(chx, 10)

    assert pool_entries_apply(linked.pool.id, now=at(20)) == 2
    assert pool_entries_apply(linked.pool.id, now=at(30)) == 0

    assert LedgerEntry.objects.count() == 3  # seed, contribution, hit
    assert (LinkAward.objects.count(), LinkAwardPart.objects.count(), Hit.objects.count()) == (1, 1, 1)
    assert amounts(linked.level) == (100_000_000, 2, 1)
    assert jackpots_audit()[1] == []


def test_a_suspended_pool_takes_nothing_until_it_is_active() -> None:
    linked = linked_pool()
    nog = linked.members["NOG"]
    row = entry(nog, 1, 1, wagered=2500)
    through(nog, 10)
    through(linked.members["CHX"], 10)
    Level.objects.filter(pk=linked.level.pk).update(state=Level.State.SUSPENDED)

    assert pool_entries_apply(linked.pool.id, now=at(20)) == 0
    assert applied(row) == [(None, None, 2500)]  # not applied: only what it was received with

    Level.objects.filter(pk=linked.level.pk).update(state=Level.State.ACTIVE)
    assert pool_entries_apply(linked.pool.id, now=at(20)) == 1
    assert amounts(linked.level) == (100_500_000, 1, 0)


def test_an_inactive_member_is_not_waited_for() -> None:
    linked = linked_pool()
    chx = linked.members["CHX"]
    linked.members["NOG"].active = False
    linked.members["NOG"].save(update_fields=["active"])
    entry(chx, 1, 1, rate=CHF, wagered=935)
    through(chx, 5)

    assert pool_entries_apply(linked.pool.id, now=at(6)) == 1
    assert amounts(linked.level) == (100_200_000, 1, 0)


def test_the_tasks_apply_one_pool_and_every_pool() -> None:
    # The tasks apply as of the clock: a window of ten years keeps the test's fixed instants unsettled
    # until the site's through passes them, whenever it runs.
    linked = linked_pool(settle_seconds=10 * 365 * 86_400)
    nog = linked.members["NOG"]
    entry(nog, 1, 1, wagered=2500)
    entry(nog, 2, 2, wagered=500)
    nog.through = nog.heard_at = at(1.5)
    nog.save(update_fields=["through", "heard_at"])
    linked.members["CHX"].delete()  # the one member: the pool waits for NOG's through only

    assert link_entries_apply_task(linked.pool.id) == 1
    through(nog, 3)
    assert link_pools_apply_task() == 1
    assert pools_entries_apply() == 0
    assert amounts(linked.level) == (100_600_000, 1, 0)


def test_the_sweep_applies_the_other_pools_when_one_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    broken, sound = linked_pool({"NOG": "EUR"}), linked_pool({"LUG": "CHF"}, code="JUMBO7B")
    entry(broken.members["NOG"], 1, 1, wagered=2500)
    entry(sound.members["LUG"], 1, 1, rate=CHF, wagered=935)
    through(broken.members["NOG"], 5)
    through(sound.members["LUG"], 5)
    real = apply.pool_entries_apply

    def failing(pool_id: int, now: datetime | None = None) -> int:
        if pool_id == broken.pool.id:
            raise RuntimeError("the database went away")
        return real(pool_id, now)

    monkeypatch.setattr(apply, "pool_entries_apply", failing)

    assert pools_entries_apply(now=at(10)) == 1
    assert amounts(broken.level) == (100_000_000, 1, 0)
    assert amounts(sound.level) == (100_200_000, 1, 0)


def test_a_claims_reset_takes_the_staged_parameters_and_the_next_bets_play_on_them() -> None:
    linked = linked_pool()
    nog, chx = linked.members["NOG"], linked.members["CHX"]
    change = level_parameters_change(
        linked.level, None, {"rate": "0.1", "reset_mc": 50_000_000}, "new season"
    )
    entry(nog, 1, 1, wagered=2500)  # at 20%: +500_000 mc
    entry(chx, 1, 2, rate=CHF, seats=((1, 500),))
    entry(nog, 2, 3, wagered=2500)  # the next cycle, at 10%: +250_000 mc
    through(nog, 10)
    through(chx, 10)

    assert pool_entries_apply(linked.pool.id, now=at(20)) == 3

    assert LinkAward.objects.get().amount_mc == 100_500_000
    linked.level.refresh_from_db()
    assert (linked.level.rate, linked.level.reset_mc) == (Decimal("0.1"), 50_000_000)
    assert amounts(linked.level) == (50_250_000, 2, 1)
    change.refresh_from_db()
    assert (change.state, change.applied_at, change.applied_cycle) == (LevelChange.State.APPLIED, at(2), 2)
    assert jackpots_audit()[1] == []


def test_a_backlog_is_marked_applied_in_one_statement_a_cycle_without_a_case_per_row() -> None:
    """A site back after an outage sends thousands of entries at once: marking them must stay linear (a
    bulk_update's CASE per row held PostgreSQL for minutes over 17,200 entries)."""
    linked = linked_pool()
    nog, chx = linked.members["NOG"], linked.members["CHX"]
    rows = [entry(nog, seq, seq / 10, wagered=100) for seq in range(1, 200)]
    rows.append(entry(chx, 1, 19.95, rate=CHF, seats=((1, 500),)))  # a claim: the next ones, cycle 2
    rows += [entry(nog, seq, 20 + seq / 10, wagered=100) for seq in range(200, 300)]
    through(nog, 60)
    through(chx, 60)

    with CaptureQueriesContext(connection) as queries:
        assert pool_entries_apply(linked.pool.id, now=at(90)) == 300
    marking = [q["sql"] for q in queries if q["sql"].startswith('UPDATE "linkcentral_linkentry"')]
    assert len(marking) == 2  # one per cycle
    assert not any("CASE" in sql for sql in marking)
    assert sorted({(cycle, applied_at) for _, cycle, applied_at in _marks(rows)}) == [
        (1, at(90)),
        (2, at(90)),
    ]
    assert [cycle for _, cycle, _ in _marks(rows)] == [1] * 200 + [2] * 100


def _marks(rows: list[LinkEntry]) -> list[tuple[int, int | None, object]]:
    return list(
        LinkEntry.objects.filter(pk__in=[row.pk for row in rows])
        .order_by("played_at", "member__site__code", "seq")
        .values_list("seq", "cycle", "applied_at")
    )
