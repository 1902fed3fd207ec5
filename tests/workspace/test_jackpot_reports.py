"""Jackpot liability and a level's history, against sums computed here from the engine's rows."""

from __future__ import annotations

import csv
import io
from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from jackpots.models import Hit, LedgerEntry, Level
from jackpots.services import contributions_apply, hit_pay, hit_verify, level_hit
from tests.factories import ProgressiveFactory, ProgressiveMachineFactory, SlotMachineFactory
from tests.floor.staff import level_seeded
from tests.jackpots.factories import GameEventFactory
from workspace.reports.jackpots import jackpot_liability, level_history


@pytest.fixture
def played(db, manager):
    """Two progressives (EUR and CHF); games applied by the engine; one hit paid, one open."""
    eur = ProgressiveFactory(name="Diamond Vault", currency="EUR")
    chf = ProgressiveFactory(name="Jumbo 7", currency="CHF")
    machine = SlotMachineFactory(asset_number="NOG-0104")
    ProgressiveMachineFactory(progressive=eur, machine=machine)
    grand = level_seeded(progressive=eur, name="Grand", reset_mc=100_000_000)
    major = level_seeded(progressive=eur, name="Major", position=2, reset_mc=10_000_000)
    jumbo = level_seeded(progressive=chf, name="Jumbo", reset_mc=50_000_000)
    for _ in range(10):
        GameEventFactory(machine=machine, wager_cents=450)
    contributions_apply()
    paid = level_hit(major.pk, machine_id=machine.pk)
    hit_verify(paid, manager)
    hit_pay(paid, manager)
    open_hit = level_hit(grand.pk, machine_id=machine.pk)
    return {"grand": grand, "major": major, "jumbo": jumbo, "paid": paid, "open": open_hit}


def test_liability_matches_the_levels_and_unpaid_hits(played):
    levels = {name: Level.objects.get(pk=played[name].pk) for name in ("grand", "major", "jumbo")}
    liability = jackpot_liability()
    rows = {row.progressive.name: row for row in liability.rows}
    dv = rows["Diamond Vault"]
    assert dv.current_mc == levels["grand"].current_mc + levels["major"].current_mc
    assert dv.reserve_mc == levels["grand"].reserve_mc + levels["major"].reserve_mc
    assert dv.unpaid_cents == Hit.objects.get(pk=played["open"].pk).amount_cents
    assert dv.total_mc == dv.current_mc + dv.reserve_mc + dv.overflow_mc + dv.unpaid_cents * 1000
    assert rows["Jumbo 7"].current_mc == 50_000_000
    assert rows["Jumbo 7"].unpaid_cents == 0
    totals = liability.per_currency
    assert set(totals) == {"EUR", "CHF"}
    assert totals["CHF"].total_mc == levels["jumbo"].current_mc + levels["jumbo"].reserve_mc


def test_level_history_replays_the_ledger(played):
    grand = played["grand"]
    now = timezone.now()
    history = level_history(grand, now - timedelta(days=1), now + timedelta(hours=2))
    grand.refresh_from_db()
    assert history.opening_mc == 0
    rows = list(LedgerEntry.objects.filter(level=grand).order_by("at", "id"))
    # One step per ledger row, each its row's delta on top of the one before.
    assert [(step.kind, step.after_mc - step.before_mc) for step in history.steps] == [
        (row.kind, row.current_delta_mc) for row in rows
    ]
    assert all(a.after_mc == b.before_mc for a, b in zip(history.steps, history.steps[1:], strict=False))
    assert history.steps[-1].after_mc == grand.current_mc == sum(row.current_delta_mc for row in rows)
    assert [hit.pk for hit in history.hits] == [played["open"].pk]
    ledger = LedgerEntry.objects.filter(level=grand)
    assert history.contributed_mc == sum(ledger.values_list("contributed_mc", flat=True))
    assert history.contributed_mc == 10 * 450 * 1000 * 12 // 1000  # ten €4.50 games at 1% + 0.2% reserve
    assert history.awarded_mc == sum(ledger.values_list("awarded_mc", flat=True))
    assert history.awarded_mc != 0


def test_level_history_page_and_csv(client, played, manager):
    client.force_login(manager)
    today = timezone.localdate()
    params = {
        "level": played["grand"].pk,
        "first": str(today - timedelta(days=1)),
        "last": str(today + timedelta(days=1)),
    }
    page = client.get(reverse("workspace:report-level-history"), params)
    assert page.status_code == 200
    body = page.content.decode()
    assert body.count('<circle class="hit"') == 1
    assert "NOG-0104" in body
    export = client.get(reverse("workspace:report-level-history"), {**params, "format": "csv"})
    rows = list(csv.reader(io.StringIO(export.content.decode())))
    assert rows[0] == ["At", "Amount"]
    grand = Level.objects.get(pk=played["grand"].pk)
    assert rows[-1][1] == f"{grand.current_mc // 100_000}.{grand.current_mc // 1000 % 100:02d}"


def test_liability_page_and_csv(client, played, auditor):
    client.force_login(auditor)
    assert "Diamond Vault" in client.get(reverse("workspace:report-liability")).content.decode()
    export = client.get(reverse("workspace:report-liability"), {"format": "csv"})
    rows = list(csv.reader(io.StringIO(export.content.decode())))
    assert [row[:2] for row in rows[1:]] == [
        ["Jumbo 7", "CHF"],
        ["Diamond Vault", "EUR"],
        ["Total", "CHF"],
        ["Total", "EUR"],
    ]
    assert rows[1][2:] == ["500.00", "0.00", "0.00", "0.00", "500.00"]
