"""The progressives page: every level's money now, how often it hits, and its amount over time.

Frequency counts the hits that stand (voided ones are left out) whose time falls in the window."""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.db.models import Sum

from jackpots.models import Hit, LedgerEntry, Level

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
    def per_day(self) -> str:
        whole, rest = divmod(self.per_day_hundredths, 100)
        return f"{whole}.{rest:02d}"

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


def levels_overview(now: datetime, days: int) -> list[LevelRow]:
    """Every level, by progressive and position, with its frequency over the last ``days`` days."""
    start = now - timedelta(days=days)
    levels = list(Level.objects.select_related("progressive").order_by("progressive__name", "position", "id"))
    standing = Hit.objects.exclude(state=Hit.State.VOIDED)
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
class Step:
    """The level's displayed amount after one ledger row; ``before_mc`` is the amount just before it."""

    at: datetime
    before_mc: int
    after_mc: int
    kind: str


def level_steps(level: Level, start: datetime, end: datetime) -> tuple[int, list[Step]]:
    """The amount at ``start`` and every change of it in [start, end), one per ledger row (contributions,
    seeds, hits, voids), in the order they were written."""
    opening = (
        LedgerEntry.objects.filter(level=level, at__lt=start).aggregate(t=Sum("current_delta_mc"))["t"] or 0
    )
    steps = []
    amount = opening
    rows = (
        LedgerEntry.objects.filter(level=level, at__gte=start, at__lt=end)
        .order_by("at", "id")
        .values_list("at", "kind", "current_delta_mc")
    )
    for at, kind, delta in rows.iterator(chunk_size=5000):
        steps.append(Step(at, amount, amount + delta, kind))
        amount += delta
    return opening, steps
