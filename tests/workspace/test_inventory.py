"""Machine inventory CSV: export, dry run, all-or-nothing import with line numbers and reasons."""

from __future__ import annotations

import csv
import io

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from slots.models import SlotMachine
from tests.factories import BankFactory, RoomFactory, VenueFactory
from workspace.inventory.services import InventoryFileError, inventory_import

HEADER = (
    "asset_number,serial,manufacturer,game_title,denomination_cents,min_bet_cents,max_bet_cents,stations,"
    "venue,room,bank,pos_x,pos_y,status,meter_digits"
)
GOOD = [
    "NOG-0101,SN1,IGT,Diamond Vault,50,50,450,1,NOG,1,DV,0,0,in_service,10",
    "NOG-0102,SN2,IGT,Diamond Vault,50,50,450,1,NOG,1,DV,1,0,in_service,10",
    "NOG-0201,SN3,Bally,Grease,1,60,300,2,NOG,2,,3,4,in_service,10",
]


def _csv(*rows: str) -> bytes:
    return ("\n".join([HEADER, *rows]) + "\n").encode()


@pytest.fixture
def rooms(db):
    venue = VenueFactory()
    room1 = RoomFactory(venue=venue, number=1)
    BankFactory(room=room1, code="DV")
    RoomFactory(venue=venue, number=2)
    return venue


def test_dry_run_writes_nothing_then_import_writes_all(rooms):
    report = inventory_import(_csv(*GOOD), dry_run=True)
    assert (report.ok, report.rows, report.new, report.updated, report.imported) == (True, 3, 3, 0, False)
    assert SlotMachine.objects.count() == 0
    report = inventory_import(_csv(*GOOD), dry_run=False)
    assert (report.ok, report.new, report.imported) == (True, 3, True)
    machine = SlotMachine.objects.get(asset_number="NOG-0201")
    assert (machine.room.number, machine.bank, machine.pos_x, machine.pos_y, machine.stations) == (
        2,
        None,
        3,
        4,
        2,
    )
    assert SlotMachine.objects.get(asset_number="NOG-0101").bank.code == "DV"
    again = inventory_import(_csv(*GOOD[:2], GOOD[2].replace("Grease", "Grease Deluxe")), dry_run=True)
    assert (again.new, again.updated, again.unchanged) == (0, 1, 2)


def test_any_bad_row_imports_nothing_and_names_lines_and_reasons(rooms):
    rows = [
        GOOD[0],
        "NOG-0102,SN2,IGT,Diamond Vault,50,500,450,1,NOG,1,DV,1,0,in_service,10",  # min above max
        "NOG-0103,SN3,IGT,Diamond Vault,50,50,450,1,NOG,9,,1,0,in_service,10",  # no such room
        "NOG-0104,SN4,IGT,Diamond Vault,abc,50,450,1,NOG,1,,1,0,in_service,10",  # not a number
        "NOG-0105,SN5,IGT,Diamond Vault,50,50,450,1,NOG,1,XX,1,0,in_service,10",  # no such bank
        "NOG-0106,SN6,IGT,Diamond Vault,50,50,450,1,NOG,1,,99,0,in_service,10",  # off the grid
        "NOG-0107,SN7,IGT,Diamond Vault,50,50,450,1,NOG,1,,2,0,broken,10",  # unknown status
    ]
    report = inventory_import(_csv(*rows), dry_run=False)
    assert not report.ok and not report.imported
    assert SlotMachine.objects.count() == 0
    got = {problem.line: (problem.asset, " ".join(problem.reasons)) for problem in report.problems}
    assert sorted(got) == [3, 4, 5, 6, 7, 8]
    assert got[3] == ("NOG-0102", "max_bet_cents: The maximum bet is below the minimum bet.")
    assert got[4] == ("NOG-0103", "room: No room 9 in venue NOG.")
    assert got[5] == ("NOG-0104", "denomination_cents: 'abc' is not a whole number.")
    assert got[6] == ("NOG-0105", "bank: No bank XX in NOG Sala 1.")
    assert got[7] == ("NOG-0106", "pos_x: Column 99 is outside the room's 20 columns.")
    assert got[8][0] == "NOG-0107" and "status" in got[8][1]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"\xff\xfe\x00", "The file is not UTF-8 text."),
        (b"serial,manufacturer\nSN1,IGT\n", "The first line must name the columns, asset_number among them."),
    ],
)
def test_unreadable_file_is_refused_whole(rooms, content, message):
    with pytest.raises(InventoryFileError, match=message):
        inventory_import(content, dry_run=True)


def test_export_round_trips(rooms):
    inventory_import(_csv(*GOOD), dry_run=False)
    from workspace.inventory.services import inventory_export

    exported = inventory_export()
    rows = list(csv.reader(io.StringIO(exported)))
    assert ",".join(rows[0]) == HEADER + SAS_HEADER
    assert rows[1] == [*GOOD[0].split(","), "", "", "0", ""]  # not on SAS
    assert inventory_import(exported.encode(), dry_run=True).unchanged == 3


SAS_HEADER = ",sas_line,sas_address,sas_group,sas_handpay_limit_cents"
SAS_GOOD = [
    f"{GOOD[0]},line-1,1,1,120000",
    f"{GOOD[1]},line-1,2,1,",
    f"{GOOD[2]},,,0,",
]


def _sas_csv(*rows: str) -> bytes:
    return ("\n".join([HEADER + SAS_HEADER, *rows]) + "\n").encode()


def test_sas_columns_import_and_export(rooms):
    report = inventory_import(_sas_csv(*SAS_GOOD), dry_run=False)
    assert (report.ok, report.new) == (True, 3)
    got = SlotMachine.objects.values_list(
        "asset_number", "sas_line", "sas_address", "sas_group", "sas_handpay_limit_cents"
    )
    assert list(got) == [
        ("NOG-0101", "line-1", 1, 1, 120_000),
        ("NOG-0102", "line-1", 2, 1, None),
        ("NOG-0201", "", None, 0, None),
    ]
    from workspace.inventory.services import inventory_export

    rows = list(csv.reader(io.StringIO(inventory_export())))
    assert rows[1][-4:] == ["line-1", "1", "1", "120000"]


def test_sas_columns_refused_with_reasons(rooms):
    rows = [
        SAS_GOOD[0],
        f"{GOOD[1]},line-1,1,1,",  # NOG-0101 has address 1 on line-1
        f"{GOOD[2].replace('NOG-0201', 'NOG-0202')},line-2,128,0,",  # address out of range
        f"{GOOD[2].replace('NOG-0201', 'NOG-0203')},line-2,,0,",  # a line without an address
        f"{GOOD[2].replace('NOG-0201', 'NOG-0204')},line-2,x,0,",  # not a number
    ]
    report = inventory_import(_sas_csv(*rows), dry_run=False)
    assert not report.imported and SlotMachine.objects.count() == 0
    got = {problem.line: " ".join(problem.reasons) for problem in report.problems}
    assert got == {
        3: "sas_address: NOG-0101 already has SAS address 1 on line line-1.",
        4: "sas_address: Ensure this value is less than or equal to 127.",
        5: "sas_address: A machine on SAS needs both its SAS line and its SAS address; leave both empty "
        "otherwise.",
        6: "sas_address: 'x' is not a whole number.",
    }


@pytest.mark.parametrize(
    ("who", "status"), [("manager", 200), ("attendant", 403), ("auditor", 403), ("plain_staff", 403)]
)
def test_inventory_page_by_role(client, request, rooms, who, status):
    client.force_login(request.getfixturevalue(who))
    assert client.get(reverse("workspace:inventory")).status_code == status
    assert client.get(reverse("workspace:inventory"), {"format": "csv"}).status_code == status
    upload = SimpleUploadedFile("m.csv", _csv(*GOOD), content_type="text/csv")
    response = client.post(reverse("workspace:inventory"), {"file": upload, "confirm": "1"})
    assert response.status_code == status
    assert SlotMachine.objects.count() == (3 if status == 200 else 0)


@pytest.mark.parametrize(("who", "status"), [("manager", 200), ("attendant", 403)])
def test_the_sas_columns_through_the_page_by_role(client, request, rooms, who, status):
    client.force_login(request.getfixturevalue(who))
    upload = SimpleUploadedFile("m.csv", _sas_csv(*SAS_GOOD), content_type="text/csv")
    response = client.post(reverse("workspace:inventory"), {"file": upload, "confirm": "1"})
    assert response.status_code == status
    got = SlotMachine.objects.filter(sas_address__isnull=False).values_list("asset_number", "sas_address")
    expected = (3, [("NOG-0101", 1), ("NOG-0102", 2)]) if status == 200 else (0, [])
    assert (SlotMachine.objects.count(), list(got.order_by("asset_number"))) == expected


def test_page_preview_and_errors(client, manager, rooms):
    client.force_login(manager)
    upload = SimpleUploadedFile("m.csv", _csv(*GOOD), content_type="text/csv")
    body = client.post(reverse("workspace:inventory"), {"file": upload}).content.decode()
    assert "Dry run: 3 rows, 3 new, 0 updated, 0 unchanged." in body
    assert SlotMachine.objects.count() == 0
    bad = SimpleUploadedFile(
        "m.csv", _csv(GOOD[0], GOOD[1].replace(",NOG,1,", ",NOG,7,")), content_type="text/csv"
    )
    response = client.post(reverse("workspace:inventory"), {"file": bad, "confirm": "1"})
    assert response.status_code == 400
    body = response.content.decode()
    assert "1 row is wrong; nothing was imported." in body
    assert "<td>3</td><td>NOG-0102</td><td>room: No room 7 in venue NOG.</td>" in body
    assert SlotMachine.objects.count() == 0
