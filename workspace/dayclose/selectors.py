"""A venue's business day reconciled machine by machine: what the meters say was played, won and hand-paid
against what the game events and the hits add up to.

Meters: the counted deltas (implausible ones waiting for review are left out until a person accepts or
corrects them) of coin_in, coin_out and handpay. Events: the day's games' wagers and wins. Hits: the day's
hits on the machine that stand (not voided). A machine reports its meters every few seconds to a minute,
so a game just before the close can land in the next day's meters: the tolerance absorbs that."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from datetime import date, timedelta

from django.db.models import Min, Sum

from common.days import business_date_of, business_day_start, business_days_bounds
from floor.models import Venue
from jackpots.models import Hit
from slots.models import MachineEvent, MeterDelta, SlotMachine

# (meter name, what it is reconciled against): coin in ↔ wagers, coin out ↔ wins, handpay ↔ hits.
CHECKS = (("coin_in", "wagers"), ("coin_out", "wins"), ("handpay", "hits"))


@dataclass(frozen=True)
class Line:
    asset: str
    coin_in_meter: int
    wagers: int
    coin_out_meter: int
    wins: int
    handpay_meter: int
    hits: int
    flagged: list[str]

    def difference(self, meter: str) -> int:
        other = dict(CHECKS)[meter]
        return getattr(self, f"{meter}_meter") - getattr(self, other)

    @property
    def differences(self) -> dict[str, int]:
        return {meter: self.difference(meter) for meter, _other in CHECKS}

    def as_json(self) -> dict:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict) -> Line:
        return cls(**data)


def _sums(queryset, key: str, **sums) -> dict[int, dict[str, int]]:
    rows = queryset.values(key).annotate(**{name: Sum(field) for name, field in sums.items()}).order_by()
    return {row[key]: {name: row[name] or 0 for name in sums} for row in rows}


def dayclose_day_default(venue: Venue, today: date) -> date:
    """The day close opens on the last business day before ``today`` with a game or a meter reading at
    the venue (a new floor, or one closed for a few days, would open on a day of empty lines); yesterday
    when nothing was ever played."""
    before = business_day_start(today, venue.time_zone)
    # Meter readings are machine events too: the latest event of any type is the latest activity.
    latest = (
        MachineEvent.objects.filter(machine__room__venue=venue, at__lt=before)
        .order_by("-at")
        .values_list("at", flat=True)
        .first()
    )
    if latest is None:
        return today - timedelta(days=1)
    return business_date_of(latest, venue.time_zone)


def day_reconcile(venue: Venue, day: date, tolerance_cents: int) -> list[Line]:
    """One line per machine of the venue, flagged where a meter and its sum differ by more than the
    tolerance (cents, either way)."""
    start, end = business_days_bounds(day, day, venue.time_zone)
    machines = (
        SlotMachine.objects.filter(room__venue=venue)
        .order_by("asset_number")
        .values_list("id", "asset_number")
    )
    deltas = MeterDelta.objects.counted().filter(
        machine__room__venue=venue, at__gte=start, at__lt=end, name__in=[name for name, _ in CHECKS]
    )
    meters: dict[int, dict[str, int]] = {}
    for row in deltas.values("machine_id", "name").annotate(total=Sum("delta")).order_by():
        meters.setdefault(row["machine_id"], {})[row["name"]] = row["total"] or 0
    games = _sums(
        MachineEvent.objects.filter(
            machine__room__venue=venue, type=MachineEvent.Type.GAME, at__gte=start, at__lt=end
        ),
        "machine_id",
        wagers="wager_cents",
        wins="win_cents",
    )
    hits = _sums(
        Hit.objects.filter(machine__room__venue=venue, at__gte=start, at__lt=end).exclude(
            state=Hit.State.VOIDED
        ),
        "machine_id",
        hits="amount_cents",
    )
    lines = []
    for machine_id, asset in machines:
        metered = meters.get(machine_id, {})
        played = games.get(machine_id, {})
        line = Line(
            asset=asset,
            coin_in_meter=metered.get("coin_in", 0),
            wagers=played.get("wagers", 0),
            coin_out_meter=metered.get("coin_out", 0),
            wins=played.get("wins", 0),
            handpay_meter=metered.get("handpay", 0),
            hits=hits.get(machine_id, {}).get("hits", 0),
            flagged=[],
        )
        line.flagged.extend(meter for meter, diff in line.differences.items() if abs(diff) > tolerance_cents)
        lines.append(line)
    return lines


@dataclass(frozen=True)
class Totals:
    coin_in_meter: int
    wagers: int
    coin_out_meter: int
    wins: int
    handpay_meter: int
    hits: int
    flagged: int


def lines_total(lines: list[Line]) -> Totals:
    return Totals(
        coin_in_meter=sum(line.coin_in_meter for line in lines),
        wagers=sum(line.wagers for line in lines),
        coin_out_meter=sum(line.coin_out_meter for line in lines),
        wins=sum(line.wins for line in lines),
        handpay_meter=sum(line.handpay_meter for line in lines),
        hits=sum(line.hits for line in lines),
        flagged=sum(1 for line in lines if line.flagged),
    )


def venue_first_day(venue: Venue) -> date | None:
    """The venue's first business day on this installation: the day its first machine event arrived
    (received_at, the server's clock: a machine's own ``at`` can be wrong). None before any."""
    first = MachineEvent.objects.filter(machine__room__venue=venue).aggregate(at=Min("received_at"))["at"]
    return None if first is None else business_date_of(first, venue.time_zone)
