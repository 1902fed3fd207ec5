from __future__ import annotations

from collections import Counter

import pytest
from django.core.management import CommandError, call_command

from demo.seed import NAMED_BANKS, VENUES, floor_seed, machine_serial, room_layout, venue_room_targets
from floor.models import Bank, Room, Venue
from slots.models import SlotMachine

pytestmark = pytest.mark.django_db


def floor_snapshot() -> dict:
    """Everything the seed writes, so a second run can be compared field by field."""
    return {
        "venues": list(Venue.objects.values_list("code", "name", "address", "time_zone", "currency")),
        "rooms": list(Room.objects.values_list("venue__code", "number", "name", "grid_columns", "grid_rows")),
        "banks": list(Bank.objects.values_list("room__venue__code", "room__number", "code", "name")),
        "machines": list(
            SlotMachine.objects.order_by("asset_number").values_list(
                "asset_number",
                "serial",
                "manufacturer",
                "game_title",
                "denomination_cents",
                "min_bet_cents",
                "max_bet_cents",
                "stations",
                "room__number",
                "bank__code",
                "pos_x",
                "pos_y",
            )
        ),
    }


def test_seed_twice_changes_nothing() -> None:
    call_command("seed_venezia", "--machines-per-room", "12")
    first = floor_snapshot()
    call_command("seed_venezia", "--machines-per-room", "12")

    assert floor_snapshot() == first
    assert Venue.objects.count() == 2
    assert Room.objects.filter(venue__code="VEN").count() == 4
    assert Room.objects.filter(venue__code="NOG").count() == 5
    # Every room holds 12 machines, except those whose named machines alone are more.
    per_room = Counter(SlotMachine.objects.values_list("room__venue__code", "room__number"))
    assert per_room == {
        ("VEN", 1): 12,
        ("VEN", 2): 12,
        ("VEN", 3): 12,
        ("VEN", 4): 12,
        ("NOG", 1): 12,
        ("NOG", 2): 12,
        ("NOG", 3): 12,
        ("NOG", 4): 12,
        ("NOG", 5): 12,
    }


def test_default_floor_is_about_300_at_noghera_and_150_at_vendramin() -> None:
    floor_seed()
    floor_seed()

    per_venue = Counter(SlotMachine.objects.values_list("room__venue__code", flat=True))
    assert per_venue == {"NOG": 300, "VEN": 150}
    per_room = Counter(SlotMachine.objects.values_list("room__venue__code", "room__number"))
    assert [per_room[("VEN", n)] for n in range(1, 5)] == [38, 38, 37, 37]
    assert [per_room[("NOG", n)] for n in range(1, 6)] == [60, 60, 60, 60, 60]
    # Asset numbers run from 0001 without gaps in each venue.
    for code, total in (("NOG", 300), ("VEN", 150)):
        numbers = sorted(
            int(asset[4:])
            for asset in SlotMachine.objects.filter(room__venue__code=code).values_list(
                "asset_number", flat=True
            )
        )
        assert numbers == list(range(1, total + 1))
    # No two machines share a cell, and every cell is inside its room's grid.
    cells = list(SlotMachine.objects.values_list("room_id", "pos_x", "pos_y"))
    assert len(set(cells)) == 450
    for machine in SlotMachine.objects.select_related("room"):
        assert machine.pos_x < machine.room.grid_columns
        assert machine.pos_y < machine.room.grid_rows


def test_named_machines_from_the_casinos_documents() -> None:
    floor_seed(machines_per_room=0)

    titles = Counter(SlotMachine.objects.values_list("room__venue__code", "manufacturer", "game_title"))
    assert titles == {
        ("NOG", "IGT", "Diamond Vault"): 4,
        ("NOG", "Bally", "Grease"): 3,
        ("NOG", "Williams", "Ruby Slippers"): 3,
        ("NOG", "Bally", "Michael Jackson King of Pop"): 1,
        ("NOG", "Konami", "China Shores"): 3,
        ("NOG", "Konami", "Lotus Land"): 3,
        ("VEN", "Ainsworth", "Mustang Money"): 3,
        ("VEN", "Ainsworth", "Multi-Game 5"): 3,
        ("VEN", "IGT", "Wyland"): 2,
        ("VEN", "IGT", "Phantom of the Opera"): 2,
        ("VEN", "Williams", "Aladdin"): 2,
        ("VEN", "IGT", "C.S.I."): 1,
    }
    bets = {
        (m.game_title, m.denomination_cents, m.min_bet_cents, m.max_bet_cents, m.stations)
        for m in SlotMachine.objects.all()
    }
    assert bets == {
        ("Diamond Vault", 50, 50, 450, 1),
        ("Grease", 1, 60, 300, 1),
        ("Ruby Slippers", 2, 40, 200, 1),
        ("Michael Jackson King of Pop", 1, 50, 500, 1),
        ("China Shores", 1, 30, 600, 1),
        ("Lotus Land", 1, 30, 600, 1),
        ("Mustang Money", 2, 40, 500, 1),
        ("Multi-Game 5", 1, 25, 500, 1),
        ("Wyland", 1, 30, 300, 2),
        ("Phantom of the Opera", 1, 50, 250, 2),
        ("Aladdin", 2, 80, 800, 2),
        ("C.S.I.", 1, 40, 400, 1),
    }
    diamond_vault = SlotMachine.objects.filter(game_title="Diamond Vault").order_by("asset_number")
    assert [m.asset_number for m in diamond_vault] == ["NOG-0001", "NOG-0002", "NOG-0003", "NOG-0004"]
    assert {m.bank.code for m in diamond_vault} == {"DIAMOND-VAULT"}
    assert [(m.pos_x, m.pos_y) for m in diamond_vault] == [(0, 0), (1, 0), (2, 0), (3, 0)]
    ainsworth_sap = SlotMachine.objects.filter(bank__code="AINSWORTH-SAP").order_by("asset_number")
    assert [m.asset_number for m in ainsworth_sap] == ["VEN-0001", "VEN-0002", "VEN-0003"]
    assert SlotMachine.objects.count() == sum(bank.size for bank in NAMED_BANKS)


def test_more_machines_per_room_later_only_adds_machines() -> None:
    floor_seed(machines_per_room=8)
    before = {m.asset_number: (m.room_id, m.bank_id, m.pos_x, m.pos_y) for m in SlotMachine.objects.all()}
    floor_seed(machines_per_room=14)

    after = {m.asset_number: (m.room_id, m.bank_id, m.pos_x, m.pos_y) for m in SlotMachine.objects.all()}
    assert {asset: after[asset] for asset in before} == before
    assert len(after) == 14 * 9
    assert len(set(after.values())) == 14 * 9


def test_generic_machines_are_the_same_on_every_run() -> None:
    floor_seed(machines_per_room=10)
    first = floor_snapshot()
    SlotMachine.objects.all().delete()
    Bank.objects.all().delete()
    floor_seed(machines_per_room=10)

    assert floor_snapshot() == first


def test_room_targets_spread_the_venue_default_over_its_rooms() -> None:
    ven, nog = VENUES
    assert venue_room_targets(ven, None) == [38, 38, 37, 37]
    assert venue_room_targets(nog, None) == [60, 60, 60, 60, 60]
    assert venue_room_targets(ven, 5) == [5, 5, 5, 5]


def test_room_layout_keeps_banks_together_with_an_aisle_between_rows() -> None:
    assert room_layout([4, 3, 6], columns=10) == [
        [(0, 0), (1, 0), (2, 0), (3, 0)],
        [(5, 0), (6, 0), (7, 0)],
        [(0, 2), (1, 2), (2, 2), (3, 2), (4, 2), (5, 2)],
    ]


def test_machine_serial_is_derived_from_the_asset_number() -> None:
    assert machine_serial("NOG-0001", "IGT") == "IGT01020047"
    assert machine_serial("NOG-0001", "IGT") != machine_serial("NOG-0002", "IGT")
    assert machine_serial("VEN-0001", "Ainsworth").startswith("AIN")
    assert len(machine_serial("VEN-0001", "Ainsworth")) == 11


def test_negative_machines_per_room_is_refused() -> None:
    with pytest.raises(ValueError, match="machines_per_room"):
        floor_seed(machines_per_room=-1)
    assert SlotMachine.objects.count() == 0


def test_seed_command_refuses_a_negative_machines_per_room() -> None:
    with pytest.raises(CommandError, match="--machines-per-room must be zero or more"):
        call_command("seed_venezia", "--machines-per-room", "-3")
    assert Venue.objects.count() == 0
