"""An installation upgrades in place to the one-way house: the database of the code before it, with its
events, hits, ledger, keys, table rounds and hour summaries, migrates to the new layout with nothing lost
or copied by hand, and the engine's audit is clean afterwards.

``main_before_house.json`` was made by ``make_fixture.py`` on that code. The test migrates a database
back to the schema that code had, loads the rows into it through the historical models (as they were
then: the hour summaries in ``floor``), migrates forward and compares.
"""

from __future__ import annotations

import json
from collections import Counter
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.color import no_style
from django.db import connection, transaction
from django.db.migrations.executor import MigrationExecutor
from django.test import Client

from jackpots.models import Hit, LedgerEntry, Level
from slots.models import GatewayKey, MachineEvent, MachineKey
from tables.models import PrizeShare, TableKey, TableRound, TableSeat
from tests.migrations import migrate, migrate_latest
from workspace.models import MachineHourStat, ReportRefreshState

FIXTURE = Path(__file__).with_name("main_before_house.json")
# The leaf migrations of the code that made the fixture.
BEFORE_HOUSE = [
    ("floor", "0005_hourstat_contributions"),
    ("slots", "0006_event_queue_play_order"),
    ("jackpots", "0009_hit_play_order_refusals"),
    ("workspace", None),
]
MOVED = {
    "floor.machinehourstat": "workspace.machinehourstat",
    "floor.reportrefreshstate": "workspace.reportrefreshstate",
}


def _rows_load(executor: MigrationExecutor, rows: list[dict]) -> None:
    """The fixture's rows into the old schema, through the historical models of that state."""
    state = executor.loader.project_state(BEFORE_HOUSE[:3])
    apps = state.apps
    models = []
    with transaction.atomic():  # foreign keys are checked at the commit, whatever the rows' order
        _rows_create(apps, rows, models)
    with connection.cursor() as cursor:
        for sql in connection.ops.sequence_reset_sql(no_style(), set(models)):
            cursor.execute(sql)


def _rows_create(apps, rows: list[dict], models: list) -> None:
    for row in rows:
        model = apps.get_model(row["model"])
        values = {}
        for name, value in row["fields"].items():
            field = model._meta.get_field(name)
            if field.many_to_many:
                continue  # no group or permission rows in the fixture
            values[field.attname] = value
        model.objects.create(pk=row["pk"], **values)
        models.append(model)


def _money(rows: list[dict], model: str, field: str) -> int:
    return sum(row["fields"][field] for row in rows if row["model"] == model)


@pytest.mark.django_db(transaction=True)
def test_the_database_before_the_house_upgrades_in_place():
    """One test: migrating back and forth is what costs (about 15 s forward, the upgrade, and less back)."""
    rows = json.loads(FIXTURE.read_text())
    # The fixture's levels all play; stop one as an operator could have then (issue 30: level states).
    stopped = next(row for row in rows if row["model"] == "jackpots.level" and row["pk"] == 3)
    stopped["fields"]["stopped"] = True
    counts = Counter(MOVED.get(row["model"], row["model"]) for row in rows)
    executor = migrate(BEFORE_HOUSE)
    try:
        _rows_load(executor, rows)
    finally:
        migrate_latest()

    assert MachineEvent.objects.count() == counts["slots.machineevent"] == 121
    assert LedgerEntry.objects.count() == counts["jackpots.ledgerentry"] == 129
    assert Hit.objects.count() == counts["jackpots.hit"] == 3
    assert TableRound.objects.count() == counts["jackpots.tableround"] == 4
    assert TableSeat.objects.count() == counts["jackpots.tableseat"] == 6
    assert (
        MachineKey.objects.count() == 3 and GatewayKey.objects.count() == 1 and TableKey.objects.count() == 5
    )
    # The hour summaries now belong to workspace, with every row and every cent.
    assert MachineHourStat.objects.count() == counts["workspace.machinehourstat"] == 6
    assert ReportRefreshState.objects.count() == 1
    assert sum(MachineHourStat.objects.values_list("coin_in_cents", flat=True)) == _money(
        rows, "floor.machinehourstat", "coin_in_cents"
    )
    assert sum(Level.objects.values_list("current_mc", flat=True)) == _money(
        rows, "jackpots.level", "current_mc"
    )
    # Hits numbered per venue and business year in the order they were won (issue 21, finding 7); every
    # seat of a shared prize has its part, in its venue's currency, summing to the prize.
    hits = list(Hit.objects.order_by("at", "id"))
    assert all(hit.ref for hit in hits) and len({hit.ref for hit in hits}) == 3
    for code in {hit.ref.split("-")[0] for hit in hits}:
        numbers = [int(hit.ref.rsplit("-", 1)[1]) for hit in hits if hit.ref.startswith(code)]
        assert numbers == list(range(1, len(numbers) + 1))
    for share in PrizeShare.objects.filter(voided=False):
        assert share.prize_parts.count() == share.seats.count()
        if {seat.round.rate for seat in share.seats.all()} == {1}:
            assert sum(part.amount_cents for part in share.prize_parts.all()) == share.prize_cents
    paid = Hit.objects.get(state=Hit.State.PAID, kind="machine")
    assert (paid.verified_by.username, paid.second_verified_by.username, paid.paid_by.username) == (
        "first",
        "second",
        "second",
    )

    # Levels have a state now: every level that played is active, the stopped one suspended.
    assert dict(Level.objects.values_list("id", "state")) == {1: "active", 2: "active", 3: "suspended"}
    assert not any(field.name == "stopped" for field in Level._meta.get_fields())

    out = StringIO()
    call_command("jackpots_audit", stdout=out)
    assert out.getvalue().strip().endswith("Audit clean: 3 levels.")

    # Keys are stored as digests only, so the fixture cannot give one back; a key that no longer exists
    # must still be refused the same way, and a new hour row must take the next id after the old ones.
    response = Client().post(
        "/api/v1/events",
        {"events": []},
        content_type="application/json",
        HTTP_AUTHORIZATION="Bearer pv_mach_x",
    )
    assert (response.status_code, response.json()["error"]) == (401, "invalid_key")
    highest = max(row["pk"] for row in rows if row["model"] == "floor.machinehourstat")
    stat = MachineHourStat.objects.first()
    copy = MachineHourStat.objects.create(
        machine_id=stat.machine_id,
        hour=stat.hour.replace(year=stat.hour.year - 1),
        business_date=stat.business_date,
    )
    assert copy.pk == highest + 1
