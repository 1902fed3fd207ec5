"""Reads of the reports. Everything is summed in the database; Python only shapes the rows."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from decimal import ROUND_HALF_EVEN, Decimal
from typing import Literal

from django.db.models import Count, Q, QuerySet, Sum
from django.utils.translation import gettext_lazy as _

from common.days import business_date_of, business_days_bounds
from common.money import MC_PER_CENT
from floor.models import Room, Venue
from jackpots.models import Hit
from slots.models import MeterDelta, SlotMachine
from workspace.models import MachineHourStat

GroupBy = Literal["machine", "bank", "room", "venue", "day"]
GROUPINGS: dict[str, tuple[str, ...]] = {
    # key fields (first is the grouping id) and the label fields shown with it
    "machine": ("machine_id", "machine__asset_number", "machine__game_title"),
    "bank": ("machine__bank_id", "machine__bank__code", "machine__room__name"),
    "room": ("machine__room_id", "machine__room__name"),
    "venue": ("machine__room__venue_id", "machine__room__venue__code"),
    "day": ("business_date",),
}
GROUP_LABELS = {
    "machine": _("Machine"),
    "bank": _("Bank"),
    "room": _("Room"),
    "venue": _("Venue"),
    "day": _("Business day"),
}
# Hits and meter deltas name their machine; the same grouping through it.
HIT_KEYS = {
    "machine": "machine_id",
    "bank": "machine__bank_id",
    "room": "machine__room_id",
    "venue": "machine__room__venue_id",
}


def hold_percent(coin_in_cents: int, hold_cents: int) -> Decimal | None:
    """Hold as a percentage of coin in, two places; None when nothing was played."""
    if not coin_in_cents:
        return None
    return (Decimal(hold_cents) * 100 / Decimal(coin_in_cents)).quantize(
        Decimal("0.01"), rounding=ROUND_HALF_EVEN
    )


@dataclass
class GameRow:
    key: object
    labels: tuple[str, ...]
    games: int = 0
    coin_in_cents: int = 0
    coin_out_cents: int = 0
    progressive_wins_cents: int = 0
    # Attendant-paid wins as the machines' handpay meter counts them (SAS), in cents.
    handpay_wins_cents: int = 0
    # The machines' parts of the progressives' contributions (amount, reserve and overflow), exact.
    contributions_mc: int = 0

    @property
    def contributions_cents(self) -> int:
        """Whole cents, rounded down (what a display shows)."""
        return self.contributions_mc // MC_PER_CENT

    @property
    def hold_cents(self) -> int:
        return self.coin_in_cents - self.coin_out_cents

    @property
    def hold_percent(self) -> Decimal | None:
        return hold_percent(self.coin_in_cents, self.hold_cents)


@dataclass
class GameReport:
    venue: Venue
    first: date
    last: date
    group_by: str
    rows: list[GameRow] = field(default_factory=list)

    @property
    def total(self) -> GameRow:
        total = GameRow(key=None, labels=(str(_("Total")),))
        for row in self.rows:
            total.games += row.games
            total.coin_in_cents += row.coin_in_cents
            total.coin_out_cents += row.coin_out_cents
            total.progressive_wins_cents += row.progressive_wins_cents
            total.handpay_wins_cents += row.handpay_wins_cents
            total.contributions_mc += row.contributions_mc
        return total


def _sums_by_key(rows: QuerySet, amount: str, venue: Venue, group_by: str) -> dict[object, int]:
    """Sums ``amount`` of the rows per group; per business day in Python (few rows: hits, handpays)."""
    if group_by == "day":
        sums: dict[object, int] = {}
        for at, value in rows.values_list("at", amount):
            day = business_date_of(at, venue.time_zone)
            sums[day] = sums.get(day, 0) + value
        return sums
    key = HIT_KEYS[group_by]
    grouped = rows.values(key).annotate(total=Sum(amount)).order_by()
    return {row[key]: row["total"] or 0 for row in grouped}


def _wins_by_key(venue: Venue, first: date, last: date, group_by: str) -> dict[object, tuple[int, int]]:
    """Progressive wins (hits not voided) and handpays (the machines' handpay meter, flagged jumps left out
    until reviewed) per group."""
    start, end = business_days_bounds(first, last, venue.time_zone)
    hits = Hit.objects.filter(machine__room__venue=venue, at__gte=start, at__lt=end).exclude(
        state=Hit.State.VOIDED
    )
    handpays = MeterDelta.objects.counted().filter(
        machine__room__venue=venue, name="handpay", at__gte=start, at__lt=end, delta__gt=0
    )
    won = _sums_by_key(hits, "amount_cents", venue, group_by)
    paid_by_hand = _sums_by_key(handpays, "delta", venue, group_by)
    return {key: (won.get(key, 0), paid_by_hand.get(key, 0)) for key in {*won, *paid_by_hand}}


def game_report(venue: Venue, first: date, last: date, group_by: GroupBy = "machine") -> GameReport:
    """Coin in, coin out, hold, games, contributions and wins over business days first..last, grouped.

    Games and contributions come from the hour summaries (a contribution counts in the hour, and so the
    business day, its batch was applied in); wins and handpays, few rows, from their own tables."""
    key, *labels = GROUPINGS[group_by]
    rows = (
        MachineHourStat.objects.filter(
            machine__room__venue=venue, business_date__gte=first, business_date__lte=last
        )
        .values(key, *labels)
        .annotate(
            games_sum=Sum("games"),
            coin_in=Sum("coin_in_cents"),
            coin_out=Sum("coin_out_cents"),
            contributed=Sum("contributed_mc"),
        )
        .order_by(*labels or [key])
    )
    report = GameReport(venue=venue, first=first, last=last, group_by=group_by)
    for row in rows:
        report.rows.append(
            GameRow(
                key=row[key],
                labels=tuple("" if row[label] is None else str(row[label]) for label in labels or [key]),
                games=row["games_sum"],
                coin_in_cents=row["coin_in"],
                coin_out_cents=row["coin_out"],
                contributions_mc=row["contributed"],
            )
        )
    wins = _wins_by_key(venue, first, last, group_by)
    by_key = {row.key: row for row in report.rows}
    # A win on a machine with no games in the range still belongs in the report.
    labels = _labels(group_by, [key_value for key_value in wins if key_value not in by_key])
    for key_value, (won, handpay) in sorted(wins.items(), key=lambda item: str(item[0])):
        row = by_key.get(key_value)
        if row is None:
            row = by_key[key_value] = GameRow(key=key_value, labels=labels.get(key_value, (str(key_value),)))
            report.rows.append(row)
        row.progressive_wins_cents = won
        row.handpay_wins_cents = handpay
    return report


def _labels(group_by: str, keys: list) -> dict[object, tuple[str, ...]]:
    """The same labels as the summary rows carry, for groups that only have wins."""
    if not keys or group_by == "day":
        return {}
    _key, *fields = GROUPINGS[group_by]
    path = {"machine": "", "bank": "bank__", "room": "room__", "venue": "room__venue__"}[group_by]
    rows = SlotMachine.objects.filter(**{f"{path}id__in" if path else "id__in": keys})
    found = {}
    for row in rows.values(
        f"{path}id" if path else "id", *(name.removeprefix("machine__") for name in fields)
    ):
        key, *values = row.values()
        found[key] = tuple("" if value is None else str(value) for value in values)
    return found


@dataclass
class HourBar:
    hour: datetime
    coin_in_cents: int
    games: int


def room_coin_in_by_hour(room: Room, day: date, now: datetime | None = None) -> list[HourBar]:
    """Coin in and games of a room for each hour of one business day (24 bars, 23 or 25 on DST days), up to
    the hour of ``now``: an hour still to come has no bar."""
    start, end = business_days_bounds(day, day, room.venue.time_zone)
    sums = {
        row["hour"]: row
        for row in MachineHourStat.objects.filter(machine__room=room, hour__gte=start, hour__lt=end)
        .values("hour")
        .annotate(coin_in=Sum("coin_in_cents"), games_sum=Sum("games"))
        .order_by()
    }
    bars = []
    hour = start
    while hour < end and (now is None or hour <= now):
        row = sums.get(hour)
        coin_in, games = (row["coin_in"], row["games_sum"]) if row else (0, 0)
        bars.append(HourBar(hour=hour, coin_in_cents=coin_in, games=games))
        hour += timedelta(hours=1)
    return bars


@dataclass
class RoomOccupancy:
    room: Room
    machines: int
    playing: int
    coin_in_cents: int


def venue_overview(venue: Venue, now: datetime, playing_window: timedelta) -> list[RoomOccupancy]:
    """Each room's machines, how many are being played now and its coin in for the business day so far."""
    today = business_date_of(now, venue.time_zone)
    coin_in = dict(
        MachineHourStat.objects.filter(machine__room__venue=venue, business_date=today)
        .values("machine__room_id")
        .annotate(total=Sum("coin_in_cents"))
        .values_list("machine__room_id", "total")
        .order_by()
    )
    counts = {
        row["room_id"]: row
        for row in SlotMachine.objects.filter(room__venue=venue)
        .values("room_id")
        .annotate(
            machines=Count("id"),
            playing=Count("id", filter=Q(last_game_at__gte=now - playing_window)),
        )
        .order_by()
    }
    return [
        RoomOccupancy(
            room=room,
            machines=counts.get(room.id, {}).get("machines", 0),
            playing=counts.get(room.id, {}).get("playing", 0),
            coin_in_cents=coin_in.get(room.id) or 0,
        )
        for room in venue.rooms.all()
    ]


__all__ = [
    "GROUPINGS",
    "GameReport",
    "GameRow",
    "HourBar",
    "RoomOccupancy",
    "game_report",
    "hold_percent",
    "room_coin_in_by_hour",
    "venue_overview",
]
