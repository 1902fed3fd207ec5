"""Contributions in the game report per machine, bank, room, venue and day, against the raw events."""

from __future__ import annotations

import csv
import io
import itertools
from collections import defaultdict
from datetime import date, datetime, timedelta
from decimal import Decimal
from unittest import mock
from zoneinfo import ZoneInfo

import pytest
from django.urls import reverse
from django.utils import timezone
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from common.days import business_date_of
from jackpots.models import LedgerEntry, MachineContribution
from jackpots.services import contributions_apply, core
from jackpots.services.levels import level_create
from tests.factories import (
    BankFactory,
    ProgressiveFactory,
    ProgressiveMachineFactory,
    RoomFactory,
    SlotMachineFactory,
    VenueFactory,
)
from tests.jackpots.factories import GameEventFactory
from workspace.models import MachineHourStat
from workspace.reports.selectors import game_report
from workspace.reports.services import machine_hour_stats_refresh

EXACT = core.Params(reset_mc=100_000, rate=Decimal("0.01"), reserve_rate=Decimal("0.002"))  # 12 mc a cent
ODD = core.Params(
    reset_mc=100_000, rate=Decimal("0.00333"), reserve_rate=Decimal("0.0007"), min_wager_cents=200
)
_codes = itertools.count(1)
ROME = ZoneInfo("Europe/Rome")


def _floor(code: str):
    """Two rooms; room 1 has two banks of one machine, room 2 one bank of two; one machine elsewhere."""
    venue = VenueFactory(code=code, name=code)
    rooms = [RoomFactory(venue=venue), RoomFactory(venue=venue)]
    banks = [BankFactory(room=rooms[0]), BankFactory(room=rooms[0]), BankFactory(room=rooms[1])]
    machines = [
        SlotMachineFactory(asset_number=f"{code}-{i}", room=bank.room, bank=bank)
        for i, bank in enumerate([banks[0], banks[1], banks[2], banks[2]])
    ]
    elsewhere = SlotMachineFactory(
        asset_number=f"{code}-X", room=RoomFactory(venue=VenueFactory(code=f"{code}X"))
    )
    progressive = ProgressiveFactory(kind="wide_area")
    for machine in [*machines, elsewhere]:
        ProgressiveMachineFactory(progressive=progressive, machine=machine)
    levels = [
        level_create(progressive, name="Exact", position=1, params=EXACT),
        level_create(progressive, name="Odd", position=2, params=ODD),
    ]
    return venue, rooms, banks, machines, elsewhere, levels


def _report_days(venue):
    today = business_date_of(timezone.now(), venue.time_zone)
    return today, today


def _by(report) -> dict[str, int]:
    return {" ".join(row.labels): row.contributions_mc for row in report.rows}


def test_contributions_per_machine_bank_room_venue_and_day(db):
    venue, rooms, banks, machines, elsewhere, _ = _floor("NOG")
    wagers = [(0, 150), (0, 250), (1, 300), (2, 199), (3, 1_000), (3, 201)]
    for index, cents in wagers:
        GameEventFactory(machine=machines[index], wager_cents=cents)
    GameEventFactory(machine=elsewhere, wager_cents=5_000)
    assert contributions_apply(batch_size=3) == 7
    machine_hour_stats_refresh()
    first, last = _report_days(venue)

    by_machine = _by(game_report(venue, first, last, "machine"))
    # The exact level gives each machine 12 mc a cent. The odd one (>= €2.00 only, 3.33 + 0.7 mc a cent)
    # is allocated within each batch: batch 1 (events 1-3) has 250 + 300 eligible cents, floor(550 x 3.33)
    # = 1,831 and floor(550 x 0.7) = 385; batch 2 (4-6) 1,000 + 201 (the carry: floor(1,751 x 3.33) - 1,831
    # = 3,999, floor(1,751 x 0.7) - 385 = 840); batch 3 the other venue's 5,000.
    # Machine 0: 400 x 12 + (832 + 175); machine 1: 300 x 12 + (999 + 210) (largest remainders).
    assert by_machine == {
        "NOG-0 Diamond Vault": 400 * 12 + 832 + 175,
        "NOG-1 Diamond Vault": 300 * 12 + 999 + 210,
        "NOG-2 Diamond Vault": 199 * 12,
        "NOG-3 Diamond Vault": 1_201 * 12 + 3_999 + 840,
    }
    ledger = LedgerEntry.objects.filter(kind=LedgerEntry.Kind.CONTRIBUTION)
    everything = sum(entry.contributed_mc for entry in ledger)
    elsewhere_mc = 5_000 * 12 + (16_650 + 3_500)
    assert sum(by_machine.values()) == everything - elsewhere_mc

    by_bank = _by(game_report(venue, first, last, "bank"))
    assert by_bank == {
        f"{banks[0].code} {rooms[0].name}": by_machine["NOG-0 Diamond Vault"],
        f"{banks[1].code} {rooms[0].name}": by_machine["NOG-1 Diamond Vault"],
        f"{banks[2].code} {rooms[1].name}": by_machine["NOG-2 Diamond Vault"]
        + by_machine["NOG-3 Diamond Vault"],
    }
    by_room = _by(game_report(venue, first, last, "room"))
    assert by_room == {
        rooms[0].name: by_bank[f"{banks[0].code} {rooms[0].name}"]
        + by_bank[f"{banks[1].code} {rooms[0].name}"],
        rooms[1].name: by_bank[f"{banks[2].code} {rooms[1].name}"],
    }
    venue_report = game_report(venue, first, last, "venue")
    assert _by(venue_report) == {"NOG": sum(by_machine.values())}
    assert venue_report.total.contributions_mc == sum(by_machine.values())
    assert venue_report.total.contributions_cents == sum(by_machine.values()) // 1000
    day = game_report(venue, first, last, "day")
    assert [(row.key, row.contributions_mc) for row in day.rows] == [(first, sum(by_machine.values()))]


contribution_events = st.lists(
    st.tuples(st.integers(0, 4), st.integers(min_value=0, max_value=5_000)), min_size=1, max_size=30
)


@pytest.mark.django_db
@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(stream=contribution_events, batch_size=st.integers(min_value=1, max_value=10))
def test_report_totals_equal_the_closed_form_of_the_raw_events(stream, batch_size):
    venue, _, _, machines, elsewhere, levels = _floor(f"P{next(_codes)}")
    eligible = {level.id: defaultdict(int) for level in levels}
    for index, cents in stream:
        machine = [*machines, elsewhere][index]
        GameEventFactory(machine=machine, wager_cents=cents)
        if machine is not elsewhere:
            eligible[levels[0].id][machine.id] += cents
            if cents >= ODD.min_wager_cents:
                eligible[levels[1].id][machine.id] += cents
    contributions_apply(batch_size=batch_size)
    machine_hour_stats_refresh()
    first, last = _report_days(venue)
    report = game_report(venue, first, last, "machine")
    # The exact level: each machine's own closed form; every level: the venue's machines together get what
    # the level's ledger took in minus the other venue's part, and the whole level follows the carry rule.
    exact = {
        machine.id: cents * 12 for machine, cents in ((m, eligible[levels[0].id][m.id]) for m in machines)
    }
    odd = {m.id: MachineContribution.objects.filter(level=levels[1], machine=m) for m in machines}
    odd_mc = {machine_id: sum(r.contributed_mc for r in rows) for machine_id, rows in odd.items()}
    expected = {machine_id: exact[machine_id] + odd_mc[machine_id] for machine_id in exact}
    shown = {row.key: row.contributions_mc for row in report.rows if row.contributions_mc}
    assert shown == {machine_id: mc for machine_id, mc in expected.items() if mc}
    all_odd = sum(c for _, c in stream if c >= ODD.min_wager_cents)
    odd_total = core.share_mc(all_odd, ODD.rate) + core.share_mc(all_odd, ODD.reserve_rate)
    odd_elsewhere = sum(
        r.contributed_mc for r in MachineContribution.objects.filter(level=levels[1], machine=elsewhere)
    )
    assert sum(odd_mc.values()) + odd_elsewhere == odd_total
    total = game_report(venue, first, last, "venue").total.contributions_mc
    assert total == sum(exact.values()) + odd_total - odd_elsewhere
    for group_by in ("bank", "room", "day"):
        assert game_report(venue, first, last, group_by).total.contributions_mc == total


def test_csv_and_page_show_contributions_rounded_down(client, manager):
    venue, _, _, machines, _, _ = _floor("NOG")
    GameEventFactory(machine=machines[0], wager_cents=12_345)
    contributions_apply()
    machine_hour_stats_refresh()
    first, _ = _report_days(venue)
    # 12,345 x 12 = 148,140 mc; the odd level: floor(12,345 x 3.33) + floor(12,345 x 0.7) = 41,108 + 8,641.
    assert game_report(venue, first, first, "machine").total.contributions_mc == 197_889
    client.force_login(manager)
    params = {"venue": "NOG", "first": str(first), "last": str(first), "group_by": "machine"}
    page = client.get(reverse("workspace:report-games"), params).content.decode()
    assert "<th>Contributions</th>" in page
    assert '<td class="num">€ 1.97</td>' in page  # €1.97889 rounded down
    export = client.get(reverse("workspace:report-games"), {**params, "format": "csv"})
    rows = list(csv.reader(io.StringIO(export.content.decode())))
    assert rows[0][6] == "Contributions (EUR)"
    assert [rows[1][0], rows[1][6]] == ["NOG-0 Diamond Vault", "1.97"]
    assert [rows[2][0], rows[2][6]] == ["Total", "1.97"]


def _contributions_summed_independently(venue, group_by: str) -> dict[object, int]:
    """The venue's MachineContribution rows summed in Python, per machine or per business day (the wall
    clock in Rome, six hours back, of the row's time)."""
    sums: dict[object, int] = defaultdict(int)
    for row in MachineContribution.objects.filter(machine__room__venue=venue):
        wall = row.at.astimezone(ROME)
        day = wall.date() - timedelta(days=1) if wall.hour < 6 else wall.date()
        sums[row.machine_id if group_by == "machine" else day] += row.contributed_mc
    return {key: mc for key, mc in sums.items() if mc}


def test_summary_takes_contribution_rows_landing_after_their_hour_was_summarized(db):
    venue, _, _, machines, elsewhere, _ = _floor("NOG")
    # 05:00-06:00 in Rome is the last hour of business day 20 November.
    hour = datetime(2026, 11, 21, 5, tzinfo=ROME)

    def at(minutes: float) -> datetime:
        return hour + timedelta(minutes=minutes)

    def play(minutes: float, *wagers: tuple[int, int]) -> None:
        for index, cents in wagers:
            GameEventFactory(machine=[*machines, elsewhere][index], wager_cents=cents, at=at(minutes))

    def apply(minutes: float) -> None:
        with mock.patch("django.utils.timezone.now", return_value=at(minutes)):
            assert contributions_apply() > 0

    def refresh(minutes: float) -> None:
        machine_hour_stats_refresh(now=at(minutes))

    def stat(machine, minutes: float) -> tuple[int, int]:
        row = MachineHourStat.objects.get(machine=machine, hour=at(minutes).replace(minute=0, second=0))
        return row.games, row.contributed_mc

    play(10, (0, 1_000), (2, 500), (4, 700))
    refresh(11)
    assert stat(machines[0], 10) == (1, 0)  # summarized before its batch was applied
    # Refreshes every three minutes settle the checkpoints: the game events are no longer rescanned, only
    # the contribution rows can tell the refresh that the hour changed.
    refresh(14)
    refresh(17)
    assert MachineHourStat.objects.filter(contributed_mc__gt=0).count() == 0
    apply(20)  # the rows land in the same hour, already summarized
    refresh(21)
    assert stat(machines[0], 10) == (1, 1_000 * 12 + 3_330 + 700)  # odd level: 1,000 x 3.33, x 0.7
    # Games in the hour's last seconds, summarized, then applied after 06:00: the next hour (and business
    # day) gets the contributions and no games.
    play(59.9, (1, 250), (3, 2_000))
    refresh(59.95)
    assert stat(machines[1], 59) == (1, 0)
    apply(60.1)
    refresh(61)
    assert stat(machines[1], 60) == (0, 250 * 12 + 832 + 175)  # odd level: floor(250 x 3.33), (x 0.7)
    assert stat(machines[1], 59) == (1, 0)
    assert stat(machines[3], 60) == (0, 2_000 * 12 + 6_660 + 1_400)

    first, last = date(2026, 11, 20), date(2026, 11, 21)
    by_machine = {row.key: row.contributions_mc for row in game_report(venue, first, last, "machine").rows}
    expected = _contributions_summed_independently(venue, "machine")
    assert by_machine == expected
    assert by_machine == {
        machines[0].id: 1_000 * 12 + 3_330 + 700,
        machines[1].id: 250 * 12 + 832 + 175,
        machines[2].id: 500 * 12 + 1_665 + 350,
        machines[3].id: 2_000 * 12 + 6_660 + 1_400,
    }
    by_day = {row.key: row.contributions_mc for row in game_report(venue, first, last, "day").rows}
    assert by_day == _contributions_summed_independently(venue, "day")
    assert by_day == {
        date(2026, 11, 20): by_machine[machines[0].id] + by_machine[machines[2].id],
        date(2026, 11, 21): by_machine[machines[1].id] + by_machine[machines[3].id],
    }
    assert game_report(venue, first, last, "venue").total.contributions_mc == sum(expected.values())
    # Refreshing again changes nothing.
    refresh(70)
    assert game_report(venue, first, last, "venue").total.contributions_mc == sum(expected.values())
