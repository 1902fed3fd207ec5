"""The inventory page's list of machines: a venue's machines, filtered by room, bank and status, sorted by
a column the person picks."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import QuerySet

from floor.models import Bank, Room, Venue
from slots.models import SlotMachine

# The columns a person may sort by: the query's name and the fields it orders by.
SORTS = {
    "asset": ("asset_number",),
    "room": ("room__number", "asset_number"),
    "bank": ("bank__code", "asset_number"),
    "game": ("game_title", "asset_number"),
    "manufacturer": ("manufacturer", "asset_number"),
    "denomination": ("denomination_cents", "asset_number"),
    "status": ("status", "asset_number"),
}


@dataclass(frozen=True)
class InventoryFilter:
    room: Room | None = None
    bank: Bank | None = None
    status: str = ""
    sort: str = "asset"  # a key of SORTS, "-" before it for descending


def inventory_filter_read(venue: Venue, query) -> InventoryFilter:
    """The filter a query string asks for, within ``venue``; anything unknown is left out (no error: the
    list is just wider)."""
    rooms = Room.objects.filter(venue=venue)
    room = rooms.filter(number=query.get("room")).first() if str(query.get("room", "")).isdigit() else None
    bank = (
        Bank.objects.filter(room__venue=venue, id=query.get("bank")).first()
        if str(query.get("bank", "")).isdigit()
        else None
    )
    status = query.get("status", "")
    sort = query.get("sort", "asset")
    return InventoryFilter(
        room=room,
        bank=bank,
        status=status if status in SlotMachine.Status.values else "",
        sort=sort if sort.lstrip("-") in SORTS else "asset",
    )


def inventory_machines(venue: Venue, chosen: InventoryFilter) -> QuerySet[SlotMachine]:
    machines = SlotMachine.objects.filter(room__venue=venue).select_related("room", "bank")
    if chosen.room is not None:
        machines = machines.filter(room=chosen.room)
    if chosen.bank is not None:
        machines = machines.filter(bank=chosen.bank)
    if chosen.status:
        machines = machines.filter(status=chosen.status)
    fields = SORTS[chosen.sort.lstrip("-")]
    if chosen.sort.startswith("-"):
        fields = tuple(f"-{field}" for field in fields)
    return machines.order_by(*fields)
