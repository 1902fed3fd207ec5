"""The inventory import takes only what the floor and the gateway can run (issue 28, finding 6): every
field checked, each asset once per file, formulas escaped on export, files bounded."""

from __future__ import annotations

import csv
import io
import resource
import time

import pytest

from slots.models import SlotMachine
from tests.workspace.test_inventory import GOOD, HEADER, SAS_GOOD, _csv, _sas_csv, rooms  # noqa: F401
from workspace.inventory.services import MAX_ROWS, InventoryFileError, inventory_export, inventory_import

FIELDS = GOOD[2].split(",")  # NOG-0201, a machine off SAS; the SAS columns follow: ,,0,


def row(sas: str = ",,0,", **values: str) -> str:
    """GOOD[2] with some columns changed (by the header's names), and its SAS columns."""
    names = HEADER.split(",")
    cells = dict(zip(names, FIELDS, strict=True)) | values
    return ",".join(cells[name] for name in names) + "," + sas


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        (
            row(sas="line-2,3,1,", denomination_cents="0"),
            "denomination_cents: The denomination is at least a cent.",
        ),
        (
            row(sas="line-2,3,1,", denomination_cents="7"),
            "denomination_cents: 7 cents is not a SAS denomination the gateway can convert "
            "(1, 2, 5, 10, 25, 50, 100... cents).",
        ),
        (row(stations="0"), "stations: A machine has at least one station."),
        (row(min_bet_cents="0"), "min_bet_cents: The minimum bet is at least a cent."),
        (row(min_bet_cents="400"), "max_bet_cents: The maximum bet is below the minimum bet."),
        (row(meter_digits="0"), "meter_digits: SAS meters have 8 to 18 digits, not 0."),
        (row(meter_digits="40"), "meter_digits: SAS meters have 8 to 18 digits, not 40."),
        (row(room="٣"), "room: No room ٣ in venue NOG."),
        (row(room="02"), "room: No room 02 in venue NOG."),
        (row(venue="nog"), "room: No room 2 in venue nog."),
        (row(stations="٣"), "stations: '٣' is not a whole number."),
        (
            row(asset_number="NOG 0201"),
            "asset_number: 'NOG 0201' is not an asset number: upper-case letters and digits with inner "
            "hyphens, as NOG-0101.",
        ),
        (
            row(asset_number="nog-0201"),
            "asset_number: 'nog-0201' is not an asset number: upper-case letters and digits with inner "
            "hyphens, as NOG-0101.",
        ),
    ],
)
def test_a_row_the_floor_or_gateway_cannot_run_is_refused(rooms, line, reason) -> None:  # noqa: F811
    report = inventory_import(_sas_csv(line), dry_run=False)
    assert [(problem.line, problem.reasons) for problem in report.problems] == [(2, [reason])]
    assert not report.imported and SlotMachine.objects.count() == 0


def test_a_sas_machine_at_a_sas_denomination_and_18_digit_meters_is_taken(rooms) -> None:  # noqa: F811
    report = inventory_import(
        _sas_csv(row(sas="line-2,3,1,", denomination_cents="2", meter_digits="18")), dry_run=False
    )
    assert (report.ok, report.new) == (True, 1)


def test_each_asset_once_per_file(rooms) -> None:  # noqa: F811
    report = inventory_import(_csv(GOOD[0], GOOD[1], GOOD[0].replace("SN1", "SN9")), dry_run=False)
    assert [(p.line, p.asset, p.reasons) for p in report.problems] == [
        (4, "NOG-0101", ["asset_number: NOG-0101 is already on line 2."])
    ]
    assert SlotMachine.objects.count() == 0


def test_formulas_are_escaped_on_export_and_round_trip(rooms) -> None:  # noqa: F811
    titles = ["=HYPERLINK(1)", "+1", "-2", "@SUM(A1)", "\tTab", "\rCR", "Grease"]
    lines = [
        row(asset_number=f"NOG-090{i}", game_title=f'"{title}"', pos_x=str(i))
        for i, title in enumerate(titles)
    ]
    assert inventory_import(_sas_csv(*lines), dry_run=False).imported
    exported = list(csv.DictReader(io.StringIO(inventory_export())))
    assert [line["game_title"] for line in exported] == [
        "'=HYPERLINK(1)", "'+1", "'-2", "'@SUM(A1)", "'\tTab", "'\rCR", "Grease"
    ]  # fmt: skip
    assert sorted(SlotMachine.objects.values_list("game_title", flat=True)) == sorted(titles)
    assert inventory_import(inventory_export().encode(), dry_run=True).unchanged == len(titles)


def test_a_file_over_the_bound_is_refused_with_a_sentence(rooms) -> None:  # noqa: F811
    lines = [row(asset_number=f"NOG-{i:05d}") for i in range(MAX_ROWS + 1)]
    with pytest.raises(InventoryFileError) as refused:
        inventory_import(_sas_csv(*lines), dry_run=True)
    assert str(refused.value) == f"At most {MAX_ROWS} machines per file."


def test_a_file_at_the_bound_is_checked_in_bounded_time(rooms, capsys) -> None:  # noqa: F811
    lines = [row(asset_number=f"NOG-{i:05d}", pos_x=str(i % 10), pos_y=str(i % 10)) for i in range(MAX_ROWS)]
    started, rss = time.monotonic(), resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    report = inventory_import(_sas_csv(*lines), dry_run=True)
    seconds = time.monotonic() - started
    with capsys.disabled():
        grown = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - rss) // 1024
        print(f"\n{MAX_ROWS} rows checked in {seconds:.1f} s, peak memory grown by {grown} MiB")
    assert (report.ok, report.new) == (True, MAX_ROWS)
    assert seconds < 60  # on the shared 2-core machine; the figure printed goes in docs/harden.md
