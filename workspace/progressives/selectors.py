"""The progressives page: every level's money now, how often it hits, and its amount over time.

Frequency counts the hits that stand (voided ones are left out) whose time falls in the window."""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal

from django.db import connection
from django.db.models import Sum

from floor.models import Venue
from jackpots.models import Hit, LedgerEntry, Level
from jackpots.selectors import progressives_at

MC_PER_CENT = 1000
_OPEN = (Hit.State.HIT, Hit.State.VERIFIED)


@dataclass(frozen=True)
class Frequency:
    hits: int
    days: int
    total_cents: int
    mean_gap: timedelta | None
    longest_gap: timedelta | None

    @property
    def per_day_hundredths(self) -> int:
        """Hits per day, in hundredths (integer arithmetic; 150 is 1.50 a day)."""
        return self.hits * 100 // self.days

    @property
    def per_day(self) -> Decimal:
        """Exact, two places; a template shows it in the reader's language ("0,57" in Italian)."""
        return Decimal(self.per_day_hundredths).scaleb(-2)

    @property
    def average_cents(self) -> int | None:
        return self.total_cents // self.hits if self.hits else None


def hit_frequency(times_and_amounts: list[tuple[datetime, int]], days: int) -> Frequency:
    """From the hits' (time, amount) in time order: the count, the gaps between consecutive hits and the
    average award (rounded down to the cent)."""
    times = [at for at, _amount in times_and_amounts]
    gaps = [later - earlier for earlier, later in itertools.pairwise(times)]
    return Frequency(
        hits=len(times),
        days=days,
        total_cents=sum(amount for _at, amount in times_and_amounts),
        mean_gap=(times[-1] - times[0]) / len(gaps) if gaps else None,
        longest_gap=max(gaps) if gaps else None,
    )


@dataclass(frozen=True)
class LevelRow:
    level: Level
    unpaid_cents: int
    last_hit_at: datetime | None
    frequency: Frequency

    @property
    def liability_mc(self) -> int:
        """What the casino owes on the level: the amount shown, the reserve, the overflow and the awards
        won but not yet paid."""
        level = self.level
        return level.current_mc + level.reserve_mc + level.overflow_mc + self.unpaid_cents * MC_PER_CENT


def level_chart_span(
    level: Level, start: datetime, end: datetime, now: datetime
) -> tuple[datetime, datetime]:
    """The part of start..end a level's chart draws: not before the level's first ledger row (before it the
    level did not exist, and a line at €0 would say it stood at nothing) and not past ``now``."""
    first = LedgerEntry.objects.filter(level=level).order_by("at").values_list("at", flat=True).first()
    end = min(end, now)
    if first is not None and start < first < end:
        start = first
    return start, max(start, end)


def levels_overview(now: datetime, days: int, venue: Venue | None = None) -> list[LevelRow]:
    """Every level of the progressives played at ``venue`` (all without one), by progressive and position,
    with its frequency over the last ``days`` days."""
    start = now - timedelta(days=days)
    levels = list(
        Level.objects.filter(progressive__in=progressives_at(venue).values("id"))
        .select_related("progressive")
        .order_by("progressive__name", "position", "id")
    )
    standing = Hit.objects.exclude(state=Hit.State.VOIDED).filter(level__in=[level.id for level in levels])
    unpaid = dict(
        standing.filter(state__in=_OPEN)
        .values("level_id")
        .annotate(s=Sum("amount_cents"))
        .values_list("level_id", "s")
    )
    last = {}
    for level_id, at in standing.order_by("level_id", "at").values_list("level_id", "at"):
        last[level_id] = at
    windows: dict[int, list[tuple[datetime, int]]] = {level.id: [] for level in levels}
    for level_id, at, amount in (
        standing.filter(at__gte=start, at__lt=now)
        .order_by("at", "id")
        .values_list("level_id", "at", "amount_cents")
    ):
        windows[level_id].append((at, amount))
    return [
        LevelRow(
            level=level,
            unpaid_cents=unpaid.get(level.id) or 0,
            last_hit_at=last.get(level.id),
            frequency=hit_frequency(windows[level.id], days),
        )
        for level in levels
    ]


@dataclass(frozen=True)
class Column:
    """One pixel column of the level's history: the lowest and highest amount it held there (before and
    after each of the column's ledger rows)."""

    x: int
    first_mc: int  # before the column's first row
    low_mc: int
    high_mc: int
    last_mc: int  # after its last row


@dataclass(frozen=True)
class Series:
    opening_mc: int  # the amount at the window's start
    closing_mc: int
    columns: list[Column]
    hits: list[tuple[datetime, int]]  # each hit's time and the amount it took the level from
    changes: int  # ledger rows drawn


# The rows of the window with the level's amount after each (a running sum of the deltas), their time as
# seconds since the window's start. Both databases have window functions; only the epoch differs.
_EPOCH = {
    "postgresql": "EXTRACT(EPOCH FROM at)",
    "sqlite": "(julianday(at) - 2440587.5) * 86400.0",
}
_ROWS = """
    WITH r AS (
        SELECT {epoch} - %s AS t, kind, current_delta_mc AS delta,
               CAST(({epoch} - %s) * %s / %s AS INTEGER) AS x,
               SUM(current_delta_mc) OVER (ORDER BY at, id) AS running,
               ROW_NUMBER() OVER (ORDER BY at, id) AS n
        FROM jackpots_ledgerentry WHERE level_id = %s AND at >= %s AND at < %s
    )
"""
# Per column: the amount before its first row, its extremes and the amount after its last (window
# functions over the column: no join, one sort).
_COLUMNS = """, p AS (
        SELECT x, running, delta,
               FIRST_VALUE(running - delta) OVER (PARTITION BY x ORDER BY n) AS first_before,
               FIRST_VALUE(running) OVER (PARTITION BY x ORDER BY n DESC) AS last_after
        FROM r
    )
    SELECT x, MIN(first_before), MIN(running), MAX(running), MIN(running - delta), MAX(running - delta),
           MIN(last_after), COUNT(*)
    FROM p GROUP BY x ORDER BY x"""
_HITS = " SELECT t, running - delta FROM r WHERE kind = %s ORDER BY n"


def level_series(level: Level, start: datetime, end: datetime, width: int) -> Series:
    """The level's amount over [start, end) in ``width`` pixel columns, summed in the database: a day of
    one-second batches is 86,400 ledger rows and a few hundred columns. Every row counts (a column keeps
    its lowest and highest amount); hits are listed one by one."""
    opening = (
        LedgerEntry.objects.filter(level=level, at__lt=start).aggregate(t=Sum("current_delta_mc"))["t"] or 0
    )
    rows = _ROWS.format(epoch=_EPOCH[connection.vendor])
    span = max((end - start).total_seconds(), 1)
    epoch = start.timestamp()
    # Bounds as the backend stores datetimes (SQLite compares text: its default adapter's "+00:00" would
    # leave out a row at exactly ``start``).
    adapt = connection.ops.adapt_datetimefield_value
    head = [epoch, epoch, width, span, level.pk, adapt(start), adapt(end)]
    with connection.cursor() as cursor:
        cursor.execute(rows + _COLUMNS, head)
        found = cursor.fetchall()
        cursor.execute(rows + _HITS, [*head, LedgerEntry.Kind.HIT])
        # PostgreSQL sums bigints as numeric: the amounts come back as Decimal, whole numbers all the same.
        hits = [
            (start + timedelta(seconds=float(t)), opening + int(before)) for t, before in cursor.fetchall()
        ]
    columns = [
        Column(
            x=min(int(x), width),
            first_mc=opening + int(first),
            low_mc=opening + int(min(lo, lo_before)),
            high_mc=opening + int(max(hi, hi_before)),
            last_mc=opening + int(last),
        )
        for x, first, lo, hi, lo_before, hi_before, last, _rows in found
    ]
    closing = columns[-1].last_mc if columns else opening
    return Series(opening, closing, columns, hits, sum(int(row[7]) for row in found))
