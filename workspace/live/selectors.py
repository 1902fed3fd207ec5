"""Reads of the live floor: what colour each machine is, what a room looks like, one machine's details."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.db.models import QuerySet
from django.utils.translation import gettext_lazy as _

from floor.models import Room
from jackpots.models import Hit
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
)


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


def machine_tiles(machines: Iterable[SlotMachine], now: datetime) -> list[MachineTile]:
    return [
        MachineTile(
            id=machine.id,
            asset=machine.asset_number,
            title=machine.game_title,
            room=machine.room_id,
            x=machine.pos_x,
            y=machine.pos_y,
            state=machine_state(machine, now),
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
class MachineDetail:
    machine: SlotMachine
    state: str
    meters: dict
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
        meters=meters,
        meters_at=meters_event.at if meters_event else None,
        events=list(MachineEvent.objects.filter(machine=machine).order_by("-at", "-seq")[:events]),
        hits=list(Hit.objects.filter(machine=machine).select_related("level__progressive")[:hits]),
    )
