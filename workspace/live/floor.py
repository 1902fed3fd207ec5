"""Reads of one room as the floor map draws it: its banks named and framed, its machines counted by
state, and what needs a person now (the open alerts, oldest first)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from django.db.models import Min, Q
from django.utils.translation import gettext_lazy as _

from floor.models import Room
from slots.models import MachineAlert, MachineEvent, MeterDelta, SlotMachine
from workspace.live.selectors import STATE_LABELS, STATES, room_tiles

# States that are an alert in themselves (a machine playing or idle needs nobody).
ALERT_STATES = ("door_open", "tilt", "handpay", "offline")
IMPLAUSIBLE = _("implausible meters, awaiting review")


@dataclass
class BankFrame:
    """A bank drawn as a frame around its machines' cells (grid lines are 1-based, ends exclusive)."""

    code: str
    name: str
    column_start: int
    column_end: int
    row_start: int
    row_end: int
    jackpot: bool


@dataclass
class FloorAlert:
    asset: str
    label: str
    since: datetime | None
    age: timedelta | None


@dataclass
class AlertLine:
    """Alerts of one kind on the map's side: one machine, or several (a silent room's 60 offline machines
    are one line with a count, their assets in the line's title), aged from the oldest."""

    label: str
    assets: list[str]
    age: timedelta | None

    @property
    def count(self) -> int:
        return len(self.assets)


# More machines than this with one alert kind share a line.
ALERT_LINE_MACHINES = 3


def alert_lines(alerts: list[FloorAlert]) -> list[AlertLine]:
    """``alerts`` (oldest first) as the side lists them: a kind of alert on more than
    ``ALERT_LINE_MACHINES`` machines is one line where its oldest was, the others one line each."""
    by_label: dict[str, list[FloorAlert]] = {}
    for alert in alerts:
        by_label.setdefault(alert.label, []).append(alert)
    lines, placed = [], set()
    for alert in alerts:
        same = by_label[alert.label]
        if len(same) <= ALERT_LINE_MACHINES:
            lines.append(AlertLine(alert.label, [alert.asset], alert.age))
        elif alert.label not in placed:
            placed.add(alert.label)
            ages = [other.age for other in same if other.age is not None]
            lines.append(AlertLine(alert.label, [other.asset for other in same], max(ages, default=None)))
    return lines


@dataclass
class RoomFloor:
    room: Room
    tiles: list[dict]
    banks: list[BankFrame]
    counts: list[tuple[str, str, int]]
    alerts: list[FloorAlert] = field(default_factory=list)

    @property
    def alert_lines(self) -> list[AlertLine]:
        return alert_lines(self.alerts)


def bank_frames(room: Room, tiles: list[dict]) -> list[BankFrame]:
    frames = []
    for bank in room.banks.order_by("code"):
        cells = [tile for tile in tiles if tile["bank"] == bank.id]
        if not cells:
            continue
        frames.append(
            BankFrame(
                code=bank.code,
                name=bank.name or bank.code,
                column_start=min(tile["x"] for tile in cells) + 1,
                column_end=max(tile["x"] for tile in cells) + 2,
                row_start=min(tile["y"] for tile in cells) + 1,
                row_end=max(tile["y"] for tile in cells) + 2,
                jackpot=any(tile["jackpot"] for tile in cells),
            )
        )
    return frames


def state_counts(tiles: list[dict]) -> list[tuple[str, str, int]]:
    """(state, label, machines) for every state, zeros included, in the legend's order."""
    counted = Counter(tile["state"] for tile in tiles)
    return [(state, STATE_LABELS[state], counted[state]) for state in STATES]


def _state_since(tiles: list[dict]) -> dict[int, datetime]:
    """When each alarmed machine's current status began: the time of the status event its flags come from."""
    flagged = [tile["id"] for tile in tiles if tile["state"] in ALERT_STATES and tile["state"] != "offline"]
    pairs = SlotMachine.objects.filter(id__in=flagged, status_seq__isnull=False).values_list(
        "id", "status_seq"
    )
    if not pairs:
        return {}
    match = Q()
    for machine_id, seq in pairs:
        match |= Q(machine_id=machine_id, seq=seq)
    events = MachineEvent.objects.filter(match, type=MachineEvent.Type.STATUS)
    return dict(events.values_list("machine_id", "at"))


def room_alerts(tiles: list[dict], now: datetime) -> list[FloorAlert]:
    """Alarmed machines, unacknowledged machine alerts and meters awaiting review, oldest first."""
    ids = [tile["id"] for tile in tiles]
    assets = {tile["id"]: tile["asset"] for tile in tiles}
    since = _state_since(tiles)
    seen = _last_seen(ids)
    alerts = [
        _alert(
            tile["asset"],
            STATE_LABELS[tile["state"]],
            (seen if tile["state"] == "offline" else since).get(tile["id"]),
            now,
        )
        for tile in tiles
        if tile["state"] in ALERT_STATES
    ]
    open_alerts = MachineAlert.objects.filter(machine_id__in=ids, acknowledged_at__isnull=True).exclude(
        kind=MachineAlert.Kind.IMPLAUSIBLE_METERS
    )
    alerts += [_alert(assets[a.machine_id], a.get_kind_display(), a.at, now) for a in open_alerts]
    pending = (
        MeterDelta.objects.filter(machine_id__in=ids, review=MeterDelta.Review.PENDING)
        .values("machine_id")
        .annotate(first=Min("at"))
        .order_by()
    )
    alerts += [_alert(assets[row["machine_id"]], IMPLAUSIBLE, row["first"], now) for row in pending]
    return sorted(alerts, key=lambda alert: (alert.since is None, alert.since or now, alert.asset))


def _last_seen(machine_ids: list[int]) -> dict[int, datetime]:
    return dict(
        SlotMachine.objects.filter(id__in=machine_ids, last_seen__isnull=False).values_list("id", "last_seen")
    )


def _alert(asset: str, label: str, since: datetime | None, now: datetime) -> FloorAlert:
    return FloorAlert(asset=asset, label=str(label), since=since, age=now - since if since else None)


def room_floor(room: Room, now: datetime) -> RoomFloor:
    tiles = room_tiles(room.id, now)
    return RoomFloor(
        room=room,
        tiles=tiles,
        banks=bank_frames(room, tiles),
        counts=state_counts(tiles),
        alerts=room_alerts(tiles, now),
    )
