"""Reads of the jackpot reports: liability per progressive and currency, a level's amount over time."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from django.db.models import Q, Sum

from common.money import MC_PER_CENT
from floor.models import Venue
from jackpots.models import Hit, LedgerEntry, Level, LevelChange, Progressive
from jackpots.selectors import progressives_at


@dataclass
class LiabilityRow:
    progressive: Progressive
    currency: str
    current_mc: int = 0
    reserve_mc: int = 0
    overflow_mc: int = 0
    # Won and not yet paid (hit or verified): money owed to players, in cents.
    unpaid_cents: int = 0

    @property
    def total_mc(self) -> int:
        """What the casino owes: the displayed amounts, the reserves (overflow joins the reserve) and the
        awards not yet paid."""
        return self.current_mc + self.reserve_mc + self.overflow_mc + self.unpaid_cents * MC_PER_CENT


@dataclass
class Liability:
    rows: list[LiabilityRow] = field(default_factory=list)

    @property
    def per_currency(self) -> dict[str, LiabilityRow]:
        totals: dict[str, LiabilityRow] = {}
        for row in self.rows:
            total = totals.setdefault(row.currency, LiabilityRow(progressive=None, currency=row.currency))
            total.current_mc += row.current_mc
            total.reserve_mc += row.reserve_mc
            total.overflow_mc += row.overflow_mc
            total.unpaid_cents += row.unpaid_cents
        return totals


def jackpot_liability(venue: Venue | None = None) -> Liability:
    """Current amounts, reserves, overflow and unpaid awards per progressive played at ``venue`` (every
    progressive without one), summed in the database."""
    unpaid = Q(levels__hit_records__state__in=[Hit.State.HIT, Hit.State.VERIFIED])
    meters = {
        row["id"]: row
        for row in Progressive.objects.values("id").annotate(
            current=Sum("levels__current_mc"),
            reserve=Sum("levels__reserve_mc"),
            overflow=Sum("levels__overflow_mc"),
        )
    }
    owed = dict(
        Progressive.objects.filter(unpaid)
        .values("id")
        .annotate(unpaid=Sum("levels__hit_records__amount_cents"))
        .values_list("id", "unpaid")
    )
    liability = Liability()
    for progressive in progressives_at(venue).order_by("currency", "name"):
        row = meters.get(progressive.id, {})
        liability.rows.append(
            LiabilityRow(
                progressive=progressive,
                currency=progressive.currency,
                current_mc=row.get("current") or 0,
                reserve_mc=row.get("reserve") or 0,
                overflow_mc=row.get("overflow") or 0,
                unpaid_cents=owed.get(progressive.id) or 0,
            )
        )
    return liability


@dataclass(frozen=True)
class Step:
    """The level's displayed amount after one ledger row; ``before_mc`` is the amount just before it."""

    at: datetime
    before_mc: int
    after_mc: int
    kind: str


def level_steps(level: Level, start: datetime, end: datetime) -> tuple[int, list[Step]]:
    """The amount at ``start`` and every change of it in [start, end), one per ledger row (contributions,
    seeds, hits, voids), in the order they were written: what the history's CSV lists row by row."""
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


@dataclass
class LevelHistory:
    level: Level
    start: datetime
    end: datetime
    # The amount at ``start``, then every change of it: one step per ledger row (the saw-tooth).
    opening_mc: int
    steps: list[Step]
    hits: list[Hit]
    changes: list[LevelChange]
    # Money in and out of the level over the period, from its ledger.
    contributed_mc: int = 0
    seeded_mc: int = 0
    awarded_mc: int = 0


def level_history(level: Level, start: datetime, end: datetime) -> LevelHistory:
    """The level's displayed amount through [start, end), every ledger row of it, with the hits and the
    parameter changes of the period."""
    opening, steps = level_steps(level, start, end)
    flows = LedgerEntry.objects.filter(level=level, at__gte=start, at__lt=end).aggregate(
        contributed=Sum("contributed_mc"), seeded=Sum("seeded_mc"), awarded=Sum("awarded_mc")
    )
    return LevelHistory(
        level=level,
        start=start,
        end=end,
        opening_mc=opening,
        steps=steps,
        hits=list(Hit.objects.filter(level=level, at__gte=start, at__lt=end).select_related("machine")),
        changes=list(
            LevelChange.objects.filter(level=level, at__gte=start, at__lt=end).select_related("user")
        ),
        contributed_mc=flows["contributed"] or 0,
        seeded_mc=flows["seeded"] or 0,
        awarded_mc=flows["awarded"] or 0,
    )
