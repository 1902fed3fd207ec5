"""Seed data of the floor, from the casino's documents. Every step is idempotent: running it again changes
nothing, and a larger ``machines_per_room`` only adds machines.

Where the documents do not say which venue or room a machine stands in, the choice is ours (README,
"Seed data"): the named machines the casino announced "at Ca' Noghera" (Diamond Vault, Grease, Ruby
Slippers, Michael Jackson) are there, with Konami; the classic room at Ca' Vendramin Calergi has the
Ainsworth bank with its standalone progressives, Wyland, Phantom of the Opera, Aladdin and C.S.I.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass

from django.db import transaction

from floor.models import Bank, Room, SignageScreen, Venue
from slots.models import SlotMachine


@dataclass(frozen=True)
class VenueSpec:
    code: str
    name: str
    address: str
    rooms: tuple[str, ...]
    default_machines: int  # the whole venue, named machines included


VENUES = (
    VenueSpec(
        "VEN",
        "Ca' Vendramin Calergi",
        "Cannaregio 2040, 30121 Venezia",
        ("Sala Uno", "Sala Due", "Sala Tre", "Sala Quattro"),
        150,
    ),
    VenueSpec(
        "NOG",
        "Ca' Noghera",
        "via Paliaga 4/8, 30173 Tessera (VE)",
        ("Sala Uno", "Sala Due", "Sala Tre", "Sala Quattro", "Sala Cinque"),
        300,
    ),
)


@dataclass(frozen=True)
class Game:
    manufacturer: str
    title: str
    denomination_cents: int
    min_bet_cents: int
    max_bet_cents: int
    stations: int = 1


@dataclass(frozen=True)
class NamedBank:
    venue: str
    room: int
    code: str
    name: str
    games: tuple[tuple[Game, int], ...]  # (game, how many machines), in asset-number order

    @property
    def size(self) -> int:
        return sum(count for _game, count in self.games)


# The machines named in the casino's documents (docs/domain.md), with their denominations and bet ranges.
# Where only a maximum is given, the minimum is the game's smallest line bet.
NAMED_BANKS = (
    NamedBank(
        "NOG",
        1,
        "DIAMOND-VAULT",
        "IGT Diamond Vault (linked progressive)",
        ((Game("IGT", "Diamond Vault", 50, 50, 450), 4),),
    ),
    NamedBank(
        "NOG",
        1,
        "GREASE",
        "Bally Grease (5 linked levels)",
        ((Game("Bally", "Grease", 1, 60, 300), 3),),
    ),
    NamedBank(
        "NOG",
        2,
        "RUBY-SLIPPERS",
        "Williams Ruby Slippers",
        ((Game("Williams", "Ruby Slippers", 2, 40, 200), 3),),
    ),
    NamedBank(
        "NOG",
        2,
        "MICHAEL-JACKSON",
        "Bally Michael Jackson King of Pop",
        ((Game("Bally", "Michael Jackson King of Pop", 1, 50, 500), 1),),
    ),
    NamedBank(
        "NOG",
        3,
        "KONAMI",
        "Konami",
        ((Game("Konami", "China Shores", 1, 30, 600), 3), (Game("Konami", "Lotus Land", 1, 30, 600), 3)),
    ),
    NamedBank(
        "VEN",
        1,
        "AINSWORTH-SAP",
        "Ainsworth standalone progressives",
        ((Game("Ainsworth", "Mustang Money", 2, 40, 500), 3),),
    ),
    NamedBank(
        "VEN",
        1,
        "AINSWORTH-MULTI",
        "Ainsworth multigame (5 games)",
        ((Game("Ainsworth", "Multi-Game 5", 1, 25, 500), 3),),
    ),
    NamedBank(
        "VEN",
        2,
        "WYLAND",
        "IGT Wyland",
        ((Game("IGT", "Wyland", 1, 30, 300, stations=2), 2),),
    ),
    NamedBank(
        "VEN",
        2,
        "PHANTOM",
        "IGT Phantom of the Opera",
        ((Game("IGT", "Phantom of the Opera", 1, 50, 250, stations=2), 2),),
    ),
    NamedBank(
        "VEN",
        3,
        "ALADDIN",
        "Williams Aladdin",
        ((Game("Williams", "Aladdin", 2, 80, 800, stations=2), 2),),
    ),
    NamedBank(
        "VEN",
        3,
        "CSI",
        "IGT C.S.I.",
        ((Game("IGT", "C.S.I.", 1, 40, 400), 1),),
    ),
)

# Generic machines fill the rest of the floor, one game per bank, picked deterministically.
GENERIC_GAMES = (
    Game("IGT", "Cleopatra", 1, 20, 400),
    Game("IGT", "Wolf Run", 1, 40, 400),
    Game("IGT", "Da Vinci Diamonds", 1, 20, 300),
    Game("IGT", "Double Diamond", 100, 100, 300),
    Game("Bally", "Quick Hit Platinum", 1, 30, 600),
    Game("Bally", "88 Fortunes", 1, 88, 880),
    Game("Bally", "Blazing 7s", 50, 50, 150),
    Game("Williams", "Zeus", 1, 30, 450),
    Game("Williams", "Bier Haus", 1, 40, 800),
    Game("Williams", "Goldfish", 1, 20, 400),
    Game("Aristocrat", "Buffalo", 1, 40, 800),
    Game("Aristocrat", "Queen of the Nile", 2, 40, 400),
    Game("Aristocrat", "5 Dragons", 1, 50, 1000),
    Game("Aristocrat", "Where's the Gold", 1, 25, 500),
    Game("Novomatic", "Book of Ra Deluxe", 1, 10, 1000),
    Game("Novomatic", "Sizzling Hot Deluxe", 1, 5, 500),
    Game("Novomatic", "Lucky Lady's Charm Deluxe", 1, 10, 1000),
    Game("Konami", "Dragon's Law", 1, 30, 600),
    Game("Ainsworth", "Thunder Cash", 1, 25, 500),
    # The high-limit corner: €10.00 minimum, €500 a spin.
    Game("IGT", "Triple Red Hot 7s High Limit", 500, 1000, 50000),
)
GENERIC_BANK_SIZE = 6
_BANK_GAP = 1  # empty cells between two banks in a row (the aisle between rows is a whole grid row)


def venue_room_targets(spec: VenueSpec, machines_per_room: int | None) -> list[int]:
    """How many machines each room should hold: the venue's default total spread over its rooms."""
    rooms = len(spec.rooms)
    if machines_per_room is not None:
        return [machines_per_room] * rooms
    base, extra = divmod(spec.default_machines, rooms)
    return [base + (1 if index < extra else 0) for index in range(rooms)]


def room_layout(bank_sizes: list[int], columns: int) -> list[list[tuple[int, int]]]:
    """Cells (column, row) for each bank's machines: banks side by side along a row, an aisle row between
    rows of banks. The first banks' cells never depend on later ones, so adding banks later keeps every
    machine where it stands."""
    cells: list[list[tuple[int, int]]] = []
    x = row = 0
    for size in bank_sizes:
        if x and x + size > columns:
            x, row = 0, row + 1
        bank_cells = []
        for _ in range(size):
            if x >= columns:
                x, row = 0, row + 1
            bank_cells.append((x, row * 2))
            x += 1
        cells.append(bank_cells)
        x += _BANK_GAP
    return cells


def machine_serial(asset_number: str, manufacturer: str) -> str:
    """A stable, serial-looking number derived from the asset number (same on every run)."""
    digits = int(hashlib.sha256(asset_number.encode()).hexdigest(), 16) % 10**8
    return f"{manufacturer[:3].upper()}{digits:08d}"


def _generic_game(venue: Venue, room: Room, bank_number: int) -> Game:
    offset = 0 if venue.code == "VEN" else 7
    return GENERIC_GAMES[(offset + room.number * 5 + bank_number * 3) % len(GENERIC_GAMES)]


def _next_asset_number(venue: Venue) -> int:
    prefix = f"{venue.code}-"
    numbers = [
        int(asset[len(prefix) :])
        for asset in SlotMachine.objects.filter(
            room__venue=venue, asset_number__startswith=prefix
        ).values_list("asset_number", flat=True)
        if asset[len(prefix) :].isdigit()
    ]
    return max(numbers, default=0) + 1


def _machine(asset_number: str, game: Game, room: Room, bank: Bank, cell: tuple[int, int]) -> SlotMachine:
    return SlotMachine(
        asset_number=asset_number,
        serial=machine_serial(asset_number, game.manufacturer),
        manufacturer=game.manufacturer,
        game_title=game.title,
        denomination_cents=game.denomination_cents,
        min_bet_cents=game.min_bet_cents,
        max_bet_cents=game.max_bet_cents,
        stations=game.stations,
        room=room,
        bank=bank,
        pos_x=cell[0],
        pos_y=cell[1],
    )


@dataclass
class _RoomPlan:
    room: Room
    named: list[NamedBank]
    generic_wanted: int
    layout: list[list[tuple[int, int]]]


def _room_plan(spec: VenueSpec, room: Room, target: int) -> _RoomPlan:
    named = [bank for bank in NAMED_BANKS if bank.venue == spec.code and bank.room == room.number]
    generic_wanted = max(0, target - sum(bank.size for bank in named))
    generic_banks = math.ceil(generic_wanted / GENERIC_BANK_SIZE)
    layout = room_layout(
        [bank.size for bank in named] + [GENERIC_BANK_SIZE] * generic_banks, room.grid_columns
    )
    rows_needed = max((cell[1] + 1 for bank_cells in layout for cell in bank_cells), default=0)
    if rows_needed > room.grid_rows:
        room.grid_rows = rows_needed
        room.save(update_fields=["grid_rows"])
    return _RoomPlan(room, named, generic_wanted, layout)


def _named_seed(venue: Venue, plan: _RoomPlan, number: int) -> int:
    """The room's named machines, numbered from ``number``; returns the next number."""
    for named_bank, cells in zip(plan.named, plan.layout, strict=False):
        bank, _ = Bank.objects.get_or_create(
            room=plan.room, code=named_bank.code, defaults={"name": named_bank.name}
        )
        index = 0
        for game, count in named_bank.games:
            for _ in range(count):
                asset = f"{venue.code}-{number:04d}"
                if not SlotMachine.objects.filter(asset_number=asset).exists():
                    _machine(asset, game, plan.room, bank, cells[index]).save()
                number += 1
                index += 1
    return number


def _generic_seed(venue: Venue, plan: _RoomPlan) -> None:
    """Generic machines up to the room's target, after the venue's highest asset number."""
    named_codes = [bank.code for bank in plan.named]
    have = plan.room.machines.exclude(bank__code__in=named_codes).count()
    next_asset = _next_asset_number(venue)
    new: list[SlotMachine] = []
    for generic_index in range(have, plan.generic_wanted):
        bank_number, slot = divmod(generic_index, GENERIC_BANK_SIZE)
        game = _generic_game(venue, plan.room, bank_number + 1)
        bank, _ = Bank.objects.get_or_create(
            room=plan.room, code=f"B{bank_number + 1:02d}", defaults={"name": game.title}
        )
        cell = plan.layout[len(plan.named) + bank_number][slot]
        new.append(_machine(f"{venue.code}-{next_asset:04d}", game, plan.room, bank, cell))
        next_asset += 1
    SlotMachine.objects.bulk_create(new)


@transaction.atomic
def floor_seed(machines_per_room: int | None = None) -> None:
    """Venues, rooms, banks and machines (the named ones, then generic ones up to a realistic floor)."""
    if machines_per_room is not None and machines_per_room < 0:
        raise ValueError("machines_per_room must be zero or more")
    for spec in VENUES:
        venue, _ = Venue.objects.get_or_create(
            code=spec.code, defaults={"name": spec.name, "address": spec.address}
        )
        rooms = [
            Room.objects.get_or_create(venue=venue, number=number, defaults={"name": name})[0]
            for number, name in enumerate(spec.rooms, start=1)
        ]
        targets = venue_room_targets(spec, machines_per_room)
        plans = [_room_plan(spec, room, target) for room, target in zip(rooms, targets, strict=True)]
        # Named machines take the venue's first asset numbers, room by room, whatever the room sizes;
        # generic ones follow.
        number = 1
        for plan in plans:
            number = _named_seed(venue, plan, number)
        for plan in plans:
            _generic_seed(venue, plan)


def screens_seed() -> None:
    """One signage screen per room, slug ``<venue code>-<room number>`` (``ven-1`` … ``nog-5``), showing
    the progressives whose machines stand in that room and the wide-area ones. Runs after the
    progressives' seed; tokens are issued separately (``issue_screen_token``), never by the seed."""
    from jackpots.models import Progressive

    wide_area = set(Progressive.objects.filter(kind=Progressive.Kind.WIDE_AREA).values_list("id", flat=True))
    for room in Room.objects.select_related("venue"):
        screen, _created = SignageScreen.objects.update_or_create(
            slug=f"{room.venue.code.lower()}-{room.number}",
            defaults={"venue": room.venue, "room": room, "name": f"{room.venue.name} · {room.name}"},
        )
        in_room = Progressive.objects.filter(members__machine__room=room, members__enabled=True).values_list(
            "id", flat=True
        )
        screen.progressives.set(wide_area | set(in_room))
