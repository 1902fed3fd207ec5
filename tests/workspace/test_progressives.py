"""The progressives page: money per level, hit frequency checked against sums made here, and the level
history chart drawing every ledger row and every hit."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.utils import timezone

from jackpots.models import Hit, LedgerEntry
from jackpots.services import hit_void, level_hit
from tests.factories import ProgressiveFactory, ProgressiveMachineFactory, SlotMachineFactory
from tests.floor.staff import level_seeded
from workspace.progressives.chart import level_chart
from workspace.progressives.selectors import Step, levels_overview

pytestmark = pytest.mark.django_db
HOUR = timedelta(hours=1)


@pytest.fixture
def grand(db):
    machine = SlotMachineFactory(asset_number="NOG-0005")
    progressive = ProgressiveFactory(name="Grease")
    ProgressiveMachineFactory(progressive=progressive, machine=machine)
    return level_seeded(progressive=progressive, name="Grand", reset_mc=100_000_000), machine


def _hits(level, machine, now, offsets_hours):
    return [level_hit(level.pk, machine_id=machine.pk, at=now - h * HOUR) for h in offsets_hours]


def test_hit_frequency_matches_independent_sums(grand, manager):
    level, machine = grand
    now = timezone.now()
    # One hit before the 7-day window, four in it, and a fifth in it that is voided.
    _hits(level, machine, now, [24 * 8])
    inside = _hits(level, machine, now, [30, 28, 25, 24])
    voided = _hits(level, machine, now, [1])[0]
    hit_void(voided, manager, "Test hit")
    for hit in inside:
        # Later hits on a level pay less than the first (it restarted from the reset): amounts differ.
        hit.refresh_from_db()
    row = next(r for r in levels_overview(now, 7) if r.level.pk == level.pk)
    amounts = [hit.amount_cents for hit in inside]
    gaps = [2 * HOUR, 3 * HOUR, 1 * HOUR]
    assert row.frequency.hits == 4
    assert row.frequency.per_day == "0.57"  # 4 / 7
    assert row.frequency.mean_gap == sum(gaps, timedelta()) / 3
    assert row.frequency.longest_gap == max(gaps)
    assert row.frequency.total_cents == sum(amounts)
    assert row.frequency.average_cents == sum(amounts) // 4
    assert row.last_hit_at == inside[-1].at
    level.refresh_from_db()
    unpaid = sum(Hit.objects.filter(level=level, state=Hit.State.HIT).values_list("amount_cents", flat=True))
    assert row.liability_mc == level.current_mc + level.reserve_mc + level.overflow_mc + unpaid * 1000


def test_a_level_without_hits_reads_never(client, grand, manager):
    client.force_login(manager)
    page = client.get("/progressives/").content.decode()
    level = grand[0]
    assert f'id="level-{level.pk}"' in page and "never" in page and "1,000.00" in page


def test_the_chart_draws_every_ledger_row_and_every_hit(client, grand, manager):
    level, machine = grand
    now = timezone.now()
    for minutes in range(10, 60, 5):  # ten contributions of €1.00 within the hour
        LedgerEntry.objects.create(
            level=level,
            kind=LedgerEntry.Kind.CONTRIBUTION,
            at=now - timedelta(minutes=minutes),
            cycle=1,
            level_seq=0,
            current_delta_mc=100_000,
            contributed_mc=100_000,
        )
    _hits(level, machine, now, [2, 3])
    rows = LedgerEntry.objects.filter(level=level, at__gte=now - 24 * HOUR).count()
    client.force_login(manager)
    page = client.get(f"/progressives/levels/{level.pk}/?hours=24").content.decode()
    assert f"{rows} changes drawn" in page
    svg = page[page.index("<svg") : page.index("</svg>")]
    assert svg.count('class="hit"') == 2
    assert "€ 0.00" in svg and re.search(r">\d\d:\d\d</text>", svg)
    assert "Europe/Rome" in svg


def test_a_day_of_two_second_contributions_draws_a_few_thousand_points_and_keeps_its_hits():
    end = timezone.now()
    start = end - 24 * HOUR
    steps, amount = [], 0
    for second in range(0, 86_400, 2):
        kind = LedgerEntry.Kind.HIT if second in (20_000, 60_000) else LedgerEntry.Kind.CONTRIBUTION
        after = 0 if kind == LedgerEntry.Kind.HIT else amount + 1_000
        steps.append(Step(start + timedelta(seconds=second), amount, after, kind))
        amount = after
    svg = str(level_chart(0, steps, start, end, zone="Europe/Rome", caption="Grand"))
    points = re.search(r'class="value" points="([^"]+)"', svg).group(1).split()
    assert len(points) <= 4 * 1084 + 2
    assert svg.count('class="hit"') == 2
    # The highest amount (just before the second hit) is drawn, not merged away.
    top_y = min(int(point.split(",")[1]) for point in points)
    assert top_y < 100
