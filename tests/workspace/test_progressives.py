"""The progressives page: money per level, hit frequency checked against sums made here, and the level
history chart drawing every ledger row and every hit."""

from __future__ import annotations

import re
from datetime import timedelta
from decimal import Decimal

import pytest
from django.utils import timezone

from jackpots.models import Hit, LedgerEntry
from jackpots.services import hit_void, level_hit
from tests.factories import ProgressiveFactory, ProgressiveMachineFactory, SlotMachineFactory
from tests.floor.staff import level_seeded
from workspace.progressives.chart import PLOT_WIDTH, level_chart
from workspace.progressives.selectors import level_series, levels_overview

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
    assert row.frequency.per_day == Decimal("0.57")  # 4 / 7
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
    assert "€\xa00.00" in svg and re.search(r">\d\d:\d\d</text>", svg)
    assert "Europe/Rome" in svg


def test_six_hours_of_two_second_batches_draw_four_points_a_pixel_at_most_and_keep_hits_and_peaks(grand):
    level = grand[0]
    end = timezone.now()
    start = end - 6 * HOUR
    # The level was seeded just now: its seed row comes after these in the window, its opening is 0.
    rows, amount, peaks = [], 0, []
    for index, second in enumerate(range(0, 6 * 3600, 2)):
        hit = index in (3_000, 8_000)
        delta = 100_000_000 - amount if hit else 1_000
        if hit:
            peaks.append(amount)
        rows.append(
            LedgerEntry(
                level=level,
                kind=LedgerEntry.Kind.HIT if hit else LedgerEntry.Kind.CONTRIBUTION,
                at=start + timedelta(seconds=second),
                cycle=1,
                level_seq=index,
                current_delta_mc=delta,
            )
        )
        amount += delta
    LedgerEntry.objects.bulk_create(rows)
    series = level_series(level, start, end, PLOT_WIDTH)
    assert series.changes == 10_801  # and the seed
    assert [before for _at, before in series.hits] == peaks
    assert series.closing_mc == amount + 100_000_000
    # Each hit's peak lies within its pixel column's drawn range.
    assert all(any(c.low_mc <= peak <= c.high_mc for c in series.columns) for peak in peaks)
    svg = str(level_chart(series, start, end, zone="Europe/Rome", caption="Grand"))
    points = re.search(r'class="value" points="([^"]+)"', svg).group(1).split()
    assert len(points) <= 4 * (PLOT_WIDTH + 1) + 2  # pixel positions 0 to PLOT_WIDTH, both ends
    assert svg.count('class="hit"') == 2
