"""Reads of the live floor: what colour each machine is, what a room looks like, one machine's details."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import QuerySet
from django.utils.translation import gettext_lazy as _

from floor.models import Room
from jackpots.models import Hit, ProgressiveMachine
from slots.models import MachineEvent, SlotMachine

# A machine with a game this recent is being played.
PLAYING_WINDOW = timedelta(seconds=60)
STATES = ("door_open", "handpay", "tilt", "offline", "playing", "idle")
# What the map's legend and the side panel call each state, in the staff member's language.
STATE_LABELS = {
    "door_open": _("door open"),
    "handpay": _("handpay"),
    "tilt": _("tilt"),
    "offline": _("offline"),
    "playing": _("playing"),
    "idle": _("idle"),
}
# The machine panel's names of the SAS meters (slots.services.vocabulary.METER_NAMES), in the order shown.
METER_LABELS = {
    "coin_in": _("Coin in"),
    "coin_out": _("Coin out"),
    "games_played": _("Games played"),
    "jackpot": _("Jackpots paid by the machine"),
    "handpay": _("Handpays"),
    "progressive_machine_paid": _("Progressive wins paid by the machine"),
    "progressive_attendant_paid": _("Progressive wins paid by an attendant"),
    "bills_in": _("Bills in"),
    "ticket_in": _("Tickets in"),
    "ticket_out": _("Tickets out"),
}
# Meters that count games, not cents.
COUNT_METERS = frozenset({"games_played"})
# What a status event reports, as the panel's event list says it.
STATUS_EVENT_LABELS = {
    "door_open": _("door opened"),
    "door_closed": _("door closed"),
    "power_off": _("power off"),
    "power_on": _("power on"),
    "tilt": _("tilt"),
    "handpay_lockup": _("handpay lockup"),
    "handpay_reset": _("handpay reset"),
}
MAP_FIELDS = (
    "id",
    "asset_number",
    "game_title",
    "room_id",
    "pos_x",
    "pos_y",
    "status",
    "door_open",
    "tilted",
    "handpay_locked",
    "powered",
    "last_seen",
    "last_game_at",
    "bank_id",
)
# Won and not yet paid: the tile carries a mark until the hit is paid or voided.
OPEN_HIT_STATES = (Hit.State.HIT, Hit.State.VERIFIED)


def machine_state(machine: SlotMachine, now: datetime) -> str:
    """The one state the map shows; what needs a person on the floor wins over the rest."""
    if machine.door_open:
        return "door_open"
    if machine.handpay_locked:
        return "handpay"
    if machine.tilted:
        return "tilt"
    silent = machine.last_seen is None or now - machine.last_seen > timedelta(
        seconds=settings.MACHINE_OFFLINE_AFTER_SECONDS
    )
    if machine.status != SlotMachine.Status.IN_SERVICE or not machine.powered or silent:
        return "offline"
    if machine.last_game_at is not None and now - machine.last_game_at <= PLAYING_WINDOW:
        return "playing"
    return "idle"


@dataclass
class MachineTile:
    id: int
    asset: str
    title: str
    room: int
    x: int
    y: int
    state: str
    bank: int | None = None
    # Plays a progressive (an enabled member); has a hit won and not yet paid.
    jackpot: bool = False
    hit: bool = False


def _marks(machine_ids: list[int]) -> tuple[set[int], set[int]]:
    """Which of these machines play a progressive, and which have an open hit: two queries for any count."""
    jackpot = set(
        ProgressiveMachine.objects.filter(machine_id__in=machine_ids, enabled=True).values_list(
            "machine_id", flat=True
        )
    )
    hit = set(
        Hit.objects.filter(machine_id__in=machine_ids, state__in=OPEN_HIT_STATES).values_list(
            "machine_id", flat=True
        )
    )
    return jackpot, hit


def machine_tiles(machines: Iterable[SlotMachine], now: datetime) -> list[MachineTile]:
    machines = list(machines)
    jackpot, hit = _marks([machine.id for machine in machines])
    return [
        MachineTile(
            id=machine.id,
            asset=machine.asset_number,
            title=machine.game_title,
            room=machine.room_id,
            x=machine.pos_x,
            y=machine.pos_y,
            state=machine_state(machine, now),
            bank=machine.bank_id,
            jackpot=machine.id in jackpot,
            hit=machine.id in hit,
        )
        for machine in machines
    ]


def _map_machines() -> QuerySet[SlotMachine]:
    return SlotMachine.objects.only(*MAP_FIELDS).order_by("pos_y", "pos_x", "asset_number")


def room_tiles(room_id: int, now: datetime) -> list[dict]:
    """Every machine of a room as the map draws it (JSON-ready)."""
    return [asdict(tile) for tile in machine_tiles(_map_machines().filter(room_id=room_id), now)]


def tiles_by_room(machine_ids: Iterable[int], now: datetime) -> dict[int, list[dict]]:
    tiles: dict[int, list[dict]] = {}
    for tile in machine_tiles(_map_machines().filter(id__in=list(machine_ids)), now):
        tiles.setdefault(tile.room, []).append(asdict(tile))
    return tiles


def room_get(venue_code: str, room_number: int) -> Room | None:
    return Room.objects.select_related("venue").filter(venue__code=venue_code, number=room_number).first()


@dataclass
class MeterLine:
    name: str
    label: str
    value: int
    # Cents, or a count of games.
    is_count: bool


def meter_lines(meters: dict) -> list[MeterLine]:
    """The reported meters with their names in the reader's language, the known ones in a fixed order, any
    other under its own key at the end."""
    order = {name: index for index, name in enumerate(METER_LABELS)}
    return [
        MeterLine(
            name=name, label=str(METER_LABELS.get(name, name)), value=value, is_count=name in COUNT_METERS
        )
        for name, value in sorted(meters.items(), key=lambda item: (order.get(item[0], len(order)), item[0]))
    ]


@dataclass
class MachineDetail:
    machine: SlotMachine
    state: str
    meters: list[MeterLine]
    meters_at: datetime | None
    events: list[MachineEvent]
    hits: list[Hit]


def machine_detail(machine: SlotMachine, now: datetime, events: int = 15, hits: int = 10) -> MachineDetail:
    """The machine's last reported meters, its recent events and hits, for the map's side panel."""
    meters_event = (
        MachineEvent.objects.filter(machine=machine, type=MachineEvent.Type.METERS).order_by("-at").first()
    )
    meters = (meters_event.payload.get("meters") or {}) if meters_event else {}
    return MachineDetail(
        machine=machine,
        state=machine_state(machine, now),
        meters=meter_lines(meters),
        meters_at=meters_event.at if meters_event else None,
        events=list(MachineEvent.objects.filter(machine=machine).order_by("-at", "-seq")[:events]),
        hits=list(Hit.objects.filter(machine=machine).select_related("level__progressive")[:hits]),
    )
